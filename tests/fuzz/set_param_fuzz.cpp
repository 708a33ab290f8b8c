// libFuzzer target for set_param (--set KEY=VALUE, slider text fields): never crashes,
// an accepted value is valid and round-trips through get_param, a rejected one changes nothing.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "smlab/params.hpp"

using smlab::fuzz::require;

// Input: "KEY=VALUE" as on the command line; when there is no '=', the first byte
// picks a known key (so the fuzzer reaches every key's parser quickly) and the rest is the value.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::string key;
  std::string_view value;
  if (const auto equals = input.find('='); equals != std::string_view::npos) {
    key = std::string(input.substr(0, equals));
    value = input.substr(equals + 1);
  } else if (!input.empty()) {
    const auto keys = smlab::param_keys();
    key = std::string(keys[static_cast<unsigned char>(input[0]) % keys.size()].name);
    value = input.substr(1);
  }
  smlab::Params params;
  params.seq_len = 8;  // small, so "row" has both valid and invalid values
  const smlab::Params before = params;
  const smlab::Result<void> set = smlab::set_param(params, key, value);
  if (!set.ok()) {
    require(params == before);
    smlab::fuzz::require_one_line_error(set.error().message);
    require(set.error().message.size() < 1000);  // user text is quoted shortened
    return 0;
  }
  require(smlab::validate(params).ok());
  // The accepted value reads back as text that sets the very same Params.
  const auto text = smlab::get_param(params, key);
  require(text.has_value());
  smlab::Params reread = before;
  require(smlab::set_param(reread, key, *text).ok());
  require(reread == params);
  return 0;
}
