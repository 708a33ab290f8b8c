// libFuzzer target for parse_session (session files): never crashes or hangs, an
// error is one line, and a loaded session saves and loads back as the same session.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "state/session.hpp"

using smlab::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const smlab::Result<smlab::app::Session> load = smlab::app::parse_session(text);
  if (!load) {
    smlab::fuzz::require_one_line_error(load.error().message);
    return 0;
  }
  require(smlab::validate(load->params).ok());
  const smlab::Result<smlab::app::Session> again = smlab::app::parse_session(smlab::app::serialize_session(*load));
  require(again.ok());
  require(*again == *load);
  return 0;
}
