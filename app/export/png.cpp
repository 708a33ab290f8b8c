// PNG encoding through stb_image_write (implementation in Debian's libstb), atomic PNG writes and the
// screenshot file naming.
#include "export/png.hpp"

#include <stb_image_write.h>

#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <system_error>
#include <vector>
#include <pwd.h>
#include <unistd.h>

namespace smlab::exporting {
namespace {

namespace fs = std::filesystem;

// stb calls this with successive chunks of the encoded file.
void append_to_vector(void* context, void* data, int size) {
  auto& bytes = *static_cast<std::vector<std::uint8_t>*>(context);
  const auto* chunk = static_cast<const std::uint8_t*>(data);
  bytes.insert(bytes.end(), chunk, chunk + size);
}

fs::path home_directory() {
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return home;
  }
  // getpwuid_r, not getpwuid: no shared static buffer.
  long buffer_size = ::sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buffer(static_cast<std::size_t>(buffer_size > 0 ? buffer_size : 16384));
  passwd entry{};
  passwd* found = nullptr;
  if (::getpwuid_r(::getuid(), &entry, buffer.data(), buffer.size(), &found) == 0 && found != nullptr &&
      found->pw_dir != nullptr) {
    return found->pw_dir;
  }
  std::error_code error;  // the working directory may have been removed: then "."
  fs::path here = fs::current_path(error);
  return error ? fs::path(".") : here;
}

}  // namespace

std::vector<std::uint8_t> encode_png(const Image& image) {
  std::vector<std::uint8_t> bytes;
  if (!image.well_formed()) {
    return bytes;
  }
  const int row_stride = image.width * Image::kChannels;
  if (stbi_write_png_to_func(append_to_vector, &bytes, image.width, image.height, Image::kChannels, image.pixels.data(),
                             row_stride) == 0) {
    bytes.clear();
  }
  return bytes;
}

Result<void> write_png(const fs::path& path, const Image& image, bool overwrite) {
  if (!image.well_formed()) {
    return Error::file("cannot write '" + path.string() + "': the image is empty or its pixel buffer does not match " +
                       std::to_string(image.width) + "x" + std::to_string(image.height) + " RGBA");
  }
  const std::vector<std::uint8_t> png = encode_png(image);
  if (png.empty()) {
    return Error::file("cannot write '" + path.string() + "': PNG encoding failed");
  }
  return files::write_file_atomically(path, png, overwrite);
}

std::string timestamped_name(std::string_view prefix, std::chrono::system_clock::time_point now,
                             std::string_view extension) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  std::tm local{};
  ::localtime_r(&seconds, &local);  // the _r form: no shared static tm
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%d_%H-%M-%S", &local);
  std::string name(prefix);
  name += '-';
  name += stamp;
  name += extension;
  return name;
}

fs::path default_screenshot_dir() {
  if (const char* pictures = std::getenv("XDG_PICTURES_DIR"); pictures != nullptr && *pictures != '\0') {
    return fs::path(pictures) / "softmax-lab";
  }
  return home_directory() / "Pictures" / "softmax-lab";
}

SavedScreenshot save_screenshot(const Image& image, const fs::path& directory,
                                std::chrono::system_clock::time_point now) {
  if (!image.well_formed()) {
    return Error::file("cannot write a PNG into '" + directory.string() +
                       "': the image is empty or its pixel buffer does not match " + std::to_string(image.width) + "x" +
                       std::to_string(image.height) + " RGBA");
  }
  const std::vector<std::uint8_t> png = encode_png(image);
  if (png.empty()) {
    return Error::file("cannot write a PNG into '" + directory.string() + "': PNG encoding failed");
  }
  return save_new_file(png, directory, ".png", now);
}

SavedScreenshot save_new_file(std::span<const std::uint8_t> bytes, const fs::path& directory,
                              std::string_view extension, std::chrono::system_clock::time_point now) {
  if (Result<void> made = files::ensure_directory(directory); !made.ok()) {
    return made.error();
  }
  const std::string stem = timestamped_name("softmax-lab", now, "");
  Result<void> last_error;
  for (int copy = 1; copy <= files::max_numbered_copies; ++copy) {
    const fs::path candidate = files::numbered_path(directory / stem, copy, extension);
    last_error = files::write_file_atomically(candidate, bytes, /*overwrite=*/false);
    if (last_error.ok()) {
      return candidate;
    }
    std::error_code ignored;
    if (!fs::exists(candidate, ignored)) {
      break;  // failed for another reason than the name being taken: report it
    }
  }
  return last_error.error();
}

}  // namespace smlab::exporting
