// The window mode: autosave restore and save (state/session.hpp's rule), the frame loop that waits
// for events at rest, and SIGINT/SIGTERM turned into a normal close on a thread of their own.
#include "window_run.hpp"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>

#include "files/atomic_file.hpp"
#include "i18n/i18n.hpp"
#include "platform/window.hpp"
#include "state/session.hpp"

namespace smlab::app {
namespace {

// SIGINT and SIGTERM, blocked in every thread and read from a signalfd by one watcher thread: no
// code runs inside a signal handler, and the watcher may call the thread-safe Window::wake().
// The first signal asks the window to close; a second one ends the process at once.
class CloseSignals {
 public:
  CloseSignals() {
    sigemptyset(&mask_);
    sigaddset(&mask_, SIGINT);
    sigaddset(&mask_, SIGTERM);
    // Before any other thread starts (the App's worker inherits the mask).
    if (pthread_sigmask(SIG_BLOCK, &mask_, &previous_mask_) != 0) return;
    signal_fd_ = signalfd(-1, &mask_, SFD_CLOEXEC);
    stop_fd_ = eventfd(0, EFD_CLOEXEC);
    if (signal_fd_ < 0 || stop_fd_ < 0) {
      std::fprintf(stderr, "softmax-lab: cannot watch for SIGINT/SIGTERM; they end the program without saving\n");
      restore();
      return;
    }
    watcher_ = std::thread([this] { watch(); });
  }
  ~CloseSignals() {
    if (watcher_.joinable()) {
      const std::uint64_t one = 1;
      if (::write(stop_fd_, &one, sizeof one) < 0) {
      }  // the watcher sees it in poll()
      watcher_.join();
    }
    restore();
  }
  CloseSignals(const CloseSignals&) = delete;
  CloseSignals& operator=(const CloseSignals&) = delete;

  // The signal that asked the window to close, or 0.
  int received() const { return received_.load(); }

