// load_import (import_files.hpp): opening the files, format detection, role picking and the
// checks on what each file declares, then the values streamed into their arrays.
//
// [SECTION] Index
//   [SECTION] Open files: no blocking, the type checked on what was opened
//   [SECTION] Wording: what to change, where the import was asked for
//   [SECTION] The plan: every file's declared arrays and roles, checked before any value is read
//   [SECTION] Reading the values
//   [SECTION] load_import
#include "state/import_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <new>
#include <optional>
#include <system_error>
#include <utility>
#include <vector>

#include "files/text_file.hpp"
#include "i18n/i18n.hpp"

namespace smlab::app {
namespace {

// [SECTION] Open files: no blocking, the type checked on what was opened

bool is_regular_file(const std::string& path) {
  std::error_code error;
  return std::filesystem::is_regular_file(path, error);
}

std::string lower(std::string text) {
  for (char& c : text) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  return text;
}

std::string os_reason(int error_number) { return std::generic_category().message(error_number); }

// An open regular file, closed with its owner.
class OpenFile {
 public:
  OpenFile() = default;
  OpenFile(const OpenFile&) = delete;
  OpenFile& operator=(const OpenFile&) = delete;
  OpenFile(OpenFile&& other) noexcept : descriptor_(std::exchange(other.descriptor_, -1)), size_(other.size_) {}
  OpenFile& operator=(OpenFile&& other) noexcept {
    std::swap(descriptor_, other.descriptor_);
    std::swap(size_, other.size_);
    return *this;
  }
  ~OpenFile() {
    if (descriptor_ >= 0) ::close(descriptor_);
  }

  // O_NONBLOCK: opening a FIFO (or a file swapped for one since it was looked at by name) never
  // waits for a writer; fstat on what was opened then refuses anything but a regular file. The
  // error names the path and the system's reason (Error::file).
  static Result<OpenFile> open(const std::string& path) {
    OpenFile file;
    file.descriptor_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (file.descriptor_ < 0) return Error::file("cannot read '" + path + "': " + os_reason(errno));
    struct stat status {};
    if (::fstat(file.descriptor_, &status) != 0) return Error::file("cannot read '" + path + "': " + os_reason(errno));
    if (!S_ISREG(status.st_mode))
      return Error::file("cannot read '" + path + "': " + not_a_regular_file(status.st_mode));
    file.size_ = static_cast<std::uint64_t>(status.st_size);
    return file;
  }

  [[nodiscard]] std::uint64_t size() const { return size_; }

  // Exactly out.size() bytes from `offset`, or an Error::file "cannot read '<path>': <reason>".
  Result<void> read_at(std::uint64_t offset, std::span<std::uint8_t> out, const std::string& path) const {
    const auto cannot_read = [&path](const std::string& reason) {
      return Error::file("cannot read '" + path + "': " + reason);
    };
    std::size_t filled = 0;
    while (filled < out.size()) {
      const ssize_t got =
          ::pread(descriptor_, out.data() + filled, out.size() - filled, static_cast<off_t>(offset + filled));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) return cannot_read(os_reason(errno));
      if (got == 0)
        return cannot_read("the file ended after " + std::to_string(offset + filled) + " bytes (it shrank while read)");
      filled += static_cast<std::size_t>(got);
    }
    return {};
  }

