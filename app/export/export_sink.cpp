// FolderSink (export_sink.hpp): a new folder, its files staged and put in place together.
#include "export/export_sink.hpp"

#include <system_error>
#include <utility>

namespace smlab::exporting {

Result<std::unique_ptr<FolderSink>> FolderSink::create(const std::filesystem::path& parent, std::string_view stem) {
  if (Result<void> made = files::ensure_directory(parent); !made) return made.error();
  // A folder of our own, made now: never one that exists (create_directory fails on a taken name).
  for (int copy = 1; copy <= files::max_numbered_copies; ++copy) {
    std::filesystem::path candidate = files::numbered_path(parent / std::string(stem), copy);
    std::error_code error;
    if (std::filesystem::create_directory(candidate, error))
      return std::unique_ptr<FolderSink>(new FolderSink(std::move(candidate)));
    if (error) return Error::file("cannot create the folder '" + candidate.string() + "': " + error.message());
  }
  return Error::file("cannot create a new folder in '" + parent.string() + "': " +
                     std::to_string(files::max_numbered_copies) + " named '" + std::string(stem) + "…' exist already");
}

FolderSink::~FolderSink() {
  if (committed_) return;
  batch_.reset();  // an uncommitted batch removes what it staged
  std::error_code ignored;
  std::filesystem::remove(folder_, ignored);  // empty again: only the batch wrote into it
}

Result<void> FolderSink::begin_file(std::string_view name) {
  name_.assign(name);
  text_.clear();
  return {};
}

Result<void> FolderSink::write(std::string_view bytes) {
  text_.append(bytes);
  return {};
}

Result<void> FolderSink::end_file() {
  Result<void> staged = batch_->stage(folder_ / name_, text_);
  std::string().swap(text_);  // the next file starts from nothing (a map's text is ~230 MB at L = 4096)
  if (staged) ++files_;
  return staged;
}

Result<void> FolderSink::finish() {
  Result<void> committed = batch_->commit();
  committed_ = committed.ok();
  return committed;
}

}  // namespace smlab::exporting
