// GIF export: quantisation keeps flat plot colours exact, the encoder's output decodes back
// (DGifSlurp) to the frames written, and --export-gif renders N frames of the asked size without
// ever replacing an existing file unless told to.
#include <gtest/gtest.h>

#include "cli_support.hpp"

#include <gif_lib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "export/gif.hpp"
#include "state/sweep.hpp"

namespace {

namespace fs = std::filesystem;
using smlab::Image;
using smlab::cli_test::read_all;
using smlab::cli_test::shell_quote;

Image gradient_image(int width, int height, int shift) {
  Image image{width, height, std::vector<std::uint8_t>(static_cast<std::size_t>(width * height * 4))};
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      std::uint8_t* p = &image.pixels[static_cast<std::size_t>((y * width + x) * 4)];
      p[0] = static_cast<std::uint8_t>((x * 255) / (width - 1));
      p[1] = static_cast<std::uint8_t>((y * 255) / (height - 1));
      p[2] = static_cast<std::uint8_t>((x + y + shift) % 256);
      p[3] = 255;
    }
  return image;
}

Image flat_image(int width, int height, int colours) {
  Image image{width, height, std::vector<std::uint8_t>(static_cast<std::size_t>(width * height * 4))};
  for (int i = 0; i < width * height; ++i) {
    const int c = (i / 7) % colours;
    image.pixels[static_cast<std::size_t>(i * 4) + 0] = static_cast<std::uint8_t>(c * 3 + 1);
    image.pixels[static_cast<std::size_t>(i * 4) + 1] = static_cast<std::uint8_t>(250 - c);
    image.pixels[static_cast<std::size_t>(i * 4) + 2] = static_cast<std::uint8_t>(c * 7 % 256);
    image.pixels[static_cast<std::size_t>(i * 4) + 3] = 255;
  }
  return image;
}

// Decodes GIF bytes from memory with giflib's own reader.
struct Decoded {
  int width = 0, height = 0, frames = 0;
  GifFileType* gif = nullptr;
  ~Decoded() {
    if (gif != nullptr) DGifCloseFile(gif, nullptr);
  }
};

struct MemoryReader {
  const std::string* bytes;
  std::size_t offset = 0;
};

int read_memory(GifFileType* gif, GifByteType* out, int length) {
  auto* reader = static_cast<MemoryReader*>(gif->UserData);
  const std::size_t available = reader->bytes->size() - reader->offset;
  const std::size_t count = std::min<std::size_t>(available, static_cast<std::size_t>(length));
  std::memcpy(out, reader->bytes->data() + reader->offset, count);
  reader->offset += count;
  return static_cast<int>(count);
}

void decode(const std::string& bytes, Decoded& decoded, MemoryReader& reader) {
  reader.bytes = &bytes;
  int error = 0;
  decoded.gif = DGifOpen(&reader, read_memory, &error);
  ASSERT_NE(decoded.gif, nullptr) << GifErrorString(error);
  ASSERT_EQ(DGifSlurp(decoded.gif), GIF_OK) << GifErrorString(decoded.gif->Error);
  decoded.width = decoded.gif->SWidth;
  decoded.height = decoded.gif->SHeight;
  decoded.frames = decoded.gif->ImageCount;
}

TEST(GifQuantise, FramesWithAtMost256ColoursKeepEveryPixelExact) {
  const Image image = flat_image(64, 48, 200);
  const auto quantised = smlab::exporting::quantise_frame(image);
  ASSERT_LE(quantised.palette.size(), 256u);
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width; ++x) {
      const auto expected = image.pixel(x, y);
      const auto got = quantised.palette[quantised.indices[static_cast<std::size_t>(y * image.width + x)]];
      ASSERT_TRUE(got.r == expected.r && got.g == expected.g && got.b == expected.b) << "pixel " << x << "," << y;
    }
}

