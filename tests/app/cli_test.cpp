// The command-line contract (docs/ARCHITECTURE.md, "Command line"): every flag this build has, every exit
// code, and one clear stderr line for every kind of bad input.
#include <gtest/gtest.h>

#include "cli_support.hpp"

#include <stb_image.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using smlab::cli_test::Outcome;
using smlab::cli_test::read_all;
using smlab::cli_test::shell_quote;

class Cli : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = smlab::cli_test::fresh_test_dir("cli"); }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs softmax-lab with `args` (and an optional environment prefix such as "env -u DISPLAY").
  Outcome run(const std::vector<std::string>& args, const std::string& env_prefix = "") const {
    return smlab::cli_test::run_program(SMLAB_BINARY, args, dir_, env_prefix);
  }

  // Bad input: the given exit code and exactly one line on stderr that mentions `needle`.
  void expect_one_line_error(const std::vector<std::string>& args, int code, const std::string& needle) const {
    const Outcome r = run(args);
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    EXPECT_EQ(r.exit_code, code) << joined << "\nstderr: " << r.err;
    ASSERT_FALSE(r.err.empty()) << joined;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one line for: " << joined << "\n" << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << joined << "\nstderr: " << r.err;
  }

  fs::path dir_;
};

TEST_F(Cli, VersionAndHelp) {
  const Outcome version = run({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_NE(version.out.find("softmax-lab "), std::string::npos) << version.out;
  const Outcome help = run({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  for (const char* flag : {"--set", "--screenshot", "--size", "--list-keys", "--version"})
    EXPECT_NE(help.out.find(flag), std::string::npos) << "help lacks " << flag;
}

// --help is also the man page (help2man): every option shows its placeholder as a reader types it,
// e.g. "--export-lesson NAME DIR", never with CLI11's repeat count ("NAME DIR x 2").
TEST_F(Cli, HelpPlaceholdersCarryNoRepeatCount) {
  const Outcome help = run({"--help"});
  ASSERT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--export-lesson NAME DIR "), std::string::npos) << help.out;
  std::istringstream lines(help.out);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t times = line.find(" x ");
    const bool repeat_count = times != std::string::npos && times + 3 < line.size() &&
                              std::isdigit(static_cast<unsigned char>(line[times + 3])) && line.find("  --") == 0;
    EXPECT_FALSE(repeat_count) << "an option's placeholder has a repeat count: " << line;
  }
}

TEST_F(Cli, ListKeysShowsEveryKeyWithRangeAndDefault) {
  const Outcome r = run({"--list-keys"});
  EXPECT_EQ(r.exit_code, 0);
  for (const char* key : {"temperature", "d_k", "score_scale", "seq_len", "seed", "scaled", "row", "scores"})
    EXPECT_NE(r.out.find(key), std::string::npos) << "missing key " << key;
  EXPECT_NE(r.out.find("0.01 to 100"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("default"), std::string::npos) << r.out;
}

TEST_F(Cli, BadValuesExitTwoWithOneLine) {
  expect_one_line_error({"--set", "temperature=-1"}, 2, "temperature");
  expect_one_line_error({"--set", "temperature=-1"}, 2, "0.01 to 100");
  expect_one_line_error({"--set", "d_k=abc"}, 2, "d_k");
  expect_one_line_error({"--set", "seq_len=1"}, 2, "seq_len");
  expect_one_line_error({"--set", "scores=1,nan"}, 2, "scores");
  expect_one_line_error({"--set", "bogus=1"}, 2, "unknown key");
  expect_one_line_error({"--set", "temperature"}, 2, "KEY=VALUE");
  expect_one_line_error({"--set", "temperature=" + std::string(10000, '9')}, 2, "temperature");
  expect_one_line_error({"--size", "10x10", "--screenshot", (dir_ / "a.png").string()}, 2, "--size");
  expect_one_line_error({"--no-such-flag"}, 2, "no-such-flag");
}

TEST_F(Cli, NoDisplayWithoutScreenshotExitsFour) {
  const Outcome r = run({}, "env -u DISPLAY -u WAYLAND_DISPLAY");
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  EXPECT_NE(r.err.find("--screenshot"), std::string::npos) << "should suggest headless use: " << r.err;
}

TEST_F(Cli, ScreenshotWritesPngOfRequestedSizeWithoutDisplay) {
  const fs::path out = dir_ / "out.png";
  const Outcome r =
      run({"--screenshot", out.string(), "--size", "1280x720", "--set", "temperature=0.3", "--set", "d_k=64"},
          "env -u DISPLAY");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int width = 0, height = 0, channels = 0;
  unsigned char* pixels = stbi_load(out.string().c_str(), &width, &height, &channels, 4);
  ASSERT_NE(pixels, nullptr) << "not a PNG: " << out;
  stbi_image_free(pixels);
  EXPECT_EQ(width, 1280);
  EXPECT_EQ(height, 720);
}

TEST_F(Cli, ScreenshotNeverOverwritesUnlessAsked) {
  const fs::path out = dir_ / "keep.png";
  std::ofstream(out) << "precious";
  const Outcome refused = run({"--screenshot", out.string()});
  EXPECT_EQ(refused.exit_code, 3) << refused.err;
  EXPECT_NE(refused.err.find("--overwrite"), std::string::npos) << refused.err;
  EXPECT_EQ(read_all(out), "precious");
  const Outcome allowed = run({"--screenshot", out.string(), "--overwrite"});
  EXPECT_EQ(allowed.exit_code, 0) << allowed.err;
  EXPECT_EQ(read_all(out).substr(1, 3), "PNG");
}

TEST_F(Cli, ScreenshotIntoMissingDirectoryExitsThree) {
  const fs::path out = dir_ / "no" / "such" / "dir" / "x.png";
  const Outcome r = run({"--screenshot", out.string()});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "no")) << "a failed screenshot must not leave directories behind";
}

}  // namespace
