// Pins: adding, renaming and removing them, their Snapshots through the core's evaluate(), and
// their session JSON and CSV.
#include "state/pins.hpp"
#include "files/text_file.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <charconv>

#include "smlab/evaluate.hpp"

namespace smlab::app {
namespace {

using OrderedJson = nlohmann::ordered_json;

// Shortest text that parses back to the same double (as the CSV export writes numbers).
std::string number(double value) {
  std::array<char, 64> buffer{};
  const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return ec == std::errc() ? std::string(buffer.data(), end) : std::string("nan");
}

// A CSV field: quoted when it holds a comma, a quote or a line break (RFC 4180).
std::string field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

bool name_taken(const std::vector<Pin>& pins, std::string_view name, std::size_t except) {
  for (std::size_t k = 0; k < pins.size(); ++k)
    if (k != except && pins[k].name == name) return true;
  return false;
}

}  // namespace

Result<void> check_pin_name(std::string_view name) {
  if (name.empty())
    return Error::usage("pin name is empty: allowed 1 to " + std::to_string(pin_name_max_bytes) + " bytes of text");
  if (name.size() > pin_name_max_bytes)
    return Error::usage("pin name '" + shown_text(std::string(name)) + "' is longer than " +
                        std::to_string(pin_name_max_bytes) + " bytes");
  for (char c : name)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      return Error::usage("pin name '" + shown_text(std::string(name)) + "' holds a control character");
  return {};
}

std::string next_pin_name(const std::vector<Pin>& pins) {
  for (const char* name : {"A", "B", "C", "D", "E", "F", "G", "H"})
    if (!name_taken(pins, name, pins.size())) return name;
  return "P" + std::to_string(pins.size() + 1);
}

Result<void> add_pin(PinState& state, const Params& params) {
  if (state.pins.size() >= max_pins) {
    state.error = "at most " + std::to_string(max_pins) + " pins: remove one first";
    return Error::usage(state.error);
  }
  state.pins.push_back({next_pin_name(state.pins), params});
  if (state.live != nullptr && state.live->params == params) {
    state.snapshots.resize(state.pins.size());
    state.snapshots.back() = state.live;
  }
  state.error.clear();
  return {};
}

Result<void> rename_pin(PinState& state, std::size_t index, std::string_view name) {
  if (index >= state.pins.size())
    return Error::usage("pin " + std::to_string(index + 1) + " is not a pin: there are " +
                        std::to_string(state.pins.size()));
  Result<void> allowed = check_pin_name(name);
  if (allowed.ok() && name_taken(state.pins, name, index))
    allowed = Error::usage("pin name '" + std::string(name) + "' is taken");
  state.error = allowed.ok() ? std::string() : allowed.error().message;
  if (!allowed.ok()) return allowed;
  state.pins[index].name = std::string(name);
  return {};
}

void remove_pin(PinState& state, std::size_t index) {
  if (index >= state.pins.size()) return;
  state.pins.erase(state.pins.begin() + static_cast<std::ptrdiff_t>(index));
  if (index < state.snapshots.size())
    state.snapshots.erase(state.snapshots.begin() + static_cast<std::ptrdiff_t>(index));
  state.renaming = -1;
}

void refresh_pins(PinState& state) {
  state.snapshots.resize(state.pins.size());
  for (std::size_t k = 0; k < state.pins.size(); ++k) {
    const std::shared_ptr<const Snapshot>& have = state.snapshots[k];
    if (have && have->params == state.pins[k].params) continue;
    // Look for the same Params among the others (a removed pin shifts the list).
    std::shared_ptr<const Snapshot> found;
    for (const auto& other : state.snapshots)
      if (other && other->params == state.pins[k].params) found = other;
    if (!found) {
      EvaluateOptions options;  // the dashboard's numbers; the d_k sweep's first budget
      auto snapshot = evaluate(state.pins[k].params, options);
      if (snapshot) found = std::make_shared<const Snapshot>(std::move(*snapshot));
    }
    state.snapshots[k] = found;
  }
}

OrderedJson pins_to_json(const std::vector<Pin>& pins) {
  OrderedJson list = OrderedJson::array();
  for (const Pin& pin : pins) {
    OrderedJson params = OrderedJson::object();
    for (const ParamKey& key : param_keys())
      params[std::string(key.name)] = get_param(pin.params, key.name).value_or("");
    list.push_back({{"name", pin.name}, {"params", std::move(params)}});
  }
  return list;
}

Result<void> pins_from_json(const OrderedJson& value, const Params& base, std::vector<Pin>& out) {
  const std::string allowed =
      ": allowed [{\"name\": TEXT, \"params\": {KEY: VALUE, …}}, …] with at most " + std::to_string(max_pins) + " pins";
  if (!value.is_array())
    return Error::usage("session field 'pins' must be an array, not " + std::string(value.type_name()) + allowed);
  if (value.size() > max_pins)
    return Error::usage("session field 'pins' holds " + std::to_string(value.size()) + " pins" + allowed);
  std::vector<Pin> pins;
  for (std::size_t k = 0; k < value.size(); ++k) {
    const OrderedJson& entry = value[k];
    const std::string where = "session field 'pins[" + std::to_string(k) + "]";
    if (!entry.is_object())
      return Error::usage(where + "' must be an object, not " + std::string(entry.type_name()) + allowed);
    for (const auto& [key, item] : entry.items())
      if (key != "name" && key != "params")
        return Error::usage(where + "." + shown_text(key) + "' is not a field: allowed name, params");
    if (!entry.contains("name") || !entry["name"].is_string())
      return Error::usage(where + ".name' is missing or not a string");
    Pin pin;
    pin.name = entry["name"].get<std::string>();
    if (Result<void> allowed = check_pin_name(pin.name); !allowed.ok())
      return Error::usage(where + ".name': " + allowed.error().message);
    if (name_taken(pins, pin.name, pins.size()))
      return Error::usage(where + ".name' '" + shown_text(pin.name) + "' is used twice");
    if (!entry.contains("params") || !entry["params"].is_object())
      return Error::usage(where + ".params' is missing or not an object");
    pin.params = base;
    // param_keys() order (seq_len before row), as the session's own Params are read.
    const OrderedJson& params = entry["params"];
    for (const auto& [key, item] : params.items()) {
      const std::string& key_name = key;  // clang 14 (the fuzz build) cannot capture a structured binding
      const bool known = std::any_of(param_keys().begin(), param_keys().end(),
                                     [&key_name](const ParamKey& k) { return k.name == key_name; });
      if (!known) return Error::usage(where + ".params." + shown_text(key) + "' is not a key (see --list-keys)");
      if (!item.is_string() && !item.is_number() && !item.is_boolean())
        return Error::usage(where + ".params." + key + "' must be a string, number or boolean, not " +
                            std::string(item.type_name()));
    }
    for (const ParamKey& key : param_keys()) {
      const std::string name(key.name);
      if (!params.contains(name)) continue;
      const OrderedJson& item = params[name];
      const std::string text = item.is_string() ? item.get<std::string>() : item.dump();
      if (Result<void> set = set_param(pin.params, name, text); !set.ok())
        return Error::usage(where + ".params." + name + "': " + set.error().message);
    }
    pins.push_back(std::move(pin));
  }
  out = std::move(pins);
  return {};
}

std::vector<std::pair<std::string, std::string>> pins_csv_files(
    const std::vector<Pin>& pins, const std::vector<std::shared_ptr<const Snapshot>>& snapshots) {
  std::string settings = "pin,name,key,value\n";
  std::string distribution = "pin,name,index,score,logit,probability,gradient\n";
  std::string entropy = "pin,name,temperature,entropy_nats\n";
  for (std::size_t k = 0; k < pins.size(); ++k) {
    const std::string prefix = std::to_string(k + 1) + "," + field(pins[k].name) + ",";
    for (const ParamKey& key : param_keys())
      settings += prefix + std::string(key.name) + "," + field(get_param(pins[k].params, key.name).value_or("")) + "\n";
    if (k >= snapshots.size() || !snapshots[k]) continue;
    const Snapshot& snap = *snapshots[k];
    for (std::size_t i = 0; i < snap.probabilities.size(); ++i)
      distribution += prefix + std::to_string(i) + "," + number(snap.scores[i]) + "," + number(snap.logits[i]) + "," +
                      number(snap.probabilities[i]) + "," + number(snap.gradient[i]) + "\n";
    for (std::size_t i = 0; i < snap.temperature_grid.size() && i < snap.entropy_vs_temperature.size(); ++i)
      entropy += prefix + number(snap.temperature_grid[i]) + "," + number(snap.entropy_vs_temperature[i]) + "\n";
  }
  return {{"pins.csv", settings}, {"pins-distribution.csv", distribution}, {"pins-entropy_temperature.csv", entropy}};
}

}  // namespace smlab::app