TEST(GifQuantise, ManyColoursStayCloseOnAverage) {
  const Image image = gradient_image(128, 128, 0);
  const auto quantised = smlab::exporting::quantise_frame(image);
  ASSERT_LE(quantised.palette.size(), 256u);
  // Ordered dither: each 4×4 block's mean colour is near the original's mean.
  double worst = 0.0;
  for (int by = 0; by < 128; by += 4)
    for (int bx = 0; bx < 128; bx += 4)
      for (int channel = 0; channel < 3; ++channel) {
        double original = 0.0, dithered = 0.0;
        for (int y = by; y < by + 4; ++y)
          for (int x = bx; x < bx + 4; ++x) {
            const auto o = image.pixel(x, y);
            const auto d = quantised.palette[quantised.indices[static_cast<std::size_t>(y * 128 + x)]];
            original += channel == 0 ? o.r : channel == 1 ? o.g : o.b;
            dithered += channel == 0 ? d.r : channel == 1 ? d.g : d.b;
          }
        worst = std::max(worst, std::abs(original - dithered) / 16.0);
      }
  EXPECT_LT(worst, 16.0) << "a 4x4 block's mean drifted by " << worst << " levels of 255";
}

TEST(GifWriter, BytesDecodeBackToTheFramesWritten) {
  smlab::exporting::GifWriter writer;
  const Image first = flat_image(40, 30, 5), second = gradient_image(40, 30, 9);
  ASSERT_TRUE(writer.add_frame(first).ok());
  ASSERT_TRUE(writer.add_frame(second).ok());
  ASSERT_TRUE(writer.add_frame(first).ok());
  ASSERT_TRUE(writer.finish().ok());
  const std::string bytes(writer.bytes().begin(), writer.bytes().end());
  EXPECT_EQ(bytes.substr(0, 6), "GIF89a");
  EXPECT_NE(bytes.find("NETSCAPE2.0"), std::string::npos) << "no loop extension";
  Decoded decoded;
  MemoryReader reader;
  decode(bytes, decoded, reader);
  ASSERT_EQ(decoded.frames, 3);
  EXPECT_EQ(decoded.width, 40);
  EXPECT_EQ(decoded.height, 30);
  // The flat frame's pixels come back exactly through the local colour map.
  const SavedImage& frame = decoded.gif->SavedImages[0];
  ASSERT_NE(frame.ImageDesc.ColorMap, nullptr);
  for (int i = 0; i < 40 * 30; ++i) {
    const GifColorType colour = frame.ImageDesc.ColorMap->Colors[frame.RasterBits[i]];
    const auto expected = first.pixel(i % 40, i / 40);
    ASSERT_TRUE(colour.Red == expected.r && colour.Green == expected.g && colour.Blue == expected.b) << "pixel " << i;
  }
  GraphicsControlBlock control{};
  ASSERT_EQ(DGifSavedExtensionToGCB(decoded.gif, 1, &control), GIF_OK);
  EXPECT_EQ(control.DelayTime, smlab::exporting::GifOptions{}.delay_centiseconds);
}

TEST(GifWriter, RejectsFramesOfAnotherSizeAndEmptyGifs) {
  smlab::exporting::GifWriter empty;
  EXPECT_FALSE(empty.finish().ok());
  smlab::exporting::GifWriter writer;
  ASSERT_TRUE(writer.add_frame(flat_image(40, 30, 3)).ok());
  const auto error = writer.add_frame(flat_image(30, 40, 3));
  ASSERT_FALSE(error.ok());
  EXPECT_NE(error.error().message.find("40x30"), std::string::npos) << error.error().message;
  // Frames the writer cannot take are bad input (--gif exits 2), as render_sweep reports them.
  EXPECT_EQ(smlab::exit_code(error.error().kind), 2);
}

TEST(GifSweep, ValuesRunFromToEvenlyAndLogSweepsAreGeometric) {
  const smlab::Params base;
  auto parsed = smlab::app::parse_sweep("temperature=0.05:20:log", base);
  ASSERT_TRUE(parsed) << parsed.error().message;
  const auto& spec = *parsed;
  EXPECT_EQ(smlab::app::sweep_value(spec, 0, 5), "0.050000000000000003");
  EXPECT_EQ(std::stod(smlab::app::sweep_value(spec, 4, 5)), 20.0);
  EXPECT_NEAR(std::stod(smlab::app::sweep_value(spec, 2, 5)), 1.0, 1e-12) << "geometric midpoint of 0.05 and 20";
  auto linear = smlab::app::parse_sweep("d_k=1:100", base);
  ASSERT_TRUE(linear);
  EXPECT_EQ(smlab::app::sweep_value(*linear, 1, 3), "51") << "integers are rounded";
}

