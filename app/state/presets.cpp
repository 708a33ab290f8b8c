// Presets: reading assets/presets.json and checking every entry through set_param.
#include "state/presets.hpp"
#include "files/json_parse.hpp"
#include "files/text_file.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <system_error>

namespace smlab::app {
namespace {

using OrderedJson = nlohmann::ordered_json;

constexpr std::uintmax_t presets_max_bytes = 1 << 20;
constexpr int presets_max_depth = 8;            // the format nests 4 deep
constexpr std::size_t presets_max_keys = 1024;  // keys in one object; a "set" has at most 16
constexpr std::size_t names_shown = 12;         // in "allowed …" lists

bool is_valid_name(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_'))
      return false;
  return true;
}

// A JSON value as set_param's text: strings as they are, booleans and numbers as JSON spells them
// (nlohmann prints doubles in the shortest form that reads back to the same value).
std::optional<std::string> setting_text(const OrderedJson& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean() || value.is_number()) return value.dump();
  return std::nullopt;
}

PresetList failure(std::string message) { return Error::usage(std::move(message)); }

const Preset* find_in(const std::vector<Preset>& presets, std::string_view name) {
  for (const Preset& preset : presets)
    if (preset.name == name) return &preset;
  return nullptr;
}

}  // namespace

std::filesystem::path find_assets_dir() {
  if (const char* override_dir = std::getenv("SOFTMAX_LAB_ASSETS"); override_dir != nullptr && *override_dir != '\0')
    return override_dir;
  // Installed (the .deb, `cmake --install`): <prefix>/bin/softmax-lab finds <prefix>/share/softmax-lab.
  std::filesystem::path installed;
  std::error_code error;
  const std::filesystem::path executable = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    installed = (executable.parent_path() / ".." / "share" / "softmax-lab").lexically_normal();
    if (std::filesystem::is_directory(installed, error)) return installed;
  }
#ifdef SMLAB_ASSETS_DIR
  return SMLAB_ASSETS_DIR;  // a developer build run from its build tree
#else
  return installed.empty() ? std::filesystem::path("assets") : installed;  // errors name where it belongs
#endif
}

PresetList parse_presets(std::string_view json_text) {
  Result<OrderedJson> parsed =
      parse_json<OrderedJson>(json_text, "", {presets_max_bytes, presets_max_depth, presets_max_keys});
  if (!parsed) return parsed.error();
  OrderedJson& document = *parsed;  // not const, as before: operator[] reads below
  if (!document.is_object() || !document.contains("presets") || !document["presets"].is_array())
    return failure("expected an object with a \"presets\" array");
  for (const auto& [field, value] : document.items())
    if (field != "version" && field != "presets" && field != "_comment")
      return failure("unknown field '" + shown_text(field) + "': allowed version, presets");
  std::vector<Preset> list;
  for (std::size_t index = 0; index < document["presets"].size(); ++index) {
    const OrderedJson& entry = document["presets"][index];
    const std::string where = "preset " + std::to_string(index + 1);
    if (!entry.is_object()) return failure(where + " is not an object");
    for (const auto& [field, value] : entry.items())
      if (field != "name" && field != "title" && field != "view" && field != "set")
        return failure(where + " has an unknown field '" + shown_text(field) + "': allowed name, title, view, set");
    if (!entry.contains("name") || !entry["name"].is_string() || !is_valid_name(entry["name"].get<std::string>()))
      return failure(where + " needs a \"name\" of 1 to 64 letters, digits, '-' or '_'");
    Preset preset;
    preset.name = entry["name"].get<std::string>();
    const std::string named = "preset '" + preset.name + "'";
    if (find_in(list, preset.name) != nullptr) return failure(named + " appears twice");
    if (!entry.contains("title") || !entry["title"].is_string()) return failure(named + " needs a \"title\" string");
    preset.title = entry["title"].get<std::string>();
    if (entry.contains("view")) {
      const auto view = entry["view"].is_string() ? view_from_name(entry["view"].get<std::string>()) : std::nullopt;
      if (!view) return failure(named + " has an unknown \"view\" (see --list-views)");
      preset.view = view;
    }
    if (!entry.contains("set") || !entry["set"].is_object()) return failure(named + " needs a \"set\" object");
    for (const auto& [key, value] : entry["set"].items()) {
      const auto text = setting_text(value);
      if (!text) return failure(named + ": " + shown_text(key) + " must be a string, number or boolean");
      if (Result<void> set = set_param(preset.params, key, *text); !set.ok())
        return failure(named + ": " + set.error().message);
      preset.settings.emplace_back(key, *text);
    }
    list.push_back(std::move(preset));
  }
  return list;
}

PresetList load_presets(const std::filesystem::path& file) {
  const TextFile text = read_text_file(file, presets_max_bytes);
  if (text.status == TextFile::Status::unreadable)
    return Error::file(cannot_read("presets '" + file.string() + "'", text));
  if (text.status == TextFile::Status::too_large)
    return Error::file("presets '" + file.string() + "' is larger than 1 MB");
  PresetList list = parse_presets(text.text);
  if (!list.ok()) return Error::file("presets '" + file.string() + "': " + list.error().message);
  return list;
}

const Preset* find_preset(const PresetList& list, std::string_view name) {
  return list.ok() ? find_in(*list, name) : nullptr;
}

std::string preset_names(const PresetList& list) {
  if (!list.ok() || list->empty()) return "(none: the presets file has no presets)";
  const std::vector<Preset>& presets = *list;
  std::string names;
  for (std::size_t i = 0; i < presets.size() && i < names_shown; ++i)
    names += (names.empty() ? "" : ", ") + presets[i].name;
  if (presets.size() > names_shown) names += ", … (" + std::to_string(presets.size()) + " in all; see --list-presets)";
  return names;
}

}  // namespace smlab::app
