// parse_options(): the command line into Options. CLI11 reads the options and runs each value's
// check as it goes; the combinations are checked after, from the mode table (modes/modes.hpp).
//
// [SECTION] Index
//   [SECTION] Value checks: one converter per kind of value
//   [SECTION] The options
//   [SECTION] Combinations: one output mode, and what goes with what
//   [SECTION] parse_options
#include "modes/options.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <system_error>
#include <string_view>
#include <utility>

#include "modes/modes.hpp"
#include "export/panel_crop.hpp"
#include "smlab/labs/training.hpp"
#include "smlab/train/settings.hpp"

namespace smlab::app {
namespace {

// [SECTION] Value checks: one converter per kind of value

// "'<the value, at most 40 bytes>' is not allowed: <allowed>" after the option's name.
Error not_allowed(std::string_view option, std::string_view text, std::string_view allowed) {
  return Error::usage(std::string(option) + " '" + std::string(text.substr(0, 40)) +
                      "' is not allowed: " + std::string(allowed));
}

// A whole number typed on the command line: decimal digits only (no sign, space, "0x" or exponent:
// CLI11 and sscanf would take " 5", "+5" and "0x10", and sscanf's %d wraps past the int range),
// read without overflow and within [low, high]; nullopt otherwise.
std::optional<int> whole_number(std::string_view text, int low, int high) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  long long value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || value < low || value > high) return std::nullopt;
  return static_cast<int>(value);
}

// "1600x900" → Size; sizes from 320x240 to 8192x8192 (what llvmpipe renders comfortably).
Result<Size> size_value(const std::string& text) {
  const std::size_t separator = text.find_first_of("xX");
  const std::string_view typed(text);
  const auto width =
      separator == std::string::npos ? std::nullopt : whole_number(typed.substr(0, separator), 320, 8192);
  const auto height =
      separator == std::string::npos ? std::nullopt : whole_number(typed.substr(separator + 1), 240, 8192);
  if (!width || !height) return not_allowed("--size", text, "WxH from 320x240 to 8192x8192");
  return Size{*width, *height};
}

// A count typed on the command line (whole_number), from `low` to `high`.
std::function<Result<int>(const std::string&)> count_value(std::string option, int low, int high) {
  return [option = std::move(option), low, high](const std::string& text) -> Result<int> {
    if (const auto count = whole_number(text, low, high)) return *count;
    return not_allowed(option, text, "an integer from " + std::to_string(low) + " to " + std::to_string(high));
  };
}

// The start state's own checks (state/start_state.hpp), which the web page's URL uses too.
Result<float> font_scale_value(const std::string& text) { return font_scale_option(text); }

Result<plot::Colormap> colormap_value(const std::string& text) { return colormap_option(text); }

Result<int> scale_value(const std::string& text) {
  if (const auto scale = parse_export_scale(text)) return *scale;
  return not_allowed("--scale", text, "1, 2 or 4");
}

// What the value checks share while CLI11 runs them. CLI11 reports a refusal as "NAME: MESSAGE" and
// stops at the first; our messages are whole lines already, so the first one is kept in `refused`
// and printed as written. With --help nothing is refused: the help is printed whatever the values.
struct Checks {
  std::optional<Error> refused;
  const CLI::Option* help = nullptr;

  std::string refuse(Error error) {
    if (help != nullptr && help->count() > 0) return {};
    if (!refused) refused = std::move(error);
    return refused->message;
  }
};

// A CLI11 check that converts the option's text with `convert` into `out`.
template <class T, class Convert>
CLI::Validator converts(T& out, Convert convert, Checks& checks) {
  return CLI::Validator(
      [&out, convert, &checks](std::string& text) -> std::string {
        Result<T> value = convert(text);
        if (!value) return checks.refuse(value.error());
        out = std::move(*value);
        return {};
      },
      "");  // no description: --help stays as it was
}

// The check every option with a value gets first: no empty text.
CLI::Validator not_empty(const CLI::Option& option, Checks& checks) {
  return CLI::Validator(
      [&option, &checks](std::string& text) -> std::string {
        if (!text.empty()) return {};
        return checks.refuse(Error::usage(option.get_name() + " '' is empty: give " + option.get_type_name()));
      },
      "");
}

