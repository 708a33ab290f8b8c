// Reading the files behind --import, drag-and-drop, File → Import and sessions: each
// FILE[:ARRAY[=ROLE]] spec's bytes handed to core's parsers (import.hpp), then one
// ImportedAttention or one line.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "smlab/error.hpp"
#include "smlab/import.hpp"
#include "smlab/progress.hpp"

namespace smlab::app {

// The imported data (never null), or one line naming the file, the array and what is allowed: an
// Error::file when a file could not be read or there was not memory enough (exit 3), an
// Error::usage for bad content (exit 2).
using ImportLoad = Result<std::shared_ptr<const ImportedAttention>>;

// Largest .npy or .npz file read: the biggest allowed array as float64 plus a header (about 2 GiB).
inline constexpr std::uintmax_t import_file_max_bytes = ImportLimits::array_elements_max * 8 + (1u << 20);

// Where the import was asked for, so that a refusal says what to do there: the command line's
// --import (and sessions, which keep the same specs), or the window's Import dialog and dropped
// files, whose lines that say what to change are in the window's language (the caller's i18n::Use).
enum class ImportAskedBy { command_line, window };

struct ImportOptions {
  // Reported through as files are read (a share of the job per file, by size); cancelled: the
  // load stops within a few milliseconds and returns cancelled_error("import").
  Progress progress;
  // Test hook: called with each data file's path after the checks made by its name (is it a
  // file: parse_import_spec) and before it is opened. Opening never blocks and the type is
  // checked on the opened file (fstat), so a file swapped for a FIFO here is refused, not waited on.
  std::function<void(const std::string& path)> before_open;
  ImportAskedBy asked_by = ImportAskedBy::command_line;
};

// Loads every spec (.npy, .npz or .csv, told apart by extension, else by their first bytes) and
// the optional tokens file (plain text or a JSON list), and assembles them. In two passes: first
// every file is opened and its header, zip directory and declared shapes are read and checked,
// each array's role included (two arrays for one role are refused here); only then are values
// read, streamed from the file into their floats. So no allocation is made that the checks would
// refuse, and an allocation that fails anyway is the Error::file "not enough memory".
ImportLoad load_import(std::span<const std::string> specs, const std::string& tokens_file,
                       const ImportOptions& options);
inline ImportLoad load_import(std::span<const std::string> specs, const std::string& tokens_file) {
  return load_import(specs, tokens_file, ImportOptions{});
}

// Which of `specs` is a lone .npy or .csv with no role after its path whose name says none either
// (core's infer_role: q, k, v, scores, attn, ...): load_import would refuse it, so the window and the
// page ask for its role first and import FILE:ROLE, which then takes the checks of --import FILE:ROLE.
std::vector<bool> roles_needed(std::span<const std::string> specs);

// Whether `data` came from load_import(specs, tokens_file), by the names it records (each spec's
// file made absolute, with its selections, and the tokens file): a page that applies its class's
// state again attaches the data it has rather than read the same files anew (url_state.hpp).
bool loaded_from(const ImportedAttention& data, std::span<const std::string> specs, const std::string& tokens_file);

}  // namespace smlab::app
