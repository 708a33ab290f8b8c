// load_import (import_files.hpp): file reading, format detection and role picking for imports.
#include "state/import_files.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <system_error>
#include <vector>

namespace smlab::app {
namespace {

bool is_regular_file(const std::string& path) {
  std::error_code error;
  return std::filesystem::is_regular_file(path, error);
}

std::string lower(std::string text) {
  for (char& c : text) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  return text;
}

// The whole file into `out` (reused, so one buffer serves every file), at most max_bytes; the error
// names the path: Error::file when the file cannot be read, Error::usage when it is too large.
Result<void> read_bytes(const std::string& path, std::uintmax_t max_bytes, std::vector<std::uint8_t>& out) {
  std::error_code code;
  if (std::filesystem::is_directory(path, code)) return Error::file("cannot read '" + path + "': is a directory");
  const std::uintmax_t size = std::filesystem::file_size(path, code);
  if (code) return Error::file("cannot read '" + path + "': " + code.message());
  if (size > max_bytes)
    return Error::usage("'" + path + "' is " + std::to_string(size) + " bytes: allowed at most " +
                        std::to_string(max_bytes));
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return Error::file("cannot read '" + path + "'");
  out.resize(static_cast<std::size_t>(size));
  const std::size_t got = size == 0 ? 0 : std::fread(out.data(), 1, out.size(), file);
  const bool failed = std::ferror(file) != 0;
  std::fclose(file);
  if (failed || got != out.size())
    return Error::file("cannot read '" + path + "': read " + std::to_string(got) + " of " + std::to_string(size) +
                       " bytes");
  return {};
}

enum class FileKind { npy, npz, csv, unknown };

FileKind kind_of(const std::string& path, std::span<const std::uint8_t> bytes) {
  const std::string name = lower(path);
  if (name.ends_with(".npy")) return FileKind::npy;
  if (name.ends_with(".npz")) return FileKind::npz;
  if (name.ends_with(".csv") || name.ends_with(".txt")) return FileKind::csv;
  if (bytes.size() >= 6 && bytes[0] == 0x93 && bytes[1] == 'N') return FileKind::npy;
  if (bytes.size() >= 4 && bytes[0] == 'P' && bytes[1] == 'K' && bytes[2] == 3 && bytes[3] == 4) return FileKind::npz;
  return FileKind::unknown;
}

}  // namespace

ImportLoad load_import(std::span<const std::string> specs, const std::string& tokens_file) {
  // Bad content or a bad spec: a usage error (exit 2); read_bytes says when a file cannot be read.
  auto fail = [](std::string message) -> ImportLoad { return Error::usage(std::move(message)); };
  if (specs.empty()) return fail("nothing to import: give --import FILE");
  if (specs.size() > 8) return fail("more than 8 --import files: allowed at most 8");
  std::vector<RoleArray> arrays;
  std::vector<std::uint8_t> bytes;
  // What a session remembers: each spec with its path made absolute, so it reads back from anywhere.
  std::vector<std::string> sources;
  auto absolute = [](const std::string& path) {
    std::error_code error;
    const std::filesystem::path made = std::filesystem::absolute(path, error);
    return error ? path : made.lexically_normal().string();
  };
  for (const std::string& text : specs) {
    const SpecParse parsed = parse_import_spec(text, is_regular_file);
    if (!parsed.ok()) return parsed.error();
    const ImportSpec& spec = *parsed;
    sources.push_back(absolute(spec.path) + text.substr(spec.path.size()));
    if (const Result<void> read = read_bytes(spec.path, import_file_max_bytes, bytes); !read) {
      const bool unreadable = read.error().kind == Error::Kind::file;
      return Error{read.error().kind,
                   read.error().message + (unreadable ? " (--import " + text.substr(0, 200) + ")" : "")};
    }
    const FileKind kind = kind_of(spec.path, bytes);
    const std::string stem = std::filesystem::path(spec.path).stem().string();
    if (kind == FileKind::unknown)
      return fail("'" + spec.path +
                  "' is not a .npy, .npz or .csv file: allowed NumPy arrays (np.save, np.savez) or CSV");
    if (kind == FileKind::npz) {
      std::vector<std::string> wanted;
      std::vector<std::optional<ArrayRole>> roles;
      if (spec.selections.empty()) {
        // Every array whose name says its role (q, k, v, scores, attn, ...); the rest is left out.
        const ArchiveParse listed = list_npz(bytes, spec.path);
        if (!listed.ok()) return listed.error();
        std::string names;
        for (const NdArray& entry : *listed) {
          names += (names.empty() ? "" : ", ") + entry.name.substr(0, 40);
          if (infer_role(entry.name)) wanted.push_back(entry.name), roles.push_back(infer_role(entry.name));
        }
        if (wanted.empty())
          return fail("'" + spec.path + "' holds " + (names.empty() ? std::string("no arrays") : "arrays " + names) +
                      ", none named q, k, v, scores or attn: name the roles, e.g. --import " + spec.path + ":x=Q,y=K");
      } else {
        for (const ImportSpec::Selection& selection : spec.selections) {
          const auto role = selection.role ? selection.role : infer_role(selection.array);
          if (!role)
            return fail("--import " + text.substr(0, 200) + ": cannot tell the role of array '" +
                        selection.array.substr(0, 40) + "' from its name: say it, e.g. " +
                        selection.array.substr(0, 40) + "=Q (Q, K, V, scores or weights)");
          wanted.push_back(selection.array);
          roles.push_back(role);
        }
      }
      ArchiveParse archive = parse_npz(bytes, spec.path, wanted);
      if (!archive.ok()) return archive.error();
      for (std::size_t i = 0; i < wanted.size(); ++i)
        for (NdArray& array : *archive)
          if (array.name == wanted[i] && !array.values.empty())
            arrays.push_back({*roles[i], std::move(array), spec.path});
    } else {
      const auto role = !spec.selections.empty() ? spec.selections.front().role : infer_role(stem);
      if (!role)
        return fail("--import " + text.substr(0, 200) + ": cannot tell the role of '" + stem.substr(0, 40) +
                    "' from its name: say it, e.g. --import " + spec.path + ":Q (Q, K, V, scores or weights)");
      const std::string_view text_view(reinterpret_cast<const char*>(bytes.data()), bytes.size());
      ArrayParse parsed_array =
          kind == FileKind::npy ? parse_npy(bytes, spec.path, "") : parse_csv_matrix(text_view, spec.path);
      if (!parsed_array.ok()) return parsed_array.error();
      parsed_array->name = stem;
      arrays.push_back({*role, std::move(*parsed_array), spec.path});
    }
  }
  std::vector<std::string> tokens;
  if (!tokens_file.empty()) {
    if (Result<void> read = read_bytes(tokens_file, 64u << 20, bytes); !read) return read.error();
    TokenParse parsed =
        parse_tokens(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), tokens_file);
    if (!parsed.ok()) return parsed.error();
    tokens = std::move(*parsed);
  }
  ImportAssembly assembled = assemble_import(std::move(arrays), std::move(tokens), std::move(sources),
                                             tokens_file.empty() ? tokens_file : absolute(tokens_file));
  if (!assembled.ok()) return assembled.error();
  return ImportLoad(std::move(*assembled));
}

}  // namespace smlab::app