 private:
  int descriptor_ = -1;
  std::uint64_t size_ = 0;
};

enum class FileKind { npy, npz, csv, unknown };

FileKind kind_of(const std::string& path, std::span<const std::uint8_t> first_bytes) {
  const std::string name = lower(path);
  if (name.ends_with(".npy")) return FileKind::npy;
  if (name.ends_with(".npz")) return FileKind::npz;
  if (name.ends_with(".csv") || name.ends_with(".txt")) return FileKind::csv;
  if (first_bytes.size() >= 6 && first_bytes[0] == 0x93 && first_bytes[1] == 'N') return FileKind::npy;
  if (first_bytes.size() >= 4 && first_bytes[0] == 'P' && first_bytes[1] == 'K' && first_bytes[2] == 3 &&
      first_bytes[3] == 4)
    return FileKind::npz;
  return FileKind::unknown;
}

// [SECTION] Wording: what to change, where the import was asked for

bool in_window(const ImportOptions& options) { return options.asked_by == ImportAskedBy::window; }

// A refusal of core's spec parser names the spec as the option it came with ("--import 'x' is not
// allowed: FILE[:ROLE] ..."); the window's field takes the same FILE[:ROLE] text without the option.
Error in_words_of(const ImportOptions& options, Error error) {
  constexpr std::string_view option = "--import ";
  if (in_window(options) && error.message.starts_with(option)) error.message.erase(0, option.size());
  return error;
}

// A lone file whose name says no role: the spec with one role added is the way out.
Error role_of_file_unknown(const ImportOptions& options, const std::string& text, const std::string& stem,
                           const std::string& path) {
  if (in_window(options))
    return Error::usage(i18n::format("import.refused.role_of_file", {stem.substr(0, 40), path.substr(0, 200)}));
  return Error::usage("--import " + text.substr(0, 200) + ": cannot tell the role of '" + stem.substr(0, 40) +
                      "' from its name: say it, e.g. --import " + path + ":Q (Q, K, V, scores or weights)");
}

// An archive none of whose arrays' names say a role: `names` lists the first few ("" for none).
Error roles_in_archive_unknown(const ImportOptions& options, const std::string& path, const std::string& names,
                               const std::string& first_array) {
  if (in_window(options))
    return Error::usage(names.empty()
                            ? i18n::format("import.refused.no_arrays", {path})
                            : i18n::format("import.refused.no_roles", {path, names, first_array.substr(0, 40)}));
  return Error::usage("'" + path + "' holds " + (names.empty() ? std::string("no arrays") : "arrays " + names) +
                      ", none named q, k, v, scores or attn: name the roles, e.g. --import " + path + ":x=Q,y=K");
}

// An array named in the spec without a role, whose name says none.
Error role_of_array_unknown(const ImportOptions& options, const std::string& text, const std::string& array,
                            const std::string& path) {
  if (in_window(options))
    return Error::usage(i18n::format("import.refused.role_of_array", {array.substr(0, 40), path.substr(0, 200)}));
  return Error::usage("--import " + text.substr(0, 200) + ": cannot tell the role of array '" + array.substr(0, 40) +
                      "' from its name: say it, e.g. " + array.substr(0, 40) + "=Q (Q, K, V, scores or weights)");
}

// [SECTION] The plan: every file's declared arrays and roles, checked before any value is read

// One file of the import and what is read from it.
struct PlannedFile {
  std::string spec_text, path, stem;
  FileKind kind = FileKind::unknown;
  OpenFile file;
  std::optional<NpyHeader> header;    // npy: read and checked
  std::vector<std::uint8_t> archive;  // npz: the whole archive (its directory is at the end)
  std::vector<std::string> arrays;    // npz: the entries to read
  std::vector<ArrayRole> roles;       // their roles (npy, csv: one)
};

// The role of every array the spec names, and for .npz the archive and its directory; for .npy
// the header, its size against the file and its shape against the role.
Result<void> plan_file(PlannedFile& plan, const ImportSpec& spec, const ImportOptions& options) {
  auto fail = [](std::string message) -> Result<void> { return Error::usage(std::move(message)); };
  const std::string& text = plan.spec_text;
  if (options.before_open) options.before_open(spec.path);
  Result<OpenFile> opened = OpenFile::open(spec.path);
  if (!opened)  // the line names the path; the command line adds the option it came with
    return Error::file(opened.error().message + (in_window(options) ? "" : " (--import " + text.substr(0, 200) + ")"));
  plan.file = std::move(*opened);
  const std::uint64_t size = plan.file.size();
  std::vector<std::uint8_t> first(
      static_cast<std::size_t>(std::min<std::uint64_t>(size, ImportLimits::npy_prefix_max)));
  if (Result<void> read = plan.file.read_at(0, first, spec.path); !read) return read.error();
  plan.kind = kind_of(spec.path, first);
  if (plan.kind == FileKind::unknown)
    return fail("'" + spec.path +
                "' is not a .npy, .npz or .csv file: allowed NumPy arrays (np.save, np.savez) or CSV");
  const std::uintmax_t largest = plan.kind == FileKind::csv ? ImportLimits::csv_bytes_max : import_file_max_bytes;
  if (size > largest)
    return fail("'" + spec.path + "' is " + std::to_string(size) + " bytes: allowed at most " +
                std::to_string(largest));
  if (plan.kind != FileKind::npz) {
    const auto role = !spec.selections.empty() ? spec.selections.front().role : infer_role(plan.stem);
    if (!role) return role_of_file_unknown(options, text, plan.stem, spec.path);
    plan.roles = {*role};
    if (plan.kind == FileKind::npy) {
      Result<NpyHeader> header = parse_npy_header(first, spec.path, "");
      if (!header) return header.error();
      if (Result<void> sized = check_npy_size(*header, size, spec.path, ""); !sized) return sized;
      if (Result<void> fits = check_role_shape(*role, header->shape, spec.path, plan.stem); !fits) return fits;
      plan.header = std::move(*header);
    }
    return {};
  }
  // An .npz: the whole archive (its directory is at its end), then which entries play which role.
  plan.archive.resize(static_cast<std::size_t>(size));
  if (Result<void> read = plan.file.read_at(0, plan.archive, spec.path); !read) return read.error();
  if (spec.selections.empty()) {
    // Every array whose name says its role (q, k, v, scores, attn, ...); the rest is left out.
    const ArchiveParse listed = list_npz(plan.archive, spec.path);
    if (!listed.ok()) return listed.error();
    std::string names;  // the first few, for the message: an archive may list 256
    constexpr std::size_t names_shown = 8;
    for (std::size_t i = 0; i < listed->size(); ++i) {
      const std::string& name = (*listed)[i].name;
      if (i < names_shown) names += (names.empty() ? "" : ", ") + name.substr(0, 40);
      if (i == names_shown)
        names += (in_window(options) ? " … +" : " and ") + std::to_string(listed->size() - names_shown) +
                 (in_window(options) ? "" : " more");
      if (const auto role = infer_role(name)) plan.arrays.push_back(name), plan.roles.push_back(*role);
    }
    if (plan.arrays.empty())
      return roles_in_archive_unknown(options, spec.path, names, listed->empty() ? "" : listed->front().name);
    return {};
  }
  for (const ImportSpec::Selection& selection : spec.selections) {
    const auto role = selection.role ? selection.role : infer_role(selection.array);
    if (!role) return role_of_array_unknown(options, text, selection.array, spec.path);
    plan.arrays.push_back(selection.array);
    plan.roles.push_back(*role);
  }
  return {};
}

// Two arrays for one role are refused before any value is read (the same line assemble_import
// gives, which checks it again on what was read).
Result<void> check_one_per_role(const std::vector<PlannedFile>& plans) {
  struct Seen {
    const PlannedFile* plan;
    std::string array;
  };
  std::optional<Seen> seen[5];
  for (const PlannedFile& plan : plans)
    for (std::size_t i = 0; i < plan.roles.size(); ++i) {
      const std::string array = plan.kind == FileKind::npz ? plan.arrays[i] : plan.stem;
      std::optional<Seen>& slot = seen[static_cast<int>(plan.roles[i])];
      if (slot)
        return Error::usage(plan.path + " array '" + array.substr(0, 40) + "': a second " +
                            std::string(role_name(plan.roles[i])) + " (the first is " + slot->plan->path + " array '" +
                            slot->array.substr(0, 40) + "'): allowed one of each");
      slot = Seen{&plan, array};
    }
  return {};
}

// [SECTION] Reading the values

// A lone .npy: its data streamed from the file into the floats, 4 MiB at a time.
ArrayParse read_npy(const PlannedFile& plan, const Progress& progress) {
  const NpyHeader& header = *plan.header;
  NpyDecoder decoder(header);
  std::vector<std::uint8_t> chunk(static_cast<std::size_t>(std::min<std::uint64_t>(header.data_bytes(), 4u << 20)));
  for (std::uint64_t done = 0; done < header.data_bytes();) {
    if (progress.cancelled()) return cancelled_error("import");
    const auto size = static_cast<std::size_t>(std::min<std::uint64_t>(chunk.size(), header.data_bytes() - done));
    const std::span<std::uint8_t> piece(chunk.data(), size);
    if (Result<void> read = plan.file.read_at(header.data_offset + done, piece, plan.path); !read) return read.error();
    decoder.feed(piece);
    done += size;
    progress.report(static_cast<double>(done) / static_cast<double>(header.data_bytes()));
  }
  return std::move(decoder).finish(plan.stem);
}

// The arrays of one planned file, with their roles.
Result<void> read_planned(const PlannedFile& plan, const Progress& progress, std::vector<RoleArray>& arrays) {
  if (plan.kind == FileKind::npz) {
    ArchiveParse archive = parse_npz(plan.archive, plan.path, plan.arrays, plan.roles, progress);
    if (!archive.ok()) return archive.error();
    for (std::size_t i = 0; i < plan.arrays.size(); ++i)
      for (NdArray& array : *archive)
        if (array.name == plan.arrays[i] && !array.values.empty())
          arrays.push_back({plan.roles[i], std::move(array), plan.path});
    return {};
  }
  ArrayParse parsed = Error::usage("");
  if (plan.kind == FileKind::npy) {
    parsed = read_npy(plan, progress);
  } else {
    std::string text(static_cast<std::size_t>(plan.file.size()), '\0');
    if (Result<void> read =
            plan.file.read_at(0, std::span(reinterpret_cast<std::uint8_t*>(text.data()), text.size()), plan.path);
        !read)
      return read.error();
    parsed = parse_csv_matrix(text, plan.path, progress);
  }
  if (!parsed.ok()) return parsed.error();
  parsed->name = plan.stem;
  arrays.push_back({plan.roles.front(), std::move(*parsed), plan.path});
  return {};
}

}  // namespace

