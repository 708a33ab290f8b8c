// The app's views: the dashboard and one lab per idea. Names are the stable
// identifiers of --view, session files and CSV file names.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace smlab {

enum class View { dashboard, normalizers, stability, temperature, scaling, gradients, attention_variants, positions, heads };

struct ViewInfo {
  View view;
  std::string_view name;     // "attention-variants"
  std::string_view title;    // "Attention variants"
  std::string_view summary;  // one line for --list-views
};

std::span<const ViewInfo> all_views();
const ViewInfo& view_info(View view);
std::optional<View> view_from_name(std::string_view name);

}  // namespace smlab
