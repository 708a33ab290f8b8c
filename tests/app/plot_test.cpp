// Tests of app/plot: nice ticks, number labels, colormaps, palette contrast, the shared layout
// (no text overlaps or leaves the frame) and the SVG writer (well-formed, escaped, complete).
// The last tests draw through ImGui with no graphics backend to smoke-test the screen renderer.
//
// [SECTION] Index
//   [SECTION] Helpers: a minimal XML checker and text extraction
//   [SECTION] Ticks and number labels
//   [SECTION] Colours and colormaps
//   [SECTION] Layout
//   [SECTION] SVG
//   [SECTION] Screen renderer smoke test (ImGui without a backend)
#include <gtest/gtest.h>
#include <cstring>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "plot/heatmap_texture.hpp"
#include "plot/layout.hpp"
#include "plot/plot.hpp"
#include "plot/text_wrap.hpp"

namespace {

using namespace smlab::plot;

// [SECTION] Helpers: a minimal XML checker and text extraction

// Empty when `xml` is well-formed as far as SVG output needs: balanced and properly nested
// elements, one root, quoted attributes, no raw '<' in text, '&' only in entities.
std::string xml_problem(const std::string& xml) {
  std::vector<std::string> open;
  int roots = 0;
  const auto check_entities = [](std::string_view text) -> std::string {
    for (std::size_t at = text.find('&'); at != std::string_view::npos; at = text.find('&', at + 1)) {
      const std::string_view rest = text.substr(at);
      bool known = false;
      for (const char* entity : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;", "&#"}) {
        if (rest.substr(0, std::string_view(entity).size()) == entity) known = true;
      }
      if (!known) return "bare '&' in: " + std::string(rest.substr(0, 20));
    }
    return {};
  };
  std::size_t position = 0;
  while (position < xml.size()) {
    const std::size_t tag_start = xml.find('<', position);
    const std::string_view text(xml.data() + position,
                                (tag_start == std::string::npos ? xml.size() : tag_start) - position);
    if (auto problem = check_entities(text); !problem.empty()) return problem;
    if (open.empty() && text.find_first_not_of(" \n\t\r") != std::string_view::npos) {
      return "text outside the root element";
    }
    if (tag_start == std::string::npos) break;
    if (xml.compare(tag_start, 5, "<?xml") == 0) {
      const std::size_t end = xml.find("?>", tag_start);
      if (end == std::string::npos) return "unterminated declaration";
      position = end + 2;
      continue;
    }
    // Inside a tag, '>' cannot occur in a quoted value of ours, but scan quotes anyway.
    std::size_t cursor = tag_start + 1;
    char quote = 0;
    for (; cursor < xml.size(); ++cursor) {
      const char character = xml[cursor];
      if (quote != 0) {
        if (character == quote) quote = 0;
        if (character == '<') return "'<' inside an attribute value";
      } else if (character == '"' || character == '\'') {
        quote = character;
      } else if (character == '>') {
        break;
      } else if (character == '<') {
        return "'<' inside a tag at " + std::to_string(cursor);
      }
    }
    if (cursor >= xml.size()) return "unterminated tag";
    std::string tag = xml.substr(tag_start + 1, cursor - tag_start - 1);
    position = cursor + 1;
    if (auto problem = check_entities(tag); !problem.empty()) return problem;
    if (!tag.empty() && tag[0] == '/') {
      const std::string name = tag.substr(1);
      if (open.empty() || open.back() != name) {
        return "closing </" + name + "> does not match <" + (open.empty() ? "" : open.back()) + ">";
      }
      open.pop_back();
      continue;
    }
    const bool self_closing = !tag.empty() && tag.back() == '/';
    const std::string name = tag.substr(0, tag.find_first_of(" \n\t/"));
    if (name.empty()) return "tag without a name";
    // Attributes: name="value" pairs separated by spaces.
    const std::string rest = tag.substr(name.size(), tag.size() - name.size() - (self_closing ? 1 : 0));
    for (std::size_t at = 0; at < rest.size();) {
      if (rest[at] == ' ' || rest[at] == '\n') {
        ++at;
        continue;
      }
      const std::size_t equals = rest.find('=', at);
      if (equals == std::string::npos || equals + 1 >= rest.size() || rest[equals + 1] != '"') {
        return "unquoted attribute in <" + name + ">";
      }
      const std::size_t close = rest.find('"', equals + 2);
      if (close == std::string::npos) return "unterminated attribute in <" + name + ">";
      at = close + 1;
    }
    if (open.empty()) ++roots;
    if (!self_closing) open.push_back(name);
  }
  if (!open.empty()) return "unclosed <" + open.back() + ">";
  if (roots != 1) return "expected one root element, found " + std::to_string(roots);
  return {};
}

std::string unescape(std::string_view text) {
  std::string out;
  for (std::size_t at = 0; at < text.size(); ++at) {
    if (text[at] != '&') {
      out += text[at];
      continue;
    }
    const std::size_t end = text.find(';', at);
    const std::string_view entity = text.substr(at, end - at + 1);
    if (entity == "&amp;") {
      out += '&';
    } else if (entity == "&lt;") {
      out += '<';
    } else if (entity == "&gt;") {
      out += '>';
    } else if (entity == "&quot;") {
      out += '"';
    } else if (entity == "&apos;") {
      out += '\'';
    }
    at = end;
  }
  return out;
}

// The contents of every <text> element, unescaped.
std::vector<std::string> svg_texts(const std::string& svg) {
  std::vector<std::string> texts;
  for (std::size_t at = svg.find("<text"); at != std::string::npos; at = svg.find("<text", at + 1)) {
    const std::size_t start = svg.find('>', at) + 1;
    const std::size_t end = svg.find("</text>", start);
    texts.push_back(unescape(std::string_view(svg).substr(start, end - start)));
  }
  return texts;
}

bool contains_text(const std::vector<std::string>& texts, const std::string& wanted) {
  return std::find(texts.begin(), texts.end(), wanted) != texts.end();
}

std::string join(const std::vector<std::string>& texts) {
  std::string joined;
  for (const auto& text : texts) joined += "[" + text + "] ";
  return joined;
}

std::size_t count_of(const std::string& haystack, const std::string& needle, std::size_t from = 0,
                     std::size_t to = std::string::npos) {
  std::size_t count = 0;
  for (std::size_t at = haystack.find(needle, from); at != std::string::npos && at < to;
       at = haystack.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

std::string describe(const std::vector<Tick>& ticks) {
  std::ostringstream out;
  out.precision(17);
  for (const auto& tick : ticks) out << tick.value << (tick.major ? "" : "m") << " '" << tick.label << "'  ";
  return out.str();
}

std::vector<Tick> majors(const std::vector<Tick>& ticks) {
  std::vector<Tick> result;
  for (const auto& tick : ticks) {
    if (tick.major) result.push_back(tick);
  }
  return result;
}

std::vector<std::string> labels(const std::vector<Tick>& ticks) {
  std::vector<std::string> result;
  for (const auto& tick : ticks) {
    if (tick.major) result.push_back(tick.label);
  }
  return result;
}

// A plot with every kind of series and every text, used by the layout and SVG tests.
Plot sample_plot() {
  Plot plot;
  plot.title = "Entropy versus temperature";
  plot.x.label = "temperature T";
  plot.y.label = "entropy (nats)";
  LineSeries scaled{"scaled", {0.1, 0.5, 1, 2, 4, 8}, {0.2, 1.1, 1.9, 2.5, 2.9, 3.1}};
  scaled.markers = true;
  scaled.band_low = {0.1, 1.0, 1.8, 2.4, 2.8, 3.0};
  scaled.band_high = {0.3, 1.2, 2.0, 2.6, 3.0, 3.2};
  plot.lines.push_back(scaled);
  LineSeries unscaled{"unscaled", {0.1, 0.5, 1, 2, 4, 8}, {0.0, 0.3, 0.9, 1.8, 2.6, 3.0}};
  unscaled.dashed = true;
  plot.lines.push_back(unscaled);
  plot.bars.push_back(BarSeries{"weights", {1, 2, 3}, {0.5, 1.5, 1.0}});
  plot.scatters.push_back(ScatterSeries{"samples", {3, 5}, {2.0, 2.2}});
  plot.scatters.back().shape = MarkerShape::Diamond;
  plot.hlines.push_back(HLine{std::log(6.0), "log L"});
  return plot;
}

// The plot points into `cells` (Heatmap::values is a view), so `cells` must outlive it.
Plot sample_heatmap_plot(int rows, int cols, std::vector<float>& cells) {
  Plot plot;
  plot.title = "Attention weights";
  Heatmap heatmap;
  heatmap.rows = rows;
  heatmap.cols = cols;
  cells.clear();
  for (int cell = 0; cell < rows * cols; ++cell) cells.push_back(static_cast<float>(cell) / (rows * cols));
  heatmap.values = cells;
  heatmap.vmin = 0.0;
  heatmap.vmax = 1.0;
  heatmap.colorbar_label = "weight";
  heatmap.x_label = "key position";
  heatmap.y_label = "query position";
  plot.heatmap = heatmap;
  return plot;
}

// [SECTION] Ticks and number labels

bool is_one_two_five_step(double step) {
  const double decade = std::pow(10.0, std::floor(std::log10(step) + 1e-9));
  const double mantissa = step / decade;
  return std::abs(mantissa - 1) < 1e-6 || std::abs(mantissa - 2) < 1e-6 || std::abs(mantissa - 5) < 1e-6;
}

TEST(NiceTicks, LinearTicksAreInsideTheRangeOnOneTwoFiveStepsWithDistinctLabels) {
  const std::vector<std::pair<double, double>> ranges = {
      {0, 1},          {-3.7, 12.2},       {1e-9, 3e-9}, {1e6, 1.00001e6}, {-1e12, 5e12}, {-5, -1},
      {0.001, 0.0015}, {1000000, 1000010}, {-0.5, 0.5},  {99.5, 100.5},    {0, 4096}};
  for (const auto& [lo, hi] : ranges) {
    for (const int max_ticks : {2, 3, 5, 8, 11}) {
      const auto ticks = nice_ticks(lo, hi, Scale::Linear, max_ticks);
      SCOPED_TRACE(::testing::Message() << "range [" << lo << ", " << hi << "], max_ticks " << max_ticks << ": "
                                        << describe(ticks));
      ASSERT_GE(ticks.size(), max_ticks >= 3 ? 2u : 1u);
      ASSERT_LE(ticks.size(), static_cast<std::size_t>(max_ticks));
      const double tolerance = (hi - lo) * 1e-9;
      for (std::size_t index = 0; index < ticks.size(); ++index) {
        EXPECT_GE(ticks[index].value, lo - tolerance);
        EXPECT_LE(ticks[index].value, hi + tolerance);
        EXPECT_FALSE(ticks[index].label.empty());
        if (index == 0) continue;
        const double step = ticks[index].value - ticks[index - 1].value;
        EXPECT_TRUE(is_one_two_five_step(step)) << "step " << step;
        EXPECT_NE(ticks[index].label, ticks[index - 1].label);
      }
    }
  }
}

TEST(NiceTicks, LinearTicksOfSimpleRangesAreTheObviousOnes) {
  EXPECT_EQ(labels(nice_ticks(0, 10, Scale::Linear, 6)), (std::vector<std::string>{"0", "2", "4", "6", "8", "10"}));
  EXPECT_EQ(labels(nice_ticks(-1, 1, Scale::Linear, 5)), (std::vector<std::string>{"-1", "-0.5", "0", "0.5", "1"}));
  EXPECT_EQ(labels(nice_ticks(0, 1, Scale::Linear, 6)),
            (std::vector<std::string>{"0", "0.2", "0.4", "0.6", "0.8", "1"}));
  // Reversed bounds give the same ticks.
  EXPECT_EQ(labels(nice_ticks(10, 0, Scale::Linear, 6)), labels(nice_ticks(0, 10, Scale::Linear, 6)));
}

TEST(NiceTicks, ZeroIsExactlyZeroNotRoundingNoise) {
  const auto ticks = nice_ticks(-0.3, 0.3, Scale::Linear, 7);
  SCOPED_TRACE(describe(ticks));
  const auto zero = std::find_if(ticks.begin(), ticks.end(), [](const Tick& tick) { return tick.label == "0"; });
  ASSERT_NE(zero, ticks.end());
  EXPECT_EQ(zero->value, 0.0);
}

TEST(NiceTicks, TinyAndHugeAndOffsetRangesGetReadableDistinctLabels) {
  EXPECT_EQ(labels(nice_ticks(1e-9, 3e-9, Scale::Linear, 3)), (std::vector<std::string>{"1e-09", "2e-09", "3e-09"}));
  EXPECT_EQ(labels(nice_ticks(0, 3e6, Scale::Linear, 4)), (std::vector<std::string>{"0", "1e+06", "2e+06", "3e+06"}));
  const auto offset = labels(nice_ticks(1000000, 1000004, Scale::Linear, 5));
  EXPECT_EQ(offset, (std::vector<std::string>{"1000000", "1000001", "1000002", "1000003", "1000004"}));
}

TEST(NiceTicks, IntegerOnlyTicksNeverFallBetweenIntegers) {
  for (const double hi : {0.5, 1.0, 3.0, 7.0, 63.0}) {
    const auto ticks = nice_ticks(0, hi, Scale::Linear, 10, true);
    SCOPED_TRACE(::testing::Message() << "range [0, " << hi << "]: " << describe(ticks));
    ASSERT_FALSE(ticks.empty());
    for (const auto& tick : ticks) EXPECT_EQ(tick.value, std::round(tick.value));
  }
  EXPECT_EQ(labels(nice_ticks(0, 3, Scale::Linear, 10, true)), (std::vector<std::string>{"0", "1", "2", "3"}));
}

TEST(NiceTicks, DegenerateAndInvalidRanges) {
  const auto single = nice_ticks(2.5, 2.5, Scale::Linear, 5);
  ASSERT_EQ(single.size(), 1u) << describe(single);
  EXPECT_EQ(single[0].value, 2.5);
  EXPECT_EQ(single[0].label, "2.5");
  EXPECT_EQ(nice_ticks(10, 10, Scale::Log10, 5).size(), 1u);
  EXPECT_TRUE(nice_ticks(std::nan(""), 1, Scale::Linear, 5).empty());
  EXPECT_TRUE(nice_ticks(0, std::numeric_limits<double>::infinity(), Scale::Linear, 5).empty());
  EXPECT_TRUE(nice_ticks(0, 100, Scale::Log10, 5).empty()) << "log axes need positive bounds";
  EXPECT_TRUE(nice_ticks(-1, 100, Scale::Log10, 5).empty());
}

TEST(NiceTicks, LogTicksFromHundredthToHundredAreLabelledDecadesWithMinorTicks) {
  const auto ticks = nice_ticks(0.01, 100, Scale::Log10, 8);
  SCOPED_TRACE(describe(ticks));
  EXPECT_EQ(labels(ticks), (std::vector<std::string>{"0.01", "0.1", "1", "10", "100"}));
  const auto minor_count = std::count_if(ticks.begin(), ticks.end(), [](const Tick& tick) { return !tick.major; });
  EXPECT_EQ(minor_count, 4 * 8) << "2..9 × each of the four full decades";
  for (const auto& tick : ticks) {
    EXPECT_GE(tick.value, 0.01 * (1 - 1e-9));
    EXPECT_LE(tick.value, 100 * (1 + 1e-9));
    if (!tick.major) {
      EXPECT_TRUE(tick.label.empty());
    }
  }
}

TEST(NiceTicks, LogTicksFromOneTo4096StopAtTheLastDecadeInside) {
  const auto ticks = nice_ticks(1, 4096, Scale::Log10, 8);
  SCOPED_TRACE(describe(ticks));
  EXPECT_EQ(labels(ticks), (std::vector<std::string>{"1", "10", "100", "1000"}));
  for (const auto& tick : ticks) EXPECT_LE(tick.value, 4096 * (1 + 1e-9));
}

TEST(NiceTicks, LogTicksOverManyDecadesSkipDecadesAndUsePowerLabels) {
  const auto ticks = nice_ticks(1e-10, 1e10, Scale::Log10, 6);
  SCOPED_TRACE(describe(ticks));
  const auto major_ticks = majors(ticks);
  EXPECT_LE(major_ticks.size(), 6u);
  EXPECT_GE(major_ticks.size(), 3u);
  for (const auto& tick : major_ticks) EXPECT_EQ(tick.label.rfind("10", 0), 0u) << tick.label;
  EXPECT_TRUE(contains_text(labels(ticks), "10⁰"));
}

// Powers of ten beyond 0.001 … 10000 are written as mathematics writes them: 10 with a
// superscript exponent, every digit and the minus sign.
TEST(NiceTicks, PowerLabelsUseSuperscriptExponents) {
  EXPECT_EQ(power_of_ten_label(0), "10⁰");
  EXPECT_EQ(power_of_ten_label(30), "10³⁰");
  EXPECT_EQ(power_of_ten_label(-15), "10⁻¹⁵");
  EXPECT_EQ(power_of_ten_label(890), "10⁸⁹⁰");
  EXPECT_EQ(power_of_ten_label(-246), "10⁻²⁴⁶");
  EXPECT_EQ(labels(nice_ticks(1e-10, 1e10, Scale::Log10, 6)).front().substr(0, 2), "10");
}

// A log axis's own tick values read like automatic ones: the stability lab's exp(x) axis showed
// "1e-15, 1, 1e+15, 1e+30, 1e+45" beside other labs' "10^-10"; a plain range stays plain and a
// value that is no power of ten keeps its number.
TEST(NiceTicks, ALogAxisOwnTickValuesAreLabelledAsItsDecadesWouldBe) {
  EXPECT_EQ(log_axis_labels({1e-15, 1.0, 1e15, 1e30, 1e45}),
            (std::vector<std::string>{"10⁻¹⁵", "10⁰", "10¹⁵", "10³⁰", "10⁴⁵"}));
  EXPECT_EQ(log_axis_labels({0.001, 1.0, 10000.0}), (std::vector<std::string>{"0.001", "1", "10000"}));
  EXPECT_EQ(log_axis_labels({2.0, 1e6}), (std::vector<std::string>{"2", "10⁶"}));
  Plot plot;
  plot.y.scale = Scale::Log10;
  plot.y.min = 1e-20;
  plot.y.max = 1e46;
  plot.y.tick_values = {1e-15, 1.0, 1e15, 1e30, 1e45};
  plot.lines.push_back(LineSeries{"exp", {0.0, 1.0}, {1e-15, 1e45}});
  const auto scene = detail::layout_plot(plot, 400.0f, 400.0f, light_style(), 15.0f, estimate_text_width);
  std::vector<std::string> shown;
  for (const auto& shape : scene.shapes)
    if (const auto* text = std::get_if<detail::TextShape>(&shape); text && text->text.rfind("10", 0) == 0)
      shown.push_back(text->text);
  EXPECT_TRUE(contains_text(shown, "10³⁰")) << "the axis drew its own ticks as 1e+30";
}

TEST(NiceTicks, NarrowLogRangesLabelOneTwoFive) {
  const auto ticks = nice_ticks(1, 60, Scale::Log10, 8);
  SCOPED_TRACE(describe(ticks));
  EXPECT_EQ(labels(ticks), (std::vector<std::string>{"1", "2", "5", "10", "20", "50"}));
}

TEST(FormatNumber, ShortAndExactEnough) {
  EXPECT_EQ(format_number(0.001), "0.001");
  EXPECT_EQ(format_number(0.25), "0.25");
  EXPECT_EQ(format_number(1e-5), "1e-05");
  EXPECT_EQ(format_number(4096), "4096");
  EXPECT_EQ(format_number(1.5e6), "1.5e+06");
  EXPECT_EQ(format_number(-3), "-3");
  EXPECT_EQ(format_number(0.1 + 0.2), "0.3");
  EXPECT_EQ(format_number(-0.0), "0");
  EXPECT_EQ(format_number(std::nan("")), "nan");
  EXPECT_EQ(format_number(-std::numeric_limits<double>::infinity()), "-inf");
}

// A value written beside its point on a log axis reads as the axis's ticks do: plain within
// 0.001 … 10000, else a mantissa times a power of ten in superscript, rounded as printf rounds.
TEST(FormatNumber, ScientificValuesReadAsTheLogAxesPowers) {
  EXPECT_EQ(format_scientific(0.9731, 3), "0.973");
  EXPECT_EQ(format_scientific(1.139, 3), "1.14");
  EXPECT_EQ(format_scientific(1.1806e24, 3), "1.18·10²⁴");
  EXPECT_EQ(format_scientific(1.7e-14, 1), "2·10⁻¹⁴");
  EXPECT_EQ(format_scientific(-2.5e-22, 2), "-2.5·10⁻²²");
  EXPECT_EQ(format_scientific(9996.0, 3), "1·10⁴");  // %g would write 1e+04
  EXPECT_EQ(format_scientific(99999.0, 2), "1·10⁵");
  EXPECT_EQ(format_scientific(2.0e-3, 1), "0.002");
  EXPECT_EQ(format_scientific(90.4, 1), "90");  // not 9·10¹
  EXPECT_EQ(format_scientific(-123.0, 1), "-100");
  EXPECT_EQ(format_scientific(97.0, 1), "100");
  EXPECT_EQ(format_scientific(2.0e-4, 1), "2·10⁻⁴");
  EXPECT_EQ(format_scientific(0.0, 3), "0");
}

TEST(FormatNumber, TickLabelsCarryTheDigitsTheStepNeeds) {
  EXPECT_EQ(format_tick(1000001, 1), "1000001");
  EXPECT_EQ(format_tick(1.0000001, 1e-7), "1.0000001");
  EXPECT_EQ(format_tick(0.4, 0.2), "0.4");
  EXPECT_EQ(format_tick(2000, 500), "2000");
}

// [SECTION] Colours and colormaps

TEST(Colormap, EndpointsAreThePublishedColours) {
  EXPECT_EQ(sample(Colormap::Viridis, 0.0), Color::from_hex(0x440154));
  EXPECT_EQ(sample(Colormap::Viridis, 1.0), Color::from_hex(0xFDE725));
  EXPECT_EQ(sample(Colormap::Cividis, 0.0), Color::from_hex(0x00204D));
  EXPECT_EQ(sample(Colormap::Cividis, 1.0), Color::from_hex(0xFFEA46));
  EXPECT_EQ(sample(Colormap::Magma, 0.0), Color::from_hex(0x000004));
  EXPECT_EQ(sample(Colormap::Magma, 1.0), Color::from_hex(0xFCFDBF));
  EXPECT_EQ(sample(Colormap::Greys, 0.0), Color::from_hex(0x000000));
  EXPECT_EQ(sample(Colormap::Greys, 1.0), Color::from_hex(0xFFFFFF));
}

TEST(Colormap, OutOfRangeInputIsClamped) {
  for (int index = 0; index < kColormapCount; ++index) {
    const auto colormap = static_cast<Colormap>(index);
    SCOPED_TRACE(name(colormap));
    EXPECT_EQ(sample(colormap, -3.0), sample(colormap, 0.0));
    EXPECT_EQ(sample(colormap, 7.0), sample(colormap, 1.0));
    EXPECT_EQ(sample(colormap, std::numeric_limits<double>::infinity()), sample(colormap, 1.0));
  }
}

TEST(Colormap, SequentialMapsGetStrictlyBrighter) {
  for (const auto colormap : {Colormap::Viridis, Colormap::Cividis, Colormap::Magma, Colormap::Greys}) {
    float previous = -1.0f;
    for (int step = 0; step <= 200; ++step) {
      const double t = step / 200.0;
      const float luminance = relative_luminance(sample(colormap, t));
      EXPECT_GT(luminance, previous) << name(colormap) << " at t = " << t;
      previous = luminance;
    }
  }
}

TEST(Colormap, DivergingMapIsBlueWhiteRed) {
  const Color low = sample(Colormap::Diverging, 0.0), middle = sample(Colormap::Diverging, 0.5),
              high = sample(Colormap::Diverging, 1.0);
  EXPECT_GT(low.b, low.r);
  EXPECT_GT(high.r, high.b);
  EXPECT_GT(relative_luminance(middle), 0.85f);
}

TEST(Colormap, NanGivesTheInvalidColourWhichNoMapContains) {
  const Color invalid = invalid_color();
  for (int index = 0; index < kColormapCount; ++index) {
    const auto colormap = static_cast<Colormap>(index);
    EXPECT_EQ(sample(colormap, std::nan("")), invalid) << name(colormap);
    float nearest = 10.0f;
    for (int step = 0; step <= 255; ++step) {
      const Color color = sample(colormap, step / 255.0);
      nearest = std::min(nearest, std::hypot(color.r - invalid.r, color.g - invalid.g, color.b - invalid.b));
    }
    EXPECT_GT(nearest, 0.15f) << name(colormap) << " comes close to the invalid colour";
  }
}

TEST(Colormap, NamesRoundTripCaseInsensitively) {
  for (int index = 0; index < kColormapCount; ++index) {
    const auto colormap = static_cast<Colormap>(index);
    EXPECT_EQ(colormap_from_name(name(colormap)), colormap);
    std::string upper = name(colormap);
    for (char& character : upper) character = static_cast<char>(std::toupper(character));
    EXPECT_EQ(colormap_from_name(upper), colormap) << upper;
  }
  EXPECT_EQ(colormap_from_name("grays"), Colormap::Greys);
  EXPECT_FALSE(colormap_from_name("jet").has_value());
  EXPECT_FALSE(colormap_from_name("").has_value());
}

// The 5×7 matrix 10·r + c, row-major: the pooling tests' input, whose block means and maxima are
// easy to state.
std::vector<float> ramp_5x7() {
  std::vector<float> values;
  for (int r = 0; r < 5; ++r)
    for (int c = 0; c < 7; ++c) values.push_back(static_cast<float>(10 * r + c));
  return values;
}

// Block means: a 5×7 matrix with factor 3 becomes 2×3; the last row/column blocks are partial
// and average only the cells they hold; a NaN or inf anywhere in a block makes it NaN.
TEST(DownsampleMean, BlockAveragesWithPartialEdgesAndInvalidCells) {
  constexpr int rows = 5, cols = 7;
  std::vector<float> values = ramp_5x7();
  std::vector<float> out;
  downsample_mean(out, values, rows, cols, 3);
  ASSERT_EQ(out.size(), 6u);
  auto mean_of = [&](int r0, int r1, int c0, int c1) {
    double sum = 0.0;
    for (int r = r0; r < r1; ++r)
      for (int c = c0; c < c1; ++c) sum += values[static_cast<std::size_t>(r * cols + c)];
    return static_cast<float>(sum / ((r1 - r0) * (c1 - c0)));
  };
  EXPECT_FLOAT_EQ(out[0], mean_of(0, 3, 0, 3));
  EXPECT_FLOAT_EQ(out[2], mean_of(0, 3, 6, 7));  // one-column block
  EXPECT_FLOAT_EQ(out[4], mean_of(3, 5, 3, 6));  // two-row block
  EXPECT_FLOAT_EQ(out[5], mean_of(3, 5, 6, 7));  // the 2×1 corner

  values[static_cast<std::size_t>(4 * cols + 0)] = std::numeric_limits<float>::infinity();
  downsample_mean(out, values, rows, cols, 3);
  EXPECT_TRUE(std::isnan(out[3]));
  EXPECT_FALSE(std::isnan(out[4]));

  downsample_mean(out, values, rows, cols, 1);  // factor 1 copies (NaN compares unequal: check bits)
  ASSERT_EQ(out.size(), values.size());
  EXPECT_EQ(std::memcmp(out.data(), values.data(), values.size() * sizeof(float)), 0);
}

// Block maxima over the same blocks as the means: the 5×7 matrix 10·r + c has each block's
// maximum at its bottom-right cell; a NaN or ±inf anywhere in a block makes it NaN (std::max
// alone would let a NaN in a later cell vanish); −inf is invalid too, not a small number.
TEST(DownsampleMax, BlockMaximaWithPartialEdgesAndInvalidCells) {
  constexpr int rows = 5, cols = 7;
  std::vector<float> values = ramp_5x7();
  std::vector<float> out;
  downsample(out, rows_of(values, cols), rows, cols, 3, Pooling::max);
  EXPECT_EQ(out, (std::vector<float>{22, 25, 26, 42, 45, 46}));

  values[static_cast<std::size_t>(1 * cols + 1)] = std::nanf("");  // block (0, 0), not its first cell
  values[static_cast<std::size_t>(4 * cols + 3)] = -std::numeric_limits<float>::infinity();  // block (1, 1)
  downsample(out, rows_of(values, cols), rows, cols, 3, Pooling::max);
  EXPECT_TRUE(std::isnan(out[0]));
  EXPECT_TRUE(std::isnan(out[4]));
  EXPECT_EQ(out[1], 25.0f);
  EXPECT_EQ(out[5], 46.0f);
}

// A map given a row at a time (the dashboard's attention maps are recomputed, not stored) must
// draw, export and downsample exactly like the same cells stored: the SVG (cell rectangles at
// 16², an embedded PNG at 200×150) and the block means are compared byte for byte.
TEST(RowFilledHeatmap, DrawsAndDownsamplesLikeStoredCells) {
  for (const auto& [rows, cols] : {std::pair{16, 16}, std::pair{200, 150}}) {
    std::vector<float> cells;
    const Plot stored = sample_heatmap_plot(rows, cols, cells);
    cells[static_cast<std::size_t>(cols + 1)] = std::nanf("");  // an invalid cell travels too
    Plot filled = stored;
    int rows_asked = 0;
    filled.heatmap->values = {};
    filled.heatmap->fill_row = [&, cols = cols](int row, std::span<float> out) {
      ++rows_asked;
      ASSERT_EQ(out.size(), static_cast<std::size_t>(cols));
      std::copy_n(cells.begin() + static_cast<std::ptrdiff_t>(row) * cols, cols, out.begin());
    };
    EXPECT_TRUE(heatmap_has_cells(*filled.heatmap));
    EXPECT_EQ(to_svg(filled, 560, 400, light_style()), to_svg(stored, 560, 400, light_style())) << rows << "x" << cols;
    EXPECT_EQ(rows_asked, rows) << "each row once for the SVG";

    std::vector<float> from_rows, from_cells;
    downsample(from_rows, filled.heatmap->fill_row, rows, cols, 3);
    downsample_mean(from_cells, cells, rows, cols, 3);
    ASSERT_EQ(from_rows.size(), from_cells.size());
    EXPECT_EQ(std::memcmp(from_rows.data(), from_cells.data(), from_rows.size() * sizeof(float)), 0);
  }
  Heatmap neither;
  neither.rows = neither.cols = 4;
  EXPECT_FALSE(heatmap_has_cells(neither)) << "no values and no fill_row: nothing to draw";
}

// Bands of output rows run as parts (the evaluator runs them on the core's thread pool): here
// every part on a thread of its own, started last part first, against the one-band result, bit
// for bit, for both poolings, with partial edge blocks and NaN cells.
TEST(DownsampleParts, AnyOrderOfConcurrentBandsGivesTheSameBits) {
  constexpr int rows = 1001, cols = 700;  // 700 K cells: 10 bands
  std::vector<float> values(static_cast<std::size_t>(rows) * cols);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = std::sin(0.001f * static_cast<float>(i * i % 100003));
  values[12345] = std::nanf("");
  int parts_run = 0;
  const PartRunner threads_in_reverse = [&](int parts, const std::function<void(int)>& run_part) {
    parts_run = parts;
    std::vector<std::jthread> threads;
    for (int part = parts - 1; part >= 0; --part) threads.emplace_back(run_part, part);
  };
  for (Pooling pooling : {Pooling::mean, Pooling::max})
    for (int factor : {1, 3, 7}) {
      std::vector<float> one_band, bands;
      downsample(one_band, rows_of(values, cols), rows, cols, factor, pooling);
      downsample(bands, rows_of(values, cols), rows, cols, factor, pooling, threads_in_reverse);
      EXPECT_GT(parts_run, 1);
      ASSERT_EQ(one_band.size(), bands.size());
      EXPECT_EQ(std::memcmp(one_band.data(), bands.data(), bands.size() * sizeof(float)), 0)
          << "factor " << factor << (pooling == Pooling::max ? " max" : " mean");
    }
}

TEST(Colorize, BytesAreRgbaInMemoryAndNonFiniteValuesAreInvalid) {
  const std::vector<float> values = {0.0f, 1.0f, std::nanf(""), std::numeric_limits<float>::infinity()};
  std::vector<std::uint32_t> rgba(values.size());
  colorize(rgba, values, 0.0, 1.0, Colormap::Greys);
  const auto bytes = reinterpret_cast<const unsigned char*>(rgba.data());
  EXPECT_EQ(bytes[0], 0);
  EXPECT_EQ(bytes[3], 255);
  EXPECT_EQ(bytes[4], 255);
  EXPECT_EQ(bytes[5], 255);
  const Color invalid = invalid_color();
  for (const std::size_t cell : {2u, 3u}) {
    EXPECT_EQ(bytes[4 * cell], static_cast<unsigned char>(std::lround(invalid.r * 255))) << "cell " << cell;
    EXPECT_EQ(bytes[4 * cell + 1], static_cast<unsigned char>(std::lround(invalid.g * 255))) << "cell " << cell;
  }
}

TEST(SeriesColor, PaletteIsDistinctAndStandsOutFromEveryThemeBackground) {
  for (const auto& [theme, style] : {std::pair{"dark", dark_style()}, std::pair{"light", light_style()},
                                     std::pair{"projector", projector_style()}}) {
    for (int index = 0; index < 7; ++index) {
      const Color color = series_color(index, style);
      EXPECT_GE(contrast_ratio(color, style.background), 3.0f) << theme << " series " << index;
      for (int other = 0; other < index; ++other) {
        EXPECT_NE(color, series_color(other, style)) << theme << " series " << index << " and " << other;
      }
    }
    EXPECT_EQ(series_color(7, style), series_color(0, style)) << theme << ": the palette wraps";
    EXPECT_GE(contrast_ratio(style.text, style.background), 7.0f) << theme << " text";
    EXPECT_GE(contrast_ratio(style.text_dim, style.background), 4.5f) << theme << " dim text";
  }
}

// [SECTION] Layout

struct TextBox {
  std::string text;
  detail::Box box;
};

std::vector<TextBox> text_boxes(const detail::Scene& scene) {
  std::vector<TextBox> boxes;
  for (const auto& shape : scene.shapes) {
    const auto* text = std::get_if<detail::TextShape>(&shape);
    if (text == nullptr) continue;
    const float width = estimate_text_width(text->text, text->size);
    if (text->vertical) {
      boxes.push_back(
          {text->text, {text->origin.x, text->origin.y - width, text->origin.x + text->size, text->origin.y}});
    } else {
      boxes.push_back(
          {text->text, {text->origin.x, text->origin.y, text->origin.x + width, text->origin.y + text->size}});
    }
  }
  return boxes;
}

bool overlap(const detail::Box& a, const detail::Box& b) {
  // Boxes are a full font size tall, taller than the ink: a 1 px touch is not an overlap.
  constexpr float kSlack = 1.0f;
  return a.x0 < b.x1 - kSlack && b.x0 < a.x1 - kSlack && a.y0 < b.y1 - kSlack && b.y0 < a.y1 - kSlack;
}

void expect_text_fits_without_overlap(const Plot& plot, float width, float height, const Style& style,
                                      const char* what) {
  const detail::Scene scene =
      detail::layout_plot(plot, width, height, style, detail::resolved_font_size(style, 15.0f), estimate_text_width);
  const auto boxes = text_boxes(scene);
  SCOPED_TRACE(::testing::Message() << what << " at " << width << "x" << height << ", font " << style.font_size);
  EXPECT_TRUE(scene.has_data_area);
  EXPECT_GE(boxes.size(), 4u);
  for (std::size_t index = 0; index < boxes.size(); ++index) {
    const auto& box = boxes[index].box;
    EXPECT_GE(box.x0, 0.0f) << "'" << boxes[index].text << "' leaves the frame";
    EXPECT_GE(box.y0, 0.0f) << "'" << boxes[index].text << "' leaves the frame";
    EXPECT_LE(box.x1, width) << "'" << boxes[index].text << "' leaves the frame";
    EXPECT_LE(box.y1, height) << "'" << boxes[index].text << "' leaves the frame";
    for (std::size_t other = 0; other < index; ++other) {
      EXPECT_FALSE(overlap(box, boxes[other].box))
          << "'" << boxes[index].text << "' overlaps '" << boxes[other].text << "'";
    }
  }
}

TEST(Layout, TextStaysInsideTheFrameAndNeverOverlapsAtDashboardAndSmallSizes) {
  Plot log_plot = sample_plot();
  log_plot.x.scale = Scale::Log10;
  log_plot.title = "A rather long title that has to be shortened when the plot is small";
  Plot wide_numbers;
  wide_numbers.title = "Overflow";
  wide_numbers.x.label = "score";
  wide_numbers.y.label = "probability";
  wide_numbers.lines.push_back(LineSeries{"naive", {-1234567.0, 7654321.0}, {1e-300, 0.123456789}});
  std::vector<float> square_cells, flat_cells, big_cells;
  const std::vector<std::pair<Plot, const char*>> plots = {
      {sample_plot(), "series plot"},
      {log_plot, "log x plot"},
      {wide_numbers, "wide numbers"},
      {sample_heatmap_plot(16, 16, square_cells), "square heatmap"},
      {sample_heatmap_plot(3, 40, flat_cells), "flat heatmap"},
      {sample_heatmap_plot(1024, 1024, big_cells), "big heatmap"}};
  const std::vector<std::pair<float, float>> sizes = {{560, 400}, {300, 220}, {800, 500}, {240, 180}};
  for (const auto& [plot, what] : plots) {
    for (const auto& [width, height] : sizes) {
      for (const auto& style : {dark_style(), projector_style()}) {
        expect_text_fits_without_overlap(plot, width, height, style, what);
      }
    }
  }
}

// A title that needs three lines at the title size is set smaller (down to 0.87×, about the body
// text's size) before it is shortened: at every width where two lines at that size hold it, the
// whole title is shown and the report names nothing; where two lines at the full size hold it,
// the full size is kept. (A live "第 0 行的 softmax（T = 61.1，H = 2.773 nats）" at 1152 px was cut.)
TEST(Layout, ALongTitleIsSetSmallerBeforeItIsShortened) {
  Plot plot = sample_plot();
  plot.title = "Softmax of row 0 (T = 61.1, H = 2.773 nats) at the current temperature";
  const float font = 15.0f, title_size = 1.15f * font;
  const Style style = light_style();
  const auto fits_in_two_lines = [&](float width, float size) {
    const auto lines = wrap_text(plot.title, width - 2.0f * style.padding,
                                 [&](std::string_view piece) { return estimate_text_width(piece, size); });
    return lines.size() <= 2;
  };
  int smaller = 0;
  for (float width = 160.0f; width <= 700.0f; width += 4.0f) {
    const auto scene = detail::layout_plot(plot, width, 400.0f, style, font, estimate_text_width);
    std::string shown;
    float size = 0.0f;
    for (const auto& shape : scene.shapes)
      if (const auto* text = std::get_if<detail::TextShape>(&shape); text && text->role == TextRole::Title) {
        shown += shown.empty() ? text->text : " " + text->text;
        size = text->size;
      }
    const bool shortened = std::any_of(scene.problems.begin(), scene.problems.end(),
                                       [](const std::string& problem) { return problem.find("title shortened") == 0; });
    if (fits_in_two_lines(width, title_size)) {
      EXPECT_FLOAT_EQ(size, title_size) << "at " << width << " px";
    } else if (fits_in_two_lines(width, 0.87f * title_size)) {
      EXPECT_EQ(shown, plot.title) << "at " << width << " px";
      EXPECT_FALSE(shortened) << "at " << width << " px";
      EXPECT_LT(size, title_size) << "at " << width << " px";
      ++smaller;
    }
  }
  EXPECT_GT(smaller, 0) << "no width needed the smaller size: the test checks nothing new";
}

TEST(Layout, AxisMapRoundTripsOnLinearAndLogAxes) {
  const detail::AxisMap linear{-2.0, 6.0, 100.0f, 500.0f, Scale::Linear};
  EXPECT_FLOAT_EQ(linear.to_px(2.0), 300.0f);
  EXPECT_NEAR(linear.to_data(linear.to_px(1.25)), 1.25, 1e-5);
  const detail::AxisMap log{1.0, 1000.0, 400.0f, 100.0f, Scale::Log10};
  EXPECT_FLOAT_EQ(log.to_px(10.0), 300.0f);
  EXPECT_NEAR(log.to_data(log.to_px(42.0)), 42.0, 1e-3);
  EXPECT_TRUE(std::isnan(log.to_px(0.0))) << "a log axis cannot show 0";
  EXPECT_TRUE(std::isnan(linear.to_px(std::nan(""))));
}

TEST(Layout, AutomaticLogRangeSnapsToDecadesAndLinearRangeKeepsBarsOnTheirBaseline) {
  Plot plot;
  plot.x.scale = Scale::Log10;
  plot.lines.push_back(LineSeries{"", {3.0, 4096.0}, {0.0, 1.0}});
  plot.bars.push_back(BarSeries{"", {100.0}, {2.0}});
  const auto scene = detail::layout_plot(plot, 560, 400, light_style(), 15.0f, estimate_text_width);
  EXPECT_DOUBLE_EQ(scene.x_map.data_lo, 1.0);
  EXPECT_DOUBLE_EQ(scene.x_map.data_hi, 10000.0);
  EXPECT_DOUBLE_EQ(scene.y_map.data_lo, 0.0) << "bars start at 0: no padding below";
  EXPECT_GT(scene.y_map.data_hi, 2.0);
}

// 1024 bars in a ~500-pixel plot are ~0.4 px wide each; every bar is widened to one (scaled)
// pixel around its centre, or a rasteriser without antialiasing leaves most of them, and the
// one tall bar of a one-hot row, unpainted. Wide bars keep their width.
TEST(Layout, ThinBarsAreAtLeastOnePixelWideAroundTheirCentre) {
  for (const auto& [count, style] :
       {std::pair{1024, light_style()}, std::pair{16, light_style()}, std::pair{1024, projector_style()}}) {
    Plot plot;
    BarSeries bars;
    for (int j = 0; j < count; ++j) {
      bars.x.push_back(j);
      bars.y.push_back(j == count / 2 ? 0.99 : 0.0);
    }
    bars.width = 0.8;
    plot.bars.push_back(bars);
    const auto scene = detail::layout_plot(plot, 560, 400, style, 15.0f, estimate_text_width);
    const float one_pixel = style.line_scale;
    const float natural = static_cast<float>(std::abs(scene.x_map.to_px(0.8) - scene.x_map.to_px(0.0)));
    int rects = 0;
    for (const auto& shape : scene.shapes) {
      const auto* rect = std::get_if<detail::RectShape>(&shape);
      // The tall bar: from the baseline up to 0.99 (the zero-height bars, background and frame are not).
      if (rect == nullptr || std::abs(rect->box.y0 - scene.y_map.to_px(0.99)) > 1e-3f ||
          std::abs(rect->box.y1 - scene.y_map.to_px(0.0)) > 1e-3f)
        continue;
      ++rects;
      const float centre = scene.x_map.to_px(count / 2);
      if (natural >= one_pixel) {
        EXPECT_NEAR(rect->box.width(), natural, 1e-3f) << count << " bars";
        EXPECT_NEAR(0.5f * (rect->box.x0 + rect->box.x1), centre, 1e-3f) << count << " bars";
      } else {
        // Dense bars are drawn as whole pixel columns (the pixel centres the widened bar covers).
        EXPECT_NEAR(rect->box.width(), one_pixel, 1.0f) << count << " bars";
        EXPECT_GE(rect->box.width(), 1.0f) << count << " bars";
        EXPECT_TRUE(rect->box.x0 <= centre && centre <= rect->box.x1) << count << " bars";
      }
    }
    EXPECT_EQ(rects, 1) << count << " bars";
  }
}

// Dense bars (4096 in 560 px) of one colour are drawn as runs of pixel columns, not one rectangle
// per bar, and fill exactly the pixel centres the separate (widened) bars would: each bar covers
// centres x + 0.5 in [centre − w/2, centre + w/2) and y + 0.5 between its top and the baseline.
TEST(Layout, DenseBarsFillTheSamePixelsInFewerRectangles) {
  for (const auto& style : {light_style(), projector_style()}) {
    Plot plot;
    BarSeries bars;
    const int count = 4096;
    for (int j = 0; j < count; ++j) {
      bars.x.push_back(j);
      bars.y.push_back(0.5 + 0.45 * std::sin(0.01 * j) * std::cos(0.37 * j) - (j % 97 == 0 ? 0.8 : 0.0));
    }
    bars.width = 0.8;
    plot.bars.push_back(bars);
    const auto scene = detail::layout_plot(plot, 560, 400, style, 15.0f, estimate_text_width);
    const float one_pixel = style.line_scale;
    const float base = scene.y_map.to_px(0.0);
    // Expected: the union of the per-bar rectangles, as sets of pixel centres.
    std::set<std::pair<int, int>> expected, drawn;
    auto fill = [](std::set<std::pair<int, int>>& pixels, float x0, float y0, float x1, float y1) {
      for (int x = static_cast<int>(std::floor(x0)) - 1; x <= static_cast<int>(std::ceil(x1)); ++x)
        for (int y = static_cast<int>(std::floor(y0)) - 1; y <= static_cast<int>(std::ceil(y1)); ++y)
          if (x + 0.5f >= x0 && x + 0.5f < x1 && y + 0.5f >= y0 && y + 0.5f < y1) pixels.insert({x, y});
    };
    for (int j = 0; j < count; ++j) {
      const float centre = 0.5f * (scene.x_map.to_px(j - 0.4) + scene.x_map.to_px(j + 0.4));
      const float top = scene.y_map.to_px(bars.y[static_cast<std::size_t>(j)]);
      fill(expected, centre - 0.5f * one_pixel, std::min(top, base), centre + 0.5f * one_pixel, std::max(top, base));
    }
    int rects = 0;
    const Color bar_fill = detail::bar_color(plot, 0, style);
    for (const auto& shape : scene.shapes) {
      const auto* rect = std::get_if<detail::RectShape>(&shape);
      if (rect == nullptr || !rect->fill || *rect->fill != bar_fill || rect->stroke) continue;
      ++rects;
      fill(drawn, rect->box.x0, rect->box.y0, rect->box.x1, rect->box.y1);
    }
    EXPECT_EQ(drawn, expected);
    EXPECT_GT(rects, 0);
    EXPECT_LE(rects, 600) << "one rectangle per run of pixel columns, not one per bar";
  }
}

// The dashboard's maps at L = 4096 in a ~130-pixel data area: the key axis used to get the single
// tick "0" (two ticks allowed, nicest step 5000). It must name at least two keys, and stay clear
// of overlaps (those are thinned).
TEST(Layout, NarrowHeatmapAxisOfThousandsOfCellsLabelsAtLeastTwoKeys) {
  Plot plot;
  Heatmap map;
  map.rows = map.cols = 4096;
  map.fill_row = [](int, std::span<float> out) { std::fill(out.begin(), out.end(), 0.5f); };
  map.x_label = "key j";
  map.y_label = "query i";
  plot.heatmap = map;
  for (float width : {200.0f, 260.0f, 400.0f}) {
    const auto scene = detail::layout_plot(plot, width, 420, dark_style(), 15.0f, estimate_text_width);
    std::vector<std::string> numbers;
    for (const auto& shape : scene.shapes)
      if (const auto* text = std::get_if<detail::TextShape>(&shape);
          text != nullptr && !text->vertical && text->origin.y > scene.data_area.y1 && !text->text.empty() &&
          std::all_of(text->text.begin(), text->text.end(),
                      [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
        numbers.push_back(text->text);  // a column tick label, below the cells
    EXPECT_GE(numbers.size(), 2u) << "width " << width << ": " << (numbers.empty() ? "" : numbers.front());
  }
}

// The entropy-versus-d_k axis chooses its ticks, 1 to 4096 by factors of 4. Thinned to fit a narrow
// plot, it kept every other or every fourth label from the left, so it could read "1  256" with the
// end of the sweep unlabelled. At every width its first and last labels stay, and none overlap.
TEST(Layout, AnAxisWithChosenTicksKeepsBothEndsLabelledWhenThinned) {
  Plot plot;
  plot.x.scale = Scale::Log10;
  plot.x.min = 1.0;
  plot.x.max = 4096.0;
  plot.x.tick_values = {1, 4, 16, 64, 256, 1024, 4096};
  LineSeries line;
  line.x = {1, 64, 4096};
  line.y = {2.4, 0.4, 0.05};
  plot.lines.push_back(line);
  int thinned = 0;
  for (float width = 140.0f; width <= 700.0f; width += 20.0f) {
    for (const float font : {15.0f, 22.5f}) {
      const auto scene = detail::layout_plot(plot, width, 320.0f, light_style(), font, estimate_text_width);
      std::vector<const detail::TextShape*> labels;
      for (const auto& shape : scene.shapes)
        if (const auto* text = std::get_if<detail::TextShape>(&shape);
            text != nullptr && text->role == TextRole::TickLabel && !text->vertical &&
            text->origin.y > scene.data_area.y1 && !text->text.empty())
          labels.push_back(text);
      std::sort(labels.begin(), labels.end(),
                [](const detail::TextShape* a, const detail::TextShape* b) { return a->origin.x < b->origin.x; });
      SCOPED_TRACE(::testing::Message() << "width " << width << ", font " << font);
      if (labels.size() < 2) continue;  // too narrow for two labels: nothing to keep
      if (labels.size() < 7) ++thinned;
      EXPECT_EQ(labels.front()->text, "1");
      EXPECT_EQ(labels.back()->text, "4096");
      for (std::size_t k = 1; k < labels.size(); ++k)
        EXPECT_GT(labels[k]->origin.x, labels[k - 1]->origin.x + labels[k - 1]->width)
            << labels[k - 1]->text << " and " << labels[k]->text << " overlap";
    }
  }
  EXPECT_GT(thinned, 3) << "the widths tried must include thinned axes";
}

// A heatmap in a narrow panel (a 1024-pixel window's dashboard gives each map ~150 px) still
// draws its grid and title: the side labels give way first. It used to return a blank panel.
TEST(Layout, NarrowHeatmapDropsSideLabelsButKeepsGridAndTitle) {
  std::vector<float> cells(16 * 16, 0.5f);
  Plot plot;
  plot.title = "softmax(QK^T)";
  Heatmap map;
  map.rows = map.cols = 16;
  map.values = cells;
  map.colorbar_label = "weight";
  map.x_label = "key j";
  map.y_label = "query i";
  plot.heatmap = map;
  auto count = [](const detail::Scene& scene, auto predicate) {
    return std::count_if(scene.shapes.begin(), scene.shapes.end(), [&](const auto& shape) { return predicate(shape); });
  };
  for (float width : {150.0f, 400.0f}) {
    const auto scene = detail::layout_plot(plot, width, 280, light_style(), 15.0f, estimate_text_width);
    EXPECT_EQ(count(scene, [](const auto& s) { return std::holds_alternative<detail::HeatmapShape>(s); }), 1)
        << "width " << width;
    EXPECT_GT(scene.data_area.width(), 15.0f) << "width " << width;
    const auto texts = count(scene, [](const auto& s) {
      const auto* text = std::get_if<detail::TextShape>(&s);
      return text != nullptr && (text->text == "query i" || text->text == "weight");
    });
    EXPECT_EQ(texts, width < 200.0f ? 0 : 2) << "width " << width;
  }
}

// A framed cell (the training task's ideal weight over the model's map) gets a dark and a light
// frame inside that cell, whatever its colour; a cell off the map is ignored, and cells too small
// to hold a frame around some of their colour get none.
TEST(Layout, AFramedCellIsOutlinedInsideItsOwnCell) {
  std::vector<float> cells(9 * 9, 0.1f);
  Plot plot;
  Heatmap map;
  map.rows = map.cols = 9;
  map.values = cells;
  map.framed_cells = {{8, 0}, {2, 5}, {9, 0}, {-1, 3}};
  plot.heatmap = map;
  const auto frames = [](const detail::Scene& scene) {
    std::vector<detail::RectShape> found;
    for (const auto& shape : scene.shapes)
      if (const auto* rect = std::get_if<detail::RectShape>(&shape);
          rect != nullptr && !rect->fill && rect->stroke && rect->box.width() < scene.data_area.width() - 1.0f &&
          scene.data_area.contains({rect->box.x0, rect->box.y0}) &&
          scene.data_area.contains({rect->box.x1, rect->box.y1}))
        found.push_back(*rect);
    return found;
  };
  const auto scene = detail::layout_plot(plot, 400, 400, light_style(), 15.0f, estimate_text_width);
  ASSERT_TRUE(scene.has_data_area);
  const std::vector<detail::RectShape> drawn = frames(scene);
  ASSERT_EQ(drawn.size(), 4u) << "two strokes for each of the two cells on the map";
  const float cell = scene.data_area.width() / 9.0f;
  for (const auto& [index, row, col] : {std::tuple{0, 8, 0}, std::tuple{2, 2, 5}}) {
    const detail::Box own{scene.data_area.x0 + cell * static_cast<float>(col),
                          scene.data_area.y0 + cell * static_cast<float>(row),
                          scene.data_area.x0 + cell * static_cast<float>(col + 1),
                          scene.data_area.y0 + cell * static_cast<float>(row + 1)};
    for (const int k : {index, index + 1}) {
      const detail::Box& box = drawn[static_cast<std::size_t>(k)].box;
      EXPECT_GE(box.x0, own.x0) << "cell (" << row << ", " << col << ")";
      EXPECT_GE(box.y0, own.y0) << "cell (" << row << ", " << col << ")";
      EXPECT_LE(box.x1, own.x1) << "cell (" << row << ", " << col << ")";
      EXPECT_LE(box.y1, own.y1) << "cell (" << row << ", " << col << ")";
      EXPECT_GT(box.width(), 0.3f * cell) << "the frame leaves the cell's colour inside it";
    }
    const float dark = drawn[static_cast<std::size_t>(index)].stroke->r;
    const float light = drawn[static_cast<std::size_t>(index) + 1].stroke->r;
    EXPECT_LT(dark, 0.2f);
    EXPECT_GT(light, 0.8f);
  }
  // 128 cells in under 400 px: no room for a frame around any colour.
  std::vector<float> many(128 * 128, 0.1f);
  plot.heatmap->rows = plot.heatmap->cols = 128;
  plot.heatmap->values = many;
  plot.heatmap->framed_cells = {{0, 0}};
  const auto small = detail::layout_plot(plot, 400, 400, light_style(), 15.0f, estimate_text_width);
  ASSERT_TRUE(small.has_data_area);
  EXPECT_TRUE(frames(small).empty());
}

TEST(Layout, ExplicitLimitsAreKeptExactly) {
  Plot plot;
  plot.x.min = -1.0;
  plot.x.max = 3.0;
  plot.y.min = 0.0;
  plot.y.max = 1.0;
  plot.lines.push_back(LineSeries{"", {0.0, 100.0}, {-5.0, 5.0}});
  const auto scene = detail::layout_plot(plot, 400, 300, light_style(), 15.0f, estimate_text_width);
  EXPECT_EQ(scene.x_map.data_lo, -1.0);
  EXPECT_EQ(scene.x_map.data_hi, 3.0);
  EXPECT_EQ(scene.y_map.data_lo, 0.0);
  EXPECT_EQ(scene.y_map.data_hi, 1.0);
}

TEST(Layout, LinesBreakAtNanAndDenseLinesAreThinnedToPixelColumns) {
  Plot plot;
  LineSeries dense;
  for (int index = 0; index < 100000; ++index) {
    dense.x.push_back(index);
    dense.y.push_back(std::sin(index * 0.01));
  }
  dense.y[50000] = std::nan("");
  plot.lines.push_back(dense);
  const auto scene = detail::layout_plot(plot, 560, 400, dark_style(), 15.0f, estimate_text_width);
  std::size_t polylines = 0, points = 0;
  for (const auto& shape : scene.shapes) {
    if (const auto* line = std::get_if<detail::PolylineShape>(&shape); line && line->points.size() > 100) {
      ++polylines;
      points += line->points.size();
    }
  }
  EXPECT_EQ(polylines, 2u) << "the NaN splits the line in two";
  EXPECT_LE(points, 4u * 560u) << "at most two points per px column and run";
}

// [SECTION] SVG

TEST(Svg, SeriesPlotIsWellFormedAndCarriesEveryText) {
  for (const auto& style : {dark_style(), light_style(), projector_style()}) {
    const std::string svg = to_svg(sample_plot(), 560, 400, style);
    EXPECT_EQ(xml_problem(svg), "") << svg.substr(0, 400);
    EXPECT_EQ(svg.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>", 0), 0u);
    EXPECT_NE(svg.find("version=\"1.1\""), std::string::npos);
    const auto texts = svg_texts(svg);
    for (const char* wanted : {"Entropy versus temperature", "temperature T", "entropy (nats)", "scaled", "unscaled",
                               "weights", "samples", "log L"}) {
      EXPECT_TRUE(contains_text(texts, wanted)) << "missing '" << wanted << "' among " << join(texts);
    }
    EXPECT_NE(svg.find("stroke-dasharray"), std::string::npos) << "the dashed line";
    EXPECT_NE(svg.find("<polygon"), std::string::npos) << "the error band and the diamond";
  }
}

TEST(Svg, MarkupCharactersInLabelsAreEscapedAndUtf8IsKept) {
  Plot plot = sample_plot();
  plot.title = "a < b & c";
  plot.x.label = "\"quoted\" > 'single'";
  plot.lines[0].label = "温度 T";
  const std::string svg = to_svg(plot, 560, 400, light_style());
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_EQ(svg.find("a < b"), std::string::npos);
  EXPECT_NE(svg.find("a &lt; b &amp; c"), std::string::npos);
  const auto texts = svg_texts(svg);
  EXPECT_TRUE(contains_text(texts, "a < b & c")) << join(texts);
  EXPECT_TRUE(contains_text(texts, "\"quoted\" > 'single'")) << join(texts);
  EXPECT_TRUE(contains_text(texts, "温度 T")) << join(texts);
}

TEST(Svg, SmallHeatmapHasOneRectPerCellAndAColorbar) {
  std::vector<float> cells;
  Plot plot = sample_heatmap_plot(3, 4, cells);
  cells[5] = std::nanf("");
  const std::string svg = to_svg(plot, 560, 400, dark_style());
  EXPECT_EQ(xml_problem(svg), "");
  const std::size_t group = svg.find("<g class=\"heatmap\"");
  ASSERT_NE(group, std::string::npos);
  const std::size_t group_end = svg.find("</g>", group);
  EXPECT_EQ(count_of(svg, "<rect", group, group_end), 12u);
  EXPECT_EQ(count_of(svg, to_hex(invalid_color()).text, group, group_end), 1u) << "the NaN cell";
  EXPECT_NE(svg.find("<linearGradient"), std::string::npos);
  const auto texts = svg_texts(svg);
  for (const char* wanted : {"Attention weights", "key position", "query position", "weight"}) {
    EXPECT_TRUE(contains_text(texts, wanted)) << "missing '" << wanted << "' among " << join(texts);
  }
}

TEST(Svg, BigHeatmapIsOneEmbeddedPng) {
  std::vector<float> cells;
  const std::string svg = to_svg(sample_heatmap_plot(200, 150, cells), 560, 400, light_style());
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_EQ(svg.find("<g class=\"heatmap\""), std::string::npos);
  const std::size_t image = svg.find("data:image/png;base64,iVBORw0KGgo");  // base64 of the PNG signature
  EXPECT_NE(image, std::string::npos);
  EXPECT_LT(svg.size(), 400000u);
}

TEST(Svg, EmptyAndDegeneratePlotsStillGiveValidDocuments) {
  EXPECT_EQ(xml_problem(to_svg(Plot{}, 300, 220, dark_style())), "");
  Plot empty_heatmap;
  empty_heatmap.heatmap = Heatmap{};
  EXPECT_EQ(xml_problem(to_svg(empty_heatmap, 300, 220, dark_style())), "");
  EXPECT_EQ(xml_problem(to_svg(sample_plot(), 40, 30, dark_style())), "") << "too small for axes";
  Plot flat = sample_plot();
  flat.lines = {LineSeries{"flat", {1, 1}, {2, 2}}};
  EXPECT_EQ(xml_problem(to_svg(flat, 300, 220, dark_style())), "");
}

// [SECTION] Screen renderer smoke test (ImGui without a backend)

// An ImGui context with a built font atlas and a display, enough to record draw lists.
class HeadlessImGui : public ::testing::Test {
 protected:
  void SetUp() override {
    context_ = ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(1600, 900);
    io.DeltaTime = 1.0f / 60.0f;
    io.IniFilename = nullptr;
    unsigned char* pixels = nullptr;
    int width = 0, height = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &width, &height);
  }
  void TearDown() override { ImGui::DestroyContext(context_); }

  // Draws `plot` in a window with the mouse at `mouse` (screen px); returns the vertex count.
  int render(const Plot& plot, ImVec2 size, ImVec2 mouse, Interaction* interaction = nullptr) {
    int vertices = 0;
    for (int frame = 0; frame < 2; ++frame) {  // hover needs one frame to know the item
      ImGui::GetIO().MousePos = mouse;
      ImGui::NewFrame();
      ImGui::SetNextWindowPos(ImVec2(0, 0));
      ImGui::SetNextWindowSize(ImVec2(1600, 900));
      ImGui::Begin("plots", nullptr, ImGuiWindowFlags_NoDecoration);
      const Interaction result = draw("plot", plot, size, dark_style());
      if (interaction != nullptr) *interaction = result;
      ImGui::End();
      ImGui::Render();
      vertices = ImGui::GetDrawData()->TotalVtxCount;
    }
    return vertices;
  }

  ImGuiContext* context_ = nullptr;
};

TEST_F(HeadlessImGui, SeriesPlotDrawsAndHoverFindsTheNearestPoint) {
  Plot plot = sample_plot();
  Interaction interaction;
  // Hover the middle of the window; the nearest data point may or may not be in reach.
  const int vertices = render(plot, ImVec2(560, 400), ImVec2(300, 200), &interaction);
  EXPECT_GT(vertices, 500);
  EXPECT_LT(vertices, 60000) << "keep a plot well inside 16-bit indices";
  EXPECT_TRUE(interaction.hovered);
}

TEST_F(HeadlessImGui, HeatmapWithoutTextureDrawsCellsAndReportsTheHoveredCell) {
  std::vector<float> cells;
  Plot plot = sample_heatmap_plot(8, 8, cells);
  Interaction interaction;
  const int vertices = render(plot, ImVec2(560, 400), ImVec2(280, 200), &interaction);
  EXPECT_GT(vertices, 64 * 4);
  EXPECT_GE(interaction.heatmap_row, 0);
  EXPECT_GE(interaction.heatmap_col, 0);
}

TEST_F(HeadlessImGui, ZeroSizeFillsTheWindowAndTinySizesDoNotCrash) {
  EXPECT_GT(render(sample_plot(), ImVec2(0, 0), ImVec2(-1, -1)), 500);
  render(sample_plot(), ImVec2(20, 10), ImVec2(5, 5));
  std::vector<float> cells;
  render(sample_heatmap_plot(512, 512, cells), ImVec2(300, 220), ImVec2(150, 110));
}

}  // namespace

namespace {

// A heatmap shows its quantity's fixed range or its data's range, as chosen per
// heatmap; the colorbar labels both ends of the range in use.
TEST(ColorScales, FixedOrAutoRangeAndTheColorbarShowsItsEnds) {
  Heatmap map;
  map.rows = map.cols = 2;
  const std::vector<float> cells{0.01f, 0.02f, 0.03f, 0.0137f};
  map.values = cells;
  map.vmin = 0.0;
  map.vmax = 0.03;  // the builder's auto (data) range
  map.fixed_range = weight_range;
  apply_color_scale(map, ColorScale::Fixed);
  EXPECT_EQ(map.vmin, 0.0);
  EXPECT_EQ(map.vmax, 1.0);
  EXPECT_EQ(map.scale, ColorScale::Fixed);
  apply_color_scale(map, ColorScale::Auto);  // back to the data's range, remembered
  EXPECT_EQ(map.vmax, 0.03);
  EXPECT_EQ(map.scale, ColorScale::Auto);

  ColorScales scales;
  EXPECT_EQ(scales.scale("positions/alibi", ColorScale::Auto), ColorScale::Auto);
  scales.lesson_open = true;  // lessons compare steps: fixed unless the user chose
  EXPECT_EQ(scales.scale("positions/alibi", ColorScale::Auto), ColorScale::Fixed);
  scales.chosen["positions/alibi"] = ColorScale::Auto;
  EXPECT_EQ(scales.scale("positions/alibi", ColorScale::Fixed), ColorScale::Auto);

  Plot plot;
  plot.heatmap = map;
  EXPECT_TRUE(apply_color_scales(plot, "positions/alibi", scales) == false);  // already auto
  scales.chosen["positions/alibi"] = ColorScale::Fixed;
  EXPECT_TRUE(apply_color_scales(plot, "positions/alibi", scales));
  const auto colorbar_labels = [&](const Plot& shown) {
    const detail::Scene scene =
        detail::layout_plot(shown, 480.0f, 360.0f, dark_style(), 13.0f,
                            [](std::string_view text, float size) { return estimate_text_width(text, size); });
    std::vector<std::string> labels;
    for (const auto& shape : scene.shapes)
      if (const auto* text = std::get_if<detail::TextShape>(&shape);
          text != nullptr && text->origin.x > scene.data_area.x1 + 10.0f && !text->vertical)
        labels.push_back(text->text);
    return labels;
  };
  const auto fixed_labels = colorbar_labels(plot);
  EXPECT_NE(std::find(fixed_labels.begin(), fixed_labels.end(), "1"), fixed_labels.end());
  EXPECT_NE(std::find(fixed_labels.begin(), fixed_labels.end(), "0"), fixed_labels.end());
  scales.chosen["positions/alibi"] = ColorScale::Auto;
  apply_color_scales(plot, "positions/alibi", scales);
  const auto auto_labels = colorbar_labels(plot);
  EXPECT_NE(std::find(auto_labels.begin(), auto_labels.end(), "0.03"), auto_labels.end());  // the top end itself
  EXPECT_EQ(std::find(auto_labels.begin(), auto_labels.end(), "1"), auto_labels.end());
}

// The layout report lists where data is drawn, and a legend placed over bars that fill
// every corner is caught by covering_data(); the layout moves it off the data instead.
TEST(LegendPlacement, NoCornerFreeOfDataMovesTheLegendOffTheData) {
  Plot plot;
  BarSeries bars;
  bars.label = "weights";
  for (int i = 0; i < 16; ++i) {
    bars.x.push_back(i);
    bars.y.push_back(1.0);  // every bar reaches the top: no corner is free
  }
  plot.bars.push_back(bars);
  plot.lines.push_back({.label = "uniform 1/n", .x = {0.0, 15.0}, .y = {0.0625, 0.0625}});
  const detail::Scene scene =
      detail::layout_plot(plot, 480.0f, 260.0f, dark_style(), 15.0f,
                          [](std::string_view text, float size) { return estimate_text_width(text, size); });
  ASSERT_TRUE(scene.legend_box.has_value());
  ASSERT_FALSE(scene.data_marks.empty());
  PlotRecord record;
  for (const auto& mark : scene.data_marks) record.data_marks.push_back({mark.x0, mark.y0, mark.x1, mark.y1});
  record.legend_box = ScreenBox{scene.legend_box->x0, scene.legend_box->y0, scene.legend_box->x1, scene.legend_box->y1};
  EXPECT_TRUE(covering_data(record).empty()) << "legend at " << record.legend_box->x0 << "," << record.legend_box->y0;
  // The check itself: the same legend box over the bars is reported.
  record.legend_box = ScreenBox{scene.data_area.x0 + 2.0f, scene.data_area.y0 + 2.0f, scene.data_area.x0 + 80.0f,
                                scene.data_area.y0 + 40.0f};
  ASSERT_EQ(covering_data(record).size(), 1u);
  EXPECT_EQ(covering_data(record)[0], "legend covers data");
}

// An annotation anchored on a reference line ("L = 2.317" where the loss curve crosses the dashed
// "now" line) sits beside the line, label_clearance() from it, not struck through by it.
TEST(AnnotationPlacement, KeepsOffAReferenceLineThroughItsAnchor) {
  Plot plot;
  plot.x = {.min = -10.0, .max = 10.0};
  plot.y = {.min = 0.0, .max = 10.0};
  plot.legend = LegendPos::None;
  plot.vlines.push_back({0.0, "", std::nullopt, true});
  plot.annotations.push_back({0.0, 5.0, "L = 2.317", std::nullopt, TextAlign::Left});
  const float font = 15.0f;
  const detail::Scene scene = detail::layout_plot(plot, 480.0f, 300.0f, dark_style(), font, estimate_text_width);
  const detail::TextShape* label = nullptr;
  for (const auto& shape : scene.shapes)
    if (const auto* text = std::get_if<detail::TextShape>(&shape); text != nullptr && text->text == "L = 2.317")
      label = text;
  ASSERT_NE(label, nullptr);
  const detail::Box box = detail::text_box(*label);
  const float line = scene.x_map.to_px(0.0);
  EXPECT_TRUE(box.x0 >= line + 1.0f + label_clearance(font) || box.x1 <= line - 1.0f - label_clearance(font))
      << "label " << box.x0 << ".." << box.x1 << " on the line at " << line;
  // Still near its anchor: within three lines of its height.
  EXPECT_LT(std::abs(0.5f * (box.y0 + box.y1) - scene.y_map.to_px(5.0)), 3.0f * 1.1f * font);
}

// An annotation keeps label_clearance() from every data mark ("k0 θ=16.3°" sat 0.7 px
// above the q arrow's dot in homework step 9), covering_data() reports one that comes nearer
// ("touches data"), and of the free places the label takes the one nearest its anchor (a vector's
// label went a dozen lines up, beside another vector, before it tried a side).
TEST(AnnotationPlacement, KeepsClearOfTheDataAndNearItsAnchor) {
  Plot plot;
  plot.x = {.min = -1.0, .max = 1.0};
  plot.y = {.min = -1.0, .max = 1.0};
  plot.legend = LegendPos::None;
  plot.annotations.push_back({0.0, 0.5, "k0  theta=16.3", std::nullopt, TextAlign::Left});
  const float font = 15.0f;
  const auto lay = [&] {
    return detail::layout_plot(plot, 480.0f, 480.0f, dark_style(), font,
                               [](std::string_view text, float size) { return estimate_text_width(text, size); });
  };
  // A dot whose top lies 0.5 px under where the label sits unmoved (centred on its anchor's row).
  const float half = 5.0f * dark_style().marker_scale;
  const detail::AxisMap y_map = lay().y_map;
  const double dot_y = 0.5 - (0.5 * font + half + 0.5) / (y_map.to_px(0.0) - y_map.to_px(1.0));
  plot.scatters.push_back({.label = "q", .x = {0.2}, .y = {dot_y}, .radius = 5.0f});
  const detail::Scene scene = lay();
  PlotRecord record;
  record.font_size = font;
  for (const auto& mark : scene.data_marks) record.data_marks.push_back({mark.x0, mark.y0, mark.x1, mark.y1});
  std::optional<PlacedText> label;
  for (const auto& shape : scene.shapes)
    if (const auto* text = std::get_if<detail::TextShape>(&shape); text != nullptr && text->text == "k0  theta=16.3") {
      const detail::Box box = detail::text_box(*text);
      label = PlacedText{text->text, TextRole::DataLabel, box.x0, box.y0, box.x1, box.y1};
    }
  ASSERT_TRUE(label.has_value());
  record.texts.push_back(*label);
  EXPECT_TRUE(covering_data(record, true).empty())
      << "label at " << label->x0 << "," << label->y0 << ".." << label->x1 << "," << label->y1;
  // Near its anchor: within three lines of it.
  const float anchor_y = scene.y_map.to_px(0.5);
  EXPECT_LT(std::abs(0.5f * (label->y0 + label->y1) - anchor_y), 3.0f * 1.1f * font) << "label at y " << label->y0;
  // The check itself: the same label moved onto the dot's top edge touches it, and over it covers it.
  const detail::Point dot{scene.x_map.to_px(0.2), scene.y_map.to_px(dot_y)};
  PlacedText touching = *label;
  touching.y1 = dot.y - half - 0.5f;
  touching.y0 = touching.y1 - font;
  touching.x0 = dot.x - 40.0f;
  touching.x1 = dot.x + 40.0f;
  record.texts = {touching};
  ASSERT_EQ(covering_data(record, true).size(), 1u);
  EXPECT_NE(covering_data(record, true)[0].find("touches data"), std::string::npos) << covering_data(record, true)[0];
  touching.y1 = dot.y;
  record.texts = {touching};
  ASSERT_EQ(covering_data(record, true).size(), 1u);
  EXPECT_NE(covering_data(record, true)[0].find("covers data"), std::string::npos) << covering_data(record, true)[0];
}

// A reference line's label keeps off the data where there is room: H(T) flat near the top of the
// plot with its marker at T = 1 (the dashboard's entropy plot), where the first place tried, at
// the top beside the line, lay on the curve and the marker at 720p.
// H(T)-like: rises over T = 0.01 … 100 and is flat at `plateau` from T ≈ 1 (the dashboard's curve).
LineSeries rising_to(double plateau) {
  LineSeries curve{.label = "H(T)"};
  for (int i = 0; i <= 40; ++i) {
    const double t = std::pow(10.0, -2.0 + 4.0 * i / 40.0);
    curve.x.push_back(t);
    curve.y.push_back(plateau * t * t / (t * t + 0.05));
  }
  return curve;
}

TEST(ReferenceLineLabels, KeepOffTheDataWhereThereIsRoom) {
  Plot plot;
  plot.x.scale = Scale::Log10;
  plot.lines.push_back(rising_to(2.77));  // flat at the top from T ≈ 1
  plot.scatters.push_back({.label = "now", .x = {1.0}, .y = {2.77 / 1.05}, .radius = 6.0f});
  plot.vlines.push_back({1.0, "T = 1", std::nullopt, true});
  const detail::Scene scene =
      detail::layout_plot(plot, 420.0f, 200.0f, dark_style(), 15.0f,
                          [](std::string_view text, float size) { return estimate_text_width(text, size); });
  ASSERT_FALSE(scene.data_marks.empty());
  const detail::TextShape* label = nullptr;
  for (const auto& shape : scene.shapes)
    if (const auto* text = std::get_if<detail::TextShape>(&shape); text != nullptr && text->text == "T = 1")
      label = text;
  ASSERT_NE(label, nullptr) << "the label must be placed";
  const detail::Box box = detail::text_box(*label);
  for (const detail::Box& mark : scene.data_marks)
    EXPECT_FALSE(std::min(box.x1, mark.x1) - std::max(box.x0, mark.x0) > 1.0f &&
                 std::min(box.y1, mark.y1) - std::max(box.y0, mark.y0) > 1.0f)
        << "label at " << box.x0 << "," << box.y0 << " covers data at " << mark.x0 << "," << mark.y0;
}

// Nor does a reference line run through another's label where there is room: on the dashboard's
// H(T) plot the dashed ln n line at the top struck through "T = 1" placed at the top beside its
// line (seen at 1280×720 in both languages).
TEST(ReferenceLineLabels, KeepOffTheOtherReferenceLinesWhereThereIsRoom) {
  Plot plot;
  plot.x.scale = Scale::Log10;
  plot.x.min = 0.01;
  plot.x.max = 100.0;
  plot.y.min = 0.0;
  plot.y.max = 2.77 * 1.08;  // ln n close under the top, the legend at the bottom right: the dashboard's
  plot.legend = LegendPos::BottomRight;
  plot.lines.push_back(rising_to(1.5));  // low: the top beside the T line is free of data
  plot.scatters.push_back({.label = "now", .x = {1.0}, .y = {1.5 / 1.05}, .radius = 6.0f});
  plot.vlines.push_back({1.0, "T = 1", std::nullopt, true});
  plot.hlines.push_back({2.77, "ln n", std::nullopt, true});
  for (const float width : {280.0f, 360.0f, 440.0f}) {
    const detail::Scene scene =
        detail::layout_plot(plot, width, 230.0f, dark_style(), 15.0f,
                            [](std::string_view text, float size) { return estimate_text_width(text, size); });
    const float line_x = scene.x_map.to_px(1.0), line_y = scene.y_map.to_px(2.77);
    int found = 0;
    for (const auto& shape : scene.shapes) {
      const auto* text = std::get_if<detail::TextShape>(&shape);
      if (text == nullptr || (text->text != "T = 1" && text->text != "ln n")) continue;
      ++found;
      const detail::Box box = detail::text_box(*text);
      EXPECT_FALSE(box.y0 + 1.0f < line_y && line_y < box.y1 - 1.0f)
          << "'" << text->text << "' at " << width << " px: the ln n line runs through it";
      EXPECT_FALSE(box.x0 + 1.0f < line_x && line_x < box.x1 - 1.0f)
          << "'" << text->text << "' at " << width << " px: the T = 1 line runs through it";
    }
    EXPECT_EQ(found, 2) << "both labels placed at " << width << " px";
  }
}

}  // namespace

// BarSeries::value_digits writes each bar's value over it (under a negative one): to fixed decimals,
// an exact zero as "0", above the bar's top and inside the data area; where they cannot all fit,
// none is written and the layout says so.
TEST(Layout, BarsWriteTheirValuesOverTheirTopsOrSayTheyCouldNot) {
  Plot plot;
  plot.y.min = -0.5;
  plot.y.max = 1.25;
  BarSeries bars{.label = "w", .x = {0.0, 1.0, 2.0, 3.0}, .y = {0.0059, 0.25, 0.876, -0.25}};
  bars.value_digits = 3;
  bars.value_fixed = true;
  plot.bars.push_back(bars);
  plot.legend = LegendPos::None;
  const auto scene = detail::layout_plot(plot, 480.0f, 300.0f, light_style(), 15.0f, estimate_text_width);
  ASSERT_TRUE(scene.has_data_area);
  EXPECT_TRUE(scene.problems.empty()) << scene.problems.front();
  const std::vector<std::string> expected{"0.006", "0.250", "0.876", "-0.250"};
  for (std::size_t k = 0; k < expected.size(); ++k) {
    const detail::TextShape* found = nullptr;
    for (const auto& shape : scene.shapes)
      if (const auto* text = std::get_if<detail::TextShape>(&shape); text && text->text == expected[k]) found = text;
    ASSERT_NE(found, nullptr) << expected[k] << " not written";
    const float centre = scene.x_map.to_px(bars.x[k]), top = scene.y_map.to_px(bars.y[k]);
    EXPECT_NEAR(found->origin.x + 0.5f * found->width, centre, 1.0f) << expected[k];
    if (bars.y[k] >= 0.0) {
      EXPECT_LT(found->origin.y + found->size, top) << expected[k] << " is not over its bar";
    } else {
      EXPECT_GT(found->origin.y, top) << expected[k] << " is not under its bar";
    }
    EXPECT_GE(found->origin.y, scene.data_area.y0);
    EXPECT_LE(found->origin.y + found->size, scene.data_area.y1);
  }

  // An exact zero is written "0", not "0.000" (a rounded weight).
  Plot zero = plot;
  zero.bars[0].y[0] = 0.0;
  const auto zero_scene = detail::layout_plot(zero, 480.0f, 300.0f, light_style(), 15.0f, estimate_text_width);
  bool exact = false, rounded = false;
  for (const auto& shape : zero_scene.shapes)
    if (const auto* text = std::get_if<detail::TextShape>(&shape)) {
      exact |= text->text == "0" && text->origin.y < zero_scene.data_area.y1 - 1.0f &&
               text->origin.y > zero_scene.data_area.y0;
      rounded |= text->text == "0.000";
    }
  EXPECT_TRUE(exact);
  EXPECT_FALSE(rounded);

  // No room over a bar at 1.25 of a −0.5 … 1.25 axis: its value goes under the baseline, on the
  // other side of it (where markers crowd a bar's end, the values lab's output).
  Plot over = plot;
  over.bars[0].y = {1.25, 0.25, 0.876, -0.25};
  const auto over_scene = detail::layout_plot(over, 480.0f, 300.0f, light_style(), 15.0f, estimate_text_width);
  EXPECT_TRUE(over_scene.problems.empty()) << over_scene.problems.front();
  const detail::TextShape* under = nullptr;
  for (const auto& shape : over_scene.shapes)
    if (const auto* text = std::get_if<detail::TextShape>(&shape); text && text->text == "1.250") under = text;
  ASSERT_NE(under, nullptr);
  EXPECT_GT(under->origin.y, over_scene.y_map.to_px(0.0)) << "1.250 is not under the baseline";

  // A value the decimals round to 0 or 1 gets the fewest more decimals (up to three) that show
  // it is neither; one further off stays rounded.
  Plot close = plot;
  close.bars[0].y = {0.9999546, 0.0000454, 2e-9, 0.5};
  const auto close_scene = detail::layout_plot(close, 480.0f, 300.0f, light_style(), 15.0f, estimate_text_width);
  std::vector<std::string> written;
  for (const auto& shape : close_scene.shapes)
    if (const auto* text = std::get_if<detail::TextShape>(&shape)) written.push_back(text->text);
  for (const char* expected_text : {"0.99995", "0.00005", "0.000", "0.500"})
    EXPECT_NE(std::find(written.begin(), written.end(), expected_text), written.end()) << expected_text;

  // No room over a bar at 1.25 of a 0 … 1.25 axis, nor under its baseline at the axis's bottom:
  // nothing is written, and the report says so.
  Plot full = plot;
  full.y.min = 0.0;
  full.bars[0].y = {1.25, 0.25, 0.876, 0.1};
  const auto full_scene = detail::layout_plot(full, 480.0f, 300.0f, light_style(), 15.0f, estimate_text_width);
  for (const auto& shape : full_scene.shapes)
    if (const auto* text = std::get_if<detail::TextShape>(&shape)) {
      EXPECT_NE(text->text, "0.250");
    }
  ASSERT_EQ(full_scene.problems.size(), 1u);
  EXPECT_NE(full_scene.problems.front().find("bar values"), std::string::npos) << full_scene.problems.front();
}

// Each drawn value carries the data units a pixel of its axis spans there (what a lesson can read
// off it): 1.25 / the data area's height on a linear axis, and value × ln 10 per decade's pixels on
// a log axis.
TEST(Layout, DrawnValuesCarryTheirAxisResolution) {
  Plot plot;
  plot.x.min = 0.0;
  plot.x.max = 4.0;
  plot.y.min = 0.0;
  plot.y.max = 1.25;
  plot.bars.push_back(BarSeries{.label = "w", .x = {1.0}, .y = {0.5}});
  const auto scene = detail::layout_plot(plot, 480.0f, 300.0f, light_style(), 15.0f, estimate_text_width);
  bool cells_left_out = true;
  std::vector<double> resolution;
  const std::vector<double> values = detail::drawn_values(plot, scene, cells_left_out, &resolution);
  ASSERT_EQ(values, (std::vector<double>{1.0, 0.5}));
  ASSERT_EQ(resolution.size(), 2u);
  EXPECT_FALSE(cells_left_out);
  const double height = scene.data_area.y1 - scene.data_area.y0, width = scene.data_area.x1 - scene.data_area.x0;
  EXPECT_NEAR(resolution[0], 4.0 / width, 1e-4 * 4.0 / width);
  EXPECT_NEAR(resolution[1], 1.25 / height, 1e-4 * 1.25 / height);

  Plot log = plot;
  log.y.scale = Scale::Log10;
  log.y.min = 1e-3;
  log.y.max = 10.0;
  log.bars.clear();
  log.scatters.push_back(ScatterSeries{.label = "p", .x = {1.0}, .y = {0.01}});
  const auto log_scene = detail::layout_plot(log, 480.0f, 300.0f, light_style(), 15.0f, estimate_text_width);
  const std::vector<double> log_values = detail::drawn_values(log, log_scene, cells_left_out, &resolution);
  ASSERT_EQ(log_values.size(), 2u);
  const double decades_per_px = 4.0 / (log_scene.data_area.y1 - log_scene.data_area.y0);
  EXPECT_NEAR(resolution[1], 0.01 * std::log(10.0) * decades_per_px, 1e-3 * 0.01 * std::log(10.0) * decades_per_px);
}

// A hovered series without a label is named by what the plot measures where it is the only one of
// its kind: the values lab's weights read "weight", not "bars 1"; several unnamed ones keep their
// numbers, and a plot with no y label falls back to them too.
TEST(HoverHeading, AnUnnamedSeriesIsNamedByTheYAxisWhereItIsTheOnlyOne) {
  Plot p;
  p.y.label = "weight";
  EXPECT_EQ(unnamed_series_heading(p, "bars", 0, 1), "weight");
  EXPECT_EQ(unnamed_series_heading(p, "line", 1, 2), "line 2");
  p.y.label.clear();
  EXPECT_EQ(unnamed_series_heading(p, "bars", 0, 1), "bars 1");
}
