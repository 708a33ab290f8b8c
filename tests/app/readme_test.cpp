// The README's tables of views, keys and lessons against what the program lists: a view, key or
// lesson added (or renamed) without its README row, or a row left behind, fails here by name.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli_support.hpp"

namespace {

namespace fs = std::filesystem;
using Names = std::set<std::string>;

// The first column of every row of the README table whose header row starts with `| <header> |`:
// the name between backquotes ("| `d_k` | 1–4096 | …" gives "d_k").
Names readme_table(const std::string& readme, std::string_view header) {
  Names names;
  std::istringstream lines(readme);
  std::string line;
  bool inside = false;
  const std::string header_start = "| " + std::string(header) + " |";
  while (std::getline(lines, line)) {
    if (!inside) {
      inside = line.rfind(header_start, 0) == 0;
      continue;
    }
    if (line.rfind("|", 0) != 0) break;  // the table ended
    const std::size_t open = line.find('`'), close = line.find('`', open + 1);
    if (line.rfind("| ---", 0) == 0 || open == std::string::npos || close == std::string::npos) continue;
    names.insert(line.substr(open + 1, close - open - 1));
  }
  return names;
}

// The first word of each line of a --list-… output that starts at the left margin (--list-keys
// puts each description on an indented second line).
Names listed(const std::string& output) {
  Names names;
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line))
    if (!line.empty() && line.front() != ' ') names.insert(line.substr(0, line.find(' ')));
  return names;
}

std::string joined(const Names& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

class Readme : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = smlab::cli_test::fresh_test_dir("readme"); }
  void TearDown() override { fs::remove_all(dir_); }

  // The program's list for `option` and the README's table under `header`, compared both ways.
  void expect_same(const char* option, std::string_view header) const {
    const smlab::cli_test::Outcome run = smlab::cli_test::run_program(SMLAB_BINARY, {option}, dir_);
    ASSERT_EQ(run.exit_code, 0) << option << ": " << run.err;
    const Names program = listed(run.out);
    const Names readme = readme_table(smlab::cli_test::read_all(fs::path(SMLAB_SOURCE_DIR) / "README.md"), header);
    ASSERT_FALSE(program.empty()) << option << " listed nothing";
    ASSERT_FALSE(readme.empty()) << "README.md has no table whose header starts with | " << header << " |";
    Names missing, extra;
    for (const std::string& name : program)
      if (readme.count(name) == 0) missing.insert(name);
    for (const std::string& name : readme)
      if (program.count(name) == 0) extra.insert(name);
    EXPECT_TRUE(missing.empty()) << option << " lists what README.md's | " << header
                                 << " | table lacks: " << joined(missing);
    EXPECT_TRUE(extra.empty()) << "README.md's | " << header << " | table has rows " << option
                               << " does not list: " << joined(extra);
  }

  fs::path dir_;
};

TEST_F(Readme, ViewsTableNamesEveryViewOfListViews) { expect_same("--list-views", "view"); }
TEST_F(Readme, KeysTableNamesEveryKeyOfListKeys) { expect_same("--list-keys", "key"); }
TEST_F(Readme, LessonsTableNamesEveryLessonOfListLessons) { expect_same("--list-lessons", "lesson"); }

}  // namespace
