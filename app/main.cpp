// softmax-lab: parse and check the whole command line, resolve the start state once, then run one
// mode: the window, or headless (EGL, no display needed) files, a benchmark or a list, and exit.
// Exit codes (DESIGN.md §6; smlab::exit_code): 0 ok, 2 bad usage or input, 3 file error, 4 no graphics context.
//
// [SECTION] Index
//   [SECTION] Output: one printable line per error or warning
//   [SECTION] Options: every option read and checked before anything loads
//   [SECTION] Start state: session, preset, lesson, import and --set, in that order
//   [SECTION] Modes: lists, CSV/SVG files, lesson PNGs, GIF, benchmark, screenshot, window
//   [SECTION] main
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "app.hpp"
#include "files/atomic_file.hpp"
#include "files/progress_line.hpp"
#include "export/csv.hpp"
#include "export/gif.hpp"
#include "gif_sweep.hpp"
#include "plot_export.hpp"
#include "export/png.hpp"
#include "files/utf8.hpp"
#include "scaled_screenshot.hpp"
#include "frame_bench.hpp"
#include "i18n/i18n.hpp"
#include "lessons/lesson_player.hpp"
#include "platform/allocator.hpp"
#include "platform/offscreen.hpp"
#include "smlab/assignments.hpp"
#include "smlab/error.hpp"
#include "panels/pins_panel.hpp"
#include "state/import_files.hpp"
#include "state/presets.hpp"
#include "state/session.hpp"
#include "state/start_state.hpp"
#include "window_run.hpp"

namespace {

namespace fs = std::filesystem;
namespace app = smlab::app;
using smlab::Error;
using smlab::Result;

// [SECTION] Output: one printable line per error or warning

// Text that is safe to print on one line: control characters become spaces, bytes that are not
// well-formed UTF-8 (files/utf8.hpp) become '?', and any run of more than 80 characters without a
// space (a long path, a 100 KB value) is cut in the middle to its first and last 38 characters.
std::string printable(std::string_view text) {
  std::string clean;
  clean.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const std::size_t length = app::utf8_char_length(text, i);
    if (length == 0) {
      clean += '?';
      ++i;
      continue;
    }
    if (length == 1 && (byte < 0x20 || byte == 0x7f))
      clean += ' ';
    else
      clean.append(text.substr(i, length));
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

// Every error leaves through here: one printable line (see printable()), the exit code of its kind.
int report(const Error& error) {
  std::fprintf(stderr, "softmax-lab: %s\n", printable(error.message).c_str());
  return smlab::exit_code(error.kind);
}

int finish(const Result<void>& result) { return result ? smlab::exit_ok : report(result.error()); }

// A warning that does not stop the run, printed the same way.
void warn(const std::string& message) { std::fprintf(stderr, "softmax-lab: %s\n", printable(message).c_str()); }

// [SECTION] Options: every option read and checked before anything loads

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

// A count typed on the command line: decimal digits only (CLI11 would also take "0x10" and " 5"),
// from `low` to `high`.
std::optional<int> parse_count(const std::string& text, int low, int high) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  const int value = std::stoi(text);
  if (value < low || value > high) return std::nullopt;
  return value;
}

// One run mode per command line (the lists may be combined with each other).
enum class Mode { window, lists, files, lesson_pngs, gif, bench, bench_latency, screenshot };

struct Options {
  Mode mode = Mode::window;
  std::optional<int> exit_now;  // --help or --version was printed: exit with this code

  // Files and folders, as typed.
  std::string screenshot_path, csv_dir, svg_dir, screenshot_dir, load_path, gif_path, tokens_path;
  std::vector<std::string> import_specs, assignments, export_lesson;  // export_lesson: NAME DIR
  std::string preset_name, lesson_spec, panel_name, sweep_text, bench_key = "temperature";
  bool overwrite = false, presenter = false, hide_controls = false;
  bool list_keys = false, list_views = false, list_presets = false, list_lessons = false;

