// The window's exports while the window keeps drawing: File → Screenshot (F12), Export PNG at 1×, 2×
// or 4×, Export CSV and Export SVG. What needs ImGui and GL (a PNG's offscreen render, a screenshot's
// capture) is done on the UI thread, a step a window frame; making and writing the files runs on a
// thread of its own (state/background_job.hpp). Each shows its progress with a Cancel button, as the
// GIF recording does, and a cancelled or failed export leaves no file (exports are all or nothing).
//
// [SECTION] Index
//   [SECTION] The writing: a PNG, the CSV and SVG files
//   [SECTION] Starting an export
//   [SECTION] Each window frame: the offscreen steps, finished exports
//   [SECTION] Progress and Cancel
#include <algorithm>
#include <chrono>
#include <cmath>
#include <utility>

#include "app.hpp"
#include "app_recording.hpp"
#include "export/png.hpp"
#include "export/export_job.hpp"
#include "i18n/i18n.hpp"
#include "platform/window.hpp"
#include "offscreen_app.hpp"

namespace smlab::app {
namespace {

// [SECTION] The writing: a PNG, the CSV and SVG files

// `image` encoded, then written as a new PNG in `folder` unless cancelled meanwhile. The result is
// the status line, in `language`.
App::ExportWork png_work(Image image, std::string folder, i18n::Language language) {
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
App::ExportWork state_files_work(ExportRequest request, std::string parent, std::string stem) {
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

App::RunningExport& App::add_export(std::string what) {
  auto running = std::make_unique<RunningExport>();
  running->what = std::move(what);
  running->started_at = surface_.time_seconds();
  exports_.push_back(std::move(running));
  return *exports_.back();
}

void App::start_export_job(RunningExport& running, ExportWork work) {
  if (export_hook_)
    work = [hook = export_hook_, work = std::move(work)](const Progress& progress) {
      hook();
      return work(progress);
    };
  running.job = std::make_unique<ExportJobThread>(std::move(work), &platform::Window::wake);
}

void App::start_png_export() {
  const InteractionUi& state = ui_.interaction;
  const int scale = export_scales[std::clamp(state.export_scale_index, 0, 2)];
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  platform::OffscreenOptions offscreen;
  offscreen.width = static_cast<int>(std::lround(display.x));
  offscreen.height = static_cast<int>(std::lround(display.y));
  offscreen.framebuffer_scale = static_cast<float>(scale);
  offscreen.content_scale = surface_.content_scale();
  auto created = platform::Offscreen::create(offscreen);
  if (!created) {
    surface_.make_current();
    report(created.error().message, true);
    return;
  }
  RunningExport& running = add_export(i18n::format("ui.export.running.png", {std::to_string(scale)}));
  running.render = std::make_unique<RunningExport::Render>();
  RunningExport::Render& render = *running.render;
  render.width = offscreen.width;
  render.height = offscreen.height;
  render.scale = offscreen.framebuffer_scale;
  render.panel = state.export_target;
  render.surface = std::move(*created);
  render.app = std::make_unique<App>(*render.surface, offscreen_options());
  surface_.make_current();
}

void App::start_screenshot() {
  Image image = surface_.capture();
  start_export_job(add_export(i18n::tr("ui.export.running.screenshot")),
                   png_work(std::move(image), ui_.screenshot_dir, look_.language()));
}

void App::start_state_files(bool svg) {
  ExportRequest request;
  request.kind = svg ? ExportRequest::Kind::svg : ExportRequest::Kind::csv;
  request.params = ui_.params;
  request.pins = ui_.pins.pins;
  request.language = look_.language();  // the SVGs show the words this window shows
  request.style = plot::light_style();  // as --export-svg draws
  request.style.sequential_colormap = ui_.interaction.colormap;
  request.style.color_scales.chosen = ui_.interaction.color_scales.chosen;
  // Chinese labels need a CJK face in the viewer; DejaVu stays first for Latin and symbols.
  if (request.language == i18n::Language::Chinese)
    request.style.svg_font_family = "DejaVu Sans, WenQuanYi Micro Hei, Noto Sans CJK SC, sans-serif";
  std::string stem =
      exporting::timestamped_name("softmax-lab", std::chrono::system_clock::now(), svg ? "-svg" : "-csv");
  start_export_job(add_export(i18n::tr(svg ? "ui.export.running.svg" : "ui.export.running.csv")),
                   state_files_work(std::move(request), ui_.screenshot_dir, std::move(stem)));
}

// [SECTION] Each window frame: the offscreen steps, finished exports

void App::step_exports() {
  for (const ShownJob& asked : std::exchange(cancel_requests_, {})) {
    if (asked.kind == ShownJob::Kind::file_export) cancel_export(asked.index);
    if (asked.kind == ShownJob::Kind::gif) cancel_gif_recording();
  }
  for (auto it = exports_.begin(); it != exports_.end();) {
    RunningExport& running = **it;
    if (running.render != nullptr) step_png_render(running);
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
  surface_.make_current();  // the offscreen copies switched to their own contexts
}

// One step of a PNG's offscreen render a window frame, never waiting: nothing until the copy's
// snapshot is evaluated (and refined as for --screenshot), then one frame each window frame (ImGui
// settles auto-sized items over the first ones, as render_scaled_screenshot does), then the
// capture, cropped to the panel, handed to the writing.
void App::step_png_render(RunningExport& running) {
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
  surface_.make_current();
  running.rendered = true;
  if (rect) start_export_job(running, png_work(std::move(shot), ui_.screenshot_dir, look_.language()));
}

// [SECTION] Progress and Cancel

void App::cancel_export(std::size_t index) {
  if (index >= exports_.size()) return;
  RunningExport& running = *exports_[index];
  if (running.job != nullptr) {
    running.job->cancel();  // its result, "export cancelled", comes as any other
  } else if (running.render != nullptr) {
    running.render.reset();  // still rendering offscreen: nothing was written
    running.failure = cancelled_error("export");
    surface_.make_current();
  }
}

std::vector<App::ShownJob> App::background_progress() const {
  std::vector<ShownJob> shown;
  const double now = surface_.time_seconds();
  // An import running behind a closed Import dialog (the dialog shows its own).
  if (std::optional<JobProgress> import = import_.background_progress(now))
    shown.push_back({ShownJob::Kind::import, 0, std::move(*import)});
  for (std::size_t k = 0; k < exports_.size(); ++k) {
    const RunningExport& running = *exports_[k];
    if (now - running.started_at < export_progress_delay_seconds) continue;
    JobProgress progress;
    if (running.job != nullptr) {
      progress = running.job->progress();
      // A PNG's render was the first half of its progress.
      if (running.rendered) progress.fraction = 0.5 + 0.5 * progress.fraction;
    } else if (running.render != nullptr) {
      progress.fraction = 0.5 * running.render->frames_drawn / scaled_screenshot_frames;
    }
    progress.stage = progress.stage.empty() ? running.what : running.what + ": " + progress.stage;
    shown.push_back({ShownJob::Kind::file_export, k, std::move(progress)});
  }
  if (gif_recording_ != nullptr)
    shown.push_back(
        {ShownJob::Kind::gif, 0, JobProgress{ui_.interaction.gif_progress, i18n::tr("ui.export.running.gif")}});
  return shown;
}

void App::draw_background_progress() {
  const std::vector<ShownJob> shown = background_progress();
  std::vector<JobProgress> rows;
  for (const ShownJob& job : shown) rows.push_back(job.progress);
  if (const std::optional<std::size_t> cancelled = draw_background_work(rows)) cancel_background(shown[*cancelled]);
}

void App::cancel_background(const ShownJob& job) {
  if (job.kind == ShownJob::Kind::import)
    cancel_import();  // asks its thread to stop: nothing changes in this frame
  else
    cancel_requests_.push_back(job);  // step_exports, after the frame
}

}  // namespace smlab::app
