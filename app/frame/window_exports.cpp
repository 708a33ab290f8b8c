// The window's exports (window_exports.hpp).
//
// [SECTION] Index
//   [SECTION] The writing: a PNG, the CSV and SVG files
//   [SECTION] Starting an export
//   [SECTION] Each window frame: the offscreen steps, finished exports
//   [SECTION] The GIF recording
//   [SECTION] Progress and Cancel
#include "window_exports.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <optional>
#include <utility>

#include "app.hpp"
#include "export/export_job.hpp"
#include "export/gif.hpp"
#include "export/png.hpp"
#include "offscreen_app.hpp"
#include "platform/offscreen.hpp"
#include "platform/window.hpp"
#include "state/sweep.hpp"

namespace smlab::app {

// The offscreen copies an export draws with are background work pumped on the UI thread, a slice a
// window frame (work/work_runner.hpp): they need ImGui and GL, whose current context is one global.
// Each owns its offscreen surface and an App drawn on it; the surface is declared first, so the App
// (which uses the surface's contexts) is destroyed first.

// A PNG of the window at a scale: nothing until the copy's snapshot is evaluated (and refined as for
// --screenshot, polled, never waited for), then one frame a slice (ImGui settles auto-sized items over
// the first ones, as render_scaled_screenshot does), then the capture, cropped to the panel.
class WindowExports::PngRender final : public SlicedWork {
 public:
  PngRender(std::unique_ptr<platform::Offscreen> offscreen, const AppOptions& copy, int width, int height, float scale,
            std::string panel)
      : surface_(std::move(offscreen)),
        app_(std::make_unique<App>(*surface_, copy)),
        width_(width),
        height_(height),
        scale_(scale),
        panel_(std::move(panel)),
        runner(*this, {"smlab-png", {}, WorkRunner::Mode::pumped, {}}) {
    runner.poke();
  }

  NextSlice run_slice(WorkRunner::Clock::duration, const std::stop_token& stop) override {
    if (stop.stop_requested()) {  // still rendering offscreen: nothing was written
      outcome = cancelled_error("export");
      return NextSlice::finished();
    }
    App& copy = *app_;
    if (frames_drawn_ == 0 && !copy.evaluator().idle()) return NextSlice::now();
    copy.wait_for_snapshot();  // idle: at once
    copy.frame();
    ++frames_drawn_;
    runner.update(static_cast<double>(frames_drawn_) / scaled_screenshot_frames, "");
    if (frames_drawn_ < scaled_screenshot_frames) return NextSlice::now();
    const Image image = surface_->capture();
    const ImVec2 display(static_cast<float>(width_), static_cast<float>(height_));
    const Result<PanelRect> rect = panel_or_error(copy.ui(), display, panel_, "panel");
    if (!rect)
      outcome = rect.error();
    else
      outcome = panel_.empty() || panel_ == "window" ? image : crop_image(image, *rect, scale_);
    return NextSlice::finished();
  }

  std::optional<Result<Image>> outcome;  // the picture, or why there is none: set by the last slice

 private:
  std::unique_ptr<platform::Offscreen> surface_;
  std::unique_ptr<App> app_;
  int width_, height_;  // layout size, display units
  float scale_;
  std::string panel_;  // "window", "controls" or a plot's name
  int frames_drawn_ = 0;

 public:
  WorkRunner runner;  // last: goes before the App it runs
};

// The GIF recording of a sweep: a slice sets the next value, or, once that value's snapshot is
// evaluated (polled, never waited for), renders and adds its frame; the last writes the file. The
// window keeps drawing in between.
class WindowExports::GifRecording final : public SlicedWork {
 public:
  GifRecording(std::unique_ptr<platform::Offscreen> offscreen, const AppOptions& copy, SweepSpec spec, int frames,
               std::string folder)
      : surface_(std::move(offscreen)),
        app_(std::make_unique<App>(*surface_, copy)),
        spec_(std::move(spec)),
        frames_(frames),
        folder_(std::move(folder)),
        runner(*this, {"smlab-gif", {}, WorkRunner::Mode::pumped, {}}) {
    runner.poke();
  }

