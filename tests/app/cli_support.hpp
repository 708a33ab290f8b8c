// Helpers shared by the tests that run the softmax-lab binary: a fresh directory per test, read a
// file whole, quote for the shell, and run the program with its output captured in files.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace smlab::cli_test {

// An empty directory of the running test's own, <tmp>/smlab-<prefix>-<pid>-<test name>: tests
// running in parallel (ctest -j) never share one, and what a previous run left is removed.
inline std::filesystem::path fresh_test_dir(const std::string& prefix) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("smlab-" + prefix + "-" + std::to_string(::getpid()) + "-" +
                                                ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string read_all(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

inline std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

struct Outcome {
  int exit_code = -1;  // -1 when the program did not exit normally (e.g. a crash)
  std::string out, err;
};

// Runs `binary args…` through sh, with stdout and stderr captured in `dir`/stdout and
// `dir`/stderr. `before` is shell text placed in front of the program on the same
// command line, e.g. "env -u DISPLAY" or "ulimit -f 0; exec env -u DISPLAY".
inline Outcome run_program(const std::string& binary, const std::vector<std::string>& args,
                           const std::filesystem::path& dir, const std::string& before = "") {
  std::string command = before + " " + shell_quote(binary);
  for (const auto& arg : args) command += " " + shell_quote(arg);
  command += " >" + shell_quote((dir / "stdout").string()) + " 2>" + shell_quote((dir / "stderr").string());
  const int status = std::system(("sh -c " + shell_quote(command)).c_str());
  Outcome result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = read_all(dir / "stdout");
  result.err = read_all(dir / "stderr");
  return result;
}

}  // namespace smlab::cli_test