  // Checked values (and the texts some messages quote).
  Size size;
  std::string size_text = "1600x900", scale_text = "1";
  app::Theme theme = app::Theme::dark;
  float font_scale = 1.0f;
  smlab::plot::Colormap colormap = smlab::plot::Colormap::Viridis;
  int shot_scale = 1;
  smlab::i18n::Language language = smlab::i18n::Language::English;
  smlab::View view = smlab::View::dashboard;
  int gif_frames = 60, bench_frames = 0, bench_latency = 0;
  bool bench_key_given = false;
  app::SessionGiven given;  // which look and place options were typed: a session leaves them alone
  bool state_from_command_line = false;
};

// "--screenshot" and "--export-csv" style names of the options given, for combination checks.
struct GivenOption {
  const char* name;
  bool given;
};

Result<Options> parse_options(int argc, char** argv) {
  Options o;
  CLI::App cli{"Softmax Lab: see why attention uses softmax and divides scores by sqrt(d_k)."};
  cli.set_version_flag("--version", std::string("softmax-lab ") + SMLAB_VERSION);
  std::string view_name = "dashboard", theme_name = "dark", font_scale_text = "1", colormap_name = "viridis";
  std::string lang_code = "en", gif_frames_text = "60", bench_frames_text, bench_latency_text;
  cli.add_option("--import", o.import_specs,
                 "Show your own attention data: FILE (.npy/.npz/.csv; roles from array names q, k, v, scores, attn), "
                 "FILE:ROLE or FILE.npz:ARRAY=ROLE,... (ROLE: Q, K, V, scores, weights); repeatable")
      ->type_name("FILE[:ARRAY[=ROLE]]");
  cli.add_option("--tokens", o.tokens_path,
                 "Token labels for --import: plain text, one per line, or a JSON list of strings")
      ->type_name("FILE");
  CLI::Option* set_option =
      cli.add_option("--set", o.assignments, "Set a parameter, KEY=VALUE (repeatable; see --list-keys)")
          ->type_name("KEY=VALUE");
  CLI::Option* screenshot_option =
      cli.add_option("--screenshot", o.screenshot_path,
                     "Render the dashboard offscreen (no display needed), save it as PNG, exit")
          ->type_name("FILE.png");
  CLI::Option* size_option =
      cli.add_option("--size", o.size_text, "Window or image size in pixels (320x240 to 8192x8192)")->type_name("WxH");
  CLI::Option* csv_option =
      cli.add_option("--export-csv", o.csv_dir,
                     "Write the numbers behind every plot as CSV files into DIR (created if missing), exit")
          ->type_name("DIR");
  CLI::Option* svg_option =
      cli.add_option("--export-svg", o.svg_dir,
                     "Write every plot (dashboard and labs) as SVG into DIR (created if missing), exit")
          ->type_name("DIR");
  cli.add_flag("--overwrite", o.overwrite, "Allow exports to replace existing regular files");
  CLI::Option* screenshot_dir_option =
      cli.add_option("--screenshot-dir", o.screenshot_dir,
                     "Folder for the Save PNG button and F12 (default ~/Pictures/softmax-lab)")
          ->type_name("DIR");
  CLI::Option* preset_option =
      cli.add_option("--preset", o.preset_name,
                     "Start from a preset's Params (--set still applies on top; see --list-presets)")
          ->type_name("NAME");
  cli.add_flag("--list-presets", o.list_presets, "List the presets (the classic examples), with what each shows");
  CLI::Option* lesson_option =
      cli.add_option("--lesson", o.lesson_spec,
                     "Open a lesson at a step (1 = first); with --screenshot, render that step; GUESS shows a "
                     "predict step revealed beside that guess")
          ->type_name("NAME[:STEP[:GUESS]]");
  cli.add_flag("--list-lessons", o.list_lessons, "List the lessons: name, number of steps, title");
  CLI::Option* export_lesson_option = cli.add_option("--export-lesson", o.export_lesson,
                                                     "Render every step of a lesson offscreen as DIR/NAME-01.png, "
                                                     "NAME-02.png, ... (DIR created if missing), exit")
                                          ->expected(2)
                                          ->type_name("NAME DIR");
  CLI::Option* load_option =
      cli.add_option("--load", o.load_path, "Start from a saved session (Params, view, screenshot folder)")
          ->type_name("FILE.json");
  CLI::Option* gif_option = cli.add_option("--export-gif", o.gif_path,
                                           "Render a slider sweep offscreen as an animated GIF (needs --sweep), exit")
                                ->type_name("FILE.gif");
  CLI::Option* sweep_option =
      cli.add_option("--sweep", o.sweep_text,
                     "What --export-gif moves: KEY=FROM:TO or KEY=FROM:TO:log, e.g. temperature=0.05:20:log")
          ->type_name("KEY=FROM:TO[:log]");
  CLI::Option* frames_option =
      cli.add_option("--frames", gif_frames_text, "Number of GIF frames, 1 to 1000 (default 60)")->type_name("N");
  CLI::Option* theme_option =
      cli.add_option("--theme", theme_name, "dark, light or projector (high contrast, large, thick lines)")
          ->type_name("NAME");
  CLI::Option* font_scale_option =
      cli.add_option("--font-scale", font_scale_text, "UI and plot text size, 1 to 3 (Ctrl+= / Ctrl+- in the window)")
          ->type_name("X");
  CLI::Option* lang_option =
      cli.add_option("--lang", lang_code,
                     "Language of the window and the plots: en or zh-CN (CSV columns stay English)")
          ->type_name("CODE");
  CLI::Option* colormap_option = cli.add_option("--colormap", colormap_name,
                                                "Heatmap colours: viridis, cividis, magma or greys (screen, PNG, SVG)")
                                     ->type_name("NAME");
  CLI::Option* scale_option =
      cli.add_option("--scale", o.scale_text, "--screenshot at 1, 2 or 4 times the pixels of --size (crisp text)")
          ->type_name("1|2|4");
  CLI::Option* panel_option =
      cli.add_option("--panel", o.panel_name, "--screenshot of one panel only: controls or a plot, e.g. distribution")
          ->type_name("NAME");
  CLI::Option* view_option =
      cli.add_option("--view", view_name, "Start on a view: dashboard or a lab (see --list-views)")->type_name("NAME");
  cli.add_flag("--presenter", o.presenter,
               "Presenter mode: the lesson step's panel (or the view's first plot) fills the window under a large "
               "caption (F5 / Escape in the window)");
  cli.add_flag("--hide-controls", o.hide_controls, "Start with the control column hidden (Ctrl+B / F9 in the window)");
  cli.add_flag("--list-keys", o.list_keys, "List the keys --set accepts, with ranges and defaults");
  cli.add_flag("--list-views", o.list_views, "List the views (the dashboard and the labs)");
  CLI::Option* bench_option =
      cli.add_option("--bench-frames", bench_frames_text,
                     "Headless: move a slider every frame for N frames (1 to 100000), print timings as JSON")
          ->type_name("N");
  CLI::Option* bench_latency_option =
      cli.add_option("--bench-latency", bench_latency_text,
                     "Headless: N single steps of each slider (1 to 10000), input to first and final result on "
                     "screen, as JSON")
          ->type_name("N");
  CLI::Option* bench_key_option =
      cli.add_option("--bench-key", o.bench_key,
                     "Slider --bench-frames moves (temperature, score_scale, d_k or row), or the one --bench-latency "
                     "moves (also seq_len, scaled, custom_scores)")
          ->type_name("KEY");
  try {
    cli.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    o.exit_now = cli.exit(e);
    return o;
  } catch (const CLI::CallForVersion& e) {
    o.exit_now = cli.exit(e);
    return o;
  } catch (const CLI::ParseError& e) {
    return Error::usage(std::string(e.what()) + " (see --help)");
  }

  // Before anything is read or written: no empty values, and no combination that would drop an
  // output without a word (README, "Command line").
  for (CLI::Option* option :
       {frames_option,         bench_option,         screenshot_option,   size_option,     csv_option,   svg_option,
        screenshot_dir_option, preset_option,        lesson_option,       load_option,     gif_option,   sweep_option,
        theme_option,          font_scale_option,    lang_option,         colormap_option, scale_option, panel_option,
        bench_key_option,      export_lesson_option, bench_latency_option}) {
    if (option->count() == 0) continue;
    for (const std::string& value : option->results())
      if (value.empty()) return Error::usage(option->get_name() + " '' is empty: give " + option->get_type_name());
  }
  const bool csv_or_svg = csv_option->count() > 0 || svg_option->count() > 0;
  const GivenOption outputs[] = {
      {"--export-csv/--export-svg", csv_or_svg},     {"--screenshot", screenshot_option->count() > 0},
      {"--export-gif", gif_option->count() > 0},     {"--export-lesson", export_lesson_option->count() > 0},
      {"--bench-frames", bench_option->count() > 0}, {"--bench-latency", bench_latency_option->count() > 0}};
  const GivenOption lists[] = {{"--list-keys", o.list_keys},
                               {"--list-views", o.list_views},
                               {"--list-presets", o.list_presets},
                               {"--list-lessons", o.list_lessons}};
  std::vector<std::string> modes;
  for (const GivenOption& output : outputs)
    if (output.given) modes.emplace_back(output.name);
  if (modes.size() > 1)
    return Error::usage(modes[0] + " and " + modes[1] +
                        " cannot be used together: run one output mode at a time (--export-csv and --export-svg may "
                        "be combined)");
  for (const GivenOption& list : lists)
    if (list.given && !modes.empty())
      return Error::usage(std::string(list.name) + " cannot be used with " + modes[0] + ": run them one at a time");
  if (sweep_option->count() > 0 && gif_option->count() == 0)
    return Error::usage("--sweep goes with --export-gif FILE.gif");
  if (gif_option->count() > 0 && sweep_option->count() == 0)
    return Error::usage("--export-gif FILE.gif needs --sweep KEY=FROM:TO[:log]");
  if (frames_option->count() > 0 && gif_option->count() == 0)
    return Error::usage("--frames goes with --export-gif FILE.gif");
  if (bench_key_option->count() > 0 && bench_option->count() == 0 && bench_latency_option->count() == 0)
    return Error::usage("--bench-key goes with --bench-frames N or --bench-latency N");
  o.bench_key_given = bench_key_option->count() > 0;
  if ((scale_option->count() > 0 || panel_option->count() > 0) && screenshot_option->count() == 0)
    return Error::usage("--scale and --panel go with --screenshot FILE.png");
  if (export_lesson_option->count() > 0) {
    for (CLI::Option* option : {set_option, preset_option, load_option, lesson_option, view_option})
      if (option->count() > 0)
        return Error::usage("--export-lesson renders the lesson's own steps: " + option->get_name() +
                            " does not apply");
  }
  if (!o.tokens_path.empty() && o.import_specs.empty()) return Error::usage("--tokens goes with --import FILE");

  // Every value on its own.
  const auto gif_frames = parse_count(gif_frames_text, 1, 1000);
  if (!gif_frames)
    return Error::usage("--frames '" + gif_frames_text.substr(0, 40) + "' is not allowed: an integer from 1 to 1000");
  o.gif_frames = *gif_frames;
  const auto bench_frames =
      bench_frames_text.empty() ? std::optional<int>(0) : parse_count(bench_frames_text, 1, 100000);
  if (!bench_frames)
    return Error::usage("--bench-frames '" + bench_frames_text.substr(0, 40) +
                        "' is not allowed: an integer from 1 to 100000");
  o.bench_frames = *bench_frames;
  const auto bench_latency =
      bench_latency_text.empty() ? std::optional<int>(0) : parse_count(bench_latency_text, 1, 10000);
  if (!bench_latency)
    return Error::usage("--bench-latency '" + bench_latency_text.substr(0, 40) +
                        "' is not allowed: an integer from 1 to 10000");
  o.bench_latency = *bench_latency;
  const auto size = parse_size(o.size_text);
  if (!size)
    return Error::usage("--size '" + o.size_text.substr(0, 40) + "' is not allowed: WxH from 320x240 to 8192x8192");
  o.size = *size;
  const auto theme = app::theme_from_name(theme_name);
  if (!theme)
    return Error::usage("--theme '" + theme_name.substr(0, 40) + "' is not allowed: dark, light or projector");
  o.theme = *theme;
  // A plain decimal number (no hex, no spaces), checked as a double before it becomes a float, so
  // 3.0000001 is refused rather than rounded into range.
  char* font_scale_end = nullptr;
  const double font_scale_value = std::strtod(font_scale_text.c_str(), &font_scale_end);
  const bool font_scale_is_decimal = font_scale_text.find_first_not_of("0123456789.eE+-") == std::string::npos;
  if (font_scale_end != font_scale_text.c_str() + font_scale_text.size() || !font_scale_is_decimal ||
      !(font_scale_value >= app::font_scale_min && font_scale_value <= app::font_scale_max))
    return Error::usage("--font-scale '" + font_scale_text.substr(0, 40) + "' is not allowed: a number from 1 to 3");
  o.font_scale = static_cast<float>(font_scale_value);
  const auto colormap = smlab::plot::colormap_from_name(colormap_name);
  if (!colormap || *colormap == smlab::plot::Colormap::Diverging)
    return Error::usage("--colormap '" + colormap_name.substr(0, 40) +
                        "' is not allowed: viridis, cividis, magma or greys");
  o.colormap = *colormap;
  const auto shot_scale = app::parse_export_scale(o.scale_text);
  if (!shot_scale) return Error::usage("--scale '" + o.scale_text.substr(0, 40) + "' is not allowed: 1, 2 or 4");
  o.shot_scale = *shot_scale;
  const auto language = smlab::i18n::parse_language(lang_code);
  if (!language)
    return Error::usage("--lang '" + lang_code.substr(0, 40) + "' is not allowed: " + smlab::i18n::language_codes());
  o.language = *language;
  const auto view = smlab::view_from_name(view_name);
  if (!view) {
    std::string names;
    for (const smlab::ViewInfo& info : smlab::all_views())
      names += (names.empty() ? "" : ", ") + std::string(info.name);
    return Error::usage("--view '" + view_name.substr(0, 40) + "' is not a view: allowed " + names);
  }
  o.view = *view;

  o.given.view = view_option->count() > 0;
  o.given.screenshot_dir = !o.screenshot_dir.empty();
  o.given.theme = theme_option->count() > 0;
  o.given.font_scale = font_scale_option->count() > 0;
  o.given.colormap = colormap_option->count() > 0;
  o.given.language = lang_option->count() > 0;
  o.given.lesson = !o.lesson_spec.empty();
  o.state_from_command_line = !o.load_path.empty() || !o.preset_name.empty() || !o.assignments.empty() ||
                              o.given.view || !o.lesson_spec.empty() || !o.import_specs.empty();

  if (o.list_keys || o.list_views || o.list_presets || o.list_lessons)
    o.mode = Mode::lists;
  else if (csv_or_svg)
    o.mode = Mode::files;
  else if (!o.export_lesson.empty())
    o.mode = Mode::lesson_pngs;
  else if (!o.gif_path.empty())
    o.mode = Mode::gif;
  else if (o.bench_frames > 0)
    o.mode = Mode::bench;
  else if (o.bench_latency > 0)
    o.mode = Mode::bench_latency;
  else if (!o.screenshot_path.empty())
    o.mode = Mode::screenshot;
  return o;
}

// [SECTION] Start state: session, preset, lesson, import and --set, in that order

// The Params, view and look the run starts from: the command line's, a --load session's (read
// once, applied by apply_session like the window's autosave), a preset's or a lesson step's, then
// imported data, then every --set, all through the sliders' validation.
Result<app::AppOptions> resolve_start(const Options& o, const app::PresetList& presets,
                                      const app::LessonList& lessons) {
  app::AppOptions start;
  start.view = o.view;
  start.screenshot_dir = o.screenshot_dir;
  start.theme = o.theme;
  start.font_scale = o.font_scale;
  start.colormap = o.colormap;
  start.language = o.language;
  app::ProgressLine import_progress("import");  // on stderr, while big files import
  if (!o.load_path.empty()) {
    const Result<app::Session> loaded = app::load_session(o.load_path, {import_progress.progress(), {}});
    if (!loaded) return loaded.error();
    if (!loaded->import_error.empty() && o.mode != Mode::window)  // only the window falls back to random data
      return Error{loaded->import_error_kind, "'" + o.load_path + "': its imported data: " + loaded->import_error};
    const Result<void> applied = app::apply_session(*loaded, lessons, o.given, start);
    if (!start.import_warning.empty()) warn(start.import_warning);
    start.import_warning.clear();
    if (!applied) return Error{applied.error().kind, "'" + o.load_path + "': " + applied.error().message};
  }
  if (!o.preset_name.empty()) {
    if (!presets) return presets.error();
    const app::Preset* preset = app::find_preset(presets, o.preset_name);
    if (preset == nullptr)
      return Error::usage("--preset '" + o.preset_name.substr(0, 40) + "' is not a preset: allowed " +
                          app::preset_names(presets));
    start.params = preset->params;
    if (preset->view && !o.given.view) start.view = *preset->view;
  }
  // A lesson step sets Params and view like a preset (--set still applies on top).
  if (!o.lesson_spec.empty()) {
    const app::LessonLookup found = app::lookup_lesson(lessons, o.lesson_spec);
    if (!found) {
      if (lessons.lessons.empty() && lessons.error) return *lessons.error;
      // A lesson file that did not load is named: it may be why the lesson is missing.
      return Error{found.error().kind,
                   found.error().message + (lessons.error ? " (" + lessons.error->message + ")" : "")};
    }
    start.lesson = *found;
    const app::LessonStep& step = lessons.lessons[found->lesson].steps[found->step];
    start.params = step.params;
    if (!o.given.view) start.view = step.view;
  }
  // Imported data replaces the random Q and K before --set (so --set head=2 or row=7 can refer to it).
  if (!o.import_specs.empty()) {
    const app::ImportLoad imported = app::load_import(o.import_specs, o.tokens_path, {import_progress.progress(), {}});
    import_progress.done();
    if (!imported) return imported.error();
    for (const std::string& warning : (*imported)->warnings) warn(warning);
    if (Result<void> attached = smlab::attach_import(start.params, *imported); !attached.ok()) return attached.error();
  }
  // Every --set in the order of param_keys() (seq_len before row), whatever the command line's
  // order: `--set row=10 --set seq_len=4` is the same request as the other way round, and refused.
  if (auto applied = smlab::apply_assignments(start.params, o.assignments); !applied) return applied.error();
  start.presets = presets;
  start.lessons = lessons;
  start.presenter = o.presenter;
  start.controls_shown = !o.hide_controls;
  return start;
}

// [SECTION] Modes: lists, CSV/SVG files, lesson PNGs, GIF, benchmark, screenshot, window

void print_keys() {
  const smlab::Params defaults;
  for (const smlab::ParamKey& key : smlab::param_keys()) {
    const std::string value = smlab::get_param(defaults, key.name).value_or("");
    std::printf("%-12s default %-8s allowed: %s\n             %s\n", std::string(key.name).c_str(),
                value.empty() ? "(none)" : value.c_str(), std::string(key.allowed).c_str(),
                std::string(key.description).c_str());
  }
}

// Each list asked for, in this order: keys, presets, lessons, views.
Result<void> run_lists(const Options& o, const app::PresetList& presets, const app::LessonList& lessons) {
  if (o.list_keys) print_keys();
  if (o.list_presets) {
    if (!presets) return presets.error();
    for (const app::Preset& preset : *presets)
      std::printf("%-20s %s\n", preset.name.c_str(), printable(preset.title).c_str());
  }
  if (o.list_lessons) {
    for (const app::Lesson& lesson : lessons.lessons)
      std::printf("%-20s %2zu steps  %s\n", lesson.name.c_str(), lesson.steps.size(),
                  printable(lesson.title.english).c_str());
    if (lessons.error) return *lessons.error;
  }
  if (o.list_views) {
    for (const smlab::ViewInfo& info : smlab::all_views())
      std::printf("%-20s %s\n", std::string(info.name).c_str(), std::string(info.summary).c_str());
  }
  return {};
}

// Files from the numbers and the plot descriptions: no graphics context needed. All files of the
// run are written together or none is (one FileBatch).
Result<void> run_files(const Options& o, const app::AppOptions& start) {
  for (const std::string& dir : {o.csv_dir, o.svg_dir})
    if (!dir.empty())
      if (Result<void> made = smlab::exporting::ensure_directory(dir); !made) return made;
  smlab::EvaluateOptions evaluate_options;
  evaluate_options.all_labs = true;
  // The SVG's d_k curve gets the same refinement as a headless screenshot.
  evaluate_options.dk_trials = app::headless_refine_trials(start.params.seq_len);
  app::ProgressLine export_progress("export");
  evaluate_options.progress_sink = &export_progress;
  const smlab::Snapshot snapshot = *smlab::evaluate(start.params, evaluate_options);
  smlab::exporting::FileBatch batch(o.overwrite);
  if (!o.csv_dir.empty()) {
    smlab::exporting::CsvOptions csv_options;
    csv_options.overwrite = o.overwrite;
    const auto result = smlab::exporting::export_csv(snapshot, o.csv_dir, csv_options, &batch);
    if (!result) return result.error();
    const auto labs = smlab::exporting::export_lab_csv(snapshot, o.csv_dir, o.overwrite, &batch);
    if (!labs) return labs.error();
  }
  // A session's pins: pins*.csv and pinned-*.svg beside the files of the current state.
  app::PinState pins;
  pins.pins = start.pins;
  if (!pins.pins.empty()) app::refresh_pins(pins);
  if (!o.csv_dir.empty() && !pins.pins.empty())
    for (const auto& [name, text] : app::pins_csv_files(pins.pins, pins.snapshots))
      if (Result<void> staged = batch.stage(fs::path(o.csv_dir) / name, text); !staged) return staged;
  if (!o.svg_dir.empty()) {
    smlab::plot::Style svg_style = smlab::plot::light_style();
    svg_style.sequential_colormap = start.colormap;
    svg_style.color_scales.chosen = start.color_scales;
    // The start state's language (Chinese only with its table). Chinese labels need a CJK face in
    // the viewer; DejaVu stays first for Latin and symbols.
    const auto language = start.language == smlab::i18n::Language::Chinese && smlab::i18n::has_chinese()
                              ? smlab::i18n::Language::Chinese
                              : smlab::i18n::Language::English;
    if (language == smlab::i18n::Language::Chinese)
      svg_style.svg_font_family = "DejaVu Sans, WenQuanYi Micro Hei, Noto Sans CJK SC, sans-serif";
    const auto result =
        smlab::exporting::export_svg(snapshot, o.svg_dir, o.overwrite, svg_style, language, 640.0f, 440.0f, &batch);
    if (!result) return result.error();
    if (!pins.pins.empty())
      for (const auto& [name, text] : app::pinned_svg_files(pins, snapshot, language, svg_style, 640.0f, 440.0f))
        if (Result<void> staged = batch.stage(fs::path(o.svg_dir) / name, text); !staged) return staged;
  }
  if (Result<void> committed = batch.commit(); !committed) return committed;
  export_progress.done();
  for (const auto& file : batch.targets()) std::printf("%s\n", file.string().c_str());
  return {};
}

// The headless modes (lesson PNGs, GIF, frame benchmark, screenshot) all render at --size with no
// display.
smlab::platform::Created<smlab::platform::Offscreen> create_offscreen(const Size& size) {
  smlab::platform::OffscreenOptions offscreen_options;
  offscreen_options.width = size.width;
  offscreen_options.height = size.height;
  return smlab::platform::Offscreen::create(offscreen_options);
}

// Every step of a lesson as a PNG, rendered offscreen like --screenshot; all or none.
Result<void> run_lesson_pngs(const Options& o, app::AppOptions options) {
  const app::LessonList& lessons = options.lessons;
  const std::string& name = o.export_lesson[0];
  const auto index = app::find_lesson(lessons, name);
  if (!index) {
    if (lessons.lessons.empty() && lessons.error) return *lessons.error;
    return Error::usage("--export-lesson '" + name.substr(0, 40) + "' is not a lesson: allowed " +
                        app::lesson_names(lessons) + (lessons.error ? " (" + lessons.error->message + ")" : ""));
  }
  const app::Lesson& lesson = lessons.lessons[*index];
  const fs::path dir(o.export_lesson[1]);
  if (Result<void> made = smlab::exporting::ensure_directory(dir); !made) return made;
  smlab::exporting::FileBatch batch(o.overwrite);
  std::vector<fs::path> targets;
  for (std::size_t step = 0; step < lesson.steps.size(); ++step) {
    char file_name[96];
    std::snprintf(file_name, sizeof file_name, "%s-%02zu.png", lesson.name.c_str(), step + 1);
    targets.push_back(dir / file_name);
    // Refuse before rendering anything, so a refused export writes no file at all.
    if (Result<void> checked = batch.check(targets.back()); !checked) return checked;
  }
  auto created = create_offscreen(o.size);
  if (!created) return created.error();
  options.params = lesson.steps.front().params;
  options.view = lesson.steps.front().view;
  options.lesson = app::LessonPosition{*index, 0};
  app::App app(**created, options);
  if (!app.font_warning().empty()) warn(app.font_warning());
  for (std::size_t step = 0; step < lesson.steps.size(); ++step) {
    app::open_lesson_step(app.ui(), *index, step, false);
    app.evaluator().set_refine_limit(app::headless_refine_trials(lesson.steps[step].params.seq_len));
    app.wait_for_snapshot();
    for (int frame = 0; frame < 3; ++frame) app.frame();  // as --screenshot: the third frame is saved
    const std::vector<std::uint8_t> png = smlab::exporting::encode_png((*created)->capture());
    if (png.empty()) return Error::file("cannot write '" + targets[step].string() + "': PNG encoding failed");
    if (Result<void> staged = batch.stage(targets[step], png); !staged) return staged;
  }
  if (Result<void> committed = batch.commit(); !committed) return committed;
  for (const fs::path& target : targets) std::printf("%s\n", target.string().c_str());
  return {};
}

// An animated GIF of a slider sweep, rendered offscreen.
Result<void> run_gif(const Options& o, app::AppOptions options) {
  // The sweep's range is checked against the Params it starts from.
  const Result<app::SweepSpec> sweep = app::parse_sweep(o.sweep_text, options.params);
  if (!sweep) return sweep.error();
  const fs::path target(o.gif_path);
  if (Result<void> checked = smlab::exporting::check_target(target, o.overwrite); !checked) return checked;
  auto created = create_offscreen(o.size);
  if (!created) return created.error();
  options.refine_trials = app::headless_refine_trials(options.params.seq_len);
  app::App app(**created, options);
  smlab::exporting::GifWriter writer;
  if (Result<void> rendered = app::render_sweep(app, **created, *sweep, o.gif_frames, writer); !rendered)
    return rendered;
  if (Result<void> written = smlab::exporting::write_gif(target, writer, o.overwrite); !written) return written;
  std::printf("%s\n", o.gif_path.c_str());
  return {};
}

// The headless frame benchmark (DESIGN.md §9).
Result<void> run_bench(const Options& o, const app::AppOptions& options) {
  auto created = create_offscreen(o.size);
  if (!created) return created.error();
  app::App app(**created, options);
  const auto result = app::run_frame_bench(app, o.bench_key, o.bench_frames);
  if (!result) return result.error();
  std::printf("%s\n", result->to_json().c_str());
  return {};
}

// Headless slider-to-pixels latency (docs/PERFORMANCE.md).
Result<void> run_bench_latency(const Options& o, const app::AppOptions& options) {
  auto created = create_offscreen(o.size);
  if (!created) return created.error();
  app::App app(**created, options);
  const auto result = app::run_latency_bench(app, o.bench_key_given ? o.bench_key : "", o.bench_latency);
  if (!result) return result.error();
  std::printf("%s\n", result->to_json().c_str());
  return {};
}

// EGL surfaceless rendering into an offscreen framebuffer, saved as PNG (the window or one panel).
Result<void> run_screenshot(const Options& o, app::AppOptions options) {
  const fs::path target(o.screenshot_path);
  if (Result<void> checked = smlab::exporting::check_target(target, o.overwrite); !checked) return checked;
  auto created = create_offscreen(o.size);
  if (!created) return created.error();
  smlab::platform::Offscreen& surface = **created;
  // --scale: the same layout with 2× or 4× the pixels; the App rasterises its fonts to match.
  if (Result<void> resized = surface.resize(o.size.width, o.size.height, static_cast<float>(o.shot_scale)); !resized)
    return Error{resized.error().kind, "--scale " + o.scale_text + " with --size " + o.size_text +
                                           " is too large: " + resized.error().message};
  options.refine_trials = app::headless_refine_trials(options.params.seq_len);
  app::App app(surface, options);
  if (!app.font_warning().empty()) warn(app.font_warning());
  if (!app.language_warning().empty()) warn(app.language_warning());
  app.wait_for_snapshot();
  // Two frames let ImGui settle auto-sized items; the third is the one saved.
  for (int frame = 0; frame < 3; ++frame) app.frame();
  smlab::Image image = surface.capture();
  if (!o.panel_name.empty()) {
    const ImVec2 display(static_cast<float>(o.size.width), static_cast<float>(o.size.height));
    const auto rect = app::find_panel(app.ui(), display, o.panel_name);
    if (!rect) {
      std::string allowed;
      for (const std::string& name : app::panel_names(app.ui())) allowed += (allowed.empty() ? "" : ", ") + name;
      return Error::usage("--panel '" + o.panel_name.substr(0, 40) + "' is not on this view: allowed " + allowed);
    }
    image = app::crop_image(image, *rect, static_cast<float>(o.shot_scale));
    if (image.pixels.empty())  // laid out below the window's edge (the view scrolls there)
      return Error::usage("--panel '" + o.panel_name.substr(0, 40) + "' is not on screen at --size " + o.size_text +
                          ": the view scrolls to it; give a larger --size");
  }
  if (Result<void> written = smlab::exporting::write_png(target, image, o.overwrite); !written) return written;
  std::printf("%s\n", o.screenshot_path.c_str());
  return {};
}

// The window: GLFW on X11 (no display: exit 4). A start with no state on the command line resumes
// the last session (window_run.hpp).
Result<void> run_window(const Options& o, app::AppOptions options) {
  if (!options.presets)
    std::fprintf(stderr, "softmax-lab: %s (the Presets menu is empty)\n", options.presets.error().message.c_str());
  app::WindowRun window_run;
  window_run.options = std::move(options);
  window_run.width = o.size.width;
  window_run.height = o.size.height;
  window_run.state_from_command_line = o.state_from_command_line;
  window_run.given = o.given;
  return app::run_window(std::move(window_run));
}

}  // namespace

