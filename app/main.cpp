// softmax-lab: parse the command line, then either open the window or render
// headless (EGL, no display needed), save what was asked for, and exit.
// Exit codes (DESIGN.md §6): 0 ok, 2 bad usage or input, 3 file error, 4 no graphics context.
#include <CLI/CLI.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <variant>
#include <vector>

#include "app.hpp"
#include "frame_bench.hpp"
#include "i18n/i18n.hpp"
#include "export/atomic_file.hpp"
#include "export/csv.hpp"
#include "export/gif.hpp"
#include "export/gif_sweep.hpp"
#include "export/plot_export.hpp"
#include "export/png.hpp"
#include "export/scaled_screenshot.hpp"
#include "platform/allocator.hpp"
#include "platform/offscreen.hpp"
#include "lessons/lesson_player.hpp"
#include "panels/pins_panel.hpp"
#include "state/import_files.hpp"
#include "state/presets.hpp"
#include "state/session.hpp"
#include "window_run.hpp"

namespace {

constexpr int exit_ok = 0, exit_usage = 2, exit_file = 3, exit_no_graphics = 4;

// Text that is safe to print on one line: control characters become spaces, bytes that are not
// UTF-8 become '?', and any run of more than 80 characters without a space (a long path, a
// 100 KB value) is cut in the middle to its first and last 38 characters.
std::string printable(std::string_view text) {
  std::string clean;
  clean.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    std::size_t length = byte < 0x80 ? 1 : (byte >> 5) == 0x6 ? 2 : (byte >> 4) == 0xE ? 3 : (byte >> 3) == 0x1E ? 4 : 0;
    if (byte >= 0xC0 && byte < 0xC2) length = 0;  // overlong two-byte forms
    bool valid = length > 0 && i + length <= text.size();
    for (std::size_t k = 1; valid && k < length; ++k) valid = (static_cast<unsigned char>(text[i + k]) >> 6) == 0x2;
    if (!valid) {
      clean += '?';
      ++i;
      continue;
    }
    if (length == 1 && (byte < 0x20 || byte == 0x7f)) clean += ' ';
    else clean.append(text.substr(i, length));
    i += length;
  }
  std::string out;
  std::size_t start = 0;
  while (start <= clean.size()) {
    std::size_t end = clean.find(' ', start);
    if (end == std::string::npos) end = clean.size();
    const std::string_view word = std::string_view(clean).substr(start, end - start);
    // Count characters, not bytes, and cut only at character starts.
    std::vector<std::size_t> starts;
    for (std::size_t k = 0; k < word.size(); ++k)
      if ((static_cast<unsigned char>(word[k]) >> 6) != 0x2) starts.push_back(k);
    if (starts.size() > 80) {
      out.append(word.substr(0, starts[38]));
      out.append("…");
      out.append(word.substr(starts[starts.size() - 38]));
    } else {
      out.append(word);
    }
    if (end == clean.size()) break;
    out += ' ';
    start = end + 1;
  }
  return out;
}

// Every error leaves through here: one printable line (see printable()).
int fail(int code, const std::string& message) {
  std::fprintf(stderr, "softmax-lab: %s\n", printable(message).c_str());
  return code;
}

// A warning that does not stop the run, printed the same way.
void warn(const std::string& message) { std::fprintf(stderr, "softmax-lab: %s\n", printable(message).c_str()); }

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

// A count typed on the command line: decimal digits only (CLI11 would also take "0x10" and " 5"),
// from `low` to `high`.
std::optional<int> parse_count(const std::string& text, int low, int high) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  const int value = std::stoi(text);
  if (value < low || value > high) return std::nullopt;
  return value;
}

// "--screenshot" and "--export-csv" style names of the options given, for combination checks.
struct GivenOption {
  const char* name;
  bool given;
};

}  // namespace

