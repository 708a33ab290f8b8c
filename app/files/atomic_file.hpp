// Writes whole files so that a reader sees either the old file, or no file, or the complete new one:
// never a half-written file (docs/ROBUSTNESS.md); several files all or nothing (FileBatch); temporary files
// removed on every catchable terminating signal (install_exit_guards). Also creates output directories with a clear
// error.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "smlab/error.hpp"

namespace smlab::files {

// Every writer below returns success or an Error::file (exit 3): one line naming the path and the
// operating system's reason, e.g. "cannot write '/out/a.png': Permission denied".

// What an export of several files gives back: the files written (or, into a caller's FileBatch,
// staged), in order; or the Error::file (exit 3) that stopped it with nothing written, one line
// naming the path and the reason.
using WrittenFiles = Result<std::vector<std::filesystem::path>>;

// Writes `bytes` to `path` through a uniquely named temporary file in the same directory (flushed
// and fsync'ed), then renames it over `path`. With overwrite == false an existing `path` is left
// untouched and an error is returned; the check and the rename are one atomic step where the file
// system allows it (renameat2 RENAME_NOREPLACE, else link). With overwrite == true only a regular
// file is replaced (check_target); the rename replaces the directory entry itself, so a link put
// there after the check is replaced, not followed. On any failure the temporary file is removed. A new file gets mode
// 0666 minus the umask; a replaced file keeps its permission bits. The parent directory must exist (see
// ensure_directory).
Result<void> write_file_atomically(const std::filesystem::path& path, std::span<const std::uint8_t> bytes,
                                   bool overwrite = false);
Result<void> write_file_atomically(const std::filesystem::path& path, std::string_view text, bool overwrite = false);

// Whether `path` can be written before anything is: a new name in a folder we may create files in,
// or (with overwrite) an existing regular file we may write, that is ours if the folder is sticky.
// A directory, FIFO, device or socket is an error even with overwrite; so is a symbolic link, to
// anything (never replaced, never written through: docs/ROBUSTNESS.md), and a folder we cannot
// create files in. The message names the path and the reason.
Result<void> check_target(const std::filesystem::path& path, bool overwrite);

// Several files written all or nothing. stage() checks the target and writes the bytes to a
// temporary file beside it at once (so memory holds one file at a time); commit() renames them all
// into place. If a stage or the commit fails, or the batch is destroyed uncommitted, nothing this
// batch wrote stays: temporaries are removed, new files removed and replaced files restored, and
// the folders it made (make_directory) removed again.
class FileBatch {
 public:
  // check_only: stage() checks each target and records it, writing nothing, and commit() does
  // nothing: the names of a run's files checked before a long computation (a target in a folder
  // that does not exist yet is free).
  enum class Mode { write, check_only };
  explicit FileBatch(bool overwrite, Mode mode = Mode::write) : overwrite_(overwrite), mode_(mode) {}
  ~FileBatch();
  FileBatch(const FileBatch&) = delete;
  FileBatch& operator=(const FileBatch&) = delete;

  Result<void> check(const std::filesystem::path& path) const;
  Result<void> stage(const std::filesystem::path& path, std::span<const std::uint8_t> bytes);
  Result<void> stage(const std::filesystem::path& path, std::string_view text);
  // Creates `directory` and its missing parents (as ensure_directory) for the batch's files. The
  // folders made here are the batch's: removed (if empty) when it is abandoned, also by a
  // terminating signal, and kept once it commits. Nothing is made in check_only mode.
  Result<void> make_directory(const std::filesystem::path& directory);
  Result<void> commit();
  [[nodiscard]] Mode mode() const { return mode_; }
  // The paths staged so far (after commit: written), in order.
  [[nodiscard]] std::vector<std::filesystem::path> targets() const;

 private:
  struct Staged {
    std::filesystem::path target;     // as given (what is reported)
    std::filesystem::path temporary;  // the staged bytes (none in check_only mode)
    int cleanup_slot = -1;
  };
  struct Made {
    std::filesystem::path directory;
    int cleanup_slot = -1;
  };
  void abandon();
  bool overwrite_;
  Mode mode_;
  bool committed_ = false;
  std::vector<Staged> staged_;
  std::vector<Made> made_;  // parents first
};

// Installs, once per process (main calls it first; every mode): a handler on every catchable
// signal whose default ends the process (SIGHUP, SIGINT, SIGQUIT, SIGABRT, SIGUSR1/2, SIGALRM,
// SIGTERM, SIGXCPU, SIGVTALRM, SIGPROF, SIGSTKFLT, SIGIO, SIGPWR, the real-time signals,
// and outside sanitizer builds the faults SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS) that
// removes every temporary file in flight and the folders a FileBatch made (async-signal-safe:
// unlink and rmdir only), ends an open progress
// line and then dies of the same signal; a signal that arrives while a FileBatch commits waits until
// the commit is done. Signals ignored at start (nohup) stay ignored; the window blocks SIGINT and
// SIGTERM and reads them itself (window_run.cpp). SIGXFSZ is ignored, so a write past `ulimit -f`
// is an ordinary write error (EFBIG); so is SIGPIPE, so output to a pipe whose reader has gone is
// an ordinary write error (EPIPE) that the exit check below reports. And a std::bad_alloc that nothing catches (on any
// thread), prints "softmax-lab: out of memory: …", and a thread that could not start (std::system_error EAGAIN/ENOMEM:
// no memory for its stack, or ulimit -u) "cannot start a thread: …"; each exits 3, temporaries removed, instead of
// aborting. At exit, standard output that could not be written (closed, /dev/full, a pipe nobody reads any more) is one
// line ("cannot write to standard output: Broken pipe") and exit 3.
void install_exit_guards();

// Whether a progress line (files/progress_line.hpp) is open on stderr, so a terminating signal
// ends it with a newline before the process dies.
void note_progress_line(bool open);

// Creates `directory` and any missing parents. Succeeds if it already is a directory; fails, naming
// the path and the reason, if it cannot be created or exists as something else.
Result<void> ensure_directory(const std::filesystem::path& directory);

// Whether `directory` is a folder we may create files in, or one that could be created: its
// nearest existing ancestor a folder we may create folders in, and nothing on the way something
// else. Checked before a run's work, so that a refused run has made nothing (FileBatch::make_directory
// makes it when the files are ready). The message names the path and the reason, like
// ensure_directory's.
Result<void> check_directory(const std::filesystem::path& directory);

// [SECTION] Names that never replace a file

// The one "-2", "-3" rule for names made from a time stamp: copy 1 is `stem` + `extension`, copy n
// is `stem` + "-n" + `extension`. Callers try copies 1 to max_numbered_copies until one is free.
inline constexpr int max_numbered_copies = 100;
[[nodiscard]] std::filesystem::path numbered_path(const std::filesystem::path& stem, int copy,
                                                  std::string_view extension = "");

}  // namespace smlab::files
