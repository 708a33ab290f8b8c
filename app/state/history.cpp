// History: bounded undo/redo stacks of Params, committed between gestures.
#include "state/history.hpp"

#include <algorithm>
#include <utility>

namespace smlab::app {

History::History(std::size_t capacity) : capacity_(std::max<std::size_t>(capacity, 1)) {}

void History::reset(const Params& current) {
  recorded_ = current;
  undo_.clear();
  redo_.clear();
}

void History::observe(const Params& current, bool gesture_active) {
  if (gesture_active || current == recorded_) return;
  undo_.push_back(std::exchange(recorded_, current));
  if (undo_.size() > capacity_) undo_.pop_front();
  redo_.clear();
}

std::optional<Params> History::undo() {
  if (undo_.empty()) return std::nullopt;
  redo_.push_back(std::exchange(recorded_, std::move(undo_.back())));
  undo_.pop_back();
  return recorded_;
}

std::optional<Params> History::redo() {
  if (redo_.empty()) return std::nullopt;
  undo_.push_back(std::exchange(recorded_, std::move(redo_.back())));
  redo_.pop_back();
  return recorded_;
}

}  // namespace smlab::app