 private:
  void watch() {
    pollfd fds[2] = {{signal_fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    for (;;) {
      if (::poll(fds, 2, -1) < 0) continue;  // EINTR
      if ((fds[1].revents & POLLIN) != 0) return;
      signalfd_siginfo info{};
      if (::read(signal_fd_, &info, sizeof info) != static_cast<ssize_t>(sizeof info)) continue;
      const int signal_number = static_cast<int>(info.ssi_signo);
      int expected = 0;
      if (!received_.compare_exchange_strong(expected, signal_number)) std::_Exit(128 + signal_number);
      platform::Window::wake();
    }
  }
  void restore() {
    if (signal_fd_ >= 0) ::close(signal_fd_);
    if (stop_fd_ >= 0) ::close(stop_fd_);
    signal_fd_ = stop_fd_ = -1;
    // Signals that arrived after the loop ended stay pending and act once unblocked: as before.
    pthread_sigmask(SIG_SETMASK, &previous_mask_, nullptr);
  }

  sigset_t mask_{}, previous_mask_{};
  int signal_fd_ = -1, stop_fd_ = -1;
  std::atomic<int> received_{0};
  std::thread watcher_;
};

// The window's layout file is read by ImGui with no size limit and would block on a FIFO: use it
// only when it is missing or a regular file of at most 1 MB. Success, or why it is left alone.
Result<void> check_imgui_ini(const std::filesystem::path& path) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) {
    if (errno == ENOENT) return {};
    return Error::file(std::strerror(errno));
  }
  if (!S_ISREG(status.st_mode)) return Error::file("it is not a regular file");
  if (status.st_size > (1 << 20)) return Error::file("it is larger than 1 MB");
  return {};
}

// The autosave at start-up: applied to `run.options` on a plain start. A file the app refuses is
// copied aside first (a later save would replace it); the returned line tells the user so.
std::string restore_autosave(WindowRun& run, const std::filesystem::path& autosave, bool& backed_up) {
  std::error_code error;
  if (run.state_from_command_line || !std::filesystem::exists(std::filesystem::symlink_status(autosave, error)))
    return {};
  // A dangling link: the first save creates its target. A link loop or an unreadable target is
  // reported by load_session below.
  if (!std::filesystem::exists(autosave, error) && !error) return {};
  const Result<Session> restored = load_session(autosave);
  if (!restored) {
    const SessionBackup backup = back_up_session_file(autosave, std::chrono::system_clock::now());
    backed_up = backup.ok();
    return restored.error().message +
           (backed_up ? "; kept as '" + backup->string() + "'" : "; " + backup.error().message);
  }
  const Session& last = *restored;
  if (!apply_session(last, run.options.lessons, run.given, run.options))
    std::fprintf(stderr, "softmax-lab: not reopening lesson '%s' step %d of the last session: no such lesson step\n",
                 last.lesson->name.c_str(), static_cast<int>(last.lesson->step));
  return {};
}

// The autosave read by a window that does not own it (another window holds its lock): applied
// when it loads, never backed up or touched when it does not.
bool restore_autosave_read_only(WindowRun& run, const std::filesystem::path& autosave) {
  std::error_code error;
  if (!std::filesystem::exists(autosave, error)) return false;
  const Result<Session> restored = load_session(autosave);
  return restored.ok() && apply_session(*restored, run.options.lessons, run.given, run.options).ok();
}

}  // namespace

Result<void> run_window(WindowRun run) {
  // Only the window reads and writes the config folder (autosave, imgui.ini): headless runs stay
  // deterministic.
  const std::filesystem::path config = config_dir();
  const bool config_usable = !config.empty() && files::ensure_directory(config).ok();
  const std::filesystem::path autosave = config / "session.json";
  // One window writes the autosave; a second on the same file reads it but leaves it alone.
  std::optional<SessionLock> lock;
  if (config_usable) lock.emplace(autosave);
  const bool autosave_taken = lock && lock->state() == SessionLock::State::taken;
  if (lock && lock->state() == SessionLock::State::failed)
    std::fprintf(stderr, "softmax-lab: %s; the session is saved without a lock\n", lock->problem().c_str());
  bool backed_up = false;
  // A refused autosave is backed up and replaced at exit: not by a window that will not write it.
  const std::string refused =
      config_usable && !autosave_taken ? restore_autosave(run, autosave, backed_up) : std::string();
  if (autosave_taken && !run.state_from_command_line) (void)restore_autosave_read_only(run, autosave);
  if (!refused.empty()) std::fprintf(stderr, "softmax-lab: not restoring the last session: %s\n", refused.c_str());

  CloseSignals signals;  // before the window and the App start their threads
  platform::WindowOptions window_options;
  window_options.width = run.width;
  window_options.height = run.height;
  window_options.full_redraw = run.full_redraw;
  if (config_usable) {
    const std::filesystem::path ini = config / "imgui.ini";
    if (const Result<void> usable = check_imgui_ini(ini); usable)
      window_options.imgui_ini_path = ini.string();
    else
      std::fprintf(stderr, "softmax-lab: not using the window layout file '%s': %s\n", ini.string().c_str(),
                   usable.error().message.c_str());
  }
  auto created = platform::Window::create(window_options);
  if (!created)
    return Error{created.error().kind,
                 created.error().message + " (to render without a display use --screenshot FILE.png)"};
  platform::Window& window = **created;
  App app(window, run.options);
  if (!app.font_warning().empty()) std::fprintf(stderr, "softmax-lab: %s\n", app.font_warning().c_str());
  if (!app.language_warning().empty()) std::fprintf(stderr, "softmax-lab: %s\n", app.language_warning().c_str());
  if (!refused.empty()) {
    const i18n::Use language(app.language());
    app.report(i18n::format("app.status.session_refused", {refused}), true);
  }
  if (autosave_taken) {
    std::fprintf(stderr, "softmax-lab: %s: this window will not save its session there\n", lock->problem().c_str());
    const i18n::Use language(app.language());
    app.report(i18n::format("app.status.session_in_use", {autosave.string()}), true);
  }
  // A finished recompute (or refinement step) wakes the sleeping loop to show it.
  app.evaluator().set_result_callback(&platform::Window::wake);
  const Session at_start = app.current_session();
  if (run.attach)
    if (Result<void> attached = run.attach(app); !attached) return attached;

  while (signals.received() == 0 && app.frame()) window.wait_for_events(app.idle_wait_seconds());
  // Closed: gone from the screen now. What follows (the autosave's two fsyncs, which a busy disk
  // can hold for a second, the threads' and GL's teardown) happens after the user saw it close.
  window.hide();
  if (run.detach) run.detach(app);
  app.evaluator().set_result_callback({});
  if (const int signal_number = signals.received(); signal_number != 0)
    std::fprintf(stderr, "softmax-lab: closing on %s\n", signal_number == SIGINT ? "SIGINT" : "SIGTERM");

  if (!config_usable) return {};
  if (autosave_taken) {
    std::fprintf(stderr,
                 "softmax-lab: the session is not saved: another window uses '%s' (File → Save session… saves it "
                 "elsewhere)\n",
                 autosave.string().c_str());
    return {};
  }
  const Session at_exit = app.current_session();
  if (!should_autosave(!run.state_from_command_line, at_start, at_exit)) {
    std::error_code error;
    if (std::filesystem::exists(std::filesystem::symlink_status(autosave, error)))
      std::fprintf(stderr,
                   "softmax-lab: the last session in '%s' is kept: this run started from the command line's state "
                   "and nothing was changed in the window\n",
                   autosave.string().c_str());
    return {};
  }
  // Test hook: the live-window test holds the save until it has seen the window gone.
  if (const char* hold = std::getenv("SMLAB_TEST_HOLD_AUTOSAVE_UNTIL"); hold != nullptr)
    for (int wait = 0; wait < 1500 && !std::filesystem::exists(hold); ++wait)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::filesystem::path backup;
  if (Result<void> saved = write_autosave(autosave, at_exit, !backed_up, std::chrono::system_clock::now(), &backup);
      !saved.ok())
    std::fprintf(stderr, "softmax-lab: could not save the session: %s\n", saved.error().message.c_str());
  if (!backup.empty())
    std::fprintf(stderr, "softmax-lab: the session file there could not be read back; it is kept as '%s'\n",
                 backup.string().c_str());
  return {};
}

}  // namespace smlab::app
