// The CSV and SVG exports of a state as a job done a slice at a time: the same files as
// `softmax-lab --export-csv` / `--export-svg` (export/csv.hpp and plot_export.hpp make them), handed
// to an ExportSink as they are made (export/export_sink.hpp): the window's new folder, written on a
// thread of its own (BackgroundJob), or the web page's .zip (app/web/zip_stream.hpp), made in its
// export worker. Above a size the page offers the subset instead: everything but the three full L×L
// attention maps, which become pooled maps, and a README.txt that says what was left out and how
// the desktop app writes the whole.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "i18n/i18n.hpp"
#include "plot/plot.hpp"
#include "smlab/error.hpp"
#include "smlab/progress.hpp"
#include "smlab/evaluate.hpp"
#include "smlab/params.hpp"
#include "export/export_sink.hpp"
#include "state/pins.hpp"

namespace smlab::app {

struct ExportRequest {
  enum class Kind { csv, svg };
  Kind kind = Kind::csv;
  // false: the subset (CSV only): the three L×L attention files are replaced by
  // attention_scaled_pooled.csv and attention_unscaled_pooled.csv (block maxima over
  // pooled_factor(L) × pooled_factor(L) cells, headed like a long import's pooled map) and a
  // README.txt saying what is left out and the desktop command that writes the whole.
  bool whole = true;
  Params params;  // the shown state (valid)
  std::vector<Pin> pins;
  // SVG only: the look the files are drawn in (the desktop's --export-svg: light style, the chosen
  // colormap and colour scales) and the language of their words.
  plot::Style style;
  i18n::Language language = i18n::Language::English;
  // The command line that reopens this state, for the subset's README ("--set seq_len=4096 ...").
  std::string command_line;
  // QKᵀ of these Params if the caller has it (the shown Snapshot's): used instead of recomputing it
  // when it matches (EvaluateOptions::score_cache), ~1 s at L = 4096 in the page.
  std::shared_ptr<const ScoreCache> score_cache;
};

// What the job reports as it goes: the fraction of the whole job done and what it is doing now (in
// the request's language). A smlab::ProgressSink (core/include/smlab/progress.hpp: the one
// progress-and-cancel mechanism of imports, exports and the page), kept for the page to read
// between slices; the job stops on its std::stop_token and says so with smlab::cancelled_error.
struct ExportProgress final : ProgressSink {
  double fraction = 0.0;
  std::string stage;
  void update(double done, std::string_view what) noexcept override {
    fraction = done;
    stage.assign(what);
  }
};

// Block size of the subset's pooled maps: at most 256 × 256 cells.
int pooled_factor(int seq_len);

// The CSV export's size before compression, estimated from the Params: the three L×L attention
// files (≈ 14 characters a weight) and the rest (≈ 8 MB at L = 4096, measured). The page offers
// the subset above a limit of this.
std::uint64_t estimated_csv_bytes(const Params& params);

class ExportJob {
 public:
  // The files go to `sink` as they are made; `stop` ends the job at its next check (the sink, never
  // finished, then leaves nothing behind).
  ExportJob(ExportRequest request, std::unique_ptr<exporting::ExportSink> sink, std::stop_token stop = {});
  ~ExportJob();
  ExportJob(const ExportJob&) = delete;
  ExportJob& operator=(const ExportJob&) = delete;

  // Works until `deadline` passes (one evaluation of a lab may run past it: it cannot be split) and
  // returns whether more work is left. Once it returns false the job is finished(), failed
  // (outcome() holds the Error) or cancelled (outcome() says so).
  bool step(std::chrono::steady_clock::time_point deadline);
  bool finished() const { return finished_; }
  // Ok, or why the job stopped ("export cancelled: nothing was changed" after `stop`).
  const Result<void>& outcome() const { return outcome_; }
  const ExportProgress& progress() const { return progress_; }
  // The files in the archive so far, in order (tests and the page's summary).
  const std::vector<std::string>& file_names() const { return names_; }
  exporting::ExportSink& sink() { return *sink_; }

 private:
  struct Task;
  void plan();
  void fail(Error error);
  Result<void> write_file(const std::string& name, std::string_view text);
  const Snapshot& view_snapshot(View view);

  ExportRequest request_;
  std::stop_token stop_;
  std::unique_ptr<exporting::ExportSink> sink_;
  ExportProgress progress_;
  std::deque<std::unique_ptr<Task>> tasks_;
  double planned_weight_ = 0.0, done_weight_ = 0.0;
  std::vector<std::string> names_;
  Result<void> outcome_;
  bool finished_ = false;

  // Shared between tasks: the dashboard's Snapshot, QKᵀ, the topped-up d_k sweep, the shown lab's
  // Snapshot and the pins' Snapshots.
  std::shared_ptr<const ScoreCache> score_cache_;
  std::optional<Snapshot> dashboard_;
  std::optional<DkSweep> csv_sweep_;
  std::optional<Snapshot> lab_;
  PinState pins_;
  // An attention file being written: its open row range.
  int next_row_ = 0;
};

}  // namespace smlab::app
