// softmax-lab: parse the command line, then either open the window or render
// headless (EGL, no display needed), save what was asked for, and exit.
// Exit codes (DESIGN.md §6): 0 ok, 2 bad usage or input, 3 file error, 4 no graphics context.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <variant>
#include <vector>

#include "app.hpp"
#include "frame_bench.hpp"
#include "i18n/i18n.hpp"
#include "export/csv.hpp"
#include "export/gif.hpp"
#include "export/gif_sweep.hpp"
#include "export/plot_export.hpp"
#include "export/png.hpp"
#include "export/scaled_screenshot.hpp"
#include "platform/allocator.hpp"
#include "platform/offscreen.hpp"
#include "platform/window.hpp"
#include "lessons/lesson_player.hpp"
#include "state/presets.hpp"
#include "state/session.hpp"

namespace {

constexpr int exit_ok = 0, exit_usage = 2, exit_file = 3, exit_no_graphics = 4;

// Every error leaves through here: one line, even when it echoes user text that
// holds a newline or other control character.
int fail(int code, std::string message) {
  for (char& c : message)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  std::fprintf(stderr, "softmax-lab: %s\n", message.c_str());
  return code;
}

struct Size {
  int width = 1600, height = 900;
};

// "1600x900" → Size; sizes from 320x240 to 8192x8192 (what llvmpipe renders comfortably).
std::optional<Size> parse_size(const std::string& text) {
  Size size;
  char separator = 0, extra = 0;
  if (std::sscanf(text.c_str(), "%d%c%d%c", &size.width, &separator, &size.height, &extra) != 3) return std::nullopt;
  if (separator != 'x' && separator != 'X') return std::nullopt;
  if (size.width < 320 || size.height < 240 || size.width > 8192 || size.height > 8192) return std::nullopt;
  return size;
}

void print_keys() {
  const smlab::Params defaults;
  for (const smlab::ParamKey& key : smlab::param_keys()) {
    const std::string value = smlab::get_param(defaults, key.name).value_or("");
    std::printf("%-12s default %-8s allowed: %s\n             %s\n", std::string(key.name).c_str(),
                value.empty() ? "(none)" : value.c_str(), std::string(key.allowed).c_str(),
                std::string(key.description).c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  smlab::platform::keep_freed_memory_mapped();
  // 1. Command line.
  CLI::App cli{"Softmax Lab: see why attention uses softmax and divides scores by sqrt(d_k)."};
  cli.set_version_flag("--version", std::string("softmax-lab ") + SMLAB_VERSION);
  std::vector<std::string> assignments;
  std::string screenshot_path, size_text = "1600x900", screenshot_dir, csv_dir, svg_dir, view_name = "dashboard", theme_name = "dark";
  float font_scale = 1.0f;
  std::string scale_text = "1", panel_name, colormap_name = "viridis";
  bool overwrite = false, list_keys = false, list_views = false;
  int bench_frames = 0;
  std::string bench_key = "temperature";
  std::string preset_name, load_path, gif_path, sweep_text;
  bool list_presets = false;
  std::string lesson_spec;
  std::vector<std::string> export_lesson_args;  // NAME DIR
  bool list_lessons = false;
  int gif_frames = 60;
  cli.add_option("--set", assignments, "Set a parameter, KEY=VALUE (repeatable; see --list-keys)")
      ->type_name("KEY=VALUE");
  cli.add_option("--screenshot", screenshot_path, "Render the dashboard offscreen (no display needed), save it as PNG, exit")
      ->type_name("FILE.png");
  cli.add_option("--size", size_text, "Window or image size in pixels (320x240 to 8192x8192)")->type_name("WxH");
  cli.add_option("--export-csv", csv_dir, "Write the numbers behind every plot as CSV files into DIR (created if missing), exit")
      ->type_name("DIR");
  cli.add_option("--export-svg", svg_dir, "Write every plot (dashboard and labs) as SVG into DIR (created if missing), exit")
      ->type_name("DIR");
  cli.add_flag("--overwrite", overwrite, "Allow exports to replace existing files");
  cli.add_option("--screenshot-dir", screenshot_dir, "Folder for the Save PNG button and F12 (default ~/Pictures/softmax-lab)")
      ->type_name("DIR");
  cli.add_option("--preset", preset_name, "Start from a preset's Params (--set still applies on top; see --list-presets)")
      ->type_name("NAME");
  cli.add_flag("--list-presets", list_presets, "List the presets (the classic examples), with what each shows");
  cli.add_option("--lesson", lesson_spec, "Open a lesson at a step (1 = first); with --screenshot, render that step")
      ->type_name("NAME[:STEP]");
  cli.add_flag("--list-lessons", list_lessons, "List the lessons: name, number of steps, title");
  cli.add_option("--export-lesson", export_lesson_args,
                 "Render every step of a lesson offscreen as DIR/NAME-01.png, NAME-02.png, ... (DIR created if missing), exit")
      ->expected(2)
      ->type_name("NAME DIR");
  cli.add_option("--load", load_path, "Start from a saved session (Params, view, screenshot folder)")
      ->type_name("FILE.json");
  cli.add_option("--export-gif", gif_path, "Render a slider sweep offscreen as an animated GIF (needs --sweep), exit")
      ->type_name("FILE.gif");
  cli.add_option("--sweep", sweep_text, "What --export-gif moves: KEY=FROM:TO or KEY=FROM:TO:log, e.g. temperature=0.05:20:log")
      ->type_name("KEY=FROM:TO[:log]");
  cli.add_option("--frames", gif_frames, "Number of GIF frames (default 60)")->type_name("N")->check(CLI::Range(1, 1000));
  CLI::Option* theme_option = cli.add_option("--theme", theme_name, "dark, light or projector (high contrast, large, thick lines)")
      ->type_name("NAME");
  CLI::Option* font_scale_option = cli.add_option("--font-scale", font_scale, "UI and plot text size, 1 to 3 (Ctrl+= / Ctrl+- in the window)")
      ->type_name("X");
  std::string lang_code = "en";
  CLI::Option* lang_option =
      cli.add_option("--lang", lang_code, "Language of the window and the plots: en or zh-CN (CSV columns stay English)")
          ->type_name("CODE");
  CLI::Option* colormap_option =
      cli.add_option("--colormap", colormap_name, "Heatmap colours: viridis, cividis, magma or greys (screen, PNG, SVG)")
          ->type_name("NAME");
  CLI::Option* scale_option =
      cli.add_option("--scale", scale_text, "--screenshot at 1, 2 or 4 times the pixels of --size (crisp text)")
          ->type_name("1|2|4");
  CLI::Option* panel_option =
      cli.add_option("--panel", panel_name, "--screenshot of one panel only: controls or a plot, e.g. distribution")
          ->type_name("NAME");
  CLI::Option* view_option = cli.add_option("--view", view_name, "Start on a view: dashboard or a lab (see --list-views)")->type_name("NAME");
  bool presenter = false, hide_controls = false;
  cli.add_flag("--presenter", presenter,
               "Presenter mode: the lesson step's panel (or the view's first plot) fills the window under a large "
               "caption (F5 / Escape in the window)");
  cli.add_flag("--hide-controls", hide_controls, "Start with the control column hidden (Ctrl+B / F9 in the window)");
  cli.add_flag("--list-keys", list_keys, "List the keys --set accepts, with ranges and defaults");
  cli.add_flag("--list-views", list_views, "List the views (the dashboard and the labs)");
  cli.add_option("--bench-frames", bench_frames, "Headless: move a slider every frame for N frames, print timings as JSON")
      ->type_name("N")
      ->check(CLI::Range(1, 100000));
  cli.add_option("--bench-key", bench_key, "Slider --bench-frames moves: temperature, score_scale, d_k or row")
      ->type_name("KEY");
  try {
    cli.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return cli.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return cli.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(exit_usage, std::string(e.what()) + " (see --help)");
  }
  if (list_keys) {
    print_keys();
    return exit_ok;
  }
  // Presets live in assets/; only the runs that use them complain when the file is missing.
  const std::filesystem::path presets_file = smlab::app::find_assets_dir() / "presets.json";
  const smlab::app::PresetList presets = smlab::app::load_presets(presets_file);
  if (list_presets) {
    if (!presets.error.empty()) return fail(exit_file, presets.error);
    for (const smlab::app::Preset& preset : presets.presets)
      std::printf("%-20s %s\n", preset.name.c_str(), preset.title.c_str());
    return exit_ok;
  }
  // Lessons live in assets/lessons; a bad file is left out and reported by the runs that use lessons.
  const smlab::app::LessonList lessons = smlab::app::load_lessons(smlab::app::find_assets_dir() / "lessons");
  if (list_lessons) {
    for (const smlab::app::Lesson& lesson : lessons.lessons)
      std::printf("%-20s %2zu steps  %s\n", lesson.name.c_str(), lesson.steps.size(), lesson.title.english.c_str());
    if (!lessons.error.empty()) return fail(exit_file, lessons.error);
    return exit_ok;
  }
  if (list_views) {
    for (const smlab::ViewInfo& info : smlab::all_views())
      std::printf("%-20s %s\n", std::string(info.name).c_str(), std::string(info.summary).c_str());
    return exit_ok;
  }
  auto view = smlab::view_from_name(view_name);
  if (!view) {
    std::string names;
    for (const smlab::ViewInfo& info : smlab::all_views()) names += (names.empty() ? "" : ", ") + std::string(info.name);
    return fail(exit_usage, "--view '" + view_name.substr(0, 40) + "' is not a view: allowed " + names);
  }

  // 2. Params: a session or preset first, then every --set, all through the sliders' validation.
  smlab::Params params;
  std::string loaded_screenshot_dir;
  if (!load_path.empty()) {
    const smlab::app::SessionLoad loaded = smlab::app::load_session(load_path);
    if (!loaded.session) return fail(loaded.unreadable ? exit_file : exit_usage, loaded.error);
    params = loaded.session->params;
    if (view_option->count() == 0) view = loaded.session->view;
    loaded_screenshot_dir = loaded.session->screenshot_dir;
    // The session's look, unless the command line names one.
    if (theme_option->count() == 0 && loaded.session->theme) theme_name = *loaded.session->theme;
    if (font_scale_option->count() == 0 && loaded.session->font_scale) font_scale = *loaded.session->font_scale;
    if (colormap_option->count() == 0 && loaded.session->colormap) colormap_name = *loaded.session->colormap;
    if (lang_option->count() == 0 && loaded.session->language)
      lang_code = smlab::i18n::language_code(*loaded.session->language);
  }
  if (!preset_name.empty()) {
    if (!presets.error.empty()) return fail(exit_file, presets.error);
    const smlab::app::Preset* preset = smlab::app::find_preset(presets, preset_name);
    if (preset == nullptr)
      return fail(exit_usage, "--preset '" + preset_name.substr(0, 40) + "' is not a preset: allowed " +
                                  smlab::app::preset_names(presets));
    params = preset->params;
    if (preset->view && view_option->count() == 0) view = preset->view;
  }
  // A lesson step sets Params and view like a preset (--set still applies on top).
  std::optional<smlab::app::LessonPosition> lesson_position;
  if (!load_path.empty() && lesson_spec.empty()) {
    const smlab::app::SessionLoad loaded = smlab::app::load_session(load_path);
    if (loaded.session && loaded.session->lesson)
      if (const auto index = smlab::app::find_lesson(lessons, loaded.session->lesson->name);
          index && static_cast<std::size_t>(loaded.session->lesson->step) <= lessons.lessons[*index].steps.size())
        lesson_position = smlab::app::LessonPosition{*index, static_cast<std::size_t>(loaded.session->lesson->step - 1)};
  }
  if (!lesson_spec.empty()) {
    const smlab::app::LessonLookup found = smlab::app::lookup_lesson(lessons, lesson_spec);
    if (!found.position) return fail(lessons.lessons.empty() && !lessons.error.empty() ? exit_file : exit_usage,
                                      lessons.lessons.empty() && !lessons.error.empty() ? lessons.error : found.error);
    lesson_position = found.position;
    const smlab::app::LessonStep& step = lessons.lessons[found.position->lesson].steps[found.position->step];
    params = step.params;
    if (view_option->count() == 0) view = step.view;
  }
  for (const std::string& assignment : assignments) {
    const auto equals = assignment.find('=');
    if (equals == std::string::npos)
      return fail(exit_usage, "--set '" + assignment.substr(0, 60) + "' is not KEY=VALUE, e.g. --set temperature=0.5");
    if (auto error = smlab::set_param(params, assignment.substr(0, equals), assignment.substr(equals + 1)))
      return fail(exit_usage, error->message);
  }
  const auto size = parse_size(size_text);
  if (!size) return fail(exit_usage, "--size '" + size_text.substr(0, 40) + "' is not allowed: WxH from 320x240 to 8192x8192");

  const auto theme = smlab::app::theme_from_name(theme_name);
  if (!theme) return fail(exit_usage, "--theme '" + theme_name.substr(0, 40) + "' is not allowed: dark, light or projector");
  if (!(font_scale >= smlab::app::font_scale_min && font_scale <= smlab::app::font_scale_max))
    return fail(exit_usage, "--font-scale " + std::to_string(font_scale) + " is not allowed: a number from 1 to 3");
  const auto colormap = smlab::plot::colormap_from_name(colormap_name);
  if (!colormap || *colormap == smlab::plot::Colormap::Diverging)
    return fail(exit_usage, "--colormap '" + colormap_name.substr(0, 40) + "' is not allowed: viridis, cividis, magma or greys");
  const auto shot_scale = smlab::app::parse_export_scale(scale_text);
  if (!shot_scale) return fail(exit_usage, "--scale '" + scale_text.substr(0, 40) + "' is not allowed: 1, 2 or 4");
  if ((scale_option->count() > 0 || panel_option->count() > 0) && screenshot_path.empty())
    return fail(exit_usage, "--scale and --panel go with --screenshot FILE.png");

  const auto language = smlab::i18n::parse_language(lang_code);
  if (!language)
    return fail(exit_usage, "--lang '" + lang_code.substr(0, 40) + "' is not allowed: " + smlab::i18n::language_codes());
  // The string tables. Without en.json the window still works but shows keys instead of text: one
  // line says so (runs that only list or export numbers say nothing).
  const std::string catalogue_error = smlab::i18n::load_catalogue(smlab::app::find_assets_dir());
  const bool shows_text = csv_dir.empty() || !svg_dir.empty();
  if (!catalogue_error.empty() && shows_text) std::fprintf(stderr, "softmax-lab: %s\n", catalogue_error.c_str());
  smlab::i18n::set_language(*language);  // SVG exports; the App checks the font for the window

  smlab::app::AppOptions options;
  options.params = params;
  options.language = *language;
  options.theme = *theme;
  options.font_scale = font_scale;
  options.colormap = *colormap;
  options.screenshot_dir = screenshot_dir.empty() ? loaded_screenshot_dir : screenshot_dir;
  options.view = *view;
  options.presets = presets;
  options.lessons = lessons;
  options.lesson = lesson_position;
  options.presenter = presenter;
  options.controls_shown = !hide_controls;

  // 3a. Files from the numbers and the plot descriptions: no graphics context needed.
  if (!csv_dir.empty() || !svg_dir.empty()) {
    smlab::EvaluateOptions evaluate_options;
    evaluate_options.all_labs = true;
    // The SVG's d_k curve gets the same refinement as a headless screenshot.
    evaluate_options.dk_trials = smlab::app::headless_refine_trials(params.seq_len);
    const smlab::Snapshot snapshot = *smlab::evaluate(params, evaluate_options);
    std::vector<std::filesystem::path> written;
    if (!csv_dir.empty()) {
      if (auto error = smlab::exporting::ensure_directory(csv_dir)) return fail(exit_file, *error);
      smlab::exporting::CsvOptions csv_options;
      csv_options.overwrite = overwrite;
      const auto result = smlab::exporting::export_csv(snapshot, csv_dir, csv_options);
      if (!result.ok()) return fail(exit_file, *result.error);
      written.insert(written.end(), result.files.begin(), result.files.end());
      const auto labs = smlab::exporting::export_lab_csv(snapshot, csv_dir, overwrite);
      if (labs.error) return fail(exit_file, *labs.error);
      written.insert(written.end(), labs.files.begin(), labs.files.end());
    }
    if (!svg_dir.empty()) {
      if (auto error = smlab::exporting::ensure_directory(svg_dir)) return fail(exit_file, *error);
      smlab::plot::Style svg_style = smlab::plot::light_style();
      svg_style.sequential_colormap = *colormap;
      // Chinese labels need a CJK face in the viewer; DejaVu stays first for Latin and symbols.
      if (smlab::i18n::language() == smlab::i18n::Language::Chinese)
        svg_style.svg_font_family = "DejaVu Sans, WenQuanYi Micro Hei, Noto Sans CJK SC, sans-serif";
      const auto result = smlab::exporting::export_svg(snapshot, svg_dir, overwrite, svg_style);
      if (result.error) return fail(exit_file, *result.error);
      written.insert(written.end(), result.files.begin(), result.files.end());
    }
    for (const auto& file : written) std::printf("%s\n", file.string().c_str());
    return exit_ok;
  }

  // The headless paths (GIF, frame benchmark, screenshot) all render at --size with no display.
  auto create_offscreen = [&] {
    smlab::platform::OffscreenOptions offscreen_options;
    offscreen_options.width = size->width;
    offscreen_options.height = size->height;
    return smlab::platform::Offscreen::create(offscreen_options);
  };

  // 3a'. Every step of a lesson as a PNG, rendered offscreen like --screenshot.
  if (!export_lesson_args.empty()) {
    const std::string& name = export_lesson_args[0];
    const auto index = smlab::app::find_lesson(lessons, name);
    if (!index) {
      if (lessons.lessons.empty() && !lessons.error.empty()) return fail(exit_file, lessons.error);
      return fail(exit_usage, "--export-lesson '" + name.substr(0, 40) + "' is not a lesson: allowed " +
                                  smlab::app::lesson_names(lessons));
    }
    const smlab::app::Lesson& lesson = lessons.lessons[*index];
    const std::filesystem::path dir(export_lesson_args[1]);
    if (auto error = smlab::exporting::ensure_directory(dir)) return fail(exit_file, *error);
    std::vector<std::filesystem::path> targets;
    for (std::size_t step = 0; step < lesson.steps.size(); ++step) {
      char file_name[96];
      std::snprintf(file_name, sizeof file_name, "%s-%02zu.png", lesson.name.c_str(), step + 1);
      targets.push_back(dir / file_name);
      // Refuse before rendering anything, so a refused export writes no file at all.
      if (!overwrite && std::filesystem::exists(targets.back()))
        return fail(exit_file, "'" + targets.back().string() + "' exists; pass --overwrite to replace it");
    }
    auto created = create_offscreen();
    if (!created) return fail(exit_no_graphics, created.error);
    options.params = lesson.steps.front().params;
    options.view = lesson.steps.front().view;
    options.lesson = smlab::app::LessonPosition{*index, 0};
    smlab::app::App app(*created.surface, options);
    if (!app.font_warning().empty()) std::fprintf(stderr, "softmax-lab: %s\n", app.font_warning().c_str());
    for (std::size_t step = 0; step < lesson.steps.size(); ++step) {
      smlab::app::open_lesson_step(app.ui(), *index, step, false);
      app.evaluator().set_refine_limit(smlab::app::headless_refine_trials(lesson.steps[step].params.seq_len));
      app.wait_for_snapshot();
      for (int frame = 0; frame < 3; ++frame) app.frame();  // as --screenshot: the third frame is saved
      if (auto error = smlab::exporting::write_png(targets[step], created.surface->capture(), overwrite))
        return fail(exit_file, *error);
      std::printf("%s\n", targets[step].string().c_str());
    }
    return exit_ok;
  }

  // 3b. Animated GIF of a slider sweep, rendered offscreen.
  if (!gif_path.empty() || !sweep_text.empty()) {
    if (gif_path.empty() || sweep_text.empty())
      return fail(exit_usage, "--export-gif FILE and --sweep KEY=FROM:TO[:log] go together");
    auto sweep = smlab::app::parse_sweep(sweep_text, params);
    if (const auto* error = std::get_if<std::string>(&sweep)) return fail(exit_usage, *error);
    const std::filesystem::path target(gif_path);
    if (!overwrite && std::filesystem::exists(target))
      return fail(exit_file, "'" + gif_path + "' exists; pass --overwrite to replace it");
    auto created = create_offscreen();
    if (!created) return fail(exit_no_graphics, created.error);
    options.refine_trials = smlab::app::headless_refine_trials(params.seq_len);
    smlab::app::App app(*created.surface, options);
    smlab::exporting::GifWriter writer;
    if (auto error = smlab::app::render_sweep(app, *created.surface, std::get<smlab::app::SweepSpec>(sweep), gif_frames,
                                              writer))
      return fail(exit_usage, *error);
    if (auto error = smlab::exporting::write_gif(target, writer, overwrite)) return fail(exit_file, *error);
    std::printf("%s\n", gif_path.c_str());
    return exit_ok;
  }

  // 3c. Headless frame benchmark (DESIGN.md §9).
  if (bench_frames > 0) {
    auto created = create_offscreen();
    if (!created) return fail(exit_no_graphics, created.error);
    smlab::app::App app(*created.surface, options);
    std::string error;
    const auto result = smlab::app::run_frame_bench(app, bench_key, bench_frames, error);
    if (!error.empty()) return fail(exit_usage, error);
    std::printf("%s\n", result.to_json().c_str());
    return exit_ok;
  }

  // 3d. Headless: EGL surfaceless rendering into an offscreen framebuffer.
  if (!screenshot_path.empty()) {
    const std::filesystem::path target(screenshot_path);
    if (!overwrite && std::filesystem::exists(target))
      return fail(exit_file, "'" + screenshot_path + "' exists; pass --overwrite to replace it");
    auto created = create_offscreen();
    if (!created) return fail(exit_no_graphics, created.error);
    // --scale: the same layout with 2× or 4× the pixels; the App rasterises its fonts to match.
    if (auto error = created.surface->resize(size->width, size->height, static_cast<float>(*shot_scale)))
      return fail(exit_usage, "--scale " + scale_text + " with --size " + size_text + " is too large: " + *error);
    options.refine_trials = smlab::app::headless_refine_trials(params.seq_len);
    smlab::app::App app(*created.surface, options);
    if (!app.font_warning().empty()) std::fprintf(stderr, "softmax-lab: %s\n", app.font_warning().c_str());
    if (!app.language_warning().empty()) std::fprintf(stderr, "softmax-lab: %s\n", app.language_warning().c_str());
    app.wait_for_snapshot();
    // Two frames let ImGui settle auto-sized items; the third is the one saved.
    for (int frame = 0; frame < 3; ++frame) app.frame();
    smlab::Image image = created.surface->capture();
    if (!panel_name.empty()) {
      const ImVec2 display(static_cast<float>(size->width), static_cast<float>(size->height));
      const auto rect = smlab::app::find_panel(app.ui(), display, panel_name);
      if (!rect) {
        std::string allowed;
        for (const std::string& name : smlab::app::panel_names(app.ui())) allowed += (allowed.empty() ? "" : ", ") + name;
        return fail(exit_usage, "--panel '" + panel_name.substr(0, 40) + "' is not on this view: allowed " + allowed);
      }
      image = smlab::app::crop_image(image, *rect, static_cast<float>(*shot_scale));
    }
    if (auto error = smlab::exporting::write_png(target, image, overwrite))
      return fail(exit_file, *error);
    std::printf("%s\n", screenshot_path.c_str());
    return exit_ok;
  }

  // 3e. Window: GLFW on X11. Without a display there is nothing to open.
  // Only the window reads and writes the config folder (autosave, imgui.ini): headless runs stay
  // deterministic. A start with no state on the command line resumes the last session.
  if (!presets.error.empty()) std::fprintf(stderr, "softmax-lab: %s (the Presets menu is empty)\n", presets.error.c_str());
  const std::filesystem::path config = smlab::app::config_dir();
  const bool config_usable = !config.empty() && !smlab::exporting::ensure_directory(config);
  const std::filesystem::path autosave = config / "session.json";
  const bool state_from_command_line =
      !load_path.empty() || !preset_name.empty() || !assignments.empty() || view_option->count() > 0 ||
      !lesson_spec.empty();
  if (config_usable && !state_from_command_line && std::filesystem::exists(autosave)) {
    const smlab::app::SessionLoad restored = smlab::app::load_session(autosave);
    if (restored.session) {
      options.params = restored.session->params;
      options.view = restored.session->view;
      if (screenshot_dir.empty()) options.screenshot_dir = restored.session->screenshot_dir;
      const smlab::app::Session& last = *restored.session;
      if (theme_option->count() == 0 && last.theme) options.theme = smlab::app::theme_from_name(*last.theme).value_or(options.theme);
      if (font_scale_option->count() == 0 && last.font_scale) options.font_scale = *last.font_scale;
      if (colormap_option->count() == 0 && last.colormap)
        options.colormap = smlab::plot::colormap_from_name(*last.colormap).value_or(options.colormap);
      if (lang_option->count() == 0 && last.language) options.language = *last.language;
      if (last.lesson)  // the lesson the class was in, if it still exists (Params stay the session's)
        if (const auto index = smlab::app::find_lesson(lessons, last.lesson->name);
            index && static_cast<std::size_t>(last.lesson->step) <= lessons.lessons[*index].steps.size())
          options.lesson = smlab::app::LessonPosition{*index, static_cast<std::size_t>(last.lesson->step - 1)};
    } else {
      std::fprintf(stderr, "softmax-lab: not restoring the last session: %s\n", restored.error.c_str());
    }
  }
  smlab::platform::WindowOptions window_options;
  window_options.width = size->width;
  window_options.height = size->height;
  if (config_usable) window_options.imgui_ini_path = (config / "imgui.ini").string();
  auto created = smlab::platform::Window::create(window_options);
  if (!created)
    return fail(exit_no_graphics, created.error + " (to render without a display use --screenshot FILE.png)");
  smlab::app::App app(*created.surface, options);
  if (!app.font_warning().empty()) std::fprintf(stderr, "softmax-lab: %s\n", app.font_warning().c_str());
  if (!app.language_warning().empty()) std::fprintf(stderr, "softmax-lab: %s\n", app.language_warning().c_str());
  while (app.frame()) {
  }
  if (config_usable) {
    if (auto error = smlab::app::save_session(autosave, app.current_session(), true))
      std::fprintf(stderr, "softmax-lab: could not save the session: %s\n", error->c_str());
  }
  return exit_ok;
}
