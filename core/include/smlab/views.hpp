// The app's views: the dashboard and one lab per idea, in ONE table (views.cpp). Names are the
// stable identifiers of --view, session files, CSV/SVG file names and lesson steps.
//
// How to add a lab (the whole recipe; nothing else needs a new line):
//  core  1. core/include/smlab/labs/<name>.hpp + core/src/labs/<name>.cpp: a result struct
//           <Name>Lab and `void evaluate_<name>_lab(<Name>Lab& out, const Params& params)`
//           (add the .cpp to core/CMakeLists.txt's smlab_core list).
//        2. The registry: one enumerator in `View` below (at the end: tabs follow this order) and
//           one row in views.cpp's `views` table: name, English title, --list-views summary, the
//           lesson panels (each a plot name of the lab, or a named group of them) and
//           `lab_evaluator<<Name>Lab, evaluate_<name>_lab>` (+ the #include of its header there).
//           Snapshot::labs then holds its result (snapshot.lab<<Name>Lab>()); evaluate() fills it
//           whenever the view is shown or everything is exported; nothing else in core changes.
//        3. A test tests/core/lab_<name>_test.cpp (add it to tests/CMakeLists.txt's lab_tests).
//  app   4. app/panels/lab_<name>.cpp (add it to app/CMakeLists.txt's list): `build` (the plots,
//           from snapshot.lab<<Name>Lab>() only: no math), `controls` (ImGui widgets editing
//           Params) and optionally `interact`, and at its end the lab's row:
//             extern const LabDefinition <name>_lab{View::<name>, "lab.<name>.title",
//                 "lab.<name>.summary", <name>_control_labels, build_<name>, controls_<name>, nullptr};
//        5. app/panels/labs.cpp: one line `extern const LabDefinition <name>_lab;` and `&<name>_lab`
//           in the `labs` array (the app side of the registry).
//        6. The strings: "lab.<name>.*" in both tables, assets/i18n/en.json and zh-CN.json.
//  A new Params key is one row of params.cpp's key table plus its Params member.
#pragma once

#include <any>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace smlab {

struct Params;
struct Snapshot;

enum class View {
  dashboard,
  normalizers,
  stability,
  temperature,
  scaling,
  gradients,
  attention_variants,
  positions,
  heads,
  values,
  sampling,
  loss,
  geometry,
  init
};

// A panel a lesson step may highlight: one plot ("distribution") or a named group of plots
// ("attention" = both maps). Members are the plot names the view places ("<view>/<plot>" in the
// app's placed plots, "<view>-<plot>.csv" in an export).
struct ViewPanel {
  std::string_view name;
  std::vector<std::string_view> plots;
};

// A lab's numbers for one Snapshot: computes them from the lab's Params (imported data replaced
// by random data of its settings) and the Snapshot so far (the shown row's scores).
using LabEvaluator = std::any (*)(const Params& lab_params, const Snapshot& snapshot);

struct ViewInfo {
  View view;
  std::string_view name;              // "attention-variants"
  std::string_view title;             // "Attention variants"
  std::string_view summary;           // one line for --list-views
  std::span<const ViewPanel> panels;  // what a lesson step may name as its "panel"
  LabEvaluator evaluate = nullptr;    // null for the dashboard (its numbers are the Snapshot's own)
};

std::span<const ViewInfo> all_views();
const ViewInfo& view_info(View view);
std::optional<View> view_from_name(std::string_view name);

// The evaluator of a lab whose function has the usual shape evaluate_x_lab(XLab&, const Params&).
template <class Lab, void (*evaluate_lab)(Lab&, const Params&)>
std::any lab_evaluator(const Params& lab_params, const Snapshot&) {
  Lab lab;
  evaluate_lab(lab, lab_params);
  return lab;
}

}  // namespace smlab
