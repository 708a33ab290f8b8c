// --list-keys, --list-views, --list-presets, --list-lessons: each list asked for, in that order.
#include <cstdio>

#include "files/printable.hpp"
#include "modes/modes.hpp"
#include "smlab/params.hpp"
#include "smlab/views.hpp"

namespace smlab::app {
namespace {

void print_keys() {
  const Params defaults;
  for (const ParamKey& key : param_keys()) {
    const std::string value = get_param(defaults, key.name).value_or("");
    std::printf("%-12s default %-8s allowed: %s\n             %s\n", std::string(key.name).c_str(),
                value.empty() ? "(none)" : value.c_str(), std::string(key.allowed).c_str(),
                std::string(key.description).c_str());
  }
}

}  // namespace

Result<void> run_lists(const Options& o, AppOptions start) {
  if (o.list_keys) print_keys();
  if (o.list_presets) {
    if (!start.presets) return start.presets.error();
    for (const Preset& preset : *start.presets)
      std::printf("%-20s %s\n", preset.name.c_str(), printable(preset.title).c_str());
  }
  if (o.list_lessons) {
    for (const Lesson& lesson : start.lessons.lessons)
      std::printf("%-20s %2zu steps  %s\n", lesson.name.c_str(), lesson.steps.size(),
                  printable(lesson.title.english).c_str());
    if (start.lessons.error) return *start.lessons.error;
  }
  if (o.list_views)
    for (const ViewInfo& info : all_views())
      std::printf("%-20s %s\n", std::string(info.name).c_str(), std::string(info.summary).c_str());
  return {};
}

}  // namespace smlab::app