TEST(GifSweep, BadSpecsAreOneLineErrors) {
  const smlab::Params base;
  for (const char* text :
       {"temperature", "temperature=1", "temperature=1:2:lin", "temperature=a:2", "bogus=1:2", "scaled=0:1",
        "temperature=0:20:log", "temperature=0.05:1000", "d_k=1:2:3:4", "temperature=1:inf"}) {
    const auto parsed = smlab::app::parse_sweep(text, base);
    ASSERT_FALSE(parsed) << text << " was accepted";
    EXPECT_EQ(parsed.error().kind, smlab::Error::Kind::usage) << text;
    const std::string& error = parsed.error().message;
    EXPECT_FALSE(error.empty()) << text;
    EXPECT_EQ(error.find('\n'), std::string::npos) << text << "\n" << error;
  }
}

class GifCli : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = smlab::cli_test::fresh_test_dir("gif"); }
  void TearDown() override { fs::remove_all(dir_); }

  int run(const std::vector<std::string>& args, std::string* err = nullptr) const {
    std::string command = shell_quote(SMLAB_BINARY);
    for (const auto& arg : args) command += " " + shell_quote(arg);
    command += " >/dev/null 2>" + shell_quote((dir_ / "stderr").string());
    const int status = std::system(command.c_str());
    if (err != nullptr) *err = read_all(dir_ / "stderr");
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  fs::path dir_;
};

TEST_F(GifCli, ExportGifDecodesToNFramesOfTheAskedSizeAndIsNeverOverwritten) {
  const fs::path file = dir_ / "sweep.gif";
  const std::vector<std::string> args = {"--export-gif", file.string(), "--sweep", "temperature=0.05:20:log",
                                         "--frames",     "4",           "--size",  "480x320",
                                         "--set",        "seq_len=8"};
  std::string err;
  ASSERT_EQ(run(args, &err), 0) << err;
  const std::string bytes = read_all(file);
  Decoded decoded;
  MemoryReader reader;
  decode(bytes, decoded, reader);
  EXPECT_EQ(decoded.frames, 4);
  EXPECT_EQ(decoded.width, 480);
  EXPECT_EQ(decoded.height, 320);
  // The sweep changes the picture: the first and last frames differ.
  ASSERT_EQ(decoded.frames, 4);
  const SavedImage& first = decoded.gif->SavedImages[0];
  const SavedImage& last = decoded.gif->SavedImages[3];
  int differing = 0;
  for (int i = 0; i < 480 * 320; ++i) {
    const GifColorType a = first.ImageDesc.ColorMap->Colors[first.RasterBits[i]];
    const GifColorType b = last.ImageDesc.ColorMap->Colors[last.RasterBits[i]];
    differing += (a.Red != b.Red || a.Green != b.Green || a.Blue != b.Blue) ? 1 : 0;
  }
  EXPECT_GT(differing, 1000) << "the T = 0.05 and T = 20 frames look alike";

  EXPECT_EQ(run(args, &err), 3) << err;
  EXPECT_NE(err.find("--overwrite"), std::string::npos) << err;
  EXPECT_EQ(read_all(file), bytes) << "an existing GIF was replaced without --overwrite";
}

TEST_F(GifCli, BadSweepOrMissingPartsExitTwoWithOneLine) {
  const fs::path file = dir_ / "x.gif";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--export-gif", file.string(), "--sweep", "temperature=0:5:log"},
        std::vector<std::string>{"--export-gif", file.string(), "--sweep", "colour=1:2"},
        std::vector<std::string>{"--export-gif", file.string()},
        std::vector<std::string>{"--export-gif", file.string(), "--sweep", "d_k=1:8", "--frames", "0"}}) {
    std::string err;
    EXPECT_EQ(run(args, &err), 2) << args.back() << "\n" << err;
    EXPECT_EQ(err.find('\n'), err.size() - 1) << err;
    EXPECT_FALSE(fs::exists(file));
  }
}

}  // namespace
