// read_text_file and the checks run before any JSON parser (text_file.hpp).
#include "files/text_file.hpp"
#include "files/utf8.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <optional>
#include <set>
#include <system_error>
#include <vector>

namespace smlab::app {
namespace {

std::string os_reason(int error_number) { return std::generic_category().message(error_number); }

}  // namespace

const char* not_a_regular_file(mode_t mode) {
  if (S_ISDIR(mode)) return "is a directory";
  if (S_ISFIFO(mode)) return "is a FIFO, not a regular file";
  if (S_ISCHR(mode)) return "is a character device, not a regular file";
  if (S_ISBLK(mode)) return "is a block device, not a regular file";
  if (S_ISSOCK(mode)) return "is a socket, not a regular file";
  return "is not a regular file";
}

TextFile read_text_file(const std::filesystem::path& path, std::uintmax_t max_bytes) {
  TextFile file;
  auto unreadable = [&](std::string reason) {
    file.status = TextFile::Status::unreadable;
    file.reason = std::move(reason);
    file.text.clear();
    return file;
  };
  // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it.
  const int descriptor = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (descriptor < 0) return unreadable(os_reason(errno));
  struct stat status {};
  if (::fstat(descriptor, &status) != 0) {
    const int error_number = errno;
    ::close(descriptor);
    return unreadable(os_reason(error_number));
  }
  if (!S_ISREG(status.st_mode)) {
    ::close(descriptor);
    return unreadable(not_a_regular_file(status.st_mode));
  }
  if (static_cast<std::uintmax_t>(status.st_size) > max_bytes) {
    ::close(descriptor);
    file.status = TextFile::Status::too_large;
    return file;
  }
  // Read at most max_bytes + 1: a file that grows while it is read is still bounded.
  file.text.resize(static_cast<std::size_t>(max_bytes) + 1);
  std::size_t filled = 0;
  while (filled < file.text.size()) {
    const ssize_t got = ::read(descriptor, file.text.data() + filled, file.text.size() - filled);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const int error_number = errno;
      ::close(descriptor);
      return unreadable(os_reason(error_number));
    }
    if (got == 0) break;
    filled += static_cast<std::size_t>(got);
  }
  ::close(descriptor);
  if (filled > max_bytes) {
    file.text.clear();
    file.status = TextFile::Status::too_large;
    return file;
  }
  file.text.resize(filled);
  return file;
}

std::string cannot_read(const std::string& what, const TextFile& file) {
  return "cannot read " + what + (file.reason.empty() ? "" : ": " + file.reason);
}

int json_nesting_depth(std::string_view text) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      deepest = std::max(deepest, ++depth);
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return deepest;
}

namespace {

// The four hex digits of a \uXXXX escape at `at`, or nullopt.
std::optional<std::uint32_t> hex4(std::string_view text, std::size_t at) {
  if (at + 4 > text.size()) return std::nullopt;
  std::uint32_t value = 0;
  for (std::size_t i = at; i < at + 4; ++i) {
    const char c = text[i];
    const int digit = c >= '0' && c <= '9'   ? c - '0'
                      : c >= 'a' && c <= 'f' ? c - 'a' + 10
                      : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                             : -1;
    if (digit < 0) return std::nullopt;
    value = value * 16 + static_cast<std::uint32_t>(digit);
  }
  return value;
}

}  // namespace

std::string json_unescaped(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '\\' || i + 1 >= raw.size()) {
      out += raw[i];
      continue;
    }
    const char kind = raw[i + 1];
    const char simple = kind == '"' || kind == '\\' || kind == '/' ? kind
                        : kind == 'b'                              ? '\b'
                        : kind == 'f'                              ? '\f'
                        : kind == 'n'                              ? '\n'
                        : kind == 'r'                              ? '\r'
                        : kind == 't'                              ? '\t'
                                                                   : '\0';
    if (simple != '\0') {
      out += simple;
      ++i;
      continue;
    }
    const auto unit = kind == 'u' ? hex4(raw, i + 2) : std::nullopt;
    if (!unit) {  // not an escape JSON has: kept as written (the parser refuses the text)
      out += raw[i];
      continue;
    }
    std::uint32_t code_point = *unit;
    std::size_t length = 6;
    // A high surrogate followed by a low one is one character (RFC 8259, section 7).
    if (*unit >= 0xD800 && *unit <= 0xDBFF && i + 7 < raw.size() && raw[i + 6] == '\\' && raw[i + 7] == 'u')
      if (const auto low = hex4(raw, i + 8); low && *low >= 0xDC00 && *low <= 0xDFFF) {
        code_point = 0x10000 + ((*unit - 0xD800) << 10) + (*low - 0xDC00);
        length = 12;
      }
    append_utf8(out, code_point);
    i += length - 1;
  }
  return out;
}