// [SECTION] main

int main(int argc, char** argv) {
  // Every mode: temporaries removed on any terminating signal, SIGXFSZ ignored, out of memory one line.
  smlab::exporting::install_exit_guards();
  smlab::platform::keep_freed_memory_mapped();
  smlab::platform::imgui_allocations_throw_when_out_of_memory();
  const Result<Options> parsed = parse_options(argc, argv);
  if (!parsed) return report(parsed.error());
  const Options& options = *parsed;
  if (options.exit_now) return *options.exit_now;

  // Presets and lessons live in assets/; a missing or bad file is reported by the runs that use them.
  const app::PresetList presets = app::load_presets(app::find_assets_dir() / "presets.json");
  const app::LessonList lessons = app::load_lessons(app::find_assets_dir() / "lessons");
  if (options.mode == Mode::lists) return finish(run_lists(options, presets, lessons));

  Result<app::AppOptions> start = resolve_start(options, presets, lessons);
  if (!start) return report(start.error());

  // The string tables. Without en.json the window still works but shows keys instead of text: one
  // line says so (runs that only export numbers say nothing).
  const std::string catalogue_error = smlab::i18n::load_catalogue(app::find_assets_dir());
  const bool shows_text = options.csv_dir.empty() || !options.svg_dir.empty();
  if (!catalogue_error.empty() && shows_text) warn(catalogue_error);
  // No process-wide language: each run mode hands start->language to what it makes (the App, the SVG export).

  switch (options.mode) {
    case Mode::lists: break;
    case Mode::files: return finish(run_files(options, *start));
    case Mode::lesson_pngs: return finish(run_lesson_pngs(options, *start));
    case Mode::gif: return finish(run_gif(options, *start));
    case Mode::bench: return finish(run_bench(options, *start));
    case Mode::bench_latency: return finish(run_bench_latency(options, *start));
    case Mode::screenshot: return finish(run_screenshot(options, *start));
    case Mode::window: break;
  }
  return finish(run_window(options, std::move(*start)));
}
