// Pins ("pin and compare"): up to four named copies of Params whose dashboard plots stay
// drawn as ghosts while the sliders move. A pin stores Params only; its numbers are recomputed by
// the core's evaluate(), so a pin can never show numbers that disagree with its settings.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "smlab/error.hpp"
#include "smlab/params.hpp"
#include "smlab/snapshot.hpp"

namespace smlab::app {

struct Pin {
  std::string name;  // 1 to pin_name_max_bytes of UTF-8, no control character
  Params params;     // valid (validate() passes)
  friend bool operator==(const Pin&, const Pin&) = default;
};

inline constexpr std::size_t max_pins = 4;
inline constexpr std::size_t pin_name_max_bytes = 40;

// Success, or an Error::usage of one line naming the name and what is allowed.
Result<void> check_pin_name(std::string_view name);

// The first of "A", "B", "C", "D" no pin uses (language-neutral: pins are named data).
std::string next_pin_name(const std::vector<Pin>& pins);

// The window's pins and the Snapshot of each (evaluate(pin.params), recomputed when missing or
// when the Params differ), plus the rename field.
struct PinState {
  std::vector<Pin> pins;
  std::vector<std::shared_ptr<const Snapshot>> snapshots;  // parallel to pins after refresh_pins
  int renaming = -1;                                       // the pin whose name is being edited
  std::string rename_text;
  bool rename_focus = false;  // give the rename field the keyboard once
  std::string error;          // what the Pins section shows: the last refused pin or name, one line
  // The complete Snapshot on screen (set by the App every frame; null while a first result or
  // nothing is shown). A pin of the Params on screen takes it instead of evaluating them again on
  // the UI thread: at L = 4096 that was a frame of several hundred ms, and seconds for a long
  // imported context.
  std::shared_ptr<const Snapshot> live;
};

// Adds a pin of `params` named next_pin_name, with state.live as its Snapshot when that is of the
// same Params; an Error::usage (its line also kept in state.error for the Pins section) when
// max_pins are there.
Result<void> add_pin(PinState& state, const Params& params);
// Renames pin `index`; an Error::usage (also kept in state.error) for a bad name or a name in use,
// and one (state.error untouched) for an index that is not a pin.
Result<void> rename_pin(PinState& state, std::size_t index, std::string_view name);
void remove_pin(PinState& state, std::size_t index);

// Evaluates (the dashboard's numbers, dk_trials as headless renders use) every pin whose Snapshot
// is missing or stale. Cheap when nothing changed.
void refresh_pins(PinState& state);

// [SECTION] Files

// Session JSON: [{"name": "A", "params": {KEY: TEXT, …every key…}}, …].
nlohmann::ordered_json pins_to_json(const std::vector<Pin>& pins);
// Reads what pins_to_json writes; each pin's Params start from `base` (the session's, so imported
// data stays attached) and every key goes through set_param. An Error::usage of one line naming the
// pin, the field and what is allowed; `out` is unchanged then.
Result<void> pins_from_json(const nlohmann::ordered_json& value, const Params& base, std::vector<Pin>& out);

// CSV of the pins (the files --export-csv adds when a session with pins is loaded):
//   pins.csv                      pin,name,key,value            every Params key of every pin
//   pins-distribution.csv         pin,name,index,score,logit,probability,gradient
//   pins-entropy_temperature.csv  pin,name,temperature,entropy_nats
// `pin` is the 1-based position, `name` the pin's name (quoted as CSV needs). Snapshots must be
// parallel to pins.
std::vector<std::pair<std::string, std::string>> pins_csv_files(
    const std::vector<Pin>& pins, const std::vector<std::shared_ptr<const Snapshot>>& snapshots);

}  // namespace smlab::app
