// ExportJob: the export as a queue of tasks (evaluate, top up the d_k sweep, write a file or a block
// of an attention file's rows, evaluate the next lab), each run until the slice's deadline.
//
// [SECTION] Index
//   [SECTION] Sizes
//   [SECTION] Tasks
//   [SECTION] The plan: which tasks, in the order the desktop writes the files
//   [SECTION] Running
#include "export_job.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <utility>

#include "export/csv.hpp"
#include "panels/pins_panel.hpp"
#include "plot_export.hpp"
#include "smlab/montecarlo.hpp"
#include "work/evaluator.hpp"

namespace smlab::app {

// [SECTION] Sizes

int pooled_factor(int seq_len) { return std::max(1, (seq_len + 255) / 256); }

std::uint64_t estimated_csv_bytes(const Params& params) {
  // Long imported contexts keep pooled maps of at most pooled_side_max² cells instead.
  const auto side = static_cast<std::uint64_t>(std::max(params.seq_len, 2));
  const std::uint64_t cells = params.seq_len > stored_scores_max_length
                                  ? std::uint64_t{pooled_side_max} * std::uint64_t{pooled_side_max}
                                  : side * side;
  // Weights print as ~13 characters and a comma; the other files grow about linearly in L
  // (distribution.csv and the labs' per-key series: 7.9 MB at L = 4096, measured).
  return 3 * cells * 14 + side * 2000 + 400'000;
}

namespace {

// Shortest round-trip text of a float (the CSV contract: export/csv.hpp).
void append_float(std::string& out, float value) {
  std::array<char, 48> buffer{};
  const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  out.append(buffer.data(), ec == std::errc{} ? end : buffer.data());
}

using Clock = std::chrono::steady_clock;

}  // namespace

// [SECTION] Tasks

// One step of the plan: `run` works until the deadline and says whether it finished; `weight` is
// its share of the job's time (estimated), `done` how much of it is done (0..1) for the progress.
struct ExportJob::Task {
  std::string stage;
  double weight = 1.0;
  double done = 0.0;
  std::function<Result<bool>(Clock::time_point)> run;
};

ExportJob::ExportJob(ExportRequest request, std::unique_ptr<exporting::ExportSink> sink, std::stop_token stop)
    : request_(std::move(request)), stop_(std::move(stop)), sink_(std::move(sink)), score_cache_(request_.score_cache) {
  plan();
}

ExportJob::~ExportJob() = default;

void ExportJob::fail(Error error) {
  outcome_ = std::move(error);
  tasks_.clear();
}

Result<void> ExportJob::write_file(const std::string& name, std::string_view text) {
  if (Result<void> begun = sink_->begin_file(name); !begun.ok()) return begun;
  if (Result<void> written = sink_->write(text); !written.ok()) return written;
  if (Result<void> ended = sink_->end_file(); !ended.ok()) return ended;
  names_.push_back(name);
  return {};
}

// [SECTION] The plan: which tasks, in the order the desktop writes the files

void ExportJob::plan() {
  const i18n::Use language(request_.language);  // the stages' words
  const Params& params = request_.params;
  const double cells = static_cast<double>(params.seq_len) * static_cast<double>(params.seq_len);
  // Weights in estimated milliseconds of the page (one thread, wasm): a printed weight ~1 µs, QKᵀ
  // ~0.5 ns a multiply-add, a sweep trial ~5 ns a key and d_k point, a lab ~20 ns a cell.
  const double evaluate_ms = cells * params.key_dim * 0.5e-6 + 5.0;
  const double lab_ms = cells * 20e-6 + 5.0;
  auto add = [this](std::string stage, double weight, std::function<Result<bool>(Clock::time_point)> run) {
    tasks_.push_back(std::make_unique<Task>(Task{std::move(stage), weight, 0.0, std::move(run)}));
    planned_weight_ += weight;
  };

  // The dashboard's Snapshot, as --export-csv/--export-svg evaluate it (the SVG's d_k curve gets
  // a headless screenshot's refinement).
  add(i18n::tr("web.export.stage.dashboard"), evaluate_ms, [this](Clock::time_point) -> Result<bool> {
    EvaluateOptions options;
    options.dk_trials = headless_refine_trials(request_.params.seq_len);
    options.score_cache = &score_cache_;
    options.stop = stop_;
    std::optional<Snapshot> snapshot = evaluate(request_.params, options);
    if (!snapshot) return cancelled_error("export");
    dashboard_ = std::move(*snapshot);
    return true;
  });

  const auto labs = [&](bool csv) {
    for (const ViewInfo& info : all_views()) {
      if (info.view == View::dashboard && csv) continue;  // export_csv's files hold its numbers
      const View view = info.view;
      const std::string what =
          i18n::format("web.export.stage.writing", {std::string(info.name) + (csv ? "-*.csv" : "-*.svg")});
      add(what, view == View::dashboard ? 20.0 : lab_ms, [this, view, csv](Clock::time_point) -> Result<bool> {
        const Snapshot& snapshot = view_snapshot(view);
        const auto files = csv ? exporting::view_csv_files(snapshot, view)
                               : exporting::view_svg_files(snapshot, view, request_.style, request_.language);
        for (const auto& [name, text] : files)
          if (Result<void> written = write_file(name, text); !written.ok()) return written.error();
        return true;
      });
    }
  };

  const auto pins = [&](bool csv) {
    if (request_.pins.empty()) return;
    for (std::size_t k = 0; k < request_.pins.size(); ++k)
      add(i18n::format("web.export.stage.pin", {request_.pins[k].name}), evaluate_ms,
          [this, k](Clock::time_point) -> Result<bool> {
            // refresh_pins evaluates only the pins it has no Snapshot of: one more each slice.
            pins_.pins.assign(request_.pins.begin(), request_.pins.begin() + static_cast<std::ptrdiff_t>(k) + 1);
            refresh_pins(pins_);
            return true;
          });
    add(i18n::format("web.export.stage.writing", {csv ? "pins*.csv" : "pinned-*.svg"}), 5.0,
        [this, csv](Clock::time_point) -> Result<bool> {
          const auto files =
              csv ? pins_csv_files(pins_.pins, pins_.snapshots)
                  : pinned_svg_files(pins_, *dashboard_, request_.language, request_.style, 640.0f, 440.0f);
          for (const auto& [name, text] : files)
            if (Result<void> written = write_file(name, text); !written.ok()) return written.error();
          return true;
        });
  };

  if (request_.kind == ExportRequest::Kind::svg) {
    labs(false);
    pins(false);
    return;
  }

  // The d_k sweep of entropy_dk.csv, topped up to the desktop's trial count a chunk at a time (the
  // sweep does not depend on how its trials were split).
  const exporting::CsvOptions csv_options;
  const double sweep_ms = static_cast<double>(csv_options.min_dk_trials) * params.seq_len * 26 * 5e-6;
  add(i18n::tr("web.export.stage.sweep"), sweep_ms, [this, csv_options](Clock::time_point deadline) -> Result<bool> {
    if (!csv_sweep_) csv_sweep_ = exporting::csv_sweep_start(*dashboard_);
    DkSweep& sweep = *csv_sweep_;
    const std::int64_t chunk = std::max<std::int64_t>(1, 65536 / std::max(dashboard_->params.seq_len, 1));
    while (sweep.trials < csv_options.min_dk_trials) {
      add_dk_trials(sweep, std::min(chunk, csv_options.min_dk_trials - sweep.trials), 1);
      tasks_.front()->done = static_cast<double>(sweep.trials) / static_cast<double>(csv_options.min_dk_trials);
      if (Clock::now() >= deadline || stop_.stop_requested()) break;
    }
    return sweep.trials >= csv_options.min_dk_trials;
  });

  for (const std::string_view file_name : exporting::csv_file_names()) {
    const std::string name(file_name);
    const bool attention = name.starts_with("attention") && name != "attention_output.csv";
    if (!attention) {
      add(i18n::format("web.export.stage.writing", {name}), 5.0, [this, name](Clock::time_point) -> Result<bool> {
        if (Result<void> written = write_file(name, exporting::csv_file_text(*dashboard_, *csv_sweep_, name));
            !written.ok())
          return written.error();
        return true;
      });
      continue;
    }
    if (!request_.whole) continue;  // the subset's pooled maps follow below
    // A block of rows a time: ~230 MB of text per file at L = 4096.
    add(i18n::format("web.export.stage.writing", {name}), cells * 1e-3,
        [this, name](Clock::time_point deadline) -> Result<bool> {
          const Snapshot& snapshot = *dashboard_;
          const bool scaled = *exporting::csv_attention_map(snapshot, name);
          const int rows = exporting::csv_attention_rows(snapshot);
          if (next_row_ == 0) {
            if (Result<void> begun = sink_->begin_file(name); !begun.ok()) return begun.error();
            if (Result<void> written = sink_->write(exporting::csv_attention_header(snapshot)); !written.ok())
              return written.error();
          }
          std::string text;
          while (next_row_ < rows) {
            text.clear();
            exporting::append_csv_attention_rows(text, snapshot, scaled, next_row_, 1);
            if (Result<void> written = sink_->write(text); !written.ok()) return written.error();
            ++next_row_;
            tasks_.front()->done = static_cast<double>(next_row_) / rows;
            if (Clock::now() >= deadline || stop_.stop_requested()) return false;
          }
          next_row_ = 0;
          if (Result<void> ended = sink_->end_file(); !ended.ok()) return ended.error();
          names_.push_back(name);
          return true;
        });
  }

  if (!request_.whole) {
    // The subset's pooled maps: each line the block maxima of `factor` query rows, computed a row
    // at a time from attention_row (the same weights as the whole file).
    for (const bool scaled : {true, false}) {
      const std::string name = scaled ? "attention_scaled_pooled.csv" : "attention_unscaled_pooled.csv";
      add(i18n::format("web.export.stage.writing", {name}), cells * 0.05e-3,
          [this, name, scaled](Clock::time_point deadline) -> Result<bool> {
            const Snapshot& snapshot = *dashboard_;
            const int size = snapshot.attention_size;
            const int factor = pooled_factor(size), side = (size + factor - 1) / factor;
            if (next_row_ == 0) {
              if (Result<void> begun = sink_->begin_file(name); !begun.ok()) return begun.error();
              std::string header;
              for (int j = 0; j < side; ++j)
                header += (j == 0 ? "keys_" : ",keys_") + std::to_string(j * factor) + "-" +
                          std::to_string(std::min((j + 1) * factor, size) - 1);
              header += '\n';
              if (Result<void> written = sink_->write(header); !written.ok()) return written.error();
            }
            std::vector<float> row(static_cast<std::size_t>(size));
            std::vector<float> block(static_cast<std::size_t>(side), 0.0f);
            std::string text;
            // A block of `factor` rows is made whole within one call (factor ≤ 128 rows of ≤ 32768).
            while (next_row_ < size) {
              std::fill(block.begin(), block.end(), 0.0f);
              const int end = std::min(next_row_ + factor, size);
              for (int i = next_row_; i < end; ++i) {
                attention_row(snapshot, scaled, i, row);
                for (int j = 0; j < size; ++j) {
                  float& cell = block[static_cast<std::size_t>(j / factor)];
                  cell = std::max(cell, row[static_cast<std::size_t>(j)]);
                }
              }
              text.clear();
              for (int j = 0; j < side; ++j) {
                if (j > 0) text += ',';
                append_float(text, block[static_cast<std::size_t>(j)]);
              }
              text += '\n';
              if (Result<void> written = sink_->write(text); !written.ok()) return written.error();
              next_row_ = end;
              tasks_.front()->done = static_cast<double>(next_row_) / size;
              if (Clock::now() >= deadline || stop_.stop_requested()) return false;
            }
            next_row_ = 0;
            if (Result<void> ended = sink_->end_file(); !ended.ok()) return ended.error();
            names_.push_back(name);
            return true;
          });
    }
  }

  labs(true);
  pins(true);
  if (!request_.whole)
    add(i18n::format("web.export.stage.writing", {"README.txt"}), 1.0, [this](Clock::time_point) -> Result<bool> {
      const i18n::Use language(request_.language);
      const int size = dashboard_->attention_size, factor = pooled_factor(size);
      const auto megabytes = static_cast<double>(estimated_csv_bytes(request_.params)) / 1e6;
      std::string text = i18n::format("web.export.subset_readme", {std::to_string(size), std::to_string(factor),
                                                                   i18n::fixed(megabytes, 0), request_.command_line});
      text += '\n';
      if (Result<void> written = write_file("README.txt", text); !written.ok()) return written.error();
      return true;
    });
}

// The Snapshot holding `view`'s lab: the dashboard's for the dashboard, else evaluated once per lab
// (sharing QKᵀ and the dashboard's d_k sweep), as all_labs would give it.
const Snapshot& ExportJob::view_snapshot(View view) {
  if (view == View::dashboard) return *dashboard_;
  EvaluateOptions options;
  options.view = view;
  options.dk_trials = headless_refine_trials(request_.params.seq_len);
  options.score_cache = &score_cache_;
  options.previous_sweep = &dashboard_->dk_sweep;
  options.previous = &*dashboard_;
  options.stop = stop_;
  lab_ = evaluate(request_.params, options);
  return lab_ ? *lab_ : *dashboard_;  // cancelled: step() sees stop_ next
}

// [SECTION] Running

bool ExportJob::step(Clock::time_point deadline) {
  if (finished_ || !outcome_) return false;
  do {
    if (stop_.stop_requested()) {
      fail(cancelled_error("export"));
      return false;
    }
    if (tasks_.empty()) {
      if (Result<void> closed = sink_->finish(); !closed.ok()) {
        fail(closed.error());
        return false;
      }
      finished_ = true;
      progress_.update(1.0, "");
      return false;
    }
    Task& task = *tasks_.front();
    progress_.update((done_weight_ + task.weight * task.done) / std::max(planned_weight_, 1e-9), task.stage);
    Result<bool> ran = Error::file("");
    try {
      ran = task.run(deadline);
    } catch (const std::bad_alloc&) {
      ran = Error::file("export: out of memory (" + task.stage + ")");
    }
    if (!ran.ok()) {
      fail(ran.error());
      return false;
    }
    if (*ran) {
      done_weight_ += task.weight;
      tasks_.pop_front();
    }
  } while (Clock::now() < deadline);
  if (!tasks_.empty())
    progress_.update((done_weight_ + tasks_.front()->weight * tasks_.front()->done) / std::max(planned_weight_, 1e-9),
                     tasks_.front()->stage);
  return true;
}

}  // namespace smlab::app
