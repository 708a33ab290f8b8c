// The app's views: the dashboard and one lab per idea (the labs: smlab/lab_list.hpp), in ONE
// table (views.cpp). Names are the stable identifiers of --view, session files, CSV/SVG file names
// and lesson steps. How to add a lab: docs/ARCHITECTURE.md, "Adding a lab".
#pragma once

#include <any>
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

#include "smlab/lab_list.hpp"

namespace smlab {

struct Params;
struct ShownRow;
struct Snapshot;

// The dashboard, then the labs in the list's order (= tab order).
enum class View {
  dashboard,
#define SMLAB_VIEW_ENUMERATOR(id, Result) id,
  SMLAB_LABS(SMLAB_VIEW_ENUMERATOR)
#undef SMLAB_VIEW_ENUMERATOR
};

// How many views there are: the dashboard and the labs.
#define SMLAB_COUNT_LAB(id, Result) +1
inline constexpr std::size_t view_count = 1 SMLAB_LABS(SMLAB_COUNT_LAB);
#undef SMLAB_COUNT_LAB

// The view whose lab computes the struct `Lab` (a Result of the list): Snapshot::lab<Lab>() reads
// that view's slot and no other.
template <class Lab>
inline constexpr bool is_lab_result = false;
template <class Lab>
inline constexpr View view_of_lab = View::dashboard;  // only for is_lab_result types
#define SMLAB_LAB_RESULT(id, Result)                  \
  struct Result;                                      \
  template <>                                         \
  inline constexpr bool is_lab_result<Result> = true; \
  template <>                                         \
  inline constexpr View view_of_lab<Result> = View::id;
SMLAB_LABS(SMLAB_LAB_RESULT)
#undef SMLAB_LAB_RESULT

// A lab's numbers for one Snapshot: computes them from the lab's Params (imported data replaced
// by random data of its settings) and the Snapshot so far (the shown row: Snapshot::shown).
using LabEvaluator = std::any (*)(const Params& lab_params, const Snapshot& snapshot);

struct ViewInfo {
  View view;
  std::string_view name;            // "attention-variants"
  std::string_view summary;         // one line for --list-views
  LabEvaluator evaluate = nullptr;  // null for the dashboard (its numbers are the Snapshot's own)
};

// A lab's row, defined at the end of its core file as `extern const LabInfo <id>_lab_info{...}` for
// every id of smlab/lab_list.hpp; views.cpp makes the views' table of them.
struct LabInfo {
  std::string_view name;     // --view, session files, CSV/SVG file names and lesson steps
  std::string_view summary;  // one line for --list-views
  LabEvaluator evaluate = nullptr;
};
#define SMLAB_DECLARE_LAB_INFO(id, Result) extern const LabInfo id##_lab_info;
SMLAB_LABS(SMLAB_DECLARE_LAB_INFO)
#undef SMLAB_DECLARE_LAB_INFO

// The dashboard, then the labs in the list's order.
std::span<const ViewInfo> all_views();
const ViewInfo& view_info(View view);
std::optional<View> view_from_name(std::string_view name);

// The evaluator of a lab whose function has the usual shape evaluate_x_lab(XLab&, const Params&).
// A lab that builds maps of its own from these Params gets the causal mask through
// attention_setup(params) or shown_map_scores (smlab/attention.hpp, smlab/shown_row.hpp).
template <class Lab, void (*evaluate_lab)(Lab&, const Params&)>
std::any lab_evaluator(const Params& lab_params, const Snapshot&) {
  Lab lab;
  evaluate_lab(lab, lab_params);
  return lab;
}

// What a lab that works on the shown row reads of the Snapshot: the Params it was computed from
// (imported data included) and its row (Snapshot::shown, the causal mask applied).
const Params& params_of(const Snapshot& snapshot);
const ShownRow& shown_row_of(const Snapshot& snapshot);

// The evaluator of a lab that works on the shown row, evaluate_x_lab(XLab&, const Params&, const
// ShownRow&): it is handed the dashboard's own row, never one it makes itself, so every such lab
// shows the numbers the dashboard shows (the mask, imported data and custom scores included).
template <class Lab, void (*evaluate_lab)(Lab&, const Params&, const ShownRow&)>
std::any row_lab_evaluator(const Params&, const Snapshot& snapshot) {
  Lab lab;
  evaluate_lab(lab, params_of(snapshot), shown_row_of(snapshot));
  return lab;
}

}  // namespace smlab
