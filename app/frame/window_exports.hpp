// The window's exports while the window keeps drawing: File → Screenshot (F12), Export PNG at 1×, 2×
// or 4×, Export CSV and Export SVG, and the GIF recording of a sweep, all background work
// (work/work_runner.hpp). What needs ImGui and GL (a PNG's offscreen render, a GIF's frames) is done
// by an offscreen copy of the App, pumped on the UI thread a slice a window frame; making and writing
// the files runs on a thread of its own (work/background_job.hpp). Each shows its progress with a
// Cancel button, and a cancelled or failed export leaves no file (exports are all or nothing). The
// App holds one.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "i18n/i18n.hpp"
#include "platform/surface.hpp"
#include "report.hpp"
#include "smlab/error.hpp"
#include "work/background_job.hpp"
#include "state/ui_state.hpp"

namespace smlab::app {

struct AppOptions;

// A row of the background work shown with a Cancel button: the import behind a closed dialog, an
// export, the GIF recording.
struct ShownJob {
  enum class Kind { import, file_export, gif } kind;
  std::size_t index = 0;  // of the export
  JobProgress progress;
};

class WindowExports {
 public:
  // An export's row shows after this long (a quick export never flashes a bar).
  static constexpr double progress_delay_seconds = 0.5;
  // What an export's thread does: the status line it leaves, or why it failed.
  using Work = BackgroundJob<Result<std::string>>::Work;

  WindowExports();
  ~WindowExports();
  WindowExports(const WindowExports&) = delete;
  WindowExports& operator=(const WindowExports&) = delete;

  // Started by their commands. `copy` is the App state an offscreen copy draws (the window's).
  void start_png(const InteractionUi& state, platform::Surface& surface, const AppOptions& copy, const Report& report);
  void start_screenshot(platform::Surface& surface, const std::string& folder, i18n::Language language);
  void start_state_files(const UiState& ui, double now, i18n::Language language, bool svg);
  void start_gif(UiState& ui, platform::Surface& surface, const AppOptions& copy, const Report& report);

  // After every frame: the Cancel buttons pressed, a step of each PNG render, the finished exports
  // reported; then a step of the GIF recording.
  void step(UiState& ui, platform::Surface& surface, i18n::Language language, const Report& report);
  void step_gif(InteractionUi& state, platform::Surface& surface, const Report& report);

  [[nodiscard]] bool exporting() const { return !exports_.empty(); }
  [[nodiscard]] bool recording_gif() const { return gif_ != nullptr; }
  // A PNG's offscreen render takes a step each frame (the window must not sleep).
  [[nodiscard]] bool rendering() const;
  // The rows of the exports that have run for progress_delay_seconds, then the GIF recording's.
  void append_rows(std::vector<ShownJob>& rows, double now, const InteractionUi& state) const;
  // Cancels the running export `index` (in start order): nothing of it is left on disk. Its end (and
  // the status line that says so) comes with the next step().
  void cancel_export(std::size_t index);
  // A Cancel button pressed while drawing, acted on after the frame (step): an offscreen copy is
  // destroyed there, never inside the window's frame.
  void cancel_later(const ShownJob& job) { cancel_requests_.push_back(job); }
  // Called on an export's thread before it makes its files: a test holds an export while it looks
  // at the window.
  void set_hook(std::function<void()> hook) { hook_ = std::move(hook); }
  // Ends every export and the recording now (the App is going): what they staged is removed.
  void stop_all();

 private:
  struct RunningExport;
  class PngRender;
  class GifRecording;
  RunningExport& add(std::string what, double now);
  void start_job(RunningExport& running, Work work);
  // `folder`: where the PNG goes once rendered.
  void step_png_render(RunningExport& running, const std::string& folder, platform::Surface& surface,
                       i18n::Language language);
  void cancel_gif(InteractionUi& state, platform::Surface& surface, const Report& report);

  std::vector<std::unique_ptr<RunningExport>> exports_;  // in start order
  std::vector<ShownJob> cancel_requests_;
  std::unique_ptr<GifRecording> gif_;
  std::function<void()> hook_;
};

}  // namespace smlab::app
