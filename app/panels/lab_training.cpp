// The training lab, "Watch attention learn": runs side by side as they train, drawn
// from the Snapshot's TrainingLab only (the live Trainer's newest picture, or the lab evaluated at
// train_steps for exports): accuracy, loss, the saturated rows, ‖∂L/∂Q‖ and ‖∂L/∂K‖, row entropy
// and max weight against the step; each run's probe map beside the ideal map; the probe row on
// S(1−S); the next-token distribution; every head of a sentence. Its controls edit the train_*
// keys and ask the App (UiState::training) for Train/Pause/Step/Reset and files.
//
// [SECTION] Index
//   [SECTION] Colours and small helpers
//   [SECTION] Curves against the step
//   [SECTION] Maps, the parabola and the next token
//   [SECTION] The view
//   [SECTION] Controls: the running training
//   [SECTION] Controls: settings
//   [SECTION] Controls: the sentence and files
//   [SECTION] The registry row
#include <imgui.h>

#include <imgui_stdlib.h>

#include <GLFW/glfw3.h>  // key codes only

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "i18n/i18n.hpp"
#include "panels/labs.hpp"
#include "panels/panels.hpp"
#include "plot/text_wrap.hpp"
#include "smlab/labs/training.hpp"

namespace smlab::app {
namespace {

using i18n::tr;

// [SECTION] Colours and small helpers

// Runs A, B, C, D in the Okabe–Ito colours (colour-blind safe).
constexpr plot::Color run_colors[] = {plot::Color::from_hex(0x0072B2), plot::Color::from_hex(0xD55E00),
                                      plot::Color::from_hex(0x009E73), plot::Color::from_hex(0xCC79A7)};
plot::Color run_color(std::size_t index) { return run_colors[index % 4]; }

// A key runs B, C, D may differ in, by its short name in the shown language ("scaled", "除以 √d_k").
std::string compare_key_name(std::string_view key) { return tr("lab.training.compare.key." + std::string(key)); }

// A compared setting as the lab shows it: "scaled=true", in Chinese "除以 √d_k=是" (the key's name
// and a flag's word from the string tables; numbers and choices such as fp16 stay as typed).
std::string compare_label(std::string_view label) {
  const std::size_t equals = label.find('=');
  if (equals == std::string_view::npos) return std::string(label);
  const std::string_view value = label.substr(equals + 1);
  const std::string shown = value == "true"    ? tr("lab.training.compare.value.true")
                            : value == "false" ? tr("lab.training.compare.value.false")
                                               : std::string(value);
  return compare_key_name(label.substr(0, equals)) + "=" + shown;
}

// "A scaled=true", or "A" alone without a comparison.
std::string run_name(const TrainingRun& run) {
  return run.label.empty() ? run.name : run.name + " " + compare_label(run.label);
}

std::string count_text(double value) {
  return std::isfinite(value) ? std::to_string(static_cast<long long>(std::llround(value))) : "—";
}

// "A seed 3": one seed's curve, by its training seed.
std::string seed_name(const TrainingRun& run, std::size_t index) {
  return run.name + " seed=" + std::to_string(run.settings.seed + index);
}

// A step count, or "> N" for a seed (or a quantile) not there within the N steps done.
std::string steps_or_beyond(double value, int done) {
  return std::isinf(value) ? "> " + std::to_string(done) : count_text(value);
}

// Steps to 90 %: one seed's step ("149", "> 300" not yet); over seeds the median and quartiles
// ("median 124 (IQR 118–131)"), which a seed that never got there moves by one rank only, where it
// would drag a mean to the step budget. "—" before 20 steps.
std::string steps_to_90_text(const TrainingRun& run) {
  if (!std::isfinite(run.steps_to_90)) return "—";
  if (run.seeds == 1) return run.reached_90 > 0 ? count_text(run.steps_to_90) : "> " + std::to_string(run.steps_done);
  return i18n::format("lab.training.median_iqr", {steps_or_beyond(run.steps_to_90_median, run.steps_done),
                                                  steps_or_beyond(run.steps_to_90_q1, run.steps_done),
                                                  steps_or_beyond(run.steps_to_90_q3, run.steps_done)});
}

// "A: 1 %, B: 73 %": a step-1 number of every run, for a plot's title (the lesson quotes them).
std::string step_one_numbers(const TrainingLab& lab, double TrainingRun::*member, bool percent) {
  std::string text;
  for (const TrainingRun& run : lab.runs) {
    const double value = run.*member;
    if (!std::isfinite(value)) return {};
    text += (text.empty() ? "" : ", ") + run.name + " " +
            (percent ? format_value(100.0 * value, 2) + " %" : format_value(value, 3));
  }
  return text;
}

void step_axis(plot::Plot& p, const TrainingLab& lab) {
  p.x.label = tr("lab.training.axis.step");
  p.x.integer_ticks = true;
  p.x.min = 0.0;
  p.x.max = std::max(1.0, static_cast<double>(std::max(lab.steps_done, 1)));
}

// The step where a run's first non-finite loss or gradient came (naive fp16), on every curve.
void mark_nonfinite(plot::Plot& p, const TrainingLab& lab) {
  for (std::size_t r = 0; r < lab.runs.size(); ++r)
    if (const auto step = lab.runs[r].first_nonfinite)
      p.vlines.push_back(
          {static_cast<double>(*step), i18n::format("lab.training.nan_at", {lab.runs[r].name}), run_color(r), false});
}

// [SECTION] Curves against the step

// Each run named at the end of its curve ("A", "B"), in its colour: a legend of four long names
// covered the curves of a small plot. Names whose ends lie close are moved apart, by at least 7 %
// of the axis (in log space on a log axis), and each name after A a further 8 % of the steps to the
// left: in the 1024x768 layout a plot's data area is ~35 px tall, too short to stack three names,
// and "B" and "C" were written over each other there.
void name_curve_ends(plot::Plot& p, const TrainingLab& lab, SeedBand TrainingRun::*band, bool log_y) {
  struct End {
    std::size_t run;
    double y;  // on the axis' scale (log10 on a log axis)
  };
  std::vector<End> ends;
  double low = 0.0, high = 0.0;
  bool any = false;
  for (std::size_t r = 0; r < lab.runs.size(); ++r) {
    const std::vector<double>& mean = (lab.runs[r].*band).mean;
    for (double v : mean) {
      if (!std::isfinite(v) || (log_y && v <= 0.0)) continue;
      const double y = log_y ? std::log10(v) : v;
      low = any ? std::min(low, y) : y;
      high = any ? std::max(high, y) : y;
      any = true;
    }
    for (auto it = mean.rbegin(); it != mean.rend(); ++it)
      if (std::isfinite(*it) && (!log_y || *it > 0.0)) {
        ends.push_back({r, log_y ? std::log10(*it) : *it});
        break;
      }
  }
  if (p.y.min != p.y.max) low = log_y ? std::log10(p.y.min) : p.y.min, high = log_y ? std::log10(p.y.max) : p.y.max;
  // Pushed up past the top, the names are pushed back down from it.
  const double gap = 0.07 * std::max(high - low, 1e-9);
  std::sort(ends.begin(), ends.end(), [](const End& a, const End& b) { return a.y < b.y; });
  for (std::size_t k = 1; k < ends.size(); ++k) ends[k].y = std::max(ends[k].y, ends[k - 1].y + gap);
  if (!ends.empty() && ends.back().y > high) {
    ends.back().y = high;
    for (std::size_t k = ends.size() - 1; k-- > 0;) ends[k].y = std::min(ends[k].y, ends[k + 1].y - gap);
  }
  for (const End& end : ends) {
    const TrainingRun& run = lab.runs[end.run];
    if (run.steps.empty()) continue;
    const double shift = 0.08 * static_cast<double>(end.run) * (run.steps.back() - run.steps.front());
    p.annotations.push_back({run.steps.back() - shift, log_y ? std::pow(10.0, end.y) : end.y, run.name,
                             run_color(end.run), plot::TextAlign::Right});
  }
}

// A metric of every run against the step; `fraction`: on [0, 1.05] (accuracy, weights, fractions).
plot::Plot curve_plot(const TrainingLab& lab, std::string title, std::string y_label, SeedBand TrainingRun::*band,
                      bool log_y = false, bool fraction = false) {
  plot::Plot p;
  p.title = std::move(title);
  step_axis(p, lab);
  p.y.label = std::move(y_label);
  if (log_y) p.y.scale = plot::Scale::Log10;
  if (fraction) {
    p.y.min = 0.0;
    p.y.max = 1.05;
  }
  // Each seed's own curve, thin and pale under the means: the ±1 SE band says how well the mean is
  // known, the seeds how far one run (the live default is one seed) strays from it.
  for (std::size_t r = 0; r < lab.runs.size(); ++r) {
    const TrainingRun& run = lab.runs[r];
    const SeedBand& values = run.*band;
    if (run.seeds > 1)
      for (std::size_t seed = 0; seed < values.seeds.size(); ++seed)
        p.lines.push_back({.label = seed_name(run, seed),
                           .x = run.steps,
                           .y = values.seeds[seed],
                           .color = run_color(r).with_alpha(0.3f),
                           .width = 1.0f,
                           .in_legend = false});
  }
  for (std::size_t r = 0; r < lab.runs.size(); ++r) {
    const TrainingRun& run = lab.runs[r];
    const SeedBand& values = run.*band;
    p.lines.push_back({.label = run_name(run),
                       .x = run.steps,
                       .y = values.mean,
                       .color = run_color(r),
                       .band_low = values.low,
                       .band_high = values.high});
  }
  mark_nonfinite(p, lab);
  name_curve_ends(p, lab, band, log_y);
  p.legend = plot::LegendPos::None;
  return p;
}

plot::Plot accuracy_plot(const TrainingLab& lab) {
  plot::Plot p = curve_plot(lab, tr("lab.training.accuracy.title"), tr("lab.training.axis.accuracy"),
                            &TrainingRun::accuracy, false, true);
  p.hlines.push_back({TrainingLimits::accuracy_threshold, "90 %", std::nullopt, true});
  for (std::size_t r = 0; r < lab.runs.size(); ++r) {
    const TrainingRun& run = lab.runs[r];
    // At the median seed's step (the mean of steps would sit where the mean curve is still lower),
    // when at least half the seeds got there.
    if (std::isfinite(run.steps_to_90_median))
      p.vlines.push_back(
          {run.steps_to_90_median, run.name + ": " + count_text(run.steps_to_90_median), run_color(r), true});
  }
  // The legend names the runs here (their curves end together at 1, where names would overlap);
  // with three or four runs it took the room of the 90 % labels in a small plot, which name their
  // runs themselves ("B: 436 ± 30" was left out at 1024x768).
  p.annotations.clear();
  p.legend = lab.runs.size() <= 2 ? plot::LegendPos::BottomRight : plot::LegendPos::None;
  return p;
}

plot::Plot grad_norms_plot(const TrainingLab& lab) {
  plot::Plot p;
  p.title = tr("lab.training.grad_norms.title");
  if (const std::string at_1 = step_one_numbers(lab, &TrainingRun::start_grad_norm_q, false); !at_1.empty()) {
    p.title = i18n::format("lab.training.grad_norms.title_at_1", {at_1});
    p.short_title = i18n::format("lab.training.grad_norms.short_at_1", {at_1});
  }
  step_axis(p, lab);
  // Each seed's ‖∂L/∂Q‖, pale under the means (as in the other curves).
  for (std::size_t r = 0; r < lab.runs.size(); ++r)
    if (lab.runs[r].seeds > 1)
      for (std::size_t seed = 0; seed < lab.runs[r].grad_norm_q.seeds.size(); ++seed)
        p.lines.push_back({.label = seed_name(lab.runs[r], seed) + " ‖∂L/∂Q‖",
                           .x = lab.runs[r].steps,
                           .y = lab.runs[r].grad_norm_q.seeds[seed],
                           .color = run_color(r).with_alpha(0.3f),
                           .width = 1.0f,
                           .in_legend = false});
  p.y.label = tr("lab.training.axis.grad_norm");
  p.y.scale = plot::Scale::Log10;
  for (std::size_t r = 0; r < lab.runs.size(); ++r) {
    const TrainingRun& run = lab.runs[r];
    p.lines.push_back({.label = run.name + " ‖∂L/∂Q‖",
                       .x = run.steps,
                       .y = run.grad_norm_q.mean,
                       .color = run_color(r),
                       .band_low = run.grad_norm_q.low,
                       .band_high = run.grad_norm_q.high});
    p.lines.push_back({.label = run.name + " ‖∂L/∂K‖",
                       .x = run.steps,
                       .y = run.grad_norm_k.mean,
                       .color = run_color(r),
                       .width = 1.5f,
                       .dashed = true});
  }
  mark_nonfinite(p, lab);
  name_curve_ends(p, lab, &TrainingRun::grad_norm_q, true);
  p.legend = plot::LegendPos::None;
  return p;
}

// [SECTION] Maps, the parabola and the next token

plot::Heatmap token_map(std::span<const float> cells, int length, const std::vector<std::string>& labels) {
  plot::Heatmap map = weight_heatmap(cells, length, length, 1.0);
  if (labels.size() == static_cast<std::size_t>(length)) map.names = labels;
  return map;
}

plot::Plot run_map_plot(const TrainingLab& lab, std::size_t index, TexturePool* textures) {
  const TrainingRun& run = lab.runs[index];
  std::string title = run_name(run);
  if (run.probe.layers * run.probe.heads > 1)
    title += " · " + i18n::format("lab.training.layer_head",
                                  {std::to_string(run.shown_layer + 1), std::to_string(run.shown_head + 1)});
  if (std::isfinite(run.shown_match))
    title += ": " + i18n::format("lab.training.on_right_key", {format_value(run.shown_match, 2)});
  plot::Heatmap map = token_map(run.shown_map, run.probe.length, run.probe.labels);
  // The ideal map's weight framed on the model's own: a class sees where the weight should go on the
  // map it watches form, where a second map beside it does not fit a classroom screen.
  const auto length = static_cast<std::size_t>(std::max(run.probe.length, 0));
  if (run.ideal_map.size() == length * length)
    for (std::size_t cell = 0; cell < run.ideal_map.size(); ++cell)
      if (run.ideal_map[cell] > 0.0f)
        map.framed_cells.emplace_back(static_cast<int>(cell / length), static_cast<int>(cell % length));
  plot::Plot p = heatmap_plot(std::move(title), std::move(map),
                              "training/map-" + std::string(1, static_cast<char>('a' + index)), textures);
  return p;
}

plot::Plot ideal_plot(const TrainingLab& lab, TexturePool* textures) {
  const TrainingRun& run = lab.runs.front();
  plot::Plot p =
      heatmap_plot(i18n::format("lab.training.ideal.title", {std::string(train::task_name(run.settings.task))}),
                   token_map(run.ideal_map, run.probe.length, run.probe.labels), "training/ideal", textures);
  p.short_title = tr("lab.training.ideal.short");
  return p;
}

plot::Plot parabola_plot(const TrainingLab& lab) {
  plot::Plot p;
  const TrainingRun& first = lab.runs.front();
  const std::string row = first.probe.labels.size() > static_cast<std::size_t>(first.probe.row)
                              ? first.probe.labels[static_cast<std::size_t>(first.probe.row)]
                              : std::to_string(first.probe.row);
  p.title = i18n::format("lab.training.parabola.title", {row});
  p.x.label = tr("plot.axis.probability_s");
  p.y.label = "S(1−S)";
  p.x.min = 0.0;
  p.x.max = 1.0;
  p.y.min = 0.0;
  // Room above the parabola's top (0.25) for the legend, a row per run and one for the curve: at
  // 0.27 a legend of three runs covered the curve's right flank.
  p.y.max = 0.27 + 0.05 * static_cast<double>(lab.runs.size() + 1);
  std::vector<double> s, slope;
  for (int k = 0; k <= 100; ++k) {
    s.push_back(k / 100.0);
    slope.push_back(s.back() * (1.0 - s.back()));
  }
  p.lines.push_back({.label = "S(1−S)", .x = std::move(s), .y = std::move(slope), .width = 1.5f});
  const plot::MarkerShape shapes[] = {plot::MarkerShape::Circle, plot::MarkerShape::Diamond, plot::MarkerShape::Square,
                                      plot::MarkerShape::Circle};
  for (std::size_t r = 0; r < lab.runs.size(); ++r) {
    const TrainingRun& run = lab.runs[r];
    const std::size_t length = static_cast<std::size_t>(run.probe.length);
    const std::size_t first_key =
        (static_cast<std::size_t>(run.shown_layer * run.probe.heads + run.shown_head)) * length;
    if (run.probe.row_weights.size() < first_key + length) continue;
    p.scatters.push_back({.label = run_name(run),
                          .x = {run.probe.row_weights.begin() + static_cast<std::ptrdiff_t>(first_key),
                                run.probe.row_weights.begin() + static_cast<std::ptrdiff_t>(first_key + length)},
                          .y = {run.probe.row_slopes.begin() + static_cast<std::ptrdiff_t>(first_key),
                                run.probe.row_slopes.begin() + static_cast<std::ptrdiff_t>(first_key + length)},
                          .color = run_color(r),
                          .radius = 4.5f,
                          .shape = shapes[r % 4]});
  }
  // Three or four runs' entries under the curve's own would cover the curve in a small plot: the
  // runs are told apart by their markers' shapes and colours, as in the other plots.
  p.legend = lab.runs.size() <= 2 ? plot::LegendPos::TopRight : plot::LegendPos::None;
  return p;
}

plot::Plot next_token_plot(const TrainingLab& lab) {
  const TrainingSentence& sentence = lab.sentence;
  plot::Plot p;
  const std::string after = sentence.labels.size() > static_cast<std::size_t>(sentence.position)
                                ? sentence.labels[static_cast<std::size_t>(sentence.position)]
                                : "";
  p.title = i18n::format("lab.training.next_token.title", {after, std::to_string(sentence.position)});
  p.x.label = tr("lab.training.axis.next_token");
  p.x.integer_ticks = true;
  p.y.label = tr("plot.axis.probability_s");
  p.y.min = 0.0;
  std::vector<double> x, y;
  for (std::size_t k = 0; k < sentence.top.size(); ++k) {
    const auto token = static_cast<std::size_t>(sentence.top[k]);
    x.push_back(static_cast<double>(k));
    y.push_back(sentence.probabilities[token]);
    p.x.tick_names.push_back(sentence.vocabulary[token]);
  }
  const double top = y.empty() ? 1.0 : *std::max_element(y.begin(), y.end());
  p.y.max = std::min(1.05, top * 1.2 + 0.02);
  p.bars.push_back({.label = "softmax(z), T = 1", .x = std::move(x), .y = std::move(y), .color = run_color(0)});
  // One series, named by the title and the axis: its legend was cut short in a narrow plot (zh-CN).
  p.legend = plot::LegendPos::None;
  return p;
}

// [SECTION] The view

std::string run_note(const TrainingRun& run) {
  const std::string nan = run.first_nonfinite
                              ? i18n::format("lab.training.note.nan",
                                             {std::to_string(*run.first_nonfinite), std::to_string(run.nonfinite_seeds),
                                              format_value(100.0 * run.skipped_fraction, 3)})
                              : tr("lab.training.note.no_nan");
  return i18n::format(
      "lab.training.note.run",
      {run_name(run), std::to_string(run.seeds), format_value(run.final_accuracy, 3), format_value(run.final_loss, 3),
       steps_to_90_text(run), std::to_string(run.reached_90), format_value(run.start_max_weight, 3),
       format_value(100.0 * run.start_saturated, 3), format_value(run.start_grad_norm_q, 3), nan,
       format_value(run.start_loss, 3), std::to_string(run.steps_done)});
}

LabView build_training_view(const TrainingLab& lab, TexturePool* textures) {
  LabView view;
  view.columns = 3;
  const bool language = !lab.runs.empty() && lab.runs.front().settings.task == train::Task::language;
  view.explanation = tr(language ? "lab.training.explanation.language" : "lab.training.explanation");
  if (!lab.error.empty()) {
    view.notes.push_back(lab.error);
    return view;
  }
  if (lab.runs.empty()) return view;
  view.notes.push_back(i18n::format("lab.training.note.step", {std::to_string(lab.steps_done), std::to_string(lab.goal),
                                                               std::to_string(lab.runs.front().seeds)}));
  for (const TrainingRun& run : lab.runs) view.notes.push_back(run_note(run));
  if (lab.vocabulary > 0)
    view.notes.push_back(i18n::format("lab.training.note.corpus",
                                      {std::to_string(lab.corpus_characters), std::to_string(lab.vocabulary)}));

  view.plots.push_back({"accuracy", accuracy_plot(lab)});
  view.plots.push_back(
      {"loss", curve_plot(lab, tr("lab.training.loss.title"), tr("lab.training.axis.loss"), &TrainingRun::loss, true)});
  // The step-1 numbers the lesson quotes, written on the plots that show them.
  const std::string saturated_at_1 = step_one_numbers(lab, &TrainingRun::start_saturated, true);
  plot::Plot saturated = curve_plot(lab, tr("lab.training.saturated.title"), tr("lab.training.axis.saturated"),
                                    &TrainingRun::saturated, false, true);
  if (!saturated_at_1.empty()) {
    saturated.title = i18n::format("lab.training.saturated.title_at_1", {saturated_at_1});
    saturated.short_title = i18n::format("lab.training.saturated.short_at_1", {saturated_at_1});
  }
  view.plots.push_back({"saturated", std::move(saturated)});
  for (std::size_t r = 0; r < lab.runs.size(); ++r)
    view.plots.push_back({"map-" + std::string(1, static_cast<char>('a' + r)), run_map_plot(lab, r, textures)});
  if (!lab.runs.front().ideal_map.empty()) view.plots.push_back({"ideal", ideal_plot(lab, textures)});
  view.plots.push_back({"grad-norms", grad_norms_plot(lab)});
  view.plots.push_back(
      {"entropy", curve_plot(lab, tr("lab.training.entropy.title"), tr("plot.axis.entropy"), &TrainingRun::entropy)});
  view.plots.push_back(
      {"max-weight", curve_plot(lab, tr("lab.training.max_weight.title"), tr("lab.training.axis.max_weight"),
                                &TrainingRun::max_weight, false, true)});
  view.plots.push_back({"parabola", parabola_plot(lab)});
  const TrainingSentence& sentence = lab.sentence;
  if (!sentence.error.empty()) view.notes.push_back(sentence.error);
  if (sentence.error.empty() && !sentence.top.empty()) view.plots.push_back({"next-token", next_token_plot(lab)});
  // Every head of run A's sentence (or probe) when there is more than one.
  if (sentence.error.empty() && sentence.layers * sentence.heads > 1)
    for (int l = 0; l < sentence.layers; ++l)
      for (int h = 0; h < sentence.heads; ++h) {
        const std::string name = "head-" + std::to_string(l + 1) + "-" + std::to_string(h + 1);
        const std::span<const float> cells(sentence.map(l, h),
                                           static_cast<std::size_t>(sentence.length) * sentence.length);
        plot::Plot p = heatmap_plot(
            "A · " + i18n::format("lab.training.layer_head", {std::to_string(l + 1), std::to_string(h + 1)}),
            token_map(cells, sentence.length, sentence.labels), "training/" + name, textures);
        view.plots.push_back({name, std::move(p)});
      }
  return view;
}

LabView build_training(const LabInputs& inputs) {
  const TrainingLab* lab = inputs.snapshot.lab<TrainingLab>();
  if (lab == nullptr) {
    LabView view;
    view.explanation = tr("lab.training.explanation");
    return view;
  }
  return build_training_view(*lab, inputs.textures);
}

// [SECTION] Controls: the running training

// A training setting's slider: key_slider's, as the control strip draws it (train_<key> edited
// through its text, the key table's own parser).
void setting_slider(UiState& ui, Params& edit, const char* label_key, std::string_view key, const char* format) {
  const std::string id(key);
  ui.control_items.push_back(id);
  const ControlsReport report = key_slider(edit, key, SliderText(label_key, id.c_str(), format, nullptr));
  // Hovered or held, a slider key is the one Left/Right nudge (key_slider reports it).
  if (!report.hovered_key.empty()) ui.interaction.nudge_key_this_frame = std::string(report.hovered_key);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", std::string(find_training_key(key)->description).c_str());
}

}  // namespace

// "Step 12 of 300: training, 10 steps/s", "Step 0 of 300: paused (press Train or Space)".
std::string training_status(const UiState& ui, const TrainingLab* lab) {
  const TrainingUi& t = ui.training;
  if (lab == nullptr) return {};
  const std::string state = !t.live ? tr("lab.training.status.evaluated")
                            : t.running
                                ? i18n::format("lab.training.status.training", {format_value(t.steps_per_second, 3)})
                            : lab->steps_done == 0 ? tr("lab.training.status.waiting")
                                                   : tr("lab.training.status.paused");
  return i18n::format("lab.training.status", {std::to_string(lab->steps_done), std::to_string(lab->goal), state});
}

std::string longest_training_status(const UiState& ui) {
  const std::string goal = std::to_string(ui.params.training.steps);
  return i18n::format("lab.training.status", {goal, goal, tr("lab.training.status.waiting")});
}

void toggle_training(UiState& ui, Params& edit, const TrainingLab* lab) {
  TrainingUi& t = ui.training;
  if (!t.live) return;
  if (t.running) {
    ui.interaction.commands.push(Command::training_pause);
    return;
  }
  // At the goal, Train trains as far again (the goal doubles, within its range).
  if (lab != nullptr && lab->steps_done >= edit.training.steps)
    edit.training.steps = std::min(TrainingLimits::steps_max, std::max(2 * edit.training.steps, 100));
  ui.interaction.commands.push(Command::training_train);
}

// Train (Pause while it trains), Step, Reset on one row where they fit; then the pace.
void training_run_controls(UiState& ui, Params& edit, const TrainingLab* lab) {
  TrainingUi& t = ui.training;
  ImGui::BeginDisabled(!t.live);
  // One button whose word is what it will do, so the lecturer never looks for the other one.
  const std::string toggle =
      t.running ? i18n::label("lab.training.pause", "train-toggle") : i18n::label("lab.training.train", "train-toggle");
  if (ImGui::Button(toggle.c_str())) toggle_training(ui, edit, lab);
  ui.control_items.push_back("train-toggle");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("lab.training.train.help"));
  same_line_if_fits(i18n::label("lab.training.step", "step").c_str());
  if (ImGui::Button(i18n::label("lab.training.step", "step").c_str())) {
    if (lab != nullptr && lab->steps_done >= edit.training.steps)
      edit.training.steps = std::min(TrainingLimits::steps_max, lab->steps_done + 1);
    ui.interaction.commands.push(Command::training_step);
  }
  same_line_if_fits(i18n::label("lab.training.reset", "reset").c_str());
  if (ImGui::Button(i18n::label("lab.training.reset", "reset").c_str()))
    ui.interaction.commands.push(Command::training_reset);
  // The pace: a handful of steps a second lets a class watch the map form step by step.
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(tr("lab.training.speed"));
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("lab.training.speed.help"));
  for (const int speed : {1, 10, 100, 0}) {
    const std::string text = speed == 0 ? std::string(tr("lab.training.speed.full")) : std::to_string(speed) + "/s";
    const std::string radio = text + "###speed-" + std::to_string(speed);
    same_line_if_room(ImGui::CalcTextSize(text.c_str()).x + ImGui::GetFrameHeight() +
                      2.0f * ImGui::GetStyle().ItemInnerSpacing.x);
    if (ImGui::RadioButton(radio.c_str(), edit.training.speed == speed))
      (void)set_training_key(edit.training, "train_speed", std::to_string(speed));
  }
  ImGui::EndDisabled();
}

