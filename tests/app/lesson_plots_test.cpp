// Plots that once contradicted the lessons, checked on their descriptions (no GL): each
// format's exp-overflow line at its own point, the Jacobian on a fixed ±1/4 scale, S(1 − S) dots
// clear of the axis corners, the scaling histograms on one x-axis, the heads legend above the bars,
// and online softmax's running state listed in the stability lab's notes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "i18n/i18n.hpp"
#include "panels/labs.hpp"
#include "state/presets.hpp"
#include "smlab/evaluate.hpp"
#include "smlab/labs/heads.hpp"
#include "smlab/labs/stability.hpp"

namespace smlab::app {
namespace {

Snapshot with_lab(const Params& params, View view) {
  EvaluateOptions options;
  options.view = view;
  return *evaluate(params, options);
}

const plot::Plot& plot_named(const LabView& view, const std::string& name) {
  for (const NamedPlot& named : view.plots)
    if (named.name == name) return named.plot;
  ADD_FAILURE() << "no plot " << name;
  static const plot::Plot none;
  return none;
}

LabView build(const Snapshot& snap, View view) {
  return lab_definition(view)->build(LabInputs{snap, snap.dk_sweep, nullptr});
}

TEST(LessonPlots, EachFormatsExpOverflowLineIsAtItsOwnPoint) {
  const Snapshot snap = with_lab(Params{}, View::stability);
  const LabView curve_view = build(snap, View::stability);
  const plot::Plot& curve = plot_named(curve_view, "exp-curve");
  int drawn = 0;
  for (Format format : all_formats) {
    const double x = snap.lab<StabilityLab>()->format(format).largest_finite_exp_input;
    if (x > stability_exp_curve_max) continue;
    const bool found =
        std::any_of(curve.vlines.begin(), curve.vlines.end(), [&](const plot::VLine& line) { return line.x == x; });
    EXPECT_TRUE(found) << format_name(format) << " at " << x << " has no line of its own";
    ++drawn;
  }
  EXPECT_EQ(drawn, 5);  // all but fp64's 709.8, which is written beside the curve
  EXPECT_EQ(curve.vlines.size(), 5u);
}

// fp64's limit (709.8) lies beyond the exp curve's axis: the title says so. Written inside the
// plot, the layout placed "fp64 709.8 →" beside the max-x/T diamond, where it read as its label.
TEST(LessonPlots, TheLimitBeyondTheExpAxisIsInTheTitleNotBesideTheLogitDiamond) {
  Params params;
  params.scores = {10.0, 11.0, 12.0};
  params.format = Format::fp16;
  ASSERT_TRUE(i18n::load_catalogue(find_assets_dir()).ok());  // the title's words come from the table
  const Snapshot snap = with_lab(params, View::stability);
  const LabView view = build(snap, View::stability);
  const plot::Plot& curve = plot_named(view, "exp-curve");
  EXPECT_NE(curve.title.find("709.8"), std::string::npos) << curve.title;
  EXPECT_FALSE(curve.short_title.empty()) << "a title that does not fit keeps its meaning";
  for (const plot::Annotation& note : curve.annotations)
    EXPECT_EQ(note.text.find("709.8"), std::string::npos) << "'" << note.text << "' is written inside the plot";
  for (const plot::VLine& line : curve.vlines)
    EXPECT_EQ(line.label.find("88.72/"), std::string::npos)
        << "'" << line.label << "': a pair that agrees names both formats first";
}

TEST(LessonPlots, TheJacobianColourScaleIsFixedSoAVanishedJacobianLooksVanished) {
  for (const double scale : {1.0, 100.0}) {
    Params params;
    params.score_scale = scale;
    const Snapshot snap = with_lab(params, View::gradients);
    const LabView jacobian_view = build(snap, View::gradients);
    // As the window and the exports show it: the user's colour scale choice applied (none made:
    // the Jacobian's default, fixed).
    plot::Plot jacobian = plot_named(jacobian_view, "jacobian");
    ASSERT_TRUE(jacobian.heatmap.has_value());
    plot::apply_color_scales(jacobian, "gradients/jacobian", plot::ColorScales{});
    EXPECT_EQ(jacobian.heatmap->vmin, -0.25) << "score scale " << scale;
    EXPECT_EQ(jacobian.heatmap->vmax, 0.25) << "score scale " << scale;
  }
  Params saturated;
  saturated.scores = {200.0, 250.0};
  const Snapshot snap = with_lab(saturated, View::gradients);
  const LabView jacobian_view = build(snap, View::gradients);
  plot::Plot jacobian = plot_named(jacobian_view, "jacobian");
  plot::apply_color_scales(jacobian, "gradients/jacobian", plot::ColorScales{});
  for (float value : jacobian.heatmap->values) EXPECT_LT(std::abs(value), 1e-3 * jacobian.heatmap->vmax);
  // Chosen auto, the range is the data's own (tiny) one, and the colorbar says so.
  plot::ColorScales automatic;
  automatic.chosen["gradients/jacobian"] = plot::ColorScale::Auto;
  plot::apply_color_scales(jacobian, "gradients/jacobian", automatic);
  EXPECT_LT(jacobian.heatmap->vmax, 1e-3);
  EXPECT_EQ(jacobian.heatmap->vmin, -jacobian.heatmap->vmax);
}

TEST(LessonPlots, SaturatedDotsAreNotHiddenUnderTheAxisCorners) {
  Params params;
  params.scores = {200.0, 250.0};  // dots at (≈0, ≈0) and (≈1, ≈0)
  const Snapshot snap = with_lab(params, View::gradients);
  const LabView diagonal_view = build(snap, View::gradients);
  const plot::Plot& diagonal = plot_named(diagonal_view, "diagonal");
  EXPECT_LT(diagonal.x.min, 0.0);
  EXPECT_GT(diagonal.x.max, 1.0);
  EXPECT_LT(diagonal.y.min, 0.0);
}

TEST(LessonPlots, TheScalingHistogramsShareOneXAxis) {
  Params params;
  params.key_dim = 1024;
  const Snapshot snap = with_lab(params, View::scaling);
  const LabView view = build(snap, View::scaling);
  const plot::Plot& unscaled = plot_named(view, "histogram-unscaled");
  const plot::Plot& scaled = plot_named(view, "histogram-scaled");
  EXPECT_EQ(unscaled.x.min, scaled.x.min);
  EXPECT_EQ(unscaled.x.max, scaled.x.max);
  EXPECT_NEAR(unscaled.x.max, 4.0 * 32.0, 1e-9);  // ±4 unscaled standard deviations
}

TEST(LessonPlots, TheHeadsLegendHasItsOwnBandAboveTheBars) {
  Params params;
  params.heads = 8;
  params.temperature = 0.1;
  const Snapshot snap = with_lab(params, View::heads);
  const LabView average_view = build(snap, View::heads);
  const plot::Plot& average = plot_named(average_view, "row-average");
  const double tallest =
      *std::max_element(snap.lab<HeadsLab>()->average_row.begin(), snap.lab<HeadsLab>()->average_row.end());
  EXPECT_GE(average.y.max, 2.0 * tallest);
}

TEST(LessonPlots, TheStabilityNotesShowOnlineSoftmaxsRunningMaxAndSum) {
  Params params;
  params.scores = {1000.0, 1001.0, 1002.0};
  params.format = Format::fp32;
  ASSERT_TRUE(i18n::load_catalogue(find_assets_dir()).ok());  // the note's words come from the table
  const Snapshot snap = with_lab(params, View::stability);
  const LabView view = build(snap, View::stability);
  const auto online = std::find_if(view.notes.begin(), view.notes.end(), [](const std::string& note) {
    return note.find("1000, 1001, 1002") != std::string::npos;
  });
  ASSERT_NE(online, view.notes.end()) << "no note lists the running max m";
  EXPECT_NE(online->find("1.00, 1.37, 1.50"), std::string::npos) << *online;
}

// In Chinese, the words a plot writes (titles, axis labels, legends, annotations, reference lines)
// come from the Chinese table: an English word there ("softmax: max/min", "scaled=true") is a string
// left untranslated. Names that are the same in both languages (softmax, sparsemax, logit, the
// formats) and symbols are allowed. Every lab's plots at the default settings.
TEST(LessonPlots, ChinesePlotsWriteNoEnglishWords) {
  ASSERT_TRUE(i18n::load_catalogue(find_assets_dir()).ok());
  static const std::set<std::string> names = {
      "softmax", "sparsemax", "entmax", "argmax", "hardmax", "sigmoid", "ReLU",      "relu", "logit", "logits", "tanh",
      "exp",     "log",       "nats",   "diag",   "sin",     "Var",     "logsumexp", "cos",  "NaN",   "inf",    "fp",
      "bf",      "e4m3",      "e5m2",   "top",    "KL",      "LN",      "LayerNorm", "QK",   "PE",    "Xavier", "He",
      "ReLU",    "naive",     "SE",     "SD",     "lab",     "key",     "row",       "col"};
  // Lab plots another change owns (the training lab) are left to it.
  static const std::set<View> owned_elsewhere = {View::training};
  EvaluateOptions options;
  options.all_labs = true;
  const Snapshot snap = *evaluate(Params{}, options);
  std::vector<std::string> found;
  const i18n::Use chinese(i18n::Language::Chinese);
  for (const LabDefinition* lab : lab_definitions()) {
    if (owned_elsewhere.count(lab->view)) continue;
    const LabView view = lab->build(LabInputs{snap, snap.dk_sweep, nullptr});
    for (const NamedPlot& named : view.plots) {
      const plot::Plot& p = named.plot;
      std::vector<std::string> texts{p.title, p.x.label, p.y.label};
      for (const auto& line : p.lines) texts.push_back(line.label);
      for (const auto& bars : p.bars) texts.push_back(bars.label);
      for (const auto& points : p.scatters) texts.push_back(points.label);
      for (const auto& note : p.annotations) texts.push_back(note.text);
      for (const auto& line : p.vlines) texts.push_back(line.label);
      for (const auto& line : p.hlines) texts.push_back(line.label);
      if (p.heatmap) texts.insert(texts.end(), {p.heatmap->colorbar_label, p.heatmap->x_label, p.heatmap->y_label});
      for (const std::string& text : texts) {
        std::string word;
        for (std::size_t k = 0; k <= text.size(); ++k) {
          const char c = k < text.size() ? text[k] : ' ';
          if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
            word += c;
            continue;
          }
          // Subscripts (J_ij) and functions written as such (max(‖q‖, ε)) are notation.
          const bool notation = c == '_' || c == '(' || (k >= word.size() + 1 && text[k - word.size() - 1] == '_');
          if (word.size() >= 3 && !names.count(word) && !notation)
            found.push_back(std::string(view_info(lab->view).name) + "/" + named.name + ": \"" + text + "\"");
          word.clear();
        }
      }
    }
  }
  std::string all;
  for (const std::string& entry : found) all += entry + "\n";
  EXPECT_TRUE(found.empty()) << found.size() << " English words in Chinese plots:\n" << all;
}

}  // namespace
}  // namespace smlab::app
