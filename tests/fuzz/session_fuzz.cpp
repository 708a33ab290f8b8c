// libFuzzer target for parse_session (session files): never crashes or hangs, an
// error is one line, and a loaded session saves and loads back as the same session.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "state/session.hpp"

namespace {

void require(bool property) {
  if (!property) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const smlab::app::SessionLoad load = smlab::app::parse_session(text);
  if (!load.session) {
    require(!load.error.empty());
    require(load.error.find('\n') == std::string::npos);
    return 0;
  }
  require(!smlab::validate(load.session->params).has_value());
  const smlab::app::SessionLoad again = smlab::app::parse_session(smlab::app::serialize_session(*load.session));
  require(again.session.has_value());
  require(*again.session == *load.session);
  return 0;
}
