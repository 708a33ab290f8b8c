// Reading the app's small JSON inputs (presets, sessions, lessons, string tables) the same guarded
// way: a regular file, size first, then the whole file once; and the checks that run before any
// JSON parser sees the text (NUL bytes, UTF-8, nesting, key count).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <sys/types.h>

#include "smlab/error.hpp"

namespace smlab::app {

struct TextFile {
  enum class Status { ok, unreadable, too_large };
  Status status = Status::ok;
  std::string text;    // the whole file when ok
  std::string reason;  // unreadable: the system's reason ("is a directory", "is a FIFO, not a regular file", ...)
};

// Reads `path` whole when it is a regular file of at most `max_bytes`; nothing is read from a
// bigger file, and a FIFO, device or directory is refused without blocking on it.
TextFile read_text_file(const std::filesystem::path& path, std::uintmax_t max_bytes);

// Why a file of this type (st_mode) is not read as data: "is a directory", "is a FIFO, not a
// regular file", ... (read_text_file and the imports say the same).
const char* not_a_regular_file(mode_t mode);

// "cannot read <what>" with ": <reason>" when the system gave one (TextFile::reason).
std::string cannot_read(const std::string& what, const TextFile& file);

// The deepest nesting of JSON objects and arrays, counted on the raw text (outside strings), so a
// hostile file is refused before a recursive parser sees it.
int json_nesting_depth(std::string_view text);

// The keys of a JSON text's objects, scanned before parsing: the most keys any one object holds (an
// ordered_json object finds each key by a linear search, so parsing an object of n keys costs n²/2
// comparisons and a huge one must be refused first), and a key an object holds twice (the parser
// would keep the last one without a word): keys compared as the parser reads them (escapes
// undone, json_unescaped), shown that way (first 40 bytes).
// A JSON string's raw text (between its quotes) as the parser reads it: the escapes \" \\ \/ \b
// \f \n \r \t and \uXXXX (a surrogate pair as one character) replaced by what they stand for.
// Anything else is kept as written.
std::string json_unescaped(std::string_view raw);

struct JsonKeyScan {
  std::size_t most_keys_in_one_object = 0;
  std::optional<std::string> duplicate_key;
};
JsonKeyScan scan_json_keys(std::string_view text);

// What every JSON input is checked for before parsing, in this order: a NUL byte (the parser would
// stop there and accept the rest unseen), bytes that are not UTF-8, nesting deeper than
// `max_depth`, an object with more than `max_keys` keys, a key twice in one object. Success, or an
// Error::usage of one line saying which and where, without a subject ("nests deeper than 8 levels":
// parse_json puts "lesson " or the file's name in front).
Result<void> check_json_text(std::string_view text, int max_depth, std::size_t max_keys);

// "not valid JSON at line 3, column 14": where the parser stopped (`byte`, 1-based as nlohmann
// reports it), never the file's own bytes (they may be anything).
std::string json_syntax_error(std::string_view text, std::size_t byte);

// A name or value from a file or an address, quoted in a one-line message: control characters (a
// "\n" escaped in a JSON key) and bytes that are not well-formed UTF-8 become '?', and it is cut to
// at most `max_bytes` of the text at a character boundary, "…" added.
std::string shown_text(std::string_view text, std::size_t max_bytes = 40);

}  // namespace smlab::app