  NextSlice run_slice(WorkRunner::Clock::duration, const std::stop_token& stop) override {
    if (stop.stop_requested()) {  // nothing was written: the GIF's bytes are written only once complete
      outcome = cancelled_error("GIF recording");
      return NextSlice::finished();
    }
    App& copy = *app_;
    Result<void> step;
    if (!value_set_) {
      const std::string value = sweep_value(spec_, next_, frames_);
      step = set_param(copy.ui().params, spec_.key, value);
      copy.ui().scores_text = format_scores(copy.ui().params.scores);
      if (step.ok()) {
        copy.frame();  // submits the new value (and draws a frame nobody keeps)
        value_set_ = true;
      }
    } else if (copy.evaluator().idle()) {
      copy.wait_for_snapshot();
      // The first frame lets ImGui settle auto-sized items (like --screenshot); later ones need one.
      for (int pass = 0; pass < (next_ == 0 ? 3 : 1); ++pass) copy.frame();
      step = writer_.add_frame(surface_->capture());
      value_set_ = false;
      ++next_;
    }
    runner.update(static_cast<double>(next_) / frames_, "");
    if (step.ok() && next_ < frames_) return NextSlice::now();
    if (step.ok()) step = writer_.finish();
    if (step.ok())
      outcome = exporting::save_new_file(writer_.bytes(), folder_, ".gif", std::chrono::system_clock::now());
    else
      outcome = step.error();
    return NextSlice::finished();
  }

  std::optional<Result<std::filesystem::path>> outcome;  // the file written, or why none: the last slice's

 private:
  std::unique_ptr<platform::Offscreen> surface_;
  std::unique_ptr<App> app_;
  exporting::GifWriter writer_;
  SweepSpec spec_;
  int frames_;
  int next_ = 0;            // the frame being made
  bool value_set_ = false;  // frame `next_`'s value is set and submitted; capture once evaluated
  std::string folder_;

