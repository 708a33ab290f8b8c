// libFuzzer target for parse_lesson (assets/lessons/*.json): never crashes or hangs, an error is
// one line and leaves no lesson, and every lesson it returns has valid Params, a known panel on
// every step, and an animation between its steps that stays valid and lands exactly.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "lessons/lessons.hpp"

using smlab::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const smlab::app::LessonLoad load = smlab::app::parse_lesson(text);
  if (!load.ok()) {
    smlab::fuzz::require_one_line_error(load.error().message);
    return 0;
  }
  const smlab::app::Lesson& lesson = *load;
  require(!lesson.steps.empty() && lesson.steps.size() <= smlab::app::lesson_max_steps);
  smlab::Params previous;
  for (const smlab::app::LessonStep& step : lesson.steps) {
    require(smlab::validate(step.params).ok());
    require(!smlab::app::panel_entry_plots(step.view, step.panel).empty());
    require(!smlab::app::step_plots(step).empty());
    require(!step.title.english.empty() && !step.title.chinese.empty());
    for (double progress : {0.0, 0.25, 0.5, 0.999}) {
      const smlab::Params mid =
          smlab::app::interpolate_params(previous, step.params, smlab::app::lesson_ease(progress));
      require(smlab::validate(mid).ok());
    }
    require(smlab::app::interpolate_params(previous, step.params, 1.0) == step.params);
    previous = step.params;
  }
  return 0;
}