// Whether `text` is a name longer than `dot_extension` that ends in it (any case).
bool has_extension(std::string_view text, std::string_view dot_extension) {
  return text.size() > dot_extension.size() &&
         std::equal(dot_extension.rbegin(), dot_extension.rend(), text.rbegin(),
                    [](char a, char b) { return a == static_cast<char>(std::tolower(static_cast<unsigned char>(b))); });
}

// A file's name must end in its format's extension (any case): PNG bytes named "a.jpg", or a GIF
// named "a.png", would be opened as what the name says by every viewer and fail there.
CLI::Validator extension(const CLI::Option& option, std::string_view dot_extension, std::string_view format,
                         Checks& checks) {
  return CLI::Validator(
      [&option, dot_extension, format, &checks](std::string& text) -> std::string {
        if (text.empty() || has_extension(text, dot_extension)) return {};
        return checks.refuse(not_allowed(
            option.get_name(), text,
            "the file is " + std::string(format) + ", so its name must end in " + std::string(dot_extension)));
      },
      "");
}

// [SECTION] The options

// The options that name a value (added with their checks in parse_options).
struct ValueOptions {
  CLI::Option *set, *screenshot, *size, *csv, *svg, *screenshot_dir, *preset, *lesson, *export_lesson,
      *export_questions, *load, *gif, *sweep, *frames, *theme, *font_scale, *lang, *colormap, *scale, *panel, *view,
      *bench_frames, *bench_latency, *bench_key, *bench_load, *train, *steps, *class_address, *class_driver;
};