int training_run_control_rows(float width) {
  const ImGuiStyle& style = ImGui::GetStyle();
  const auto button = [&](const char* key) { return ImGui::CalcTextSize(tr(key)).x + 2.0f * style.FramePadding.x; };
  const auto radio = [&](const std::string& text) {
    return ImGui::CalcTextSize(text.c_str()).x + ImGui::GetFrameHeight() + 2.0f * style.ItemInnerSpacing.x;
  };
  // As same_line_if_room places them: a row per group, wrapped where the next item does not fit.
  int rows = 0;
  const auto group = [&](std::initializer_list<float> widths) {
    float x = -1.0f;
    for (const float w : widths) {
      if (x < 0.0f || x + style.ItemSpacing.x + w > width) {
        ++rows;
        x = w;
      } else {
        x += style.ItemSpacing.x + w;
      }
    }
  };
  group({std::max(button("lab.training.train"), button("lab.training.pause")), button("lab.training.step"),
         button("lab.training.reset")});
  group({ImGui::CalcTextSize(tr("lab.training.speed")).x, radio("1/s"), radio("10/s"), radio("100/s"),
         radio(tr("lab.training.speed.full"))});
  return rows;
}

bool space_trains(const UiState& ui) { return ui.view == View::training && ui.training.live; }