// [SECTION] load_import

namespace {

std::string absolute_path(const std::string& path) {
  std::error_code error;
  const std::filesystem::path made = std::filesystem::absolute(path, error);
  return error ? path : made.lexically_normal().string();
}

}  // namespace

bool loaded_from(const ImportedAttention& data, std::span<const std::string> specs, const std::string& tokens_file) {
  if (data.sources.size() != specs.size() ||
      data.tokens_file != (tokens_file.empty() ? "" : absolute_path(tokens_file)))
    return false;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const SpecParse parsed = parse_import_spec(specs[i], is_regular_file);
    if (!parsed.ok() || data.sources[i] != absolute_path(parsed->path) + specs[i].substr(parsed->path.size()))
      return false;
  }
  return true;
}

std::vector<bool> roles_needed(std::span<const std::string> specs) {
  std::vector<bool> needed;
  needed.reserve(specs.size());
  for (const std::string& text : specs) {
    const SpecParse parsed = parse_import_spec(text, is_regular_file);
    // A spec that does not parse is refused by load_import with its own line: nothing to ask.
    const std::filesystem::path path(parsed.ok() ? parsed->path : std::string());
    std::string extension = path.extension().string();
    for (char& c : extension) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    needed.push_back(parsed.ok() && parsed->selections.empty() && (extension == ".npy" || extension == ".csv") &&
                     !infer_role(path.stem().string()));
  }
  return needed;
}

