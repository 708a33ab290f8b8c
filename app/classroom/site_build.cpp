#include "classroom/site_build.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string_view>
#include <thread>

extern char** environ;

namespace smlab::classroom {

Result<SiteBuildPlan> site_build_plan(const std::filesystem::path& site) {
  if (const char* chosen = std::getenv("SOFTMAX_LAB_SITE"); chosen != nullptr && *chosen != '\0')
    return Error::file("SOFTMAX_LAB_SITE='" + std::string(chosen) +
                       "' holds no student site (index.html): point it at the web build's site folder");
#if defined(SMLAB_SOURCE_DIR) && defined(SMLAB_WEB_BUILD_DIR)
  const std::filesystem::path web_build = SMLAB_WEB_BUILD_DIR;
  if (site != web_build / "site")
    return Error::file("the student site in '" + site.string() + "' is missing: it is not this build's to make");
  // emcc runs Debian's node and acorn (the Makefile's WEB_ENV): /usr/bin first, NODE_PATH set.
  if (::access("/usr/bin/emcmake", X_OK) != 0)
    return Error::file(
        "the student site is built with Debian's emscripten, which is not installed: run "
        "`make deps-test` in '" SMLAB_SOURCE_DIR "' once (or `make web`, which also builds it)");
  SiteBuildPlan plan;
  const char* path = std::getenv("PATH");
  plan.environment = {"PATH=/usr/bin" + (path != nullptr && *path != '\0' ? ":" + std::string(path) : std::string()),
                      "NODE_PATH=/usr/share/nodejs"};
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  plan.commands = {
      {"/usr/bin/emcmake", "cmake", "-S", SMLAB_SOURCE_DIR, "-B", web_build.string(), "-DCMAKE_BUILD_TYPE=Release"},
      {"cmake", "--build", web_build.string(), "-j", std::to_string(cores), "--target", "softmax-lab-web-site"}};
  plan.site = site;
  plan.log = web_build / "app-build.log";
  return plan;
#else
  return Error::file("the student site is missing from '" + site.string() +
                     "': the package ships it, so reinstall softmax-lab (or set SOFTMAX_LAB_SITE)");
#endif
}

namespace {

// "[ 45%] Building CXX object …": 0.45; a line without it: negative.
double percent_of(std::string_view line) {
  const std::size_t open = line.find('[');
  const std::size_t close = line.find("%]", open);
  if (open == std::string_view::npos || close == std::string_view::npos || close - open > 5) return -1.0;
  int value = 0;
  bool digits = false;
  for (std::size_t i = open + 1; i < close; ++i) {
    if (line[i] == ' ') continue;
    if (line[i] < '0' || line[i] > '9') return -1.0;
    value = value * 10 + (line[i] - '0');
    digits = true;
  }
  return digits && value <= 100 ? value / 100.0 : -1.0;
}

// Ends the group `group` leads: TERM, then KILL after two seconds; reaps `child`.
void end_group(pid_t group, pid_t child) {
  ::kill(-group, SIGTERM);
  int status = 0;
  for (int wait = 0; wait < 200; ++wait) {
    if (::waitpid(child, &status, WNOHANG) == child) {
      ::kill(-group, SIGKILL);  // what the leader left behind
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(-group, SIGKILL);
  ::waitpid(child, &status, 0);
}

struct Outcome {
  int status = 0;
  std::string last_line;
  bool cancelled = false;
};

Result<Outcome> run_one(const std::vector<std::string>& command, const std::vector<std::string>& environment,
                        std::ofstream& log, const Progress& progress) {
  int pipe_ends[2];
  if (::pipe2(pipe_ends, O_CLOEXEC) != 0)
    return Error::file(std::string("cannot make a pipe: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipe_ends[1], 1);
  posix_spawn_file_actions_adddup2(&actions, pipe_ends[1], 2);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setpgroup(&attributes, 0);  // a group of its own: Cancel ends make's children too
  sigset_t defaults;
  sigfillset(&defaults);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  std::vector<std::string> variables;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const std::string_view name = text.substr(0, text.find('='));
    bool replaced = false;
    for (const std::string& mine : environment) replaced |= mine.starts_with(std::string(name) + "=");
    if (!replaced) variables.emplace_back(text);
  }
  variables.insert(variables.end(), environment.begin(), environment.end());
  std::vector<char*> argv, envp;
  for (const std::string& word : command) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  for (std::string& variable : variables) envp.push_back(variable.data());
  envp.push_back(nullptr);
  pid_t child = 0;
  const int spawned = ::posix_spawnp(&child, argv[0], &actions, &attributes, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  ::close(pipe_ends[1]);
  if (spawned != 0) {
    ::close(pipe_ends[0]);
    return Error::file("cannot run '" + command.front() + "': " + std::strerror(spawned));
  }
  Outcome outcome;
  std::string pending;
  char buffer[4096];
  for (;;) {
    if (progress.cancelled()) {
      end_group(child, child);
      ::close(pipe_ends[0]);
      outcome.cancelled = true;
      return outcome;
    }
    pollfd readable{pipe_ends[0], POLLIN, 0};
    if (::poll(&readable, 1, 100) <= 0) continue;
    const ssize_t got = ::read(pipe_ends[0], buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;  // the command (and every child holding the pipe) is done
    log.write(buffer, got);
    pending.append(buffer, static_cast<std::size_t>(got));
    for (std::size_t end; (end = pending.find('\n')) != std::string::npos; pending.erase(0, end + 1)) {
      const std::string_view line(pending.data(), end);
      if (!line.empty()) outcome.last_line = std::string(line.substr(0, 300));
      if (const double done = percent_of(line); done >= 0.0) progress.report(done);
    }
  }
  ::close(pipe_ends[0]);
  log.flush();
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  ::kill(-child, SIGKILL);  // nothing of the group outlives its leader
  outcome.status = status;
  return outcome;
}

}  // namespace

Result<void> build_site(const SiteBuildPlan& plan, const Progress& progress) {
  std::error_code error;
  std::filesystem::create_directories(plan.log.parent_path(), error);
  std::ofstream log(plan.log, std::ios::binary | std::ios::trunc);
  if (!log) return Error::file("cannot write the site build's log '" + plan.log.string() + "'");
  for (std::size_t k = 0; k < plan.commands.size(); ++k) {
    // The configure step is a small share; the build's own percentages fill the rest.
    const double begin = k == 0 ? 0.0 : 0.05, end = k + 1 == plan.commands.size() ? 1.0 : 0.05;
    const Result<Outcome> ran = run_one(plan.commands[k], plan.environment, log, progress.part(begin, end));
    if (!ran) return ran.error();
    if (ran->cancelled) return cancelled_error("the student site's build");
    if (!WIFEXITED(ran->status) || WEXITSTATUS(ran->status) != 0)
      return Error::file("building the student site failed: '" + plan.commands[k].front() + "' " +
                         (WIFEXITED(ran->status) ? "exited with " + std::to_string(WEXITSTATUS(ran->status))
                                                 : "was killed by signal " + std::to_string(WTERMSIG(ran->status))) +
                         (ran->last_line.empty() ? "" : ": " + ran->last_line) + " (the log: " + plan.log.string() +
                         ")");
  }
  if (!std::filesystem::is_regular_file(plan.site / "index.html", error))
    return Error::file("building the student site made no '" + (plan.site / "index.html").string() +
                       "' (the log: " + plan.log.string() + ")");
  return {};
}

}  // namespace smlab::classroom
