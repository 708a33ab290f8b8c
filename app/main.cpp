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
#include "export/csv.hpp"
#include "export/gif.hpp"
#include "export/gif_sweep.hpp"
#include "export/plot_export.hpp"
#include "export/png.hpp"
#include "platform/offscreen.hpp"
#include "platform/window.hpp"
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
  // 1. Command line.
  CLI::App cli{"Softmax Lab: see why attention uses softmax and divides scores by sqrt(d_k)."};
  cli.set_version_flag("--version", std::string("softmax-lab ") + SMLAB_VERSION);
  std::vector<std::string> assignments;
  std::string screenshot_path, size_text = "1600x900", screenshot_dir, csv_dir, svg_dir, view_name = "dashboard", theme_name = "dark";
  float font_scale = 1.0f;
  bool overwrite = false, list_keys = false, list_views = false;
  int bench_frames = 0;
  std::string bench_key = "temperature";
  std::string preset_name, load_path, gif_path, sweep_text;
  bool list_presets = false;
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
  cli.add_option("--load", load_path, "Start from a saved session (Params, view, screenshot folder)")
      ->type_name("FILE.json");
  cli.add_option("--export-gif", gif_path, "Render a slider sweep offscreen as an animated GIF (needs --sweep), exit")
      ->type_name("FILE.gif");
  cli.add_option("--sweep", sweep_text, "What --export-gif moves: KEY=FROM:TO or KEY=FROM:TO:log, e.g. temperature=0.05:20:log")
      ->type_name("KEY=FROM:TO[:log]");
  cli.add_option("--frames", gif_frames, "Number of GIF frames (default 60)")->type_name("N")->check(CLI::Range(1, 1000));
  cli.add_option("--theme", theme_name, "dark, light or projector (high contrast, large, thick lines)")
      ->type_name("NAME");
  cli.add_option("--font-scale", font_scale, "UI and plot text size, 1 to 3 (Ctrl+= / Ctrl+- in the window)")
      ->type_name("X");
  CLI::Option* view_option = cli.add_option("--view", view_name, "Start on a view: dashboard or a lab (see --list-views)")->type_name("NAME");
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

  smlab::app::AppOptions options;
  options.params = params;
  options.theme = *theme;
  options.font_scale = font_scale;
  options.screenshot_dir = screenshot_dir.empty() ? loaded_screenshot_dir : screenshot_dir;
  options.view = *view;
  options.presets = presets;

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
      const auto result = smlab::exporting::export_svg(snapshot, svg_dir, overwrite, smlab::plot::light_style());
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
    options.refine_trials = smlab::app::headless_refine_trials(params.seq_len);
    smlab::app::App app(*created.surface, options);
    if (!app.font_warning().empty()) std::fprintf(stderr, "softmax-lab: %s\n", app.font_warning().c_str());
    app.wait_for_snapshot();
    // Two frames let ImGui settle auto-sized items; the third is the one saved.
    for (int frame = 0; frame < 3; ++frame) app.frame();
    if (auto error = smlab::exporting::write_png(target, created.surface->capture(), overwrite))
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
      !load_path.empty() || !preset_name.empty() || !assignments.empty() || view_option->count() > 0;
  if (config_usable && !state_from_command_line && std::filesystem::exists(autosave)) {
    const smlab::app::SessionLoad restored = smlab::app::load_session(autosave);
    if (restored.session) {
      options.params = restored.session->params;
      options.view = restored.session->view;
      if (screenshot_dir.empty()) options.screenshot_dir = restored.session->screenshot_dir;
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
  while (app.frame()) {
  }
  if (config_usable) {
    if (auto error = smlab::app::save_session(autosave, app.current_session(), true))
      std::fprintf(stderr, "softmax-lab: could not save the session: %s\n", error->c_str());
  }
  return exit_ok;
}