int main(int argc, char** argv) {
  smlab::platform::keep_freed_memory_mapped();
  namespace fs = std::filesystem;
  // 1. Command line.
  CLI::App cli{"Softmax Lab: see why attention uses softmax and divides scores by sqrt(d_k)."};
  cli.set_version_flag("--version", std::string("softmax-lab ") + SMLAB_VERSION);
  std::vector<std::string> assignments;
  std::string screenshot_path, size_text = "1600x900", screenshot_dir, csv_dir, svg_dir, view_name = "dashboard", theme_name = "dark";
  std::string font_scale_text = "1";
  std::string scale_text = "1", panel_name, colormap_name = "viridis";
  bool overwrite = false, list_keys = false, list_views = false;
  std::string bench_frames_text;
  std::string bench_key = "temperature";
  std::string preset_name, load_path, gif_path, sweep_text;
  bool list_presets = false;
  std::string lesson_spec;
  std::vector<std::string> export_lesson_args;  // NAME DIR
  bool list_lessons = false;
  std::string gif_frames_text = "60";
  std::vector<std::string> import_specs;
  std::string tokens_path;
  cli.add_option("--import", import_specs,
                 "Show your own attention data: FILE (.npy/.npz/.csv; roles from array names q, k, v, scores, attn), "
                 "FILE:ROLE or FILE.npz:ARRAY=ROLE,... (ROLE: Q, K, V, scores, weights); repeatable")
      ->type_name("FILE[:ARRAY[=ROLE]]");
  cli.add_option("--tokens", tokens_path, "Token labels for --import: plain text, one per line, or a JSON list of strings")
      ->type_name("FILE");
  CLI::Option* set_option = cli.add_option("--set", assignments, "Set a parameter, KEY=VALUE (repeatable; see --list-keys)")
      ->type_name("KEY=VALUE");
  CLI::Option* screenshot_option =
      cli.add_option("--screenshot", screenshot_path, "Render the dashboard offscreen (no display needed), save it as PNG, exit")
          ->type_name("FILE.png");
  CLI::Option* size_option = cli.add_option("--size", size_text, "Window or image size in pixels (320x240 to 8192x8192)")->type_name("WxH");
  CLI::Option* csv_option =
      cli.add_option("--export-csv", csv_dir, "Write the numbers behind every plot as CSV files into DIR (created if missing), exit")
          ->type_name("DIR");
  CLI::Option* svg_option =
      cli.add_option("--export-svg", svg_dir, "Write every plot (dashboard and labs) as SVG into DIR (created if missing), exit")
          ->type_name("DIR");
  cli.add_flag("--overwrite", overwrite, "Allow exports to replace existing regular files");
  CLI::Option* screenshot_dir_option =
      cli.add_option("--screenshot-dir", screenshot_dir, "Folder for the Save PNG button and F12 (default ~/Pictures/softmax-lab)")
          ->type_name("DIR");
  CLI::Option* preset_option =
      cli.add_option("--preset", preset_name, "Start from a preset's Params (--set still applies on top; see --list-presets)")
          ->type_name("NAME");
  cli.add_flag("--list-presets", list_presets, "List the presets (the classic examples), with what each shows");
  CLI::Option* lesson_option =
      cli.add_option("--lesson", lesson_spec,
                     "Open a lesson at a step (1 = first); with --screenshot, render that step; GUESS shows a "
                     "predict step revealed beside that guess")
          ->type_name("NAME[:STEP[:GUESS]]");
  cli.add_flag("--list-lessons", list_lessons, "List the lessons: name, number of steps, title");
  CLI::Option* export_lesson_option =
      cli.add_option("--export-lesson", export_lesson_args,
                     "Render every step of a lesson offscreen as DIR/NAME-01.png, NAME-02.png, ... (DIR created if missing), exit")
          ->expected(2)
          ->type_name("NAME DIR");
  CLI::Option* load_option = cli.add_option("--load", load_path, "Start from a saved session (Params, view, screenshot folder)")
      ->type_name("FILE.json");
  CLI::Option* gif_option =
      cli.add_option("--export-gif", gif_path, "Render a slider sweep offscreen as an animated GIF (needs --sweep), exit")
          ->type_name("FILE.gif");
  CLI::Option* sweep_option =
      cli.add_option("--sweep", sweep_text, "What --export-gif moves: KEY=FROM:TO or KEY=FROM:TO:log, e.g. temperature=0.05:20:log")
          ->type_name("KEY=FROM:TO[:log]");
  CLI::Option* frames_option =
      cli.add_option("--frames", gif_frames_text, "Number of GIF frames, 1 to 1000 (default 60)")->type_name("N");
  CLI::Option* theme_option = cli.add_option("--theme", theme_name, "dark, light or projector (high contrast, large, thick lines)")
      ->type_name("NAME");
  CLI::Option* font_scale_option =
      cli.add_option("--font-scale", font_scale_text, "UI and plot text size, 1 to 3 (Ctrl+= / Ctrl+- in the window)")
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
  CLI::Option* bench_option =
      cli.add_option("--bench-frames", bench_frames_text,
                     "Headless: move a slider every frame for N frames (1 to 100000), print timings as JSON")
          ->type_name("N");
  CLI::Option* bench_key_option =
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

  // Before anything is read or written: no empty values, and no combination that would drop an
  // output without a word (README, "Command line").
  for (CLI::Option* option : {frames_option, bench_option, screenshot_option, size_option, csv_option, svg_option, screenshot_dir_option, preset_option,
                              lesson_option, load_option, gif_option, sweep_option, theme_option, font_scale_option,
                              lang_option, colormap_option, scale_option, panel_option, bench_key_option,
                              export_lesson_option}) {
    if (option->count() == 0) continue;
    for (const std::string& value : option->results())
      if (value.empty())
        return fail(exit_usage, option->get_name() + " '' is empty: give " + option->get_type_name());
  }
  const bool csv_or_svg = csv_option->count() > 0 || svg_option->count() > 0;
  const GivenOption outputs[] = {{"--export-csv/--export-svg", csv_or_svg},
                                 {"--screenshot", screenshot_option->count() > 0},
                                 {"--export-gif", gif_option->count() > 0},
                                 {"--export-lesson", export_lesson_option->count() > 0},
                                 {"--bench-frames", bench_option->count() > 0}};
  const GivenOption lists[] = {{"--list-keys", list_keys},
                               {"--list-views", list_views},
                               {"--list-presets", list_presets},
                               {"--list-lessons", list_lessons}};
  std::vector<std::string> modes;
  for (const GivenOption& output : outputs)
    if (output.given) modes.emplace_back(output.name);
  if (modes.size() > 1)
    return fail(exit_usage, modes[0] + " and " + modes[1] +
                                " cannot be used together: run one output mode at a time (--export-csv and --export-svg may be combined)");
  for (const GivenOption& list : lists)
    if (list.given && !modes.empty())
      return fail(exit_usage, std::string(list.name) + " cannot be used with " + modes[0] + ": run them one at a time");
  if (sweep_option->count() > 0 && gif_option->count() == 0)
    return fail(exit_usage, "--sweep goes with --export-gif FILE.gif");
  if (gif_option->count() > 0 && sweep_option->count() == 0)
    return fail(exit_usage, "--export-gif FILE.gif needs --sweep KEY=FROM:TO[:log]");
  if (frames_option->count() > 0 && gif_option->count() == 0) return fail(exit_usage, "--frames goes with --export-gif FILE.gif");
  if (bench_key_option->count() > 0 && bench_option->count() == 0) return fail(exit_usage, "--bench-key goes with --bench-frames N");
  if ((scale_option->count() > 0 || panel_option->count() > 0) && screenshot_option->count() == 0)
    return fail(exit_usage, "--scale and --panel go with --screenshot FILE.png");
  if (export_lesson_option->count() > 0) {
    for (CLI::Option* option : {set_option, preset_option, load_option, lesson_option, view_option})
      if (option->count() > 0)
        return fail(exit_usage, "--export-lesson renders the lesson's own steps: " + option->get_name() + " does not apply");
  }

  const auto gif_frames = parse_count(gif_frames_text, 1, 1000);
  if (!gif_frames) return fail(exit_usage, "--frames '" + gif_frames_text.substr(0, 40) + "' is not allowed: an integer from 1 to 1000");
  const auto bench_frames = bench_frames_text.empty() ? std::optional<int>(0) : parse_count(bench_frames_text, 1, 100000);
  if (!bench_frames)
    return fail(exit_usage, "--bench-frames '" + bench_frames_text.substr(0, 40) + "' is not allowed: an integer from 1 to 100000");

  // 2. Lists: each one asked for, in this order.
  const bool any_list = list_keys || list_views || list_presets || list_lessons;
  if (list_keys) print_keys();
  // Presets live in assets/; only the runs that use them complain when the file is missing.
  const fs::path presets_file = smlab::app::find_assets_dir() / "presets.json";
  const smlab::app::PresetList presets = smlab::app::load_presets(presets_file);
  if (list_presets) {
    if (!presets.error.empty()) return fail(exit_file, presets.error);
    for (const smlab::app::Preset& preset : presets.presets)
      std::printf("%-20s %s\n", preset.name.c_str(), printable(preset.title).c_str());
  }
  // Lessons live in assets/lessons; a bad file is left out and reported by the runs that use lessons.
  const smlab::app::LessonList lessons = smlab::app::load_lessons(smlab::app::find_assets_dir() / "lessons");
  if (list_lessons) {
    for (const smlab::app::Lesson& lesson : lessons.lessons)
      std::printf("%-20s %2zu steps  %s\n", lesson.name.c_str(), lesson.steps.size(), printable(lesson.title.english).c_str());
    if (!lessons.error.empty()) return fail(exit_file, lessons.error);
  }
  if (list_views) {
    for (const smlab::ViewInfo& info : smlab::all_views())
      std::printf("%-20s %s\n", std::string(info.name).c_str(), std::string(info.summary).c_str());
  }
  if (any_list) return exit_ok;
  auto view = smlab::view_from_name(view_name);
  if (!view) {
    std::string names;
    for (const smlab::ViewInfo& info : smlab::all_views()) names += (names.empty() ? "" : ", ") + std::string(info.name);
    return fail(exit_usage, "--view '" + view_name.substr(0, 40) + "' is not a view: allowed " + names);
  }

  // 3. Params: a session or preset first, then every --set, all through the sliders' validation.
  smlab::Params params;
  std::string loaded_screenshot_dir;
  std::optional<smlab::app::LessonPosition> lesson_position;
  smlab::app::PinState pins;  // a session's pins: ghosts in renders, pins*.csv and pinned-*.svg in exports
  if (!load_path.empty()) {
    const smlab::app::SessionLoad loaded = smlab::app::load_session(load_path);  // read once
    if (!loaded.session) return fail(loaded.unreadable ? exit_file : exit_usage, loaded.error);
    params = loaded.session->params;
    pins.pins = loaded.session->pins;
    if (!loaded.session->import_warning.empty()) std::fprintf(stderr, "softmax-lab: %s\n", loaded.session->import_warning.c_str());
    if (view_option->count() == 0) view = loaded.session->view;
    loaded_screenshot_dir = loaded.session->screenshot_dir;
    // The session's look, unless the command line names one.
    if (theme_option->count() == 0 && loaded.session->theme) theme_name = *loaded.session->theme;
    if (font_scale_option->count() == 0 && loaded.session->font_scale)
      font_scale_text = std::to_string(*loaded.session->font_scale);
    if (colormap_option->count() == 0 && loaded.session->colormap) colormap_name = *loaded.session->colormap;
    if (lang_option->count() == 0 && loaded.session->language)
      lang_code = smlab::i18n::language_code(*loaded.session->language);
    // The lesson the session was in must exist, with that step (--lesson replaces it).
    if (const auto& saved = loaded.session->lesson; saved && lesson_spec.empty()) {
      const auto index = smlab::app::find_lesson(lessons, saved->name);
      if (!index)
        return fail(exit_usage, "'" + load_path + "': session field 'lesson.name' '" + saved->name +
                                    "' is not a lesson: allowed " + smlab::app::lesson_names(lessons) +
                                    (lessons.error.empty() ? "" : " (" + lessons.error + ")"));
      const std::size_t steps = lessons.lessons[*index].steps.size();
      if (static_cast<std::size_t>(saved->step) > steps)
        return fail(exit_usage, "'" + load_path + "': session field 'lesson.step' is " + std::to_string(saved->step) +
                                    ": lesson '" + saved->name + "' has steps 1 to " + std::to_string(steps));
      lesson_position = smlab::app::LessonPosition{*index, static_cast<std::size_t>(saved->step - 1)};
    }
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
  if (!lesson_spec.empty()) {
    const smlab::app::LessonLookup found = smlab::app::lookup_lesson(lessons, lesson_spec);
    if (!found.position) {
      if (lessons.lessons.empty() && !lessons.error.empty()) return fail(exit_file, lessons.error);
      // A lesson file that did not load is named: it may be why the lesson is missing.
      return fail(exit_usage, found.error + (lessons.error.empty() ? "" : " (" + lessons.error + ")"));
    }
    lesson_position = found.position;
    const smlab::app::LessonStep& step = lessons.lessons[found.position->lesson].steps[found.position->step];
    params = step.params;
    if (view_option->count() == 0) view = step.view;
  }
  // Imported data replaces the random Q and K before --set (so --set head=2 or row=7 can refer to it).
  if (!tokens_path.empty() && import_specs.empty()) return fail(exit_usage, "--tokens goes with --import FILE");
  if (!import_specs.empty()) {
    const smlab::app::ImportLoad imported = smlab::app::load_import(import_specs, tokens_path);
    if (!imported.data) return fail(imported.unreadable ? exit_file : exit_usage, imported.error);
    if (auto error = smlab::attach_import(params, imported.data)) return fail(exit_usage, error->message);
  }
  // Every --set in the order of param_keys() (seq_len before row), whatever the command line's
  // order: `--set row=10 --set seq_len=4` is the same request as the other way round, and refused.
  std::vector<std::pair<std::string, std::string>> settings;
  for (const std::string& assignment : assignments) {
    const auto equals = assignment.find('=');
    if (equals == std::string::npos)
      return fail(exit_usage, "--set '" + assignment.substr(0, 60) + "' is not KEY=VALUE, e.g. --set temperature=0.5");
    settings.emplace_back(assignment.substr(0, equals), assignment.substr(equals + 1));
  }
  const auto key_rank = [](const std::string& key) {
    const auto keys = smlab::param_keys();
    for (std::size_t rank = 0; rank < keys.size(); ++rank)
      if (keys[rank].name == key) return rank;
    return keys.size();
  };
  std::stable_sort(settings.begin(), settings.end(),
                   [&](const auto& a, const auto& b) { return key_rank(a.first) < key_rank(b.first); });
  for (const auto& [key, value] : settings)
    if (auto error = smlab::set_param(params, key, value)) return fail(exit_usage, error->message);
  const auto size = parse_size(size_text);
  if (!size) return fail(exit_usage, "--size '" + size_text.substr(0, 40) + "' is not allowed: WxH from 320x240 to 8192x8192");

  const auto theme = smlab::app::theme_from_name(theme_name);
  if (!theme) return fail(exit_usage, "--theme '" + theme_name.substr(0, 40) + "' is not allowed: dark, light or projector");
  // A plain decimal number (no hex, no spaces), checked as a double before it becomes a float, so
  // 3.0000001 is refused rather than rounded into range.
  char* font_scale_end = nullptr;
  const double font_scale_value = std::strtod(font_scale_text.c_str(), &font_scale_end);
  const bool font_scale_is_decimal = font_scale_text.find_first_not_of("0123456789.eE+-") == std::string::npos;
  const auto font_scale = static_cast<float>(font_scale_value);
  if (font_scale_end != font_scale_text.c_str() + font_scale_text.size() || !font_scale_is_decimal ||
      !(font_scale_value >= smlab::app::font_scale_min && font_scale_value <= smlab::app::font_scale_max))
    return fail(exit_usage, "--font-scale '" + font_scale_text.substr(0, 40) + "' is not allowed: a number from 1 to 3");
  const auto colormap = smlab::plot::colormap_from_name(colormap_name);
  if (!colormap || *colormap == smlab::plot::Colormap::Diverging)
    return fail(exit_usage, "--colormap '" + colormap_name.substr(0, 40) + "' is not allowed: viridis, cividis, magma or greys");
  const auto shot_scale = smlab::app::parse_export_scale(scale_text);
  if (!shot_scale) return fail(exit_usage, "--scale '" + scale_text.substr(0, 40) + "' is not allowed: 1, 2 or 4");

  const auto language = smlab::i18n::parse_language(lang_code);
  if (!language)
    return fail(exit_usage, "--lang '" + lang_code.substr(0, 40) + "' is not allowed: " + smlab::i18n::language_codes());
  // The string tables. Without en.json the window still works but shows keys instead of text: one
  // line says so (runs that only list or export numbers say nothing).
  const std::string catalogue_error = smlab::i18n::load_catalogue(smlab::app::find_assets_dir());
  const bool shows_text = csv_dir.empty() || !svg_dir.empty();
  if (!catalogue_error.empty() && shows_text) warn(catalogue_error);
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
  options.pins = pins.pins;
  options.presenter = presenter;
  options.controls_shown = !hide_controls;

  // The export modes remove their temporary files when interrupted (the window handles its own signals).
  if (csv_or_svg || !screenshot_path.empty() || !gif_path.empty() || !export_lesson_args.empty())
    smlab::exporting::remove_temporaries_on_signal();

  // 4a. Files from the numbers and the plot descriptions: no graphics context needed. All files of
  // the run are written together or none is (one FileBatch).
  if (csv_or_svg) {
    for (const std::string& dir : {csv_dir, svg_dir})
      if (!dir.empty())
        if (auto error = smlab::exporting::ensure_directory(dir)) return fail(exit_file, *error);
    smlab::EvaluateOptions evaluate_options;
    evaluate_options.all_labs = true;
    // The SVG's d_k curve gets the same refinement as a headless screenshot.
    evaluate_options.dk_trials = smlab::app::headless_refine_trials(params.seq_len);
    const smlab::Snapshot snapshot = *smlab::evaluate(params, evaluate_options);
    smlab::exporting::FileBatch batch(overwrite);
    if (!csv_dir.empty()) {
      smlab::exporting::CsvOptions csv_options;
      csv_options.overwrite = overwrite;
      const auto result = smlab::exporting::export_csv(snapshot, csv_dir, csv_options, &batch);
      if (!result.ok()) return fail(exit_file, *result.error);
      const auto labs = smlab::exporting::export_lab_csv(snapshot, csv_dir, overwrite, &batch);
      if (labs.error) return fail(exit_file, *labs.error);
      smlab::app::refresh_pins(pins);
      if (!pins.pins.empty())
        for (const auto& [name, text] : smlab::app::pins_csv_files(pins.pins, pins.snapshots))
          if (auto error = batch.stage(fs::path(csv_dir) / name, text)) return fail(exit_file, *error);
    }
    if (!svg_dir.empty()) {
      smlab::plot::Style svg_style = smlab::plot::light_style();
      svg_style.sequential_colormap = *colormap;
      // Chinese labels need a CJK face in the viewer; DejaVu stays first for Latin and symbols.
      if (smlab::i18n::language() == smlab::i18n::Language::Chinese)
        svg_style.svg_font_family = "DejaVu Sans, WenQuanYi Micro Hei, Noto Sans CJK SC, sans-serif";
      const auto result = smlab::exporting::export_svg(snapshot, svg_dir, overwrite, svg_style, 640.0f, 440.0f, &batch);
      if (result.error) return fail(exit_file, *result.error);
      smlab::app::refresh_pins(pins);
      if (!pins.pins.empty())
        for (const auto& [name, text] : smlab::app::pinned_svg_files(pins, snapshot, svg_style, 640.0f, 440.0f))
          if (auto error = batch.stage(fs::path(svg_dir) / name, text)) return fail(exit_file, *error);
    }
    if (auto error = batch.commit()) return fail(exit_file, *error);
    for (const auto& file : batch.targets()) std::printf("%s\n", file.string().c_str());
    return exit_ok;
  }

  // The headless paths (GIF, frame benchmark, screenshot) all render at --size with no display.
  auto create_offscreen = [&] {
    smlab::platform::OffscreenOptions offscreen_options;
    offscreen_options.width = size->width;
    offscreen_options.height = size->height;
    return smlab::platform::Offscreen::create(offscreen_options);
  };

  // 4b. Every step of a lesson as a PNG, rendered offscreen like --screenshot; all or none.
  if (!export_lesson_args.empty()) {
    const std::string& name = export_lesson_args[0];
    const auto index = smlab::app::find_lesson(lessons, name);
    if (!index) {
      if (lessons.lessons.empty() && !lessons.error.empty()) return fail(exit_file, lessons.error);
      return fail(exit_usage, "--export-lesson '" + name.substr(0, 40) + "' is not a lesson: allowed " +
                                  smlab::app::lesson_names(lessons) +
                                  (lessons.error.empty() ? "" : " (" + lessons.error + ")"));
    }
    const smlab::app::Lesson& lesson = lessons.lessons[*index];
    const fs::path dir(export_lesson_args[1]);
    if (auto error = smlab::exporting::ensure_directory(dir)) return fail(exit_file, *error);
    smlab::exporting::FileBatch batch(overwrite);
    std::vector<fs::path> targets;
    for (std::size_t step = 0; step < lesson.steps.size(); ++step) {
      char file_name[96];
      std::snprintf(file_name, sizeof file_name, "%s-%02zu.png", lesson.name.c_str(), step + 1);
      targets.push_back(dir / file_name);
      // Refuse before rendering anything, so a refused export writes no file at all.
      if (auto error = batch.check(targets.back())) return fail(exit_file, *error);
    }
    auto created = create_offscreen();
    if (!created) return fail(exit_no_graphics, created.error);
    options.params = lesson.steps.front().params;
    options.view = lesson.steps.front().view;
    options.lesson = smlab::app::LessonPosition{*index, 0};
    smlab::app::App app(*created.surface, options);
    if (!app.font_warning().empty()) warn(app.font_warning());
    for (std::size_t step = 0; step < lesson.steps.size(); ++step) {
      smlab::app::open_lesson_step(app.ui(), *index, step, false);
      app.evaluator().set_refine_limit(smlab::app::headless_refine_trials(lesson.steps[step].params.seq_len));
      app.wait_for_snapshot();
      for (int frame = 0; frame < 3; ++frame) app.frame();  // as --screenshot: the third frame is saved
      const std::vector<std::uint8_t> png = smlab::exporting::encode_png(created.surface->capture());
      if (png.empty()) return fail(exit_file, "cannot write '" + targets[step].string() + "': PNG encoding failed");
      if (auto error = batch.stage(targets[step], png)) return fail(exit_file, *error);
    }
    if (auto error = batch.commit()) return fail(exit_file, *error);
    for (const fs::path& target : targets) std::printf("%s\n", target.string().c_str());
    return exit_ok;
  }

  // 4c. Animated GIF of a slider sweep, rendered offscreen.
  if (!gif_path.empty()) {
    auto sweep = smlab::app::parse_sweep(sweep_text, params);
    if (const auto* error = std::get_if<std::string>(&sweep)) return fail(exit_usage, *error);
    const fs::path target(gif_path);
    if (auto error = smlab::exporting::check_target(target, overwrite)) return fail(exit_file, *error);
    auto created = create_offscreen();
    if (!created) return fail(exit_no_graphics, created.error);
    options.refine_trials = smlab::app::headless_refine_trials(params.seq_len);
    smlab::app::App app(*created.surface, options);
    smlab::exporting::GifWriter writer;
    if (auto error = smlab::app::render_sweep(app, *created.surface, std::get<smlab::app::SweepSpec>(sweep), *gif_frames,
                                              writer))
      return fail(exit_usage, *error);
    if (auto error = smlab::exporting::write_gif(target, writer, overwrite)) return fail(exit_file, *error);
    std::printf("%s\n", gif_path.c_str());
    return exit_ok;
  }

  // 4d. Headless frame benchmark (DESIGN.md §9).
  if (*bench_frames > 0) {
    auto created = create_offscreen();
    if (!created) return fail(exit_no_graphics, created.error);
    smlab::app::App app(*created.surface, options);
    std::string error;
    const auto result = smlab::app::run_frame_bench(app, bench_key, *bench_frames, error);
    if (!error.empty()) return fail(exit_usage, error);
    std::printf("%s\n", result.to_json().c_str());
    return exit_ok;
  }

  // 4e. Headless: EGL surfaceless rendering into an offscreen framebuffer.
  if (!screenshot_path.empty()) {
    const fs::path target(screenshot_path);
    if (auto error = smlab::exporting::check_target(target, overwrite)) return fail(exit_file, *error);
    auto created = create_offscreen();
    if (!created) return fail(exit_no_graphics, created.error);
    // --scale: the same layout with 2× or 4× the pixels; the App rasterises its fonts to match.
    if (auto error = created.surface->resize(size->width, size->height, static_cast<float>(*shot_scale)))
      return fail(exit_usage, "--scale " + scale_text + " with --size " + size_text + " is too large: " + *error);
    options.refine_trials = smlab::app::headless_refine_trials(params.seq_len);
    smlab::app::App app(*created.surface, options);
    if (!app.font_warning().empty()) warn(app.font_warning());
    if (!app.language_warning().empty()) warn(app.language_warning());
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

  // 3e. Window: GLFW on X11 (no display: exit 4). A start with no state on the command line resumes
  // the last session (window_run.hpp).
  if (!presets.error.empty()) std::fprintf(stderr, "softmax-lab: %s (the Presets menu is empty)\n", presets.error.c_str());
  smlab::app::WindowRun window_run;
  window_run.options = options;
  window_run.width = size->width;
  window_run.height = size->height;
  window_run.state_from_command_line = !load_path.empty() || !preset_name.empty() || !assignments.empty() ||
                                       view_option->count() > 0 || !lesson_spec.empty() ||
                                       !import_specs.empty();
  window_run.screenshot_dir_given = !screenshot_dir.empty();
  window_run.theme_given = theme_option->count() > 0;
  window_run.font_scale_given = font_scale_option->count() > 0;
  window_run.colormap_given = colormap_option->count() > 0;
  window_run.language_given = lang_option->count() > 0;
  return smlab::app::run_window(std::move(window_run));
}