 public:
  WorkRunner runner;  // last: goes before the App it runs
};

struct WindowExports::RunningExport {
  std::string what;         // what it makes, for its progress row ("Exporting a PNG at 2x")
  double started_at = 0.0;  // the surface's clock: the row shows after export_progress_delay_seconds
  // A PNG of the window at a scale, rendered first by an offscreen copy of this App; null once
  // rendered, or for the other exports.
  std::unique_ptr<PngRender> render;
  bool rendered = false;  // a render came first: it was the first half of the progress
  // Making and writing the file(s); its result is the status line.
  std::unique_ptr<BackgroundJob<Result<std::string>>> job;
  std::optional<Error> failure;  // why it ended before a job started (render == nullptr and job == nullptr)
};

namespace {

// [SECTION] The writing: a PNG, the CSV and SVG files

// `image` encoded, then written as a new PNG in `folder` unless cancelled meanwhile. The result is
// the status line, in `language`.
WindowExports::Work png_work(Image image, std::string folder, i18n::Language language) {
  return [image = std::move(image), folder = std::move(folder),
          language](const Progress& progress) -> Result<std::string> {
    const i18n::Use words(language);
    progress.report(0.0);
    const std::vector<std::uint8_t> png = exporting::encode_png(image);  // one call: the long part
    if (png.empty()) return Error::file("cannot write a PNG into '" + folder + "': PNG encoding failed");
    if (progress.cancelled()) return cancelled_error("export");
    progress.report(0.9);
    const exporting::SavedScreenshot saved =
        exporting::save_new_file(png, folder, ".png", std::chrono::system_clock::now());
    if (!saved.ok()) return saved.error();
    return i18n::format("ui.status.png_saved",
                        {saved->string(), std::to_string(image.width), std::to_string(image.height)});
  };
}

// The files of --export-csv or --export-svg for `request` in a new folder of `parent` named `stem`,
// made by the ExportJob (the web page's too) in slices, every file or none.
WindowExports::Work state_files_work(ExportRequest request, std::string parent, std::string stem) {
  return [request = std::move(request), parent = std::move(parent),
          stem = std::move(stem)](const Progress& progress) mutable -> Result<std::string> {
    const i18n::Use words(request.language);
    const std::string kind = request.kind == ExportRequest::Kind::svg ? "SVG" : "CSV";
    auto created = exporting::FolderSink::create(parent, stem);
    if (!created) return created.error();
    const exporting::FolderSink& folder = **created;
    ExportJob job(std::move(request), std::move(*created), progress.stop_token());
    // A tenth of a second a slice, then the progress; the job checks the stop token between its
    // pieces, and the evaluations of the labs check it too.
    while (job.step(std::chrono::steady_clock::now() + std::chrono::milliseconds(100))) {
      const ExportProgress& made = job.progress();
      progress.part(made.fraction, made.fraction, made.stage).report(0.0);
    }
    if (!job.finished()) return Error::file(job.outcome().error().message);  // the job's folder goes with it, empty
    return i18n::format("ui.status.files_saved", {std::to_string(folder.files()), kind, folder.folder().string()});
  };
}

}  // namespace

// [SECTION] Starting an export

WindowExports::WindowExports() = default;

WindowExports::~WindowExports() { stop_all(); }

void WindowExports::stop_all() {
  // A recording's or an export's App has contexts of its own and leaves none current when it goes.
  // An export's thread is cancelled and waited for: what it staged is removed.
  gif_.reset();
  exports_.clear();
}

WindowExports::RunningExport& WindowExports::add(std::string what, double now) {
  auto running = std::make_unique<RunningExport>();
  running->what = std::move(what);
  running->started_at = now;
  exports_.push_back(std::move(running));
  return *exports_.back();
}

void WindowExports::start_job(RunningExport& running, Work work) {
  if (hook_)
    work = [hook = hook_, work = std::move(work)](const Progress& progress) {
      hook();
      return work(progress);
    };
  running.job = std::make_unique<BackgroundJob<Result<std::string>>>(std::move(work), &platform::Window::wake);
}

void WindowExports::start_png(const InteractionUi& state, platform::Surface& surface, const AppOptions& copy,
                              const Report& report) {
  const int scale = export_scales[std::clamp(state.export_scale_index, 0, 2)];
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  platform::OffscreenOptions offscreen;
  offscreen.width = static_cast<int>(std::lround(display.x));
  offscreen.height = static_cast<int>(std::lround(display.y));
  offscreen.framebuffer_scale = static_cast<float>(scale);
  offscreen.content_scale = surface.content_scale();
  auto created = platform::Offscreen::create(offscreen);
  if (!created) {
    surface.make_current();
    report(created.error().message, true);
    return;
  }
  RunningExport& running = add(i18n::format("ui.export.running.png", {std::to_string(scale)}), surface.time_seconds());
  running.render = std::make_unique<PngRender>(std::move(*created), copy, offscreen.width, offscreen.height,
                                               offscreen.framebuffer_scale, state.export_target);
  surface.make_current();
}

void WindowExports::start_screenshot(platform::Surface& surface, const std::string& folder, i18n::Language language) {
  Image image = surface.capture();
  start_job(add(i18n::tr("ui.export.running.screenshot"), surface.time_seconds()),
            png_work(std::move(image), folder, language));
}

void WindowExports::start_state_files(const UiState& ui, double now, i18n::Language language, bool svg) {
  ExportRequest request;
  request.kind = svg ? ExportRequest::Kind::svg : ExportRequest::Kind::csv;
  request.params = ui.params;
  request.pins = ui.pins.pins;
  request.language = language;          // the SVGs show the words this window shows
  request.style = plot::light_style();  // as --export-svg draws
  request.style.sequential_colormap = ui.interaction.colormap;
  request.style.color_scales.chosen = ui.interaction.color_scales.chosen;
  // Chinese labels need a CJK face in the viewer; DejaVu stays first for Latin and symbols.
  if (request.language == i18n::Language::Chinese)
    request.style.svg_font_family = "DejaVu Sans, WenQuanYi Micro Hei, Noto Sans CJK SC, sans-serif";
  std::string stem =
      exporting::timestamped_name("softmax-lab", std::chrono::system_clock::now(), svg ? "-svg" : "-csv");
  start_job(add(i18n::tr(svg ? "ui.export.running.svg" : "ui.export.running.csv"), now),
            state_files_work(std::move(request), ui.screenshot_dir, std::move(stem)));
}

// [SECTION] Each window frame: the offscreen steps, finished exports

void WindowExports::step(UiState& ui, platform::Surface& surface, i18n::Language language, const Report& report) {
  for (const ShownJob& asked : std::exchange(cancel_requests_, {})) {
    if (asked.kind == ShownJob::Kind::file_export) cancel_export(asked.index);
    if (asked.kind == ShownJob::Kind::gif) cancel_gif(ui.interaction, surface, report);
  }
  for (auto it = exports_.begin(); it != exports_.end();) {
    RunningExport& running = **it;
    if (running.render != nullptr) step_png_render(running, ui.screenshot_dir, surface, language);
    std::optional<Result<std::string>> done;
    if (running.job != nullptr)
      done = running.job->take_result();
    else if (running.render == nullptr)  // the render failed or was cancelled
      done = Result<std::string>(running.failure.value_or(Error::file("export: the render ended without a file")));
    if (!done) {
      ++it;
      continue;
    }
    it = exports_.erase(it);  // its thread is done (take_result), its offscreen copy gone
    if (done->ok())
      report(**done, false);
    else
      report(done->error().message, true);
  }
  surface.make_current();  // the offscreen copies switched to their own contexts
}

// A slice of a PNG's offscreen render a window frame; once captured, the writing starts.
void WindowExports::step_png_render(RunningExport& running, const std::string& folder, platform::Surface& surface,
                                    i18n::Language language) {
  running.render->runner.pump(WorkRunner::Clock::duration::zero());
  if (!running.render->outcome) return;  // step() makes the window's context current again
  Result<Image> shot = std::move(*running.render->outcome);
  running.render.reset();  // the offscreen copy and its contexts
  surface.make_current();
  if (!shot) {
    running.failure = shot.error();
    return;
  }
  running.rendered = true;
  start_job(running, png_work(std::move(*shot), folder, language));
}

// [SECTION] The GIF recording

void WindowExports::start_gif(UiState& ui, platform::Surface& surface, const AppOptions& copy, const Report& report) {
  InteractionUi& state = ui.interaction;
  if (gif_) return;
  const Result<SweepSpec> parsed = parse_sweep(sweep_text(state.sweep), ui.params);
  if (!parsed) {
    state.sweep_error = parsed.error().message;
    return;
  }
  state.sweep_error.clear();
  // At most 1280 display units wide (a GIF of a 4K window would be huge), the window's aspect.
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  const float shrink = std::min(1.0f, 1280.0f / std::max(display.x, 1.0f));
  platform::OffscreenOptions offscreen;
  offscreen.width = std::max(320, static_cast<int>(std::lround(display.x * shrink)));
  offscreen.height = std::max(240, static_cast<int>(std::lround(display.y * shrink)));
  auto created = platform::Offscreen::create(offscreen);
  if (!created) {
    surface.make_current();
    report(created.error().message, true);
    return;
  }
  gif_ = std::make_unique<GifRecording>(std::move(*created), copy, *parsed,
                                        std::clamp(state.sweep.gif_frames, sweep_gif_frames_min, sweep_gif_frames_max),
                                        ui.screenshot_dir);
  state.gif_recording = true;
  state.gif_progress = 0.0f;
  surface.make_current();
}

// A slice of the recording a window frame; once it ended, what it wrote (or why not) is reported.
void WindowExports::step_gif(InteractionUi& state, platform::Surface& surface, const Report& report) {
  if (gif_ == nullptr) return;
  gif_->runner.pump(WorkRunner::Clock::duration::zero());  // its caller makes the window's context current
  state.gif_progress = static_cast<float>(gif_->runner.progress().fraction);
  if (!gif_->outcome) return;
  const Result<std::filesystem::path> written = std::move(*gif_->outcome);
  gif_.reset();
  surface.make_current();
  state.gif_recording = false;
  if (written.ok())
    report(i18n::format("ui.status.gif_saved", {written->string()}), false);
  else
    report(written.error().message, true);
}

void WindowExports::cancel_gif(InteractionUi& state, platform::Surface& surface, const Report& report) {
  if (!gif_) return;
  gif_->runner.cancel();
  step_gif(state, surface, report);  // the slice that ends it, and says so
}

// [SECTION] Progress and Cancel

bool WindowExports::rendering() const {
  for (const auto& running : exports_)
    if (running->render != nullptr) return true;
  return false;
}

void WindowExports::append_rows(std::vector<ShownJob>& rows, double now, const InteractionUi& state) const {
  for (std::size_t k = 0; k < exports_.size(); ++k) {
    const RunningExport& running = *exports_[k];
    if (now - running.started_at < progress_delay_seconds) continue;
    JobProgress progress;
    if (running.job != nullptr) {
      progress = running.job->progress();
      // A PNG's render was the first half of its progress.
      if (running.rendered) progress.fraction = 0.5 + 0.5 * progress.fraction;
    } else if (running.render != nullptr) {
      progress.fraction = 0.5 * running.render->runner.progress().fraction;
    }
    progress.stage = progress.stage.empty() ? running.what : running.what + ": " + progress.stage;
    rows.push_back({ShownJob::Kind::file_export, k, std::move(progress)});
  }
  if (gif_ != nullptr)
    rows.push_back({ShownJob::Kind::gif, 0, JobProgress{state.gif_progress, i18n::tr("ui.export.running.gif")}});
}

void WindowExports::cancel_export(std::size_t index) {
  if (index >= exports_.size()) return;
  RunningExport& running = *exports_[index];
  if (running.job != nullptr) {
    running.job->cancel();  // its result, "export cancelled", comes as any other
  } else if (running.render != nullptr) {
    running.render->runner.cancel();  // still rendering offscreen: nothing was written; its next slice ends it
  }
}

}  // namespace smlab::app
