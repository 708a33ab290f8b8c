// Presets: named Params from assets/presets.json (the classic worked examples and
// a few that tell the story), each checked through set_param like any other input.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "smlab/error.hpp"
#include "smlab/params.hpp"
#include "smlab/views.hpp"

namespace smlab::app {

struct Preset {
  std::string name;                                           // "softmax-123": what --preset takes
  std::string title;                                          // one line for --list-presets and the GUI's tooltip
  std::vector<std::pair<std::string, std::string>> settings;  // KEY, VALUE as set_param reads them, in file order
  std::optional<View> view;                                   // the view it is best seen in, if any
  Params params;                                              // Params{} with `settings` applied: always valid
};

// The presets in file order, or the Error of one line that left the Presets menu empty (the file is
// missing, or an entry is invalid).
using PresetList = Result<std::vector<Preset>>;

// The folder holding presets.json, lessons/ and i18n/: $SOFTMAX_LAB_ASSETS if set and non-empty;
// else <executable dir>/../share/softmax-lab if it exists (installed: /usr/bin -> /usr/share);
// else the source tree's assets/ (SMLAB_ASSETS_DIR, compiled in unless SMLAB_SOURCE_TREE_ASSETS=OFF,
// as `make package` builds; then the installed path, so errors name where the files belong).
std::filesystem::path find_assets_dir();

// Parses a presets file's text. Every preset must have a unique name of letters, digits and
// '-', a title, and a "set" object whose values (strings, numbers or booleans) all pass set_param
// in order; the Error::usage names the preset and the key.
PresetList parse_presets(std::string_view json_text);

// Reads and parses `file` (at most 1 MB). Any failure is an Error::file naming the path: presets.json
// is part of the installation, so a run that needs it and finds it missing or broken exits 3.
PresetList load_presets(const std::filesystem::path& file);

// The preset called `name`, or null (also when the list did not load).
const Preset* find_preset(const PresetList& list, std::string_view name);

// "softmax-123, close-scores, ..." for error messages.
std::string preset_names(const PresetList& list);

}  // namespace smlab::app
