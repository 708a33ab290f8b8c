// Where an export's files go, one after another, each written in pieces: a .zip streamed to the web
// page (app/web/zip_stream.hpp), or a new folder on disk that gets every file or none (FolderSink).
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "files/atomic_file.hpp"
#include "smlab/error.hpp"

namespace smlab::exporting {

// One file: begin_file, any number of write calls, end_file; after the last file, finish. A sink
// destroyed before finish() leaves nothing behind that it wrote.
class ExportSink {
 public:
  virtual ~ExportSink() = default;
  virtual Result<void> begin_file(std::string_view name) = 0;  // `name`: a plain file name, UTF-8
  virtual Result<void> write(std::string_view bytes) = 0;
  virtual Result<void> end_file() = 0;
  virtual Result<void> finish() = 0;

 protected:
  ExportSink() = default;
  ExportSink(const ExportSink&) = default;
  ExportSink& operator=(const ExportSink&) = default;
};

// A new folder "<parent>/<stem>" ("-2", "-3", … when taken; never one that exists), all files or
// none, as the command line's exports (docs/ARCHITECTURE.md, "Command line"): each file is staged
// beside its target as it ends (files/atomic_file.hpp's FileBatch), finish() puts them all in
// place, and a sink destroyed before that removes what it staged and the folder.
class FolderSink final : public ExportSink {
 public:
  // Creates `parent` if needed and the new folder in it; Error::file naming the folder otherwise.
  static Result<std::unique_ptr<FolderSink>> create(const std::filesystem::path& parent, std::string_view stem);
  ~FolderSink() override;
  FolderSink(const FolderSink&) = delete;
  FolderSink& operator=(const FolderSink&) = delete;

  Result<void> begin_file(std::string_view name) override;
  Result<void> write(std::string_view bytes) override;
  Result<void> end_file() override;
  Result<void> finish() override;

  [[nodiscard]] const std::filesystem::path& folder() const { return folder_; }
  // The files staged so far (after finish: written).
  [[nodiscard]] std::size_t files() const { return files_; }

 private:
  explicit FolderSink(std::filesystem::path folder) : folder_(std::move(folder)) {}
  std::filesystem::path folder_;
  std::optional<files::FileBatch> batch_{std::in_place, false};  // reset before the folder is removed
  std::string name_, text_;                                      // the file being written, whole until it ends
  std::size_t files_ = 0;
  bool committed_ = false;
};

}  // namespace smlab::exporting
