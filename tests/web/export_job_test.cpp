// The export job (app/export/export_job.hpp) as the web page runs it, built natively: the .zip it streams holds the
// files `softmax-lab --export-csv` / `--export-svg` write for the same state, byte for byte; it is
// made in many slices, in small pieces, and stops on request; the subset's pooled maps are the block
// maxima of the whole maps. The zip itself is read by this file's reader and by Python's zipfile.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "../app/cli_support.hpp"
#include "export/export_job.hpp"
#include "i18n/i18n.hpp"
#include "smlab/assignments.hpp"
#include "state/presets.hpp"
#include "state/session.hpp"
#include "zip_stream.hpp"

namespace smlab::web {
namespace {

namespace fs = std::filesystem;
using app::estimated_csv_bytes;
using app::ExportJob;
using app::ExportRequest;
using app::pooled_factor;
using cli_test::fresh_test_dir;
using cli_test::read_all;
using cli_test::run_program;

std::uint32_t le32(const std::string& bytes, std::size_t at) {
  std::uint32_t value = 0;
  for (int k = 3; k >= 0; --k) value = (value << 8) | static_cast<unsigned char>(bytes.at(at + k));
  return value;
}
std::uint16_t le16(const std::string& bytes, std::size_t at) {
  return static_cast<std::uint16_t>(static_cast<unsigned char>(bytes.at(at)) |
                                    (static_cast<unsigned char>(bytes.at(at + 1)) << 8));
}

// The files of a zip by name, through its central directory; each entry inflated and its CRC and
// size checked against the directory. Fails the test on anything malformed.
std::map<std::string, std::string> unzip(const std::string& zip) {
  std::map<std::string, std::string> files;
  const std::size_t end = zip.rfind(std::string("PK\x05\x06", 4));
  EXPECT_NE(end, std::string::npos) << "no end of central directory record";
  if (end == std::string::npos) return files;
  const std::uint16_t count = le16(zip, end + 10);
  std::size_t at = le32(zip, end + 16);
  for (std::uint16_t k = 0; k < count; ++k) {
    EXPECT_EQ(le32(zip, at), 0x02014b50u) << "central entry " << k;
    const std::uint32_t crc = le32(zip, at + 16), compressed = le32(zip, at + 20), size = le32(zip, at + 24);
    const std::uint16_t name_length = le16(zip, at + 28), extra = le16(zip, at + 30), comment = le16(zip, at + 32);
    const std::uint32_t local = le32(zip, at + 42);
    const std::string name = zip.substr(at + 46, name_length);
    at += 46 + name_length + extra + comment;
    EXPECT_EQ(le32(zip, local), 0x04034b50u) << name;
    const std::size_t data = local + 30 + le16(zip, local + 26) + le16(zip, local + 28);
    std::string text(size, '\0');
    z_stream stream{};
    inflateInit2(&stream, -15);
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(zip.data() + data));
    stream.avail_in = compressed;
    stream.next_out = reinterpret_cast<Bytef*>(text.data());
    stream.avail_out = size;
    const int status = inflate(&stream, Z_FINISH);
    inflateEnd(&stream);
    EXPECT_EQ(status, Z_STREAM_END) << name;
    EXPECT_EQ(crc32(0, reinterpret_cast<const Bytef*>(text.data()), size), crc) << name;
    // The data descriptor after the data repeats CRC and sizes.
    const std::size_t descriptor = data + compressed;
    EXPECT_EQ(le32(zip, descriptor), 0x08074b50u) << name;
    EXPECT_EQ(le32(zip, descriptor + 4), crc) << name;
    EXPECT_EQ(le32(zip, descriptor + 12), size) << name;
    files[name] = std::move(text);
  }
  return files;
}

std::map<std::string, std::string> files_in(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::directory_iterator(dir))
    files[entry.path().filename().string()] = read_all(entry.path());
  return files;
}

std::vector<std::string> names_of(const std::map<std::string, std::string>& files) {
  std::vector<std::string> names;
  for (const auto& [name, text] : files) names.push_back(name);
  return names;
}

class ExportJobTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!i18n::has_catalogue()) (void)i18n::load_catalogue(app::find_assets_dir());
  }
  void SetUp() override { dir_ = fresh_test_dir("web-export"); }
  void TearDown() override { fs::remove_all(dir_); }

  struct Run {
    std::string zip;
    int steps = 0;            // calls to step() that left work for the next one
    std::size_t largest = 0;  // the largest piece the sink received
    std::string error;        // the job's outcome as the page receives it: empty when ok
    std::vector<std::string> names;
  };
  // Runs the job with slices that end at once (each step does the least it can), as the page
  // would with a busy frame, collecting what the sink receives.
  static Run run(ExportRequest request, std::stop_source* stop = nullptr, int stop_after_steps = -1) {
    Run result;
    ExportJob job(std::move(request),
                  std::make_unique<ZipStream>(
                      [&result](std::span<const std::uint8_t> bytes) {
                        result.largest = std::max(result.largest, bytes.size());
                        result.zip.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
                      },
                      0, dos_date(1980, 1, 1)),
                  stop != nullptr ? stop->get_token() : std::stop_token{});
    while (job.step(std::chrono::steady_clock::now())) {
      ++result.steps;
      if (stop != nullptr && result.steps == stop_after_steps) stop->request_stop();
      EXPECT_LT(result.steps, 2'000'000) << "the job does not end";
      if (result.steps >= 2'000'000) break;
    }
    result.error = job.outcome() ? std::string() : job.outcome().error().message;
    result.names = job.file_names();
    return result;
  }
  static Params params_of(const std::vector<std::string>& assignments) {
    Params params;
    EXPECT_TRUE(apply_assignments(params, assignments).ok());
    return params;
  }
  fs::path dir_;
};

TEST_F(ExportJobTest, CsvZipHoldsTheDesktopExportByteForByte) {
  const std::vector<std::string> sets = {"seq_len=48", "temperature=0.7", "d_k=32"};
  std::vector<std::string> args = {"--export-csv", (dir_ / "desktop").string()};
  for (const std::string& set : sets) args.insert(args.end(), {"--set", set});
  const cli_test::Outcome desktop = run_program(SMLAB_BINARY, args, dir_);
  ASSERT_EQ(desktop.exit_code, 0) << desktop.err;
  ExportRequest request;
  request.params = params_of(sets);
  const Run page = run(request);
  ASSERT_EQ(page.error, "");
  const auto expected = files_in(dir_ / "desktop");
  const auto zipped = unzip(page.zip);
  EXPECT_EQ(names_of(zipped), names_of(expected));
  for (const auto& [name, text] : expected) {
    const auto found = zipped.find(name);
    if (found == zipped.end()) continue;
    EXPECT_TRUE(found->second == text) << name << ": " << found->second.size() << " bytes in the zip, " << text.size()
                                       << " written by --export-csv " << sets[0];
  }
  // Made in slices and handed out in pieces, never whole.
  EXPECT_GT(page.steps, 100) << "steps";
  EXPECT_LE(page.largest, std::size_t{64 * 1024 + 1024});
  // An independent reader agrees.
  std::ofstream(dir_ / "page.zip", std::ios::binary) << page.zip;
  const cli_test::Outcome checked =
      run_program("/usr/bin/python3",
                  {"-c", "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); print(z.testzip(), len(z.namelist()))",
                   (dir_ / "page.zip").string()},
                  dir_);
  EXPECT_EQ(checked.out, "None " + std::to_string(expected.size()) + "\n") << checked.err;
}

TEST_F(ExportJobTest, SvgZipHoldsTheDesktopExportByteForByteWithPins) {
  // A session with a pin and a chosen colour scale: pinned-*.svg too, and the scale honoured.
  app::Session session;
  session.params = params_of({"seq_len=24", "temperature=2"});
  session.pins = {app::Pin{"A", params_of({"seq_len=24", "temperature=0.3"})}};
  session.color_scales =
      std::map<std::string, plot::ColorScale, std::less<>>{{"dashboard/attention", plot::ColorScale::Fixed}};
  ASSERT_TRUE(app::save_session(dir_ / "session.json", session, false).ok());
  const cli_test::Outcome desktop = run_program(
      SMLAB_BINARY, {"--load", (dir_ / "session.json").string(), "--export-svg", (dir_ / "desktop").string()}, dir_);
  ASSERT_EQ(desktop.exit_code, 0) << desktop.err;
  ExportRequest request;
  request.kind = ExportRequest::Kind::svg;
  request.params = session.params;
  request.pins = session.pins;
  request.style = plot::light_style();
  request.style.color_scales.chosen = *session.color_scales;
  const Run page = run(request);
  ASSERT_EQ(page.error, "");
  const auto expected = files_in(dir_ / "desktop");
  const auto zipped = unzip(page.zip);
  EXPECT_EQ(names_of(zipped), names_of(expected));
  for (const auto& [name, text] : expected) {
    if (const auto found = zipped.find(name); found != zipped.end()) {
      EXPECT_TRUE(found->second == text) << name << " differs from --export-svg's";
    }
  }
}

// Pooled cells of the subset against the block maxima of the whole map's CSV.
std::vector<std::vector<float>> csv_numbers(const std::string& text) {
  std::vector<std::vector<float>> rows;
  std::istringstream lines(text);
  std::string line;
  std::getline(lines, line);  // header
  while (std::getline(lines, line)) {
    std::vector<float>& row = rows.emplace_back();
    for (std::size_t at = 0; at <= line.size();) {
      const std::size_t comma = std::min(line.find(',', at), line.size());
      float value = 0.0f;
      std::from_chars(line.data() + at, line.data() + comma, value);
      row.push_back(value);
      at = comma + 1;
    }
  }
  return rows;
}

