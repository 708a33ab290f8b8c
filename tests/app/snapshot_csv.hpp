// Every CSV file a Snapshot exports, read back by name: the staging and lane tests compare what the
// window was shown with a synchronous evaluate() this way, byte for byte.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "cli_support.hpp"
#include "export/csv.hpp"
#include "smlab/evaluate.hpp"

namespace smlab::app {

// Every file export_csv writes for `snap` into `dir`, by name, with no top-up of the sweep: the
// files show the Snapshot's own trials, so a coarse estimate left behind would show.
inline std::vector<std::pair<std::string, std::string>> snapshot_csv_files(const Snapshot& snap,
                                                                           const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  exporting::CsvOptions options;
  options.min_dk_trials = 1;
  const files::WrittenFiles result = exporting::export_csv(snap, dir, options);
  std::vector<std::pair<std::string, std::string>> files;
  if (!result) {
    ADD_FAILURE() << result.error().message;
    return files;
  }
  for (const std::filesystem::path& file : *result)
    files.emplace_back(file.filename().string(), cli_test::read_all(file));
  return files;
}

}  // namespace smlab::app
