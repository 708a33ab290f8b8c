// PNG export: encode an RGBA8 Image in memory (stb_image_write) and write it atomically; plus the
// naming and folder conventions of the screenshot button.
#pragma once

#include "files/atomic_file.hpp"
#include "platform/image.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace smlab::exporting {

// The PNG file's bytes, or an empty vector if `image` is not well_formed() or encoding fails.
[[nodiscard]] std::vector<std::uint8_t> encode_png(const Image& image);

// Encodes `image` and writes it with write_file_atomically (same overwrite rule and guarantees).
// Fails, naming the path, for an empty or malformed image.
Result<void> write_png(const std::filesystem::path& path, const Image& image, bool overwrite = false);

// "<prefix>-YYYY-MM-DD_HH-MM-SS<extension>" in local time, e.g.
// timestamped_name("softmax-lab", now) == "softmax-lab-2026-11-25_21-40-03.png".
[[nodiscard]] std::string timestamped_name(std::string_view prefix, std::chrono::system_clock::time_point now,
                                           std::string_view extension = ".png");

// Where the screenshot button saves: $XDG_PICTURES_DIR/softmax-lab if that variable is set and
// non-empty, else
// $HOME/Pictures/softmax-lab (the home directory from the password database if HOME is unset).
// Only computes the path; save_screenshot creates it on first save.
[[nodiscard]] std::filesystem::path default_screenshot_dir();

// The file written, or the Error::file that stopped it.
using SavedScreenshot = Result<std::filesystem::path>;

// Creates `directory` if needed and writes `image` there as timestamped_name("softmax-lab", now).
// Never overwrites: if that name is taken (two shots in one second) it tries "-2", "-3", ... before
// ".png".
[[nodiscard]] SavedScreenshot save_screenshot(const Image& image, const std::filesystem::path& directory,
                                              std::chrono::system_clock::time_point now);

// The same for a file's bytes made beforehand (a PNG from encode_png, a GIF): written atomically as
// timestamped_name("softmax-lab", now, extension) in `directory`, "-2", "-3", ... when taken.
[[nodiscard]] SavedScreenshot save_new_file(std::span<const std::uint8_t> bytes, const std::filesystem::path& directory,
                                            std::string_view extension, std::chrono::system_clock::time_point now);

}  // namespace smlab::exporting
