// libFuzzer target for parse_presets (assets/presets.json): never crashes, an error
// is one line and leaves no presets, and every preset it returns holds valid Params.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "state/presets.hpp"

using smlab::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const smlab::app::PresetList list = smlab::app::parse_presets(text);
  if (!list.ok()) {
    // A refused file leaves no presets (a Result holds none then), and its message is one line.
    smlab::fuzz::require_one_line_error(list.error().message);
    return 0;
  }
  for (const smlab::app::Preset& preset : *list) {
    require(smlab::validate(preset.params).ok());
    require(smlab::app::find_preset(list, preset.name) != nullptr);
  }
  return 0;
}