ValueOptions add_options(CLI::App& cli, Options& o, std::string& text) {
  ValueOptions v{};
  // Scratch text for options whose value is converted by its check (the check writes Options).
  std::string& scratch = text;
  cli.add_option("--import", o.start.import_specs,
                 "Show your own attention data: FILE (.npy/.npz/.csv; roles from array names q, k, v, scores, attn), "
                 "FILE:ROLE or FILE.npz:ARRAY=ROLE,... (ROLE: Q, K, V, scores, weights); repeatable")
      ->type_name("FILE[:ARRAY[=ROLE]]");
  cli.add_option("--tokens", o.start.tokens_path,
                 "Token labels for --import: plain text, one per line, or a JSON list of strings")
      ->type_name("FILE");
  v.set = cli.add_option("--set", o.start.assignments, "Set a parameter, KEY=VALUE (repeatable; see --list-keys)")
              ->type_name("KEY=VALUE");
  v.screenshot = cli.add_option("--screenshot", o.screenshot_path,
                                "Render the dashboard offscreen (no display needed), save it as PNG, exit")
                     ->type_name("FILE.png");
  v.size =
      cli.add_option("--size", o.size_text, "Window or image size in pixels (320x240 to 8192x8192)")->type_name("WxH");
  v.csv = cli.add_option("--export-csv", o.csv_dir,
                         "Write the numbers behind every plot as CSV files into DIR (created if missing), exit")
              ->type_name("DIR");
  v.svg = cli.add_option("--export-svg", o.svg_dir,
                         "Write every plot (dashboard and labs) as SVG into DIR (created if missing), exit")
              ->type_name("DIR");
  cli.add_flag("--overwrite", o.overwrite, "Allow exports to replace existing regular files");
  v.screenshot_dir = cli.add_option("--screenshot-dir", o.screenshot_dir,
                                    "Folder for the Save PNG button and F12 (default ~/Pictures/softmax-lab)")
                         ->type_name("DIR");
  v.preset = cli.add_option("--preset", o.start.preset_name,
                            "Start from a preset's Params (--set still applies on top; see --list-presets)")
                 ->type_name("NAME");
  cli.add_flag("--list-presets", o.list_presets, "List the presets (the classic examples), with what each shows");
  v.lesson = cli.add_option("--lesson", o.start.lesson_spec,
                            "Open a lesson at a step (1 = first); with --screenshot, render that step; GUESS shows a "
                            "predict step revealed beside that guess")
                 ->type_name("NAME[:STEP[:GUESS]]");
  cli.add_flag("--list-lessons", o.list_lessons, "List the lessons: name, number of steps, title");
  v.export_lesson = cli.add_option("--export-lesson", o.export_lesson,
                                   "Render every step of a lesson offscreen as DIR/NAME-01.png, "
                                   "NAME-02.png, ... (DIR created if missing), exit")
                        ->expected(2)
                        // The whole placeholder: type_name would have CLI11 add " x 2" after it in
                        // --help (and so in the man page help2man makes from it).
                        ->option_text("NAME DIR");
  v.export_questions = cli.add_option("--export-questions", o.export_questions,
                                      "Write a lesson's predict questions, without their answers, as a printable "
                                      "handout FILE.html in the --lang language, exit")
                           ->expected(2)
                           ->option_text("NAME FILE.html");
  v.load = cli.add_option("--load", o.start.load_path, "Start from a saved session (Params, view, screenshot folder)")
               ->type_name("FILE.json");
  v.gif = cli.add_option("--export-gif", o.gif_path,
                         "Render a slider sweep offscreen as an animated GIF (needs --sweep), exit")
              ->type_name("FILE.gif");
  v.sweep = cli.add_option("--sweep", o.sweep_text,
                           "What --export-gif moves: KEY=FROM:TO or KEY=FROM:TO:log, e.g. temperature=0.05:20:log")
                ->type_name("KEY=FROM:TO[:log]");
  v.frames = cli.add_option("--frames", scratch, "Number of GIF frames, 1 to 1000 (default 60)")->type_name("N");
  v.theme = cli.add_option("--theme", scratch, "dark, light or projector (high contrast, large, thick lines)")
                ->type_name("NAME");
  v.font_scale =
      cli.add_option("--font-scale", scratch, "UI and plot text size, 1 to 3 (Ctrl+= / Ctrl+- in the window)")
          ->type_name("X");
  v.lang =
      cli.add_option("--lang", scratch, "Language of the window and the plots: en or zh-CN (CSV columns stay English)")
          ->type_name("CODE");
  v.colormap =
      cli.add_option("--colormap", scratch, "Heatmap colours: viridis, cividis, magma or greys (screen, PNG, SVG)")
          ->type_name("NAME");
  v.scale = cli.add_option("--scale", o.scale_text, "--screenshot at 1, 2 or 4 times the pixels of --size (crisp text)")
                ->type_name("1|2|4");
  v.panel = cli.add_option("--panel", o.panel_name,
                           "--screenshot of one panel only: controls (in a lesson: the step's text and its controls) "
                           "or a plot, e.g. distribution")
                ->type_name("NAME");
  v.view =
      cli.add_option("--view", scratch, "Start on a view: dashboard or a lab (see --list-views)")->type_name("NAME");
  cli.add_flag("--presenter", o.presenter,
               "Presenter mode: the lesson step's panel (or the view's first plot) fills the window under a large "
               "caption (F5 / Escape in the window)");
  cli.add_flag("--hide-controls", o.hide_controls, "Start with the control column hidden (Ctrl+B / F9 in the window)");
  cli.add_flag("--list-keys", o.list_keys, "List the keys --set accepts, with ranges and defaults");
  v.train = cli.add_option(
                   "--train", o.train_task,
                   "The training lab with a task's settings (see --list-tasks; --set train_KEY=VALUE on top): "
                   "the window opens it at step 0 and trains it live when Train is pressed; with an output mode it is "
                   "trained to --steps first")
                ->type_name("TASK");
  v.steps = cli.add_option("--steps", scratch, "Steps --train trains to, 0 to 100000 (default: train_steps, 500)")
                ->type_name("N");
  cli.add_flag("--list-tasks", o.list_tasks, "List the training lab's tasks (--train)");
  cli.add_flag("--list-views", o.list_views, "List the views (the dashboard and the labs)");
  v.bench_frames =
      cli.add_option("--bench-frames", scratch,
                     "Headless: move a slider every frame for N frames (1 to 100000), print timings as JSON")
          ->type_name("N");
  v.bench_latency = cli.add_option("--bench-latency", scratch,
                                   "Headless: N single steps of each slider (1 to 10000), input to first and final "
                                   "result on screen, as JSON")
                        ->type_name("N");
  v.bench_key = cli.add_option("--bench-key", o.bench_key,
                               "Slider --bench-frames moves (temperature, score_scale, d_k or row), or the one "
                               "--bench-latency moves (also seq_len, scaled, custom_scores)")
                    ->type_name("KEY");
  cli.add_flag("--full-redraw", o.full_redraw,
               "Draw every pixel of every frame (by default a frame repaints only what changed; the "
               "frame benchmarks' baseline)");
  v.class_address = cli.add_option("--class", scratch,
                                   "Host a class from the window: students open the address it shows (and its QR "
                                   "code) on their phones; PORT 0 picks a free one, ADDR one network (default: every "
                                   "network), localhost this computer only")
                        ->type_name("[ADDR:]PORT");
  // Tests only: the teacher's app headless, its steps read from stdin (modes/class_driver.cpp).
  v.class_driver = cli.add_flag("--class-driver", o.class_driver)->group("");
  v.bench_load = cli.add_option("--bench-load", scratch,
                                "With --bench-frames or --bench-latency: N threads (0 to 64) kept busy beside the "
                                "bench, as another program on the same cores")
                     ->type_name("N");
  return v;
}

