// Reading the files behind --import, drag-and-drop and File → Import: each FILE[:ARRAY[=ROLE]]
// spec's bytes handed to core's parsers (import.hpp), then one ImportedAttention or one line.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "smlab/error.hpp"
#include "smlab/import.hpp"

namespace smlab::app {

// The imported data (never null), or one line naming the file, the array and what is allowed: an
// Error::file when a file could not be read (exit 3), an Error::usage for bad content (exit 2).
using ImportLoad = Result<std::shared_ptr<const ImportedAttention>>;

// Largest file read: the biggest allowed array as float64 plus a header (about 2 GiB).
inline constexpr std::uintmax_t import_file_max_bytes = ImportLimits::array_elements_max * 8 + (1u << 20);

// Loads every spec (.npy, .npz or .csv, told apart by extension, else by their first bytes) and
// the optional tokens file (plain text or a JSON list), and assembles them.
ImportLoad load_import(std::span<const std::string> specs, const std::string& tokens_file);

}  // namespace smlab::app