ImportLoad load_import(std::span<const std::string> specs, const std::string& tokens_file,
                       const ImportOptions& options) {
  // Bad content or a bad spec: a usage error (exit 2); a file that cannot be read: Error::file.
  if (specs.empty())
    return Error::usage(in_window(options) ? i18n::tr("import.refused.nothing")
                                           : "nothing to import: give --import FILE");
  if (specs.size() > 8)
    return Error::usage(in_window(options) ? i18n::format("import.refused.too_many", {std::to_string(specs.size())})
                                           : "more than 8 --import files: allowed at most 8");
  // What a session remembers: each spec with its path made absolute, so it reads back from anywhere.
  std::vector<std::string> sources;
  const auto absolute = absolute_path;
  std::string reading = "reading the import";  // what was being read when memory ran out
  try {
    std::vector<PlannedFile> plans(specs.size());
    for (std::size_t i = 0; i < specs.size(); ++i) {
      const SpecParse parsed = parse_import_spec(specs[i], is_regular_file);
      if (!parsed.ok()) return in_words_of(options, parsed.error());
      const ImportSpec& spec = *parsed;
      sources.push_back(absolute(spec.path) + specs[i].substr(spec.path.size()));
      PlannedFile& plan = plans[i];
      plan.spec_text = specs[i];
      plan.path = spec.path;
      plan.stem = std::filesystem::path(spec.path).stem().string();
      reading = "reading '" + spec.path + "'";
      if (Result<void> planned = plan_file(plan, spec, options); !planned) return planned.error();
    }
    if (Result<void> one_each = check_one_per_role(plans); !one_each) return one_each.error();
    // Only V (the rest is checked when the arrays are put together, in core's words, which name
    // the command line's option): the window says what to add in its own.
    // std::all_of over iterators: the web build's libc++ has no std::ranges algorithms.
    const auto only_values = [](const PlannedFile& plan) {
      return std::all_of(plan.roles.begin(), plan.roles.end(),
                         [](ArrayRole role) { return role == ArrayRole::values; });
    };
    if (in_window(options) && std::all_of(plans.begin(), plans.end(), only_values))
      return Error::usage(i18n::tr("import.refused.nothing_to_show"));
    if (options.progress.cancelled()) return cancelled_error("import");
    std::vector<std::string> tokens;
    if (!tokens_file.empty()) {
      const TextFile file = read_text_file(tokens_file, ImportLimits::tokens_bytes_max);
      if (file.status == TextFile::Status::unreadable) return Error::file(cannot_read("'" + tokens_file + "'", file));
      if (file.status == TextFile::Status::too_large)
        return Error::usage("'" + tokens_file + "' is larger than 64 MiB: allowed at most 32768 tokens of 1 KiB");
      TokenParse parsed = parse_tokens(file.text, tokens_file);
      if (!parsed.ok()) return parsed.error();
      tokens = std::move(*parsed);
    }
    // The values, each file a share of the progress by its size.
    std::uint64_t total = 0, done = 0;
    for (const PlannedFile& plan : plans) total += std::max<std::uint64_t>(plan.file.size(), 1);
    std::vector<RoleArray> arrays;
    for (const PlannedFile& plan : plans) {
      const std::string stage = "reading " + std::filesystem::path(plan.path).filename().string();
      const double begin = static_cast<double>(done) / static_cast<double>(total);
      done += std::max<std::uint64_t>(plan.file.size(), 1);
      reading = "reading '" + plan.path + "'";
      const Progress part = options.progress.part(begin, static_cast<double>(done) / static_cast<double>(total), stage);
      part.report(0.0);
      if (Result<void> read = read_planned(plan, part, arrays); !read) return read.error();
    }
    if (options.progress.cancelled()) return cancelled_error("import");
    reading = "checking the imported arrays";
    ImportAssembly assembled = assemble_import(std::move(arrays), std::move(tokens), std::move(sources),
                                               tokens_file.empty() ? tokens_file : absolute(tokens_file));
    if (!assembled.ok()) return assembled.error();
    return ImportLoad(std::move(*assembled));
  } catch (const std::bad_alloc&) {
    // Every size was checked against its limit first; this is a machine (or ulimit -v) with less
    // memory than the limits allow.
    return Error::file("not enough memory for " + reading + ": import smaller arrays, or free memory");
  }
}

}  // namespace smlab::app
