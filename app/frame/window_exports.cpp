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

// The offscreen copies an export draws with, and the exports in progress.
struct WindowExports::GifRecording {
  // Declared before `app`, so the App (which uses the surface's contexts) is destroyed first.
  std::unique_ptr<platform::Offscreen> surface;
  std::unique_ptr<App> app;
  exporting::GifWriter writer;
  SweepSpec spec;
  int frames = 0;
  int next = 0;            // the frame being made
  bool value_set = false;  // frame `next`'s value is set and submitted; capture once evaluated
};

struct WindowExports::RunningExport {
  std::string what;         // what it makes, for its progress row ("Exporting a PNG at 2x")
  double started_at = 0.0;  // the surface's clock: the row shows after export_progress_delay_seconds
  // A PNG of the window at a scale, rendered first by an offscreen copy of this App, one step a
  // window frame (step_png_render); null once rendered, or for the other exports.
  struct Render {
    std::unique_ptr<platform::Offscreen> surface;  // before `app`: the App goes first
    std::unique_ptr<App> app;
    int width = 0, height = 0;  // layout size, display units
    float scale = 1.0f;
    std::string panel;  // "window", "controls" or a plot's name
    int frames_drawn = 0;
  };
  std::unique_ptr<Render> render;
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
  running.render = std::make_unique<RunningExport::Render>();
  RunningExport::Render& render = *running.render;
  render.width = offscreen.width;
  render.height = offscreen.height;
  render.scale = offscreen.framebuffer_scale;
  render.panel = state.export_target;
  render.surface = std::move(*created);
  render.app = std::make_unique<App>(*render.surface, copy);
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
    if (asked.kind == ShownJob::Kind::file_export) cancel_export(asked.index, surface);
    if (asked.kind == ShownJob::Kind::gif) cancel_gif(ui, surface, report);
  }
  for (auto it = exports_.begin(); it != exports_.end();) {
    RunningExport& running = **it;
    if (running.render != nullptr) step_png_render(running, ui, surface, language);
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

// One step of a PNG's offscreen render a window frame, never waiting: nothing until the copy's
// snapshot is evaluated (and refined as for --screenshot), then one frame each window frame (ImGui
// settles auto-sized items over the first ones, as render_scaled_screenshot does), then the
// capture, cropped to the panel, handed to the writing.
void WindowExports::step_png_render(RunningExport& running, UiState& ui, platform::Surface& surface,
                                    i18n::Language language) {
  RunningExport::Render& render = *running.render;
  App& copy = *render.app;
  if (render.frames_drawn == 0 && !copy.evaluator().idle()) return;
  copy.wait_for_snapshot();  // idle: at once
  copy.frame();
  if (++render.frames_drawn < scaled_screenshot_frames) return;
  const Image image = render.surface->capture();
  const ImVec2 display(static_cast<float>(render.width), static_cast<float>(render.height));
  const Result<PanelRect> rect = panel_or_error(copy.ui(), display, render.panel, "panel");
  if (!rect) running.failure = rect.error();
  const bool whole = render.panel.empty() || render.panel == "window";
  Image shot = !rect ? Image{} : whole ? image : crop_image(image, *rect, render.scale);
  running.render.reset();  // the offscreen copy and its contexts
  surface.make_current();
  running.rendered = true;
  if (rect) start_job(running, png_work(std::move(shot), ui.screenshot_dir, language));
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
  auto recording = std::make_unique<GifRecording>();
  recording->surface = std::move(*created);
  recording->app = std::make_unique<App>(*recording->surface, copy);
  recording->spec = *parsed;
  recording->frames = std::clamp(state.sweep.gif_frames, sweep_gif_frames_min, sweep_gif_frames_max);
  gif_ = std::move(recording);
  state.gif_recording = true;
  state.gif_progress = 0.0f;
  surface.make_current();
}

// One step per window frame: set the next value, and once its snapshot is done (polled, never
// waited for) render and add the frame. The window keeps drawing in between.
void WindowExports::step_gif(UiState& ui, platform::Surface& surface, const Report& report) {
  if (gif_ == nullptr) return;
  InteractionUi& state = ui.interaction;
  GifRecording& recording = *gif_;
  App& copy = *recording.app;
  Result<void> step;
  if (!recording.value_set) {
    const std::string value = sweep_value(recording.spec, recording.next, recording.frames);
    step = set_param(copy.ui().params, recording.spec.key, value);
    copy.ui().scores_text = format_scores(copy.ui().params.scores);
    if (step.ok()) {
      copy.frame();  // submits the new value (and draws a frame nobody keeps)
      recording.value_set = true;
    }
  } else if (copy.evaluator().idle()) {
    copy.wait_for_snapshot();
    // The first frame lets ImGui settle auto-sized items (like --screenshot); later ones need one.
    for (int pass = 0; pass < (recording.next == 0 ? 3 : 1); ++pass) copy.frame();
    step = recording.writer.add_frame(recording.surface->capture());
    recording.value_set = false;
    ++recording.next;
  }
  state.gif_progress = static_cast<float>(recording.next) / static_cast<float>(recording.frames);
  if (step.ok() && recording.next < recording.frames) return;

  if (step.ok()) step = recording.writer.finish();
  const Result<std::filesystem::path> written =
      step.ok() ? exporting::save_new_file(recording.writer.bytes(), ui.screenshot_dir, ".gif",
                                           std::chrono::system_clock::now())
                : step.error();
  gif_.reset();
  surface.make_current();
  state.gif_recording = false;
  if (written.ok())
    report(i18n::format("ui.status.gif_saved", {written->string()}), false);
  else
    report(written.error().message, true);
}

void WindowExports::cancel_gif(UiState& ui, platform::Surface& surface, const Report& report) {
  if (!gif_) return;
  gif_.reset();  // nothing was written: the GIF's bytes are written only once complete
  surface.make_current();
  ui.interaction.gif_recording = false;
  report(cancelled_error("GIF recording").message, true);
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
      progress.fraction = 0.5 * running.render->frames_drawn / scaled_screenshot_frames;
    }
    progress.stage = progress.stage.empty() ? running.what : running.what + ": " + progress.stage;
    rows.push_back({ShownJob::Kind::file_export, k, std::move(progress)});
  }
  if (gif_ != nullptr)
    rows.push_back({ShownJob::Kind::gif, 0, JobProgress{state.gif_progress, i18n::tr("ui.export.running.gif")}});
}

void WindowExports::cancel_export(std::size_t index, platform::Surface& surface) {
  if (index >= exports_.size()) return;
  RunningExport& running = *exports_[index];
  if (running.job != nullptr) {
    running.job->cancel();  // its result, "export cancelled", comes as any other
  } else if (running.render != nullptr) {
    running.render.reset();  // still rendering offscreen: nothing was written
    running.failure = cancelled_error("export");
    surface.make_current();
  }
}

}  // namespace smlab::app
