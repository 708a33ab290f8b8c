// The run modes of softmax-lab: one row each in the mode table (modes.cpp), each run by its own
// function in app/modes/<mode>.cpp. main() runs the first row the command line asks for; at most
// one output mode may be asked for (parse_options refuses two). A new mode is a row, its file, and
// its options in options.cpp.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "frame/app.hpp"
#include "modes/options.hpp"
#include "platform/offscreen.hpp"
#include "smlab/error.hpp"

namespace smlab::app {

struct Mode {
  enum class Kind {
    lists,   // prints lists from the key table, views, presets and lessons: no start state is resolved
    output,  // writes files or prints numbers, headless, then exits; one per command line
    window,  // the window: what runs when nothing else is asked for
  };
  std::string_view name;  // as messages name it: "--screenshot", "--export-csv/--export-svg"
  Kind kind = Kind::output;
  bool (*asked)(const Options& options) = nullptr;
  // Runs the mode from the resolved start state (lists: only its presets and lessons are set).
  Result<void> (*run)(const Options& options, AppOptions start) = nullptr;
};

// The table, in order of precedence: the lists, the output modes, the window (always asked).
std::span<const Mode> run_modes();
// The first row `options` asks for.
const Mode& chosen_mode(const Options& options);

// Each mode's run function (app/modes/<mode>.cpp).
Result<void> run_lists(const Options& options, AppOptions start);          // lists.cpp
Result<void> run_files(const Options& options, AppOptions start);          // files.cpp: CSV and SVG
Result<void> run_screenshot(const Options& options, AppOptions start);     // screenshot.cpp
Result<void> run_gif(const Options& options, AppOptions start);            // gif.cpp
Result<void> run_lesson_pngs(const Options& options, AppOptions start);    // lesson_pngs.cpp
Result<void> run_questions(const Options& options, AppOptions start);      // questions.cpp: the handout
Result<void> run_bench(const Options& options, AppOptions start);          // bench.cpp: --bench-frames
Result<void> run_bench_latency(const Options& options, AppOptions start);  // bench.cpp: --bench-latency
Result<void> run_train_bench(const Options& options, AppOptions start);    // train.cpp: --bench-frames --train
Result<void> run_window(const Options& options, AppOptions start);         // window.cpp
Result<void> run_class_driver(const Options& options, AppOptions start);   // class_driver.cpp: tests' teacher

// Shared by the modes: a warning that does not stop the run, one printable line on stderr; and the
// offscreen surface the headless renders draw on, at --size with no display.
void warn(std::string_view message);
// The lesson NAME names for a lesson export (`option`: its flag), or the one-line refusal that
// lists the lessons.
Result<std::size_t> exported_lesson(const LessonList& lessons, const std::string& name, std::string_view option);
platform::Created<platform::Offscreen> create_offscreen(const Size& size, bool full_redraw = false);

}  // namespace smlab::app
