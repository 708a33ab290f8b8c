// Lesson claims as data: what a step's text says about its own numbers, in a form a test (and the
// app) can check against the Snapshot the step's Params produce. No GUI here.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "smlab/error.hpp"
#include "smlab/snapshot.hpp"
#include "smlab/views.hpp"

namespace smlab::app {

// One number of a Snapshot: a quantity name from claim_quantities(), with the series (a format,
// a variant, "scaled"/"unscaled", …), the index (a key or a head) and the d_k point (`at`) that
// some quantities need. Unused parts stay empty / −1 / 0.
struct ClaimQuantity {
  std::string quantity, series;
  int index = -1;
  int at = 0;
  friend bool operator==(const ClaimQuantity&, const ClaimQuantity&) = default;
};

// "quantity op value", or "quantity op times × than" when `than` is set. op is one of
// <, <=, >, >=, or ~ (|quantity − value| ≤ tolerance).
struct LessonClaim {
  ClaimQuantity left;
  std::string op;
  double value = 0.0;
  double tolerance = 0.0;
  std::optional<ClaimQuantity> than;
  double times = 1.0;
  friend bool operator==(const LessonClaim&, const LessonClaim&) = default;
};

// The vocabulary: each name, what it reads, and which parts it needs.
struct ClaimQuantityInfo {
  std::string_view name;
  std::string_view meaning;
  std::string_view series;  // allowed series, "|"-separated ("" when none)
  bool needs_index = false;
  bool needs_at = false;
};
std::span<const ClaimQuantityInfo> claim_quantities();

// Checks the parts against the vocabulary: success, or an Error::usage of one line naming what is
// wrong.
Result<void> check_claim_quantity(const ClaimQuantity& quantity);
Result<void> check_claim(const LessonClaim& claim);

// The value of a quantity in `snap` (evaluated with the labs a step's view needs), or an
// Error::usage when the Snapshot lacks it (a lab not evaluated, an index past the row).
Result<double> claim_value(const Snapshot& snap, const ClaimQuantity& quantity);

// The view whose lab computes `quantity` ("values_top_key": values), or nullopt for the numbers of
// the shown row and the d_k sweep, which every view's Snapshot holds. A step that quotes or claims
// a lab's number must show that lab (the loader checks).
std::optional<View> claim_quantity_lab(const ClaimQuantity& quantity);

// A quantity as the screen draws it. The d_k sweep's means (dk_entropy, dk_max_weight,
// dk_jacobian_norm) are read from `drawn_sweep`, the refined sweep the plots draw (the window refines
// a Snapshot's sweep after the Snapshot is made), when it belongs to the same setting; else from the
// Snapshot's own. Those come with their standard error and whether they have converged
// (monte_carlo_converged: SE ≤ 1% of the value or ≤ 0.002); other quantities are exact.
struct ClaimReading {
  double value = 0.0;
  std::optional<double> standard_error;  // a Monte Carlo mean's
  std::int64_t trials = 0;               // its trials per point
  bool converged = true;
};
Result<ClaimReading> claim_reading(const Snapshot& snap, const ClaimQuantity& quantity,
                                   const DkSweep* drawn_sweep = nullptr);

// The outcome of one claim: holds, the two sides, and a one-line description for reports:
// "max_weight[unscaled] = 0.75 >= 0.99: false".
struct ClaimOutcome {
  bool holds = false;
  double value = 0.0, bound = 0.0;
  std::string description, error;
};
ClaimOutcome evaluate_claim(const Snapshot& snap, const LessonClaim& claim);

std::string describe(const ClaimQuantity& quantity);

}  // namespace smlab::app
