// Undo/redo of Params: a bounded list of past states. A whole gesture (a slider drag, an
// animation) becomes one entry because states are committed only when no gesture is running.
#pragma once

#include <cstddef>
#include <deque>
#include <optional>

#include "smlab/params.hpp"

namespace smlab::app {

class History {
 public:
  // At most `capacity` undo steps are kept (the oldest are dropped); capacity 0 is taken as 1.
  explicit History(std::size_t capacity = 200);

  // Forgets every step and starts from `current` (start-up).
  void reset(const Params& current);

  // Called once per frame with the Params now shown. While `gesture_active` (a slider held, a
  // text field being edited, a sweep playing) nothing is recorded; afterwards a Params different
  // from the last recorded one becomes one undo step, and the redo steps are dropped.
  void observe(const Params& current, bool gesture_active);

  // The Params to show after one undo or redo step; empty when there is none. The caller shows
  // the result, and the next observe() of it records nothing.
  std::optional<Params> undo();
  std::optional<Params> redo();

  bool can_undo() const { return !undo_.empty(); }
  bool can_redo() const { return !redo_.empty(); }
  std::size_t undo_size() const { return undo_.size(); }
  std::size_t redo_size() const { return redo_.size(); }
  std::size_t capacity() const { return capacity_; }

 private:
  std::size_t capacity_;
  Params recorded_;          // the state the newest step leads to
  std::deque<Params> undo_;  // oldest first
  std::deque<Params> redo_;  // newest undone last
};

}  // namespace smlab::app
