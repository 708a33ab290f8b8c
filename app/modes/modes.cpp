// The mode table (modes.hpp) and what the modes share.
#include "modes/modes.hpp"

#include <cstdio>

#include "files/printable.hpp"

namespace smlab::app {
namespace {

const Mode mode_table[] = {
    {"--list-keys/--list-views/--list-presets/--list-lessons/--list-tasks", Mode::Kind::lists,
     [](const Options& o) { return o.any_list(); }, run_lists},
    {"--export-csv/--export-svg", Mode::Kind::output,
     [](const Options& o) { return !o.csv_dir.empty() || !o.svg_dir.empty(); }, run_files},
    {"--screenshot", Mode::Kind::output, [](const Options& o) { return !o.screenshot_path.empty(); }, run_screenshot},
    {"--export-gif", Mode::Kind::output, [](const Options& o) { return !o.gif_path.empty(); }, run_gif},
    {"--export-lesson", Mode::Kind::output, [](const Options& o) { return !o.export_lesson.empty(); }, run_lesson_pngs},
    {"--export-questions", Mode::Kind::output, [](const Options& o) { return !o.export_questions.empty(); },
     run_questions},
    // With --train the frames are drawn while the lab trains on its worker thread (train.cpp).
    {"--bench-frames --train", Mode::Kind::output,
     [](const Options& o) { return o.bench_frames > 0 && !o.train_task.empty(); }, run_train_bench},
    {"--bench-frames", Mode::Kind::output, [](const Options& o) { return o.bench_frames > 0 && o.train_task.empty(); },
     run_bench},
    {"--bench-latency", Mode::Kind::output, [](const Options& o) { return o.bench_latency > 0; }, run_bench_latency},
    {"--class-driver", Mode::Kind::output, [](const Options& o) { return o.class_driver; }, run_class_driver},
    {"", Mode::Kind::window, [](const Options&) { return true; }, run_window},
};

}  // namespace

std::span<const Mode> run_modes() { return mode_table; }

const Mode& chosen_mode(const Options& options) {
  for (const Mode& mode : mode_table)
    if (mode.asked(options)) return mode;
  return mode_table[std::size(mode_table) - 1];
}

Result<std::size_t> exported_lesson(const LessonList& lessons, const std::string& name, std::string_view option) {
  if (const auto index = find_lesson(lessons, name)) return *index;
  if (lessons.lessons.empty() && lessons.error) return *lessons.error;
  return Error::usage(std::string(option) + " '" + name.substr(0, 40) + "' is not a lesson: allowed " +
                      lesson_names(lessons) + (lessons.error ? " (" + lessons.error->message + ")" : ""));
}

void warn(std::string_view message) { std::fprintf(stderr, "softmax-lab: %s\n", printable(message).c_str()); }

platform::Created<platform::Offscreen> create_offscreen(const Size& size, bool full_redraw) {
  platform::OffscreenOptions offscreen_options;
  offscreen_options.full_redraw = full_redraw;
  offscreen_options.width = size.width;
  offscreen_options.height = size.height;
  return platform::Offscreen::create(offscreen_options);
}

}  // namespace smlab::app
