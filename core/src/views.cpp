// The table of views: the dashboard's row here, then each lab's own row (defined in its file), in
// the order of smlab/lab_list.hpp. Adding a lab: docs/ARCHITECTURE.md, "Adding a lab".
#include "smlab/views.hpp"

#include <array>

#include "smlab/snapshot.hpp"

namespace smlab {
namespace {

using Views = std::array<ViewInfo, view_count>;
const Views& views() {
  static const Views table = [] {
    Views rows{};
    rows[0] = {View::dashboard, "dashboard", "distribution, entropy, S(1-S) gradient and attention side by side",
               nullptr};
    std::size_t row = 1;
#define SMLAB_VIEW_ROW(id, Result) \
  rows[row++] = {View::id, id##_lab_info.name, id##_lab_info.summary, id##_lab_info.evaluate};
    SMLAB_LABS(SMLAB_VIEW_ROW)
#undef SMLAB_VIEW_ROW
    return rows;
  }();
  return table;
}

}  // namespace

std::span<const ViewInfo> all_views() { return views(); }

const Params& params_of(const Snapshot& snapshot) { return snapshot.params; }

const ShownRow& shown_row_of(const Snapshot& snapshot) { return snapshot.shown; }

const ViewInfo& view_info(View view) { return views()[static_cast<std::size_t>(view)]; }

std::optional<View> view_from_name(std::string_view name) {
  for (const ViewInfo& info : views())
    if (info.name == name) return info.view;
  return std::nullopt;
}

}  // namespace smlab