void handle_training_keys(UiState& ui, Params& edit, const Snapshot* snapshot) {
  if (!space_trains(ui)) return;
  const ImGuiIO& io = ImGui::GetIO();
  // A text field, a dragged slider or a popup keeps the keys.
  if (io.WantTextInput || ImGui::IsAnyItemActive() || ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId)) return;
  if (io.KeyCtrl || io.KeyAlt || !ImGui::IsKeyPressed(GLFW_KEY_SPACE, false)) return;
  toggle_training(ui, edit, snapshot != nullptr ? snapshot->lab<TrainingLab>() : nullptr);
}

namespace {

void status_line(const UiState& ui, const TrainingLab* lab) {
  const TrainingUi& t = ui.training;
  if (lab == nullptr) return;
  ImGui::TextWrapped("%s", training_status(ui, lab).c_str());
  if (!t.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
    ImGui::TextWrapped("%s", t.error.c_str());
    ImGui::PopStyleColor();
  }
}

// [SECTION] Controls: settings

// The combos of the choice settings: the names train_<key> takes.
void choice_combo(Params& edit, const char* label_key, std::string_view key, std::span<const char* const> values) {
  const std::string current = get_training_key(edit.training, key).value_or("");
  if (ImGui::BeginCombo(control_label(label_key, std::string(key)).c_str(), current.c_str())) {
    for (const char* value : values)
      if (ImGui::Selectable(value, current == value)) (void)set_training_key(edit.training, key, value);
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", std::string(find_training_key(key)->description).c_str());
}

void task_combo(Params& edit) {
  const train::Task task = edit.training.run.task;
  if (ImGui::BeginCombo(control_label("lab.training.task", "train_task").c_str(),
                        tr("lab.training.task." + std::string(train::task_name(task))))) {
    for (const train::Task option : train::all_tasks)
      if (ImGui::Selectable(tr("lab.training.task." + std::string(train::task_name(option))), option == task) &&
          option != task) {
        // A task's own sizes; the softmax and optimiser knobs (the experiment) stay as they were.
        const train::Settings& old = edit.training.run;
        train::Settings next = train::default_settings(option);
        next.scaled = old.scaled;
        next.temperature = old.temperature;
        next.precision = old.precision;
        next.softmax = old.softmax;
        next.optimizer = old.optimizer;
        next.learning_rate = old.learning_rate;
        next.init_scale = old.init_scale;
        next.key_dim = old.key_dim;
        next.seed = old.seed;
        TrainingSettings candidate = edit.training;
        candidate.run = next;
        // A comparison the new task cannot take (vocab, seq_len) is dropped rather than refused.
        if (!validate(candidate).ok()) candidate.compare.clear();
        if (validate(candidate).ok()) edit.training = std::move(candidate);
      }
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", train::task_description(task).data());
}

// The comparison: which key differs in runs B, C, D, and their values (typed, Enter applies).
// The keys runs B, C, D may differ in, as the comparison combo offers them ("" = none).
constexpr const char* compare_keys[] = {"",        "scaled",        "temperature", "d_k",       "precision",
                                        "softmax", "learning_rate", "init_scale",  "optimizer", "seed",
                                        "heads",   "layers",        "d_model",     "batch",     "positions"};
constexpr const char* precisions[] = {"fp32", "fp16", "bf16", "fp64"};
constexpr const char* softmaxes[] = {"stable", "naive"};
constexpr const char* optimizers[] = {"adam", "sgd"};

void compare_controls(UiState& ui, Params& edit) {
  const std::string& compare = edit.training.compare;
  const std::string current_key = compare.substr(0, compare.find('='));
  const std::string current_name =
      current_key.empty() ? std::string(tr("lab.training.compare.none")) : compare_key_name(current_key);
  if (ImGui::BeginCombo(control_label("lab.training.compare", "train_compare").c_str(), current_name.c_str())) {
    for (const char* key : compare_keys) {
      const bool none = *key == 0;
      // The shown name, and the key as its ImGui id (the names may repeat across languages' widths).
      const std::string item =
          (none ? std::string(tr("lab.training.compare.none")) : compare_key_name(key)) + "###" + key;
      if (!ImGui::Selectable(item.c_str(), current_key == key) || current_key == key) continue;
      if (none) {
        edit.training.compare.clear();
        continue;
      }
      // A first value that differs from run A's: the opposite flag, another choice, ×4 or ÷4.
      const std::string a = train::get_setting(edit.training.run, key).value_or("");
      std::string value;
      const std::string_view name(key);
      if (a == "true" || a == "false")
        value = a == "true" ? "false" : "true";
      else if (name == "precision")
        value = a == "fp16" ? "fp32" : "fp16";
      else if (name == "softmax")
        value = a == "naive" ? "stable" : "naive";
      else if (name == "optimizer")
        value = a == "adam" ? "sgd" : "adam";
      else if (name == "seed" || name == "heads" || name == "layers")
        value = std::to_string(std::stoll(a) + 1);
      else
        value = format_value(
            std::stod(a) * (std::stod(a) * 4 <= find_training_key("train_" + std::string(name))->max ? 4.0 : 0.25), 6);
      (void)set_training_key(edit.training, "train_compare", std::string(key) + "=" + value);
    }
    ImGui::EndCombo();
  }
  help_marker(tr("lab.training.compare.help"));
  if (!current_key.empty()) {
    ImGui::PushItemWidth(-1.0f);
    std::string values = compare.substr(compare.find('=') + 1);
    if (ImGui::InputText("##compare-values", &values, ImGuiInputTextFlags_EnterReturnsTrue)) {
      const Result<void> set = set_training_key(edit.training, "train_compare", current_key + "=" + values);
      if (!set.ok()) ui.input_error = set.error().message;
    }
    ImGui::PopItemWidth();
    // On its own line: side_note's SameLine after a full-width field widened the column by a gap.
    plot::wrapped_text(tr("lab.training.compare.values"), ImGui::GetContentRegionAvail().x, true);
  }
}

// The lab's main keys (its row's, which the control strip shows with the column collapsed): the
// experiment the lessons run, d_k with and without ÷√d_k, how fast it learns and how far.
constexpr MainKey training_main_keys[] = {
    {"train_d_k", "lab.training.d_k", "d_k = %d"},
    {"train_scaled", "lab.training.scaled", nullptr, "lab.training.scaled.help"},
    {"train_learning_rate", "lab.training.learning_rate", "%.3g", nullptr, "lab.training.learning_rate.format"},
    {"train_steps", "lab.training.steps", "%d", nullptr, "lab.training.steps.format"}};

// The main keys first, as the strip has them; then the task and the rest of the model.
void settings_controls(UiState& ui, Params& edit) {
  setting_slider(ui, edit, "lab.training.d_k", "train_d_k", "d_k = %d");
  control_checkbox("lab.training.scaled", "train_scaled", &edit.training.run.scaled);
  ui.control_items.push_back("train_scaled");
  help_marker(tr("lab.training.scaled.help"));
  setting_slider(ui, edit, "lab.training.learning_rate", "train_learning_rate", "%.2g");
  setting_slider(ui, edit, "lab.training.steps", "train_steps", "%d");
  task_combo(edit);
  setting_slider(ui, edit, "lab.training.temperature", "train_temperature", "T = %.3g");
  setting_slider(ui, edit, "lab.training.init_scale", "train_init_scale", "x %.3g");
  choice_combo(edit, "lab.training.precision", "train_precision", precisions);
  choice_combo(edit, "lab.training.softmax", "train_softmax", softmaxes);
  choice_combo(edit, "lab.training.optimizer", "train_optimizer", optimizers);
  compare_controls(ui, edit);
  setting_slider(ui, edit, "lab.training.seeds", "train_seeds", "%d");
  setting_slider(ui, edit, "lab.training.seed", "train_seed", "%d");
}

// [SECTION] Controls: the sentence and files

void sentence_controls(UiState& ui, Params& edit, const TrainingLab* lab) {
  TrainingUi& t = ui.training;
  if (edit.training.run.task == train::Task::language) {
    section(tr("lab.training.section.sentence"));
    if (!t.sentence_edited) t.sentence_text = edit.training.sentence;
    ImGui::PushItemWidth(-1.0f);
    if (ImGui::InputTextWithHint("##sentence", tr("lab.training.sentence.hint"), &t.sentence_text))
      t.sentence_edited = true;
    const bool entered = ImGui::IsItemDeactivatedAfterEdit();
    ImGui::PopItemWidth();
    if (entered || ImGui::Button(i18n::label("lab.training.sentence.use", "use sentence").c_str())) {
      const Result<void> set = set_training_key(edit.training, "train_sentence", t.sentence_text);
      if (!set.ok()) ui.input_error = set.error().message;
      t.sentence_edited = false;
    }
    // Sentences to pick: the first line of each lesson's first step, in the shown language.
    if (ImGui::BeginCombo(control_label("lab.training.sentence.pick", "pick").c_str(), "")) {
      for (const Lesson& lesson : ui.lessons.lessons) {
        if (lesson.steps.empty()) continue;
        std::string text = step_text(lesson.steps.front(), i18n::language(), nullptr);
        text = text.substr(0, text.find('\n'));
        // Up to the first full stop (English ". " or Chinese "。").
        const std::size_t stop = std::min(text.find(". "), text.find("。"));
        if (stop != std::string::npos) text = text.substr(0, stop + (text.compare(stop, 1, ".") == 0 ? 1 : 3));
        TrainingSettings check = edit.training;
        if (text.empty() || !set_training_key(check, "train_sentence", text).ok()) continue;
        if (ImGui::Selectable(text.c_str(), text == edit.training.sentence)) {
          (void)set_training_key(edit.training, "train_sentence", text);
          t.sentence_edited = false;
        }
      }
      ImGui::EndCombo();
    }
  }
  setting_slider(ui, edit, "lab.training.position", "train_position", "%d");
  // The next-token distribution in the sampling lab: its top tokens' logits as that lab's scores.
  const bool have_tokens = lab != nullptr && lab->sentence.error.empty() && !lab->sentence.top.empty();
  ImGui::BeginDisabled(!have_tokens);
  if (control_button(i18n::label("lab.training.open_sampling", "open sampling").c_str()) && have_tokens) {
    std::vector<double> scores;
    for (int token : lab->sentence.top) scores.push_back(lab->sentence.logits[static_cast<std::size_t>(token)]);
    Params candidate = edit;
    candidate.scores = scores;
    candidate.temperature = 1.0;
    if (validate(candidate).ok()) {
      edit = std::move(candidate);
      ui.scores_text = format_scores(edit.scores);
      ui.view = View::sampling;
      ui.select_view_tab = true;
    }
  }
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("%s", tr("lab.training.open_sampling.help"));
  ImGui::EndDisabled();

  section(tr("lab.training.section.files"));
  // On the web page the files download: no path to type, nothing on disk to load from.
  if (!t.files_by_host) {
    ImGui::PushItemWidth(-1.0f);
    ImGui::InputTextWithHint("##weights-path", tr("lab.training.weights_path"), &t.weights_path);
    ImGui::PopItemWidth();
  }
  ImGui::BeginDisabled(!t.live);
  if (ImGui::Button(i18n::label("lab.training.save_weights", "save weights").c_str()))
    ui.interaction.commands.push(Command::save_weights);
  if (!t.files_by_host) {
    same_line_if_fits(i18n::label("lab.training.load_weights", "load weights").c_str());
    if (ImGui::Button(i18n::label("lab.training.load_weights", "load weights").c_str()))
      ui.interaction.commands.push(Command::load_weights);
  }
  ImGui::EndDisabled();
  if (!t.files_by_host) {
    ImGui::PushItemWidth(-1.0f);
    ImGui::InputTextWithHint("##npz-path", tr("lab.training.npz_path"), &t.npz_path);
    ImGui::PopItemWidth();
  }
  ImGui::BeginDisabled(!have_tokens);
  if (control_button(i18n::label("lab.training.export_npz", "export npz").c_str()))
    ui.interaction.commands.push(Command::export_npz);
  ImGui::EndDisabled();
  if (!t.files_by_host) ImGui::Checkbox(i18n::label("lab.training.overwrite", "overwrite").c_str(), &t.overwrite);
  if (!t.message.empty()) {
    if (t.message_is_error) ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
    ImGui::TextWrapped("%s", t.message.c_str());
    if (t.message_is_error) ImGui::PopStyleColor();
  }
}

ControlsReport controls_training(Params&) { return {}; }  // everything is in controls_training_ui (it needs UiState)

void controls_training_ui(UiState& ui, Params& edit, const Snapshot* snapshot) {
  const TrainingLab* lab = snapshot != nullptr ? snapshot->lab<TrainingLab>() : nullptr;
  status_line(ui, lab);
  training_run_controls(ui, edit, lab);
  settings_controls(ui, edit);
  sentence_controls(ui, edit, lab);
}

}  // namespace

// [SECTION] The registry row

// The lab's row in the registry (labs.cpp lists it).
constexpr const char* training_control_labels[] = {
    "lab.training.task",       "lab.training.d_k",          "lab.training.temperature", "lab.training.learning_rate",
    "lab.training.init_scale", "lab.training.precision",    "lab.training.softmax",     "lab.training.optimizer",
    "lab.training.compare",    "lab.training.seeds",        "lab.training.seed",        "lab.training.steps",
    "lab.training.position",   "lab.training.sentence.pick"};
extern const LabDefinition training_lab{View::training,
                                        "lab.training.title",
                                        "lab.training.summary",
                                        training_control_labels,
                                        build_training,
                                        controls_training,
                                        nullptr,
                                        controls_training_ui,
                                        true,
                                        training_main_keys};

}  // namespace smlab::app
