// Reading the app's small JSON inputs (presets, sessions, lessons, string tables) the same guarded
// way: size first, then the whole file; and the nesting check that runs before any JSON parser.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace smlab::app {

struct TextFile {
  enum class Status { ok, unreadable, too_large };
  Status status = Status::ok;
  std::string text;    // the whole file when ok
  std::string reason;  // unreadable: the system's reason, or empty when only the read itself failed
};

// Reads `path` whole when it is at most `max_bytes` long; nothing is read from a bigger file.
TextFile read_text_file(const std::filesystem::path& path, std::uintmax_t max_bytes);

// "cannot read <what>" with ": <reason>" when the system gave one (TextFile::reason).
std::string cannot_read(const std::string& what, const TextFile& file);

// The deepest nesting of JSON objects and arrays, counted on the raw text (outside strings), so a
// hostile file is refused before a recursive parser sees it.
int json_nesting_depth(std::string_view text);

}  // namespace smlab::app
