// libFuzzer target for the .npy and .npz readers (import.hpp): never crashes, never allocates past
// the declared bounds, a rejection is one line, and an accepted array's size matches its shape.
#include <cstddef>
#include <cstdint>
#include <span>

#include "fuzz_support.hpp"
#include "smlab/import.hpp"

using smlab::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> bytes(data, size);
  const smlab::ArrayParse parsed = smlab::parse_npy(bytes, "fuzz.npy", "x");
  if (!parsed.ok()) {
    smlab::fuzz::require_one_line_error(parsed.error().message);
  } else {
    std::uint64_t count = 1;
    for (std::int64_t axis : parsed->shape) {
      require(axis >= 1);
      count *= static_cast<std::uint64_t>(axis);
    }
    require(parsed->shape.size() >= 1 && parsed->shape.size() <= 4);
    require(count == parsed->values.size());
    require(count <= smlab::ImportLimits::array_elements_max);
  }
  // The same bytes as a zip archive: the directory walk and inflate must hold up too.
  const smlab::ArchiveParse archive = smlab::parse_npz(bytes, "fuzz.npz");
  if (!archive.ok()) smlab::fuzz::require_one_line_error(archive.error().message);
  const smlab::TokenParse tokens =
      smlab::parse_tokens(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.txt");
  if (!tokens.ok()) smlab::fuzz::require_one_line_error(tokens.error().message);
  return 0;
}
