// Atomic whole-file writes (temporary file + fsync + rename) and directory creation, with errors
// that name the path and the operating system's reason.
#include "export/atomic_file.hpp"

#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <initializer_list>
#include <random>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>

namespace smlab::exporting {
namespace {

namespace fs = std::filesystem;

// Builds a message by appending (GCC 12 at -O2 raises a false -Wrestrict on `"literal" + std::string`).
std::string message(std::initializer_list<std::string_view> parts) {
  std::string text;
  for (const std::string_view part : parts) {
    text += part;
  }
  return text;
}

std::string os_reason(int error_number) { return std::generic_category().message(error_number); }

std::string cannot_write(const fs::path& path, int error_number) {
  return message({"cannot write '", path.native(), "': ", os_reason(error_number)});
}

std::string already_exists(const fs::path& path) {
  return message({"'", path.native(), "' already exists; not overwritten"});
}

fs::path directory_of(const fs::path& path) {
  const fs::path parent = path.parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

// Creates a new, uniquely named file next to `target` (same directory, so the final rename never
// crosses file systems) and returns its descriptor, or -1 with errno set. The leading dot keeps
// it out of ordinary directory listings while it exists.
int create_temporary_next_to(const fs::path& target, fs::path& temporary) {
  std::random_device entropy;
  std::mt19937_64 generator((static_cast<std::uint64_t>(entropy()) << 32U) ^ entropy());
  for (int attempt = 0; attempt < 16; ++attempt) {
    char suffix[24];
    std::snprintf(suffix, sizeof suffix, ".tmp-%016llx", static_cast<unsigned long long>(generator()));
    temporary = directory_of(target) / message({".", target.filename().native(), suffix});
    // O_EXCL: never reuse a file someone else made; 0666 lets the umask decide, like any new file.
    const int descriptor = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (descriptor >= 0 || errno != EEXIST) {
      return descriptor;
    }
  }
  errno = EEXIST;
  return -1;
}

// Returns 0, or the errno of the failed write.
int write_all(int descriptor, std::span<const std::uint8_t> bytes) {
  while (!bytes.empty()) {
    const ssize_t written = ::write(descriptor, bytes.data(), bytes.size());
    if (written < 0) {
      if (errno == EINTR) {
        continue;
      }
      return errno;
    }
    bytes = bytes.subspan(static_cast<std::size_t>(written));
  }
  return 0;
}

// Renames `from` to `to` unless `to` exists, atomically where the file system allows.
// Returns 0, or an errno (EEXIST when `to` exists).
int rename_without_replacing(const fs::path& from, const fs::path& to) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) {
    return 0;
  }
  if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP) {
    return errno;
  }
  // No RENAME_NOREPLACE here (some network and FUSE file systems): link() refuses an existing
  // target just as atomically.
  if (::link(from.c_str(), to.c_str()) == 0) {
    ::unlink(from.c_str());
    return 0;
  }
  if (errno != EPERM && errno != ENOTSUP && errno != ENOSYS) {
    return errno;
  }
  // No hard links either (FAT): check, then rename. Only a writer racing us in this instant can
  // slip in between; the file is still never half-written.
  struct stat status {};
  if (::lstat(to.c_str(), &status) == 0) {
    return EEXIST;
  }
  return ::rename(from.c_str(), to.c_str()) == 0 ? 0 : errno;
}

// Makes the rename itself survive a crash. Best effort: the file is already complete and in place.
void sync_directory(const fs::path& directory) {
  const int descriptor = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (descriptor >= 0) {
    ::fsync(descriptor);
    ::close(descriptor);
  }
}

}  // namespace

WriteError write_file_atomically(const fs::path& path, std::span<const std::uint8_t> bytes, bool overwrite) {
  if (path.empty() || !path.has_filename()) {
    return message({"cannot write '", path.native(), "': not a file name"});
  }
  struct stat existing {};
  const bool target_exists = ::stat(path.c_str(), &existing) == 0;
  if (target_exists && !overwrite) {
    return already_exists(path);  // fail fast, before writing anything
  }
  if (target_exists && S_ISDIR(existing.st_mode)) {
    return cannot_write(path, EISDIR);
  }

  fs::path temporary;
  int descriptor = create_temporary_next_to(path, temporary);
  if (descriptor < 0) {
    return cannot_write(path, errno);
  }
  // From here on every failure closes and removes the temporary file.
  auto abandon = [&](int error_number) {
    if (descriptor >= 0) {
      ::close(descriptor);
    }
    ::unlink(temporary.c_str());
    return error_number == EEXIST ? already_exists(path) : cannot_write(path, error_number);
  };

  if (const int error_number = write_all(descriptor, bytes); error_number != 0) {
    return abandon(error_number);
  }
  if (target_exists && S_ISREG(existing.st_mode) && ::fchmod(descriptor, existing.st_mode & 07777) != 0) {
    return abandon(errno);
  }
  if (::fsync(descriptor) != 0) {
    return abandon(errno);
  }
  const int close_result = ::close(descriptor);
  descriptor = -1;
  if (close_result != 0) {
    return abandon(errno);
  }

  if (overwrite) {
    if (::rename(temporary.c_str(), path.c_str()) != 0) {
      return abandon(errno);
    }
  } else if (const int error_number = rename_without_replacing(temporary, path); error_number != 0) {
    return abandon(error_number);
  }
  sync_directory(directory_of(path));
  return std::nullopt;
}

WriteError write_file_atomically(const fs::path& path, std::string_view text, bool overwrite) {
  const auto* data = reinterpret_cast<const std::uint8_t*>(text.data());
  return write_file_atomically(path, std::span<const std::uint8_t>(data, text.size()), overwrite);
}

WriteError ensure_directory(const fs::path& directory) {
  if (directory.empty()) {
    return std::string("cannot create a directory with an empty name");
  }
  std::error_code error;
  if (fs::is_directory(directory, error)) {
    return std::nullopt;
  }
  fs::create_directories(directory, error);
  if (error) {
    return message({"cannot create directory '", directory.native(), "': ", error.message()});
  }
  if (!fs::is_directory(directory, error)) {
    return message({"cannot create directory '", directory.native(), "': it exists and is not a directory"});
  }
  return std::nullopt;
}

}  // namespace smlab::exporting
