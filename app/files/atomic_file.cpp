// Atomic whole-file writes (temporary file + fsync + rename), all-or-nothing batches, temporary-file
// cleanup on signals, and directory creation, with errors that name the path and the OS's reason.
//
// [SECTION] Index
//   [SECTION] Messages
//   [SECTION] Temporary files (signal-safe registry)
//   [SECTION] Low-level writes: temporary file, rename, sync
//   [SECTION] Checking a target: check_target
//   [SECTION] Writing: FileBatch, install_exit_guards, write_file_atomically
//   [SECTION] Folders and names: ensure_directory, check_directory, numbered_path
#include "files/atomic_file.hpp"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <initializer_list>
#include <new>
#include <poll.h>
#include <random>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>

namespace smlab::files {
namespace {

namespace fs = std::filesystem;

// [SECTION] Messages

// Builds a message by appending (GCC 12 at -O2 raises a false -Wrestrict on `"literal" + std::string`).
std::string message(std::initializer_list<std::string_view> parts) {
  std::string text;
  for (const std::string_view part : parts) {
    text += part;
  }
  return text;
}

std::string os_reason(int error_number) { return std::generic_category().message(error_number); }

// The Error of a file that cannot be written (exit 3), built by message().
Error refused(std::initializer_list<std::string_view> parts) { return Error::file(message(parts)); }

Error cannot_write(const fs::path& path, int error_number) {
  return refused({"cannot write '", path.native(), "': ", os_reason(error_number)});
}

Error already_exists(const fs::path& path) {
  return refused({"'", path.native(), "' already exists; pass --overwrite to replace it"});
}

fs::path directory_of(const fs::path& path) {
  const fs::path parent = path.parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// [SECTION] Temporary files (signal-safe registry)
// The temporary files in flight, readable from a signal handler: fixed slots of plain bytes (no
// allocation, no locks). A slot's state is 0 free, 1 being filled, 2 holds a file to remove, 3 a
// folder a FileBatch made, to remove if empty. This is the one piece of process-wide state here, because a signal
// handler can reach nothing else.
constexpr int cleanup_slot_count = 256;
constexpr std::size_t cleanup_path_bytes = 4096;
struct CleanupSlot {
  std::atomic<int> state{0};
  char path[cleanup_path_bytes];
};
CleanupSlot cleanup_slots[cleanup_slot_count];
std::atomic<int> committing{0};       // a FileBatch is renaming: signals wait
std::atomic<int> deferred_signal{0};  // the signal that waited
std::atomic<int> progress_line{0};    // a progress line is open on stderr: end it before dying
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler reads these");

int register_temporary(const fs::path& path, int kind = 2) {
  if (path.native().size() >= cleanup_path_bytes) return -1;
  for (int slot = 0; slot < cleanup_slot_count; ++slot) {
    int expected = 0;
    if (cleanup_slots[slot].state.compare_exchange_strong(expected, 1)) {
      std::memcpy(cleanup_slots[slot].path, path.c_str(), path.native().size() + 1);
      cleanup_slots[slot].state.store(kind);
      return slot;
    }
  }
  return -1;  // more files in flight than slots: still written correctly, only not cleaned on a signal
}

void release_temporary(int slot) {
  if (slot >= 0) cleanup_slots[slot].state.store(0);
}

// The files first, then the folders, the last registered (the deepest) first: a folder goes only
// once empty (rmdir), so one that holds anything else stays.
void remove_registered_temporaries() {
  for (CleanupSlot& slot : cleanup_slots)
    if (slot.state.load() == 2) ::unlink(slot.path);
  for (int slot = cleanup_slot_count - 1; slot >= 0; --slot)
    if (cleanup_slots[slot].state.load() == 3) ::rmdir(cleanup_slots[slot].path);
}

void die_of(int signal_number) {
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

// Ends an open progress line, so the shell's next prompt (or the signal's report) starts a line.
void end_progress_line() {
  if (progress_line.exchange(0) != 0) (void)!::write(STDERR_FILENO, "\n", 1);
}

extern "C" void on_terminating_signal(int signal_number) {
  if (committing.load() != 0) {
    deferred_signal.store(signal_number);
    return;
  }
  const int saved_errno = errno;
  remove_registered_temporaries();
  end_progress_line();
  errno = saved_errno;
  die_of(signal_number);
}

// At exit: output that could not be written (stdout closed, /dev/full, a full disk) is an error,
// not a silent exit 0 with the list of written files, or of keys, lost.
extern "C" void check_standard_output() {
  const bool flushed = std::fflush(stdout) == 0;
  const int error_number = errno;
  if (flushed && std::ferror(stdout) == 0) return;
  static constexpr char line[] = "softmax-lab: cannot write to standard output: ";
  (void)!::write(STDERR_FILENO, line, sizeof line - 1);
  // stdio keeps no errno of an earlier failed write: a pipe whose reader has gone says so itself
  // (POLLERR on the writing end), which is the common case (`softmax-lab --list-keys | head -1`).
  const char* reason = flushed ? "write error" : std::strerror(error_number);
  struct stat status {};
  pollfd output{STDOUT_FILENO, POLLOUT, 0};
  if (flushed && ::fstat(STDOUT_FILENO, &status) == 0 && S_ISFIFO(status.st_mode) && ::poll(&output, 1, 0) == 1 &&
      (output.revents & POLLERR) != 0)
    reason = std::strerror(EPIPE);
  (void)!::write(STDERR_FILENO, reason, std::strlen(reason));
  (void)!::write(STDERR_FILENO, "\n", 1);
  std::_Exit(3);
}

// std::bad_alloc that nothing caught (a worker thread, a noexcept path, main itself): one line and
// exit 3, temporaries removed, instead of an abort. Anything else goes on to the default handler.
std::terminate_handler previous_terminate = nullptr;
[[noreturn]] void on_terminate() {
  const char* line = nullptr;
  if (const std::exception_ptr current = std::current_exception()) {
    try {
      std::rethrow_exception(current);
    } catch (const std::bad_alloc&) {
      line = "softmax-lab: out of memory: this run needs more memory than the machine (or ulimit -v) allows\n";
    } catch (const std::system_error& error) {
      // std::thread could not start one (EAGAIN, ENOMEM): no memory for its stack, or the
      // user's process limit reached.
      if (error.code() == std::errc::resource_unavailable_try_again || error.code() == std::errc::not_enough_memory)
        line = "softmax-lab: cannot start a thread: too little memory or too many processes (ulimit -v, ulimit -u)\n";
    } catch (...) {
    }
  }
  if (line != nullptr) {
    remove_registered_temporaries();
    end_progress_line();
    (void)!::write(STDERR_FILENO, line, std::strlen(line));
    std::_Exit(3);
  }
  if (previous_terminate != nullptr) previous_terminate();
  std::abort();
}

// [SECTION] Low-level writes: temporary file, rename, sync

// Creates a new, uniquely named file next to `target` (same directory, so the final rename never
// crosses file systems), registered for signal cleanup, and returns its descriptor, or -1 with
// errno set. The leading dot keeps it out of ordinary directory listings while it exists.
int create_temporary_next_to(const fs::path& target, fs::path& temporary, int& slot) {
  std::random_device entropy;
  std::mt19937_64 generator((static_cast<std::uint64_t>(entropy()) << 32U) ^ entropy());
  // "." + name + ".tmp-" + 16 hex digits (+ ".old" for a backup) must fit a file name (255
  // bytes): a long name is cut, at a character start, so a legal 240-byte name still works.
  const fs::path file_name = target.filename();
  std::string_view name = file_name.native();
  constexpr std::size_t name_room = 255 - 1 - 21 - 4;
  if (name.size() > name_room) {
    std::size_t cut = name_room;
    while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0u) == 0x80u) --cut;
    name = name.substr(0, cut);
  }
  for (int attempt = 0; attempt < 16; ++attempt) {
    char suffix[24];
    std::snprintf(suffix, sizeof suffix, ".tmp-%016llx", static_cast<unsigned long long>(generator()));
    temporary = directory_of(target) / message({".", name, suffix});
    slot = register_temporary(temporary);  // before it exists: a signal now finds nothing to remove
    // O_EXCL: never reuse a file someone else made; 0666 lets the umask decide, like any new file.
    const int descriptor = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (descriptor >= 0) return descriptor;
    const int error_number = errno;
    release_temporary(slot);
    slot = -1;
    if (error_number != EEXIST) {
      errno = error_number;
      return -1;
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
#ifndef __EMSCRIPTEN__  // the web build's in-memory file system has neither renameat2 nor link(): check, then rename
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
#endif
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

// [SECTION] Checking a target: check_target

Result<void> check_target(const fs::path& path, bool overwrite) {
  if (path.empty() || !path.has_filename()) {
    return refused({"cannot write '", path.native(), "': not a file name"});
  }
  struct stat link_status {};
  if (::lstat(path.c_str(), &link_status) == 0) {
    // A symbolic link is never replaced, nor written through: one planted in a shared folder would
    // have an export replace a file outside that folder, perhaps another user's.
    if (S_ISLNK(link_status.st_mode)) {
      struct stat status {};
      const char* leads = ::stat(path.c_str(), &status) != 0 ? " that leads nowhere"
                          : S_ISREG(status.st_mode)          ? " to a regular file"
                                                             : " to something that is not a regular file";
      return refused({"cannot write '", path.native(), "': it is a symbolic link", leads,
                      "; only a regular file can be replaced, never a link or what it points to"});
    }
    if (!S_ISREG(link_status.st_mode)) {
      return refused({"cannot write '", path.native(), "': it is ", kind_of(link_status.st_mode),
                      "; only a regular file can be replaced"});
    }
    if (!overwrite) return already_exists(path);
    if (::access(path.c_str(), W_OK) != 0) {
      return refused({"cannot replace '", path.native(), "': the file is not writable (", os_reason(errno), ")"});
    }
    // In a sticky folder (like /tmp) a file is replaced only if it is ours or the folder is: what
    // the kernel lets only its owner, the folder's owner or root remove, root replaces no more
    // readily than anyone (refused here, before the commit's backup link is made).
    struct stat folder_status {};
    if (::stat(directory_of(path).c_str(), &folder_status) == 0 && (folder_status.st_mode & S_ISVTX) != 0 &&
        link_status.st_uid != ::geteuid() && folder_status.st_uid != ::geteuid()) {
      return refused({"cannot replace '", path.native(), "': it belongs to another user in '",
                      directory_of(path).native(),
                      "', a folder with the sticky bit where only its owner may replace it (", os_reason(EPERM), ")"});
    }
  } else if (errno != ENOENT) {
    return cannot_write(path, errno);
  }
  const fs::path folder = directory_of(path);
  struct stat folder_status {};
  if (::stat(folder.c_str(), &folder_status) != 0) return cannot_write(path, errno);
  if (!S_ISDIR(folder_status.st_mode)) {
    return refused({"cannot write '", path.native(), "': '", folder.native(), "' is not a directory"});
  }
  if (::access(folder.c_str(), W_OK | X_OK) != 0) {
    return refused(
        {"cannot write '", path.native(), "': cannot create files in '", folder.native(), "': ", os_reason(errno)});
  }
  return {};
}

// [SECTION] Writing: FileBatch, install_exit_guards, write_file_atomically

FileBatch::~FileBatch() {
  if (!committed_) abandon();
}

void FileBatch::abandon() {
  for (Staged& staged : staged_) {
    if (!staged.temporary.empty()) ::unlink(staged.temporary.c_str());
    release_temporary(staged.cleanup_slot);
    staged.cleanup_slot = -1;
  }
  staged_.clear();
  for (auto made = made_.rbegin(); made != made_.rend(); ++made) {
    ::rmdir(made->directory.c_str());
    release_temporary(made->cleanup_slot);
  }
  made_.clear();
}

Result<void> FileBatch::check(const fs::path& path) const {
  for (const Staged& staged : staged_)
    if (staged.target == path) return refused({"cannot write '", path.native(), "' twice in one export"});
  // Checking ahead: a folder this run has yet to make holds nothing to collide with.
  struct stat folder {};
  if (mode_ == Mode::check_only && ::stat(directory_of(path).c_str(), &folder) != 0 && errno == ENOENT) return {};
  return check_target(path, overwrite_);
}

Result<void> FileBatch::make_directory(const fs::path& directory) {
  if (mode_ == Mode::check_only) return check_directory(directory);
  // The missing folders, outermost first, made one by one so that each is known to be ours.
  std::vector<fs::path> missing;
  for (fs::path at = directory; !at.empty(); at = at.parent_path()) {
    struct stat status {};
    if (::lstat(at.c_str(), &status) == 0) break;
    missing.insert(missing.begin(), at);
    if (at == at.parent_path()) break;
  }
  for (const fs::path& folder : missing) {
    if (::mkdir(folder.c_str(), 0777) != 0) {
      if (errno == EEXIST) continue;  // made by someone else meanwhile: not ours to remove
      const int error_number = errno;
      return refused({"cannot create directory '", directory.native(), "': ", os_reason(error_number)});
    }
    made_.push_back({folder, register_temporary(folder, 3)});
  }
  return ensure_directory(directory);
}

Result<void> FileBatch::stage(const fs::path& path, std::string_view text) {
  const auto* data = reinterpret_cast<const std::uint8_t*>(text.data());
  return stage(path, std::span<const std::uint8_t>(data, text.size()));
}

Result<void> FileBatch::stage(const fs::path& path, std::span<const std::uint8_t> bytes) {
  if (Result<void> checked = check(path); !checked.ok()) return checked;
  Staged staged;
  staged.target = path;
  if (mode_ == Mode::check_only) {
    staged_.push_back(std::move(staged));
    return {};
  }
  const int descriptor = create_temporary_next_to(staged.target, staged.temporary, staged.cleanup_slot);
  if (descriptor < 0) {
    const int error_number = errno;
    return refused({"cannot write '", path.native(), "': cannot create a temporary file in '",
                    directory_of(staged.target).native(), "': ", os_reason(error_number)});
  }
  int error_number = write_all(descriptor, bytes);
  struct stat existing {};
  if (error_number == 0 && ::lstat(staged.target.c_str(), &existing) == 0 && S_ISREG(existing.st_mode) &&
      ::fchmod(descriptor, existing.st_mode & 07777) != 0)
    error_number = errno;
  if (error_number == 0 && ::fsync(descriptor) != 0) error_number = errno;
  if (::close(descriptor) != 0 && error_number == 0) error_number = errno;
  if (error_number != 0) {
    ::unlink(staged.temporary.c_str());
    release_temporary(staged.cleanup_slot);
    return cannot_write(path, error_number);
  }
  staged_.push_back(std::move(staged));
  return {};
}

Result<void> FileBatch::commit() {
  if (mode_ == Mode::check_only) return {};
  // Renames only: quick. A SIGINT now waits for the end, so no file is left half-committed.
  committing.store(1);
  struct Done {
    const Staged* staged;
    fs::path backup;  // the replaced file's old contents, hard-linked aside; empty when new or no link
  };
  std::vector<Done> done;
  Result<void> failure;
  for (const Staged& staged : staged_) {
    Done step{&staged, {}};
    int error_number = 0;
    if (!overwrite_) {
      error_number = rename_without_replacing(staged.temporary, staged.target);
    } else {
      struct stat existing {};
      if (::lstat(staged.target.c_str(), &existing) == 0 && S_ISREG(existing.st_mode)) {
        fs::path backup = staged.temporary;
        backup += ".old";
        if (::link(staged.target.c_str(), backup.c_str()) == 0) step.backup = std::move(backup);
      }
      if (::rename(staged.temporary.c_str(), staged.target.c_str()) != 0) error_number = errno;
    }
    if (error_number != 0) {
      failure = error_number == EEXIST ? already_exists(staged.target) : cannot_write(staged.target, error_number);
      if (!step.backup.empty()) ::unlink(step.backup.c_str());
      break;
    }
    done.push_back(std::move(step));
  }
  if (!failure.ok()) {
    // Undo in reverse: the old contents back where they were, the new files gone.
    for (auto it = done.rbegin(); it != done.rend(); ++it) {
      if (!it->backup.empty())
        ::rename(it->backup.c_str(), it->staged->target.c_str());
      else
        ::unlink(it->staged->target.c_str());
    }
  } else {
    for (const Done& step : done)
      if (!step.backup.empty()) ::unlink(step.backup.c_str());
    for (const Staged& staged : staged_) sync_directory(directory_of(staged.target));
  }
  if (!failure.ok()) {
    abandon();
  } else {
    for (Staged& staged : staged_) {
      release_temporary(staged.cleanup_slot);
      staged.cleanup_slot = -1;
    }
    for (Made& made : made_) release_temporary(made.cleanup_slot);  // the folders stay with the files
    made_.clear();
    committed_ = true;
  }
  committing.store(0);
  if (const int signal_number = deferred_signal.exchange(0); signal_number != 0) {
    remove_registered_temporaries();
    die_of(signal_number);
  }
  return failure;
}

std::vector<fs::path> FileBatch::targets() const {
  std::vector<fs::path> paths;
  for (const Staged& staged : staged_) paths.push_back(staged.target);
  return paths;
}

void install_exit_guards() {
  // A write past `ulimit -f` then fails with EFBIG, an ordinary write error (exit 3, nothing left).
  std::signal(SIGXFSZ, SIG_IGN);
  // A reader that closes our standard output early (`| head`, `| true`) would kill the process
  // with SIGPIPE, after its files were committed, with no word: ignored, the write fails (EPIPE)
  // and the exit check below says so in one line, exit 3.
  std::signal(SIGPIPE, SIG_IGN);
  // Every other catchable signal whose default ends the process.
  std::vector<int> signals = {SIGHUP,  SIGINT,  SIGQUIT, SIGABRT,   SIGUSR1, SIGUSR2,
                              SIGALRM, SIGTERM, SIGXCPU, SIGVTALRM, SIGPROF};
#ifdef SIGSTKFLT
  signals.push_back(SIGSTKFLT);
#endif
#ifdef SIGIO
  signals.push_back(SIGIO);
#endif
#ifdef SIGPWR
  signals.push_back(SIGPWR);
#endif
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  // The faults too, except under a sanitizer, whose own handlers report them.
  for (int fault : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS}) signals.push_back(fault);
#endif
#if defined(SIGRTMIN) && defined(SIGRTMAX)
  for (int real_time = SIGRTMIN; real_time <= SIGRTMAX; ++real_time) signals.push_back(real_time);
#endif
  for (int signal_number : signals) {
    struct sigaction action {};
    if (::sigaction(signal_number, nullptr, &action) != 0) continue;
    if (action.sa_handler == SIG_IGN) continue;  // nohup, or a parent that ignores it: stays ignored
    action = {};
    action.sa_handler = on_terminating_signal;
    sigemptyset(&action.sa_mask);
    ::sigaction(signal_number, &action, nullptr);
  }
  // Out of memory anywhere: one line, exit 3 (on_terminate).
  if (std::get_terminate() != on_terminate) {
    previous_terminate = std::set_terminate(on_terminate);
    std::atexit(check_standard_output);
  }
}

void note_progress_line(bool open) { progress_line.store(open ? 1 : 0); }

Result<void> write_file_atomically(const fs::path& path, std::span<const std::uint8_t> bytes, bool overwrite) {
  FileBatch batch(overwrite);
  if (Result<void> staged = batch.stage(path, bytes); !staged.ok()) return staged;
  return batch.commit();
}

Result<void> write_file_atomically(const fs::path& path, std::string_view text, bool overwrite) {
  const auto* data = reinterpret_cast<const std::uint8_t*>(text.data());
  return write_file_atomically(path, std::span<const std::uint8_t>(data, text.size()), overwrite);
}

// [SECTION] Folders and names: ensure_directory, check_directory, numbered_path

Result<void> ensure_directory(const fs::path& directory) {
  if (directory.empty()) {
    return Error::file("cannot create a directory with an empty name");
  }
  std::error_code error;
  if (fs::is_directory(directory, error)) {
    return {};
  }
  struct stat existing {};
  if (::stat(directory.c_str(), &existing) == 0) {
    return refused({"cannot create directory '", directory.native(), "': it exists and is ",
                    S_ISREG(existing.st_mode) ? "a file" : kind_of(existing.st_mode)});
  }
  fs::create_directories(directory, error);
  if (error) {
    return refused({"cannot create directory '", directory.native(), "': ", error.message()});
  }
  if (!fs::is_directory(directory, error)) {
    return refused({"cannot create directory '", directory.native(), "': it exists and is not a directory"});
  }
  return {};
}

Result<void> check_directory(const fs::path& directory) {
  if (directory.empty()) {
    return Error::file("cannot create a directory with an empty name");
  }
  // The nearest part of the path that exists decides: a folder we may write in, or an error.
  for (fs::path at = directory;;) {
    struct stat status {};
    if (::stat(at.c_str(), &status) == 0) {
      if (!S_ISDIR(status.st_mode)) {
        const char* kind = S_ISREG(status.st_mode) ? "a file" : kind_of(status.st_mode);
        if (at == directory)
          return refused({"cannot create directory '", directory.native(), "': it exists and is ", kind});
        return refused(
            {"cannot create directory '", directory.native(), "': '", at.native(), "' is ", kind, ", not a directory"});
      }
      if (::access(at.c_str(), W_OK | X_OK) != 0) {
        const int error_number = errno;
        if (at == directory)
          return refused({"cannot write into '", directory.native(), "': ", os_reason(error_number)});
        return refused({"cannot create directory '", directory.native(), "': ", os_reason(error_number)});
      }
      return {};
    }
    if (errno != ENOENT) return refused({"cannot create directory '", directory.native(), "': ", os_reason(errno)});
    const fs::path parent = at.has_parent_path() ? at.parent_path() : fs::path(".");
    if (parent == at) return {};
    at = parent;
  }
}

std::filesystem::path numbered_path(const std::filesystem::path& stem, int copy, std::string_view extension) {
  std::filesystem::path path = stem;
  if (copy > 1) path += "-" + std::to_string(copy);
  path += extension;
  return path;
}

}  // namespace smlab::files