// [SECTION] Combinations: one output mode, and what goes with what

// Before anything is read or written: no combination that would drop an output without a word
// (README, "Command line"). The output modes are the mode table's rows.
Result<void> check_combinations(const Options& o, const ValueOptions& v) {
  std::vector<std::string_view> outputs;
  for (const Mode& mode : run_modes())
    if (mode.kind == Mode::Kind::output && mode.asked(o)) outputs.push_back(mode.name);
  if (outputs.size() > 1)
    return Error::usage(std::string(outputs[0]) + " and " + std::string(outputs[1]) +
                        " cannot be used together: run one output mode at a time (--export-csv and --export-svg may "
                        "be combined)");
  const std::pair<const char*, bool> lists[] = {{"--list-keys", o.list_keys},
                                                {"--list-views", o.list_views},
                                                {"--list-presets", o.list_presets},
                                                {"--list-lessons", o.list_lessons},
                                                {"--list-tasks", o.list_tasks}};
  for (const auto& [name, given] : lists)
    if (given && !outputs.empty())
      return Error::usage(std::string(name) + " cannot be used with " + std::string(outputs[0]) +
                          ": run them one at a time");
  const auto given = [](const CLI::Option* option) { return option->count() > 0; };
  if (given(v.sweep) && !given(v.gif)) return Error::usage("--sweep goes with --export-gif FILE.gif");
  if (given(v.gif) && !given(v.sweep)) return Error::usage("--export-gif FILE.gif needs --sweep KEY=FROM:TO[:log]");
  if (given(v.frames) && !given(v.gif)) return Error::usage("--frames goes with --export-gif FILE.gif");
  if (given(v.bench_key) && !given(v.bench_frames) && !given(v.bench_latency))
    return Error::usage("--bench-key goes with --bench-frames N or --bench-latency N");
  if (given(v.bench_load) && !given(v.bench_frames) && !given(v.bench_latency))
    return Error::usage("--bench-load goes with --bench-frames N or --bench-latency N");
  if ((given(v.scale) || given(v.panel)) && !given(v.screenshot))
    return Error::usage("--scale and --panel go with --screenshot FILE.png");
  for (const CLI::Option* lesson_export : {v.export_lesson, v.export_questions})
    if (given(lesson_export))
      for (const CLI::Option* option : {v.set, v.preset, v.load, v.lesson, v.view, v.train})
        if (given(option))
          return Error::usage(lesson_export->get_name() + " takes the lesson's own steps: " + option->get_name() +
                              " does not apply");
  if (given(v.export_questions) && !has_extension(o.export_questions[1], ".html"))
    return not_allowed("--export-questions", o.export_questions[1],
                       "the handout is HTML, so its name must end in .html");
  if (!o.start.tokens_path.empty() && o.start.import_specs.empty())
    return Error::usage("--tokens goes with --import FILE");
  if (given(v.steps) && !given(v.train)) return Error::usage("--steps goes with --train TASK");
  if (given(v.class_address) && !outputs.empty() && !o.class_driver)
    return Error::usage("--class hosts a class from the window: it does not go with " + std::string(outputs[0]));
  if (o.class_driver && !given(v.class_address)) return Error::usage("--class-driver goes with --class [ADDR:]PORT");
  return {};
}

// --train TASK [--steps N] (steps -1: not given): the task's own settings as train_* assignments, applied before
// the typed ones as their base (state/start_state.hpp), and the training view.
void add_training_start(Options& o, int steps, bool view_given) {
  if (o.train_task.empty()) return;
  const train::Settings defaults = train::default_settings(*train::task_from_name(o.train_task));
  std::vector<std::string> assignments;
  for (const train::SettingKey& key : train::setting_keys())
    assignments.push_back("train_" + std::string(key.name) + "=" + *train::get_setting(defaults, key.name));
  if (steps >= 0) assignments.push_back("train_steps=" + std::to_string(steps));
  o.start.task_assignments = std::move(assignments);
  if (!view_given) o.view = View::training;
  o.start.given.view = true;
}

