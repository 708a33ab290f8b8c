// Writes whole files so that a reader sees either the old file, or no file, or the complete new one:
// never a half-written file (DESIGN.md §6). Also creates output directories with a clear error.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace smlab::exporting {

// No value on success; otherwise one line naming the path and the operating system's reason,
// e.g. "cannot write '/out/a.png': Permission denied".
using WriteError = std::optional<std::string>;

// Writes `bytes` to `path` through a uniquely named temporary file in the same directory (flushed
// and fsync'ed), then renames it over `path`. With overwrite == false an existing `path` is left
// untouched and an error is returned; the check and the rename are one atomic step where the file
// system allows it (renameat2 RENAME_NOREPLACE, else link). On any failure the temporary file is
// removed. A new file gets mode 0666 minus the umask; a replaced file keeps its permission bits.
// The parent directory must exist (see ensure_directory).
[[nodiscard]] WriteError write_file_atomically(const std::filesystem::path& path, std::span<const std::uint8_t> bytes,
                                               bool overwrite = false);
[[nodiscard]] WriteError write_file_atomically(const std::filesystem::path& path, std::string_view text,
                                               bool overwrite = false);

// Creates `directory` and any missing parents. Succeeds if it already is a directory; fails, naming
// the path and the reason, if it cannot be created or exists as something else.
[[nodiscard]] WriteError ensure_directory(const std::filesystem::path& directory);

}  // namespace smlab::exporting
