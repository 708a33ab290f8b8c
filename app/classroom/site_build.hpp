// The student site built by the app itself, the first time a teacher hosts a class from a source
// checkout where `make web` never ran: the two commands `make web` runs (emcmake cmake, then
// cmake --build … softmax-lab-web-site), each a child process in a process group of its own, their
// output kept in a log and their "[ 45%]" lines read as the progress. Cancel ends the whole group.
// An installed app (the .deb) ships its site and never builds one.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "smlab/error.hpp"
#include "smlab/progress.hpp"

namespace smlab::classroom {

struct SiteBuildPlan {
  std::vector<std::vector<std::string>> commands;  // each an argv (argv[0] looked up in PATH), in order
  std::vector<std::string> environment;            // NAME=VALUE set for them on top of this process's
  std::filesystem::path site;                      // where the site appears (its index.html)
  std::filesystem::path log;                       // where the commands' output goes
};

// How this build of the app makes `site`: a developer build knows its checkout and its web build
// folder (`make web`'s). Why not otherwise, in one line: an installed app, a site chosen with
// SOFTMAX_LAB_SITE, or Debian's emscripten missing ("make deps-test" installs it).
Result<SiteBuildPlan> site_build_plan(const std::filesystem::path& site);

// Runs the plan's commands in order: success once the site's index.html exists; an Error::file
// with the failing command, its exit and its output's last line (the log keeps the rest); the
// cancelled Error when `progress` is cancelled (the commands' process groups are ended first).
Result<void> build_site(const SiteBuildPlan& plan, const Progress& progress);

}  // namespace smlab::classroom