Result<std::string> task_value(const std::string& text) {
  if (train::task_from_name(text)) return text;
  std::string names;
  for (const train::Task task : train::all_tasks)
    names += (names.empty() ? "" : ", ") + std::string(train::task_name(task));
  return not_allowed("--train", text, names + " (see --list-tasks)");
}

}  // namespace

// [SECTION] parse_options

Result<Options> parse_options(int argc, char** argv) {
  Options o;
  CLI::App cli{"Softmax Lab: see why attention uses softmax and divides scores by sqrt(d_k)."};
  cli.set_version_flag("--version", std::string("softmax-lab ") + SMLAB_VERSION);
  std::string scratch;
  const ValueOptions v = add_options(cli, o, scratch);

  // Each value's checks, in order: not empty, then its own range or names.
  Checks checks;
  checks.help = cli.get_help_ptr();
  for (CLI::Option* option : {v.frames,        v.bench_frames,   v.screenshot, v.size,       v.csv,
                              v.svg,           v.screenshot_dir, v.preset,     v.lesson,     v.load,
                              v.gif,           v.sweep,          v.theme,      v.font_scale, v.lang,
                              v.colormap,      v.scale,          v.panel,      v.bench_key,  v.export_lesson,
                              v.bench_latency, v.train,          v.steps,      v.bench_load, v.export_questions,
                              v.class_address})
    option->check(not_empty(*option, checks));
  v.screenshot->check(extension(*v.screenshot, ".png", "PNG", checks));
  v.gif->check(extension(*v.gif, ".gif", "a GIF", checks));
  int steps = -1;  // --steps not given
  v.train->check(converts(o.train_task, task_value, checks));
  v.steps->check(converts(steps, count_value("--steps", 0, TrainingLimits::steps_max), checks));
  v.frames->check(converts(o.gif_frames, count_value("--frames", 1, 1000), checks));
  v.bench_frames->check(converts(o.bench_frames, count_value("--bench-frames", 1, 100000), checks));
  v.bench_latency->check(converts(o.bench_latency, count_value("--bench-latency", 1, 10000), checks));
  v.bench_load->check(converts(o.bench_load, count_value("--bench-load", 0, 64), checks));
  v.size->check(converts(o.size, size_value, checks));
  v.theme->check(converts(o.theme, theme_option, checks));
  v.font_scale->check(converts(o.font_scale, font_scale_value, checks));
  v.colormap->check(converts(o.colormap, colormap_value, checks));
  v.scale->check(converts(o.shot_scale, scale_value, checks));
  v.lang->check(converts(o.language, language_option, checks));
  v.view->check(converts(o.view, view_option, checks));
  const auto class_value = [](const std::string& text) -> Result<std::optional<classroom::HostAddress>> {
    Result<classroom::HostAddress> where = classroom::parse_host_address(text);
    if (!where) return where.error();
    return std::optional<classroom::HostAddress>(*where);
  };
  v.class_address->check(converts(o.class_address, class_value, checks));
  try {
    cli.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    o.exit_now = cli.exit(e);
    return o;
  } catch (const CLI::CallForVersion& e) {
    o.exit_now = cli.exit(e);
    return o;
  } catch (const CLI::ParseError& e) {
    if (checks.refused) return *checks.refused;  // one of the checks above, in its own words
    return Error::usage(std::string(e.what()) + " (see --help)");
  }
  if (Result<void> combined = check_combinations(o, v); !combined) return combined.error();

  add_training_start(o, steps, v.view->count() > 0);
  o.bench_key_given = v.bench_key->count() > 0;
  SessionGiven& given = o.start.given;
  given.view = v.view->count() > 0 || !o.train_task.empty();
  given.screenshot_dir = !o.screenshot_dir.empty();
  given.theme = v.theme->count() > 0;
  given.font_scale = v.font_scale->count() > 0;
  given.colormap = v.colormap->count() > 0;
  given.language = v.lang->count() > 0;
  given.lesson = !o.start.lesson_spec.empty();
  o.state_from_command_line = !o.start.load_path.empty() || !o.start.preset_name.empty() ||
                              !o.start.assignments.empty() || !o.start.task_assignments.empty() || given.view ||
                              !o.start.lesson_spec.empty() || !o.start.import_specs.empty() || !o.train_task.empty();
  return o;
}

}  // namespace smlab::app