TEST_F(ExportJobTest, SubsetReplacesTheFullMapsByPooledMapsAndSaysSo) {
  // L = 600: 3 keys a block (pooled_factor), the last block short.
  ExportRequest request;
  request.params = params_of({"seq_len=600", "temperature=0.5"});
  ASSERT_EQ(pooled_factor(600), 3);
  request.command_line = "softmax-lab --set seq_len=600 --set temperature=0.5 --export-csv DIR";
  const Run whole = run(request);
  request.whole = false;
  const Run subset = run(request);
  ASSERT_EQ(whole.error, "");
  ASSERT_EQ(subset.error, "");
  const auto all = unzip(whole.zip), part = unzip(subset.zip);
  for (const auto& [name, text] : all) {
    const bool full_map = name == "attention.csv" || name == "attention_scaled.csv" || name == "attention_unscaled.csv";
    EXPECT_EQ(part.count(name), full_map ? 0u : 1u) << name;
    if (!full_map && part.count(name) != 0) {
      EXPECT_TRUE(part.at(name) == text) << name;
    }
  }
  ASSERT_EQ(part.count("README.txt"), 1u);
  EXPECT_NE(part.at("README.txt").find(request.command_line), std::string::npos) << part.at("README.txt");
  EXPECT_NE(part.at("README.txt").find("600"), std::string::npos);
  for (const bool scaled : {true, false}) {
    const std::string pooled_name = scaled ? "attention_scaled_pooled.csv" : "attention_unscaled_pooled.csv";
    ASSERT_EQ(part.count(pooled_name), 1u);
    const auto full = csv_numbers(all.at(scaled ? "attention_scaled.csv" : "attention_unscaled.csv"));
    const auto pooled = csv_numbers(part.at(pooled_name));
    ASSERT_EQ(pooled.size(), 200u);
    EXPECT_EQ(part.at(pooled_name).substr(0, 22), "keys_0-2,keys_3-5,keys");
    for (std::size_t bi = 0; bi < pooled.size(); ++bi) {
      ASSERT_EQ(pooled[bi].size(), 200u);
      for (std::size_t bj = 0; bj < 200; ++bj) {
        float maximum = 0.0f;
        for (std::size_t i = 3 * bi; i < std::min<std::size_t>(3 * bi + 3, 600); ++i)
          for (std::size_t j = 3 * bj; j < std::min<std::size_t>(3 * bj + 3, 600); ++j)
            maximum = std::max(maximum, full[i][j]);
        ASSERT_EQ(pooled[bi][bj], maximum) << pooled_name << " cell " << bi << "," << bj;
      }
    }
  }
  EXPECT_LT(subset.zip.size(), whole.zip.size());
}

TEST_F(ExportJobTest, StopEndsTheJobWithTheCancelLine) {
  ExportRequest request;
  request.params = params_of({"seq_len=256"});
  std::stop_source stop;
  const Run stopped = run(request, &stop, 20);
  EXPECT_EQ(stopped.error, "export cancelled: nothing was changed");
  EXPECT_EQ(stopped.steps, 20);
  EXPECT_EQ(stopped.zip.find(std::string("PK\x05\x06", 4)), std::string::npos) << "no archive end after a stop";
}

TEST_F(ExportJobTest, EstimateIsWithinFifteenPercentOfTheDesktopSizeAtL4096) {
  // Measured: --export-csv at L = 4096 wrote 693,007,544 bytes (the three maps 686 MB); the
  // estimate is for choosing whole or subset, within 15 %.
  Params params;
  params.seq_len = 4096;
  const double estimate = static_cast<double>(estimated_csv_bytes(params));
  EXPECT_NEAR(estimate / 693'007'544.0, 1.0, 0.15) << estimate;
  params.seq_len = 64;
  EXPECT_LT(estimated_csv_bytes(params), 2'000'000u);
}

TEST(ZipStream, RefusesMisuseInOneLine) {
  std::string out;
  ZipStream zip([&out](std::span<const std::uint8_t> bytes) { out.append(bytes.begin(), bytes.end()); }, 0,
                dos_date(2026, 11, 27));
  EXPECT_FALSE(zip.write("x").ok());
  EXPECT_TRUE(zip.begin_file("a.txt").ok());
  EXPECT_FALSE(zip.begin_file("b.txt").ok());
  EXPECT_FALSE(zip.finish().ok());
  EXPECT_TRUE(zip.write("hello").ok());
  EXPECT_TRUE(zip.end_file().ok());
  EXPECT_TRUE(zip.finish().ok());
  EXPECT_FALSE(zip.finish().ok());
  const auto files = unzip(out);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files.at("a.txt"), "hello");
  EXPECT_EQ(dos_date(2026, 11, 27), ((2026 - 1980) << 9) | (11 << 5) | 27);
}

}  // namespace
}  // namespace smlab::web