JsonKeyScan scan_json_keys(std::string_view text) {
  struct Open {
    bool is_object;
    std::size_t keys = 0;
    // Keys as the parser will read them: "\u0074emperature" is "temperature" (compared raw, the
    // escaped spelling of a key passed the check and the parser kept the last of the two).
    std::set<std::string> seen;
  };
  std::vector<Open> open;
  JsonKeyScan scan;
  bool in_string = false, escaped = false;
  std::size_t string_start = 0;
  std::string_view last_string;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"') {
        in_string = false;
        last_string = text.substr(string_start, i - string_start);
      }
    } else if (c == '"') {
      in_string = true;
      string_start = i + 1;
    } else if (c == '{' || c == '[') {
      open.push_back(Open{c == '{', 0, {}});
    } else if (c == '}' || c == ']') {
      if (!open.empty()) open.pop_back();
    } else if (c == ':' && !open.empty() && open.back().is_object) {
      scan.most_keys_in_one_object = std::max(scan.most_keys_in_one_object, ++open.back().keys);
      std::string key = json_unescaped(last_string);
      if (!open.back().seen.insert(key).second && !scan.duplicate_key) {
        // Shown in a one-line message: at most 40 bytes, cut at a character start, control
        // characters (a broken file's "key" may span lines) as spaces.
        std::size_t cut = std::min<std::size_t>(key.size(), 40);
        while (cut > 0 && cut < key.size() && (static_cast<unsigned char>(key[cut]) >> 6) == 0x2) --cut;
        std::string shown(key.substr(0, cut));
        for (char& byte : shown)
          if (static_cast<unsigned char>(byte) < 0x20 || byte == 0x7f) byte = ' ';
        scan.duplicate_key = std::move(shown);
      }
    }
  }
  return scan;
}

Result<void> check_json_text(std::string_view text, int max_depth, std::size_t max_keys) {
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos)
    return Error::usage("holds a NUL byte at byte " + std::to_string(nul + 1) + ": not a JSON text file");
  if (const std::size_t bad = first_invalid_utf8(text); bad != std::string_view::npos)
    return Error::usage("is not UTF-8 text (byte " + std::to_string(bad + 1) + "): not a JSON text file");
  if (json_nesting_depth(text) > max_depth)
    return Error::usage("nests deeper than " + std::to_string(max_depth) + " levels");
  const JsonKeyScan keys = scan_json_keys(text);
  if (keys.most_keys_in_one_object > max_keys)
    return Error::usage("has an object with more than " + std::to_string(max_keys) + " keys");
  if (keys.duplicate_key) return Error::usage("has the key \"" + *keys.duplicate_key + "\" twice in one object");
  return {};
}

std::string json_syntax_error(std::string_view text, std::size_t byte) {
  const std::size_t stop = std::min(byte == 0 ? 0 : byte - 1, text.size());
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < stop; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else if ((static_cast<unsigned char>(text[i]) >> 6) != 0x2) {
      ++column;  // count characters, not UTF-8 continuation bytes
    }
  }
  return "not valid JSON at line " + std::to_string(line) + ", column " + std::to_string(column);
}

std::string shown_text(std::string_view text, std::size_t max_bytes) {
  // Character by character: a control character or a byte that starts no well-formed UTF-8
  // character becomes '?', so the line is valid UTF-8 whatever it quotes; cut before the character
  // that would pass max_bytes of the text.
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t length = utf8_char_length(text, at);
    const std::size_t taken = std::max<std::size_t>(length, 1);
    if (at + taken > max_bytes) break;
    const auto byte = static_cast<unsigned char>(text[at]);
    if (length == 0 || byte < 0x20 || byte == 0x7f)
      out += '?';
    else
      out.append(text.substr(at, length));
    at += taken;
  }
  if (at < text.size()) out += "…";
  return out;
}

}  // namespace smlab::app
