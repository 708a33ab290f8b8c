// A private X display for a test that needs a real GLFW window: starts Xvfb on a free display
// (-displayfd), points DISPLAY at it for the test's lifetime, and stops it and restores DISPLAY after.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <string>

namespace smlab::test {

class XvfbDisplay {
 public:
  // Empty when Xvfb is not installed or reports no display within its start-up.
  static std::optional<XvfbDisplay> start() {
    if (::access("/usr/bin/Xvfb", X_OK) != 0) return std::nullopt;
    int ready[2];
    if (::pipe(ready) != 0) return std::nullopt;
    const std::string fd = std::to_string(ready[1]);
    // -noreset keeps the server up between the test's windows; -nolisten tcp keeps it private.
    const char* argv[] = {"Xvfb", "-displayfd",   fd.c_str(),  "-noreset", "-screen",
                          "0",    "1280x1024x24", "-nolisten", "tcp",      nullptr};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addclose(&actions, ready[0]);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, "/usr/bin/Xvfb", &actions, nullptr, const_cast<char* const*>(argv), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(ready[1]);
    if (spawned != 0) {
      ::close(ready[0]);
      return std::nullopt;
    }
    // Xvfb writes the display number and a newline once it accepts clients; EOF means it died.
    std::string number;
    char c = 0;
    while (::read(ready[0], &c, 1) == 1 && c != '\n') number += c;
    ::close(ready[0]);
    if (number.empty()) {
      ::kill(pid, SIGTERM);
      ::waitpid(pid, nullptr, 0);
      return std::nullopt;
    }
    return XvfbDisplay(pid, ":" + number);
  }

  XvfbDisplay(XvfbDisplay&& other) noexcept
      : pid_(other.pid_), display_(std::move(other.display_)), previous_(std::move(other.previous_)) {
    other.pid_ = 0;
  }
  XvfbDisplay& operator=(XvfbDisplay&&) = delete;
  XvfbDisplay(const XvfbDisplay&) = delete;
  ~XvfbDisplay() {
    if (pid_ == 0) return;
    if (previous_)
      ::setenv("DISPLAY", previous_->c_str(), 1);
    else
      ::unsetenv("DISPLAY");
    ::kill(pid_, SIGTERM);
    ::waitpid(pid_, nullptr, 0);
  }

  const std::string& display() const { return display_; }

 private:
  XvfbDisplay(pid_t pid, std::string display) : pid_(pid), display_(std::move(display)) {
    if (const char* before = std::getenv("DISPLAY")) previous_ = before;
    ::setenv("DISPLAY", display_.c_str(), 1);
  }

  pid_t pid_ = 0;
  std::string display_;
  std::optional<std::string> previous_;
};

}  // namespace smlab::test
