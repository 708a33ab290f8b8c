// The control column: every slider edits a copy of Params that goes through the
// one validation (apply_params) before it becomes the app's state.
//
// [SECTION] Index
//   [SECTION] Layout helpers shared by the panels
//   [SECTION] Control labels, checkboxes and buttons
//   [SECTION] Sliders from the key table
//   [SECTION] Read-outs, presets, import and language
//   [SECTION] The control column
#include <imgui.h>
#include <imgui_internal.h>  // the window's MoveId: a press on its background is no item
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include "i18n/i18n.hpp"
#include "panels/labs.hpp"
#include "panels/lesson_panel.hpp"
#include "panels/panels.hpp"
#include "plot/color.hpp"
#include "plot/text_wrap.hpp"
#include "panels/pins_panel.hpp"
#include "smlab/labs/training.hpp"

namespace smlab::app {

// [SECTION] Layout helpers shared by the panels

namespace {

// A tooltip whose text wraps at 30 em, or the window's width less 2 em where that is narrower: an
// unwrapped help line at the projector's font ran past the window's right edge.
void wrapped_tooltip(const std::string& text) {
  ImGui::BeginTooltip();
  const float em = ImGui::GetFontSize();
  ImGui::PushTextWrapPos(std::max(std::min(30.0f * em, ImGui::GetIO().DisplaySize.x - 2.0f * em), 8.0f * em));
  ImGui::TextUnformatted(text.c_str());
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
}

}  // namespace

void help_marker(const char* text) {
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) wrapped_tooltip(text);
}

ImVec4 readable_text(ImVec4 color) {
  const ImVec4 window = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
  const plot::Color text =
      plot::readable_on({color.x, color.y, color.z, color.w}, {window.x, window.y, window.z, 1.0f});
  return ImVec4(text.r, text.g, text.b, text.a);
}

void section(const char* title) {
  ImGui::Spacing();
  // The check-mark blue reads on the dark, light and projector backgrounds alike; a title wider
  // than the column ("Attention variants lab" at font 1.5) wraps.
  ImGui::PushStyleColor(ImGuiCol_Text, readable_text(ImGui::GetStyle().Colors[ImGuiCol_CheckMark]));
  plot::wrapped_text(title, ImGui::GetContentRegionAvail().x);
  ImGui::PopStyleColor();
  ImGui::Separator();
}

float content_right() { return ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x; }

void scroll_by_drag() {
  if (ImGui::GetScrollMaxY() <= 0.0f || !ImGui::IsMouseDragging(ImGuiMouseButton_Left)) return;
  // A press on a window's background makes the window's move ID active (even where the window
  // cannot move): that is the drag this is for; any other active ID is an item's own drag.
  const ImGuiID active = ImGui::GetActiveID();
  if (active != 0 && active != ImGui::GetCurrentWindow()->MoveId) return;
  if (!ImGui::IsWindowHovered(ImGuiHoveredFlags_ChildWindows | ImGuiHoveredFlags_AllowWhenBlockedByActiveItem)) return;
  ImGui::SetScrollY(std::clamp(ImGui::GetScrollY() - ImGui::GetIO().MouseDelta.y, 0.0f, ImGui::GetScrollMaxY()));
}

void same_line_if_room(float width) {
  if (ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + width <= content_right()) ImGui::SameLine();
}

void same_line_if_fits(const char* next) {
  same_line_if_room(ImGui::CalcTextSize(next, nullptr, true).x + 2.0f * ImGui::GetStyle().FramePadding.x);
}

// [SECTION] Control labels, checkboxes and buttons

namespace {

// Set by draw_controls for the frame's column (see control_label in panels.hpp).
bool labels_above = false;

// Set by HeldKeysScope for the frame one App draws.
thread_local std::span<const std::string> held_keys;

}  // namespace

HeldKeysScope::HeldKeysScope(std::span<const std::string> keys) : previous_(held_keys) { held_keys = keys; }
HeldKeysScope::~HeldKeysScope() { held_keys = previous_; }

bool key_held(std::string_view key) { return std::find(held_keys.begin(), held_keys.end(), key) != held_keys.end(); }

std::string control_label(std::string_view key, std::string_view id) {
  if (!labels_above) return i18n::label(key, id);
  ImGui::TextUnformatted(i18n::tr(key));
  std::string hidden = "###";
  hidden.append(id);
  return hidden;
}

bool control_checkbox(std::string_view key, std::string_view id, bool* value) {
  const char* text = i18n::tr(key);
  const ImGuiStyle& style = ImGui::GetStyle();
  const float box = ImGui::GetFrameHeight() + style.ItemInnerSpacing.x;
  const float marker = style.ItemSpacing.x + ImGui::CalcTextSize("(?)").x;
  const float right = content_right() - marker;
  if (ImGui::GetCursorScreenPos().x + box + ImGui::CalcTextSize(text, nullptr, true).x <= right)
    return ImGui::Checkbox(i18n::label(key, id).c_str(), value);
  std::string hidden = "##";
  hidden.append(id);
  bool changed = ImGui::Checkbox(hidden.c_str(), value);
  ImGui::SameLine(0.0f, style.ItemInnerSpacing.x);
  ImGui::PushTextWrapPos(right - ImGui::GetWindowPos().x);
  ImGui::TextUnformatted(text);
  ImGui::PopTextWrapPos();
  if (ImGui::IsItemClicked()) {
    *value = !*value;
    changed = true;
  }
  return changed;
}

void side_note(std::string_view text) {
  const float right = content_right();
  ImGui::SameLine();
  if (right - ImGui::GetCursorScreenPos().x < 6.0f * ImGui::GetFontSize()) ImGui::NewLine();
  plot::wrapped_text(text, right - ImGui::GetCursorScreenPos().x, true);
}

bool control_button(std::string_view label) {
  const std::size_t hash = label.find("##");
  const std::string_view text = label.substr(0, hash);
  const std::string_view id = hash == std::string_view::npos ? std::string_view() : label.substr(hash);
  const float padding = 2.0f * ImGui::GetStyle().FramePadding.x;
  const float width = content_right() - ImGui::GetCursorScreenPos().x;
  const auto measure = [](std::string_view piece) {
    return ImGui::CalcTextSize(piece.data(), piece.data() + piece.size()).x;
  };
  if (measure(text) + padding <= width) return ImGui::Button(std::string(label).c_str());
  std::string lines;
  for (const plot::LineSpan& line : plot::wrap_text(text, width - padding, measure)) {
    if (!lines.empty()) lines.push_back('\n');
    lines.append(text.substr(line.begin, line.end - line.begin));
  }
  // "###" and the label's id (the text after its "##" or "###"), else its text.
  const std::size_t id_start = id.find_first_not_of('#');
  lines.append("###").append(id_start == std::string_view::npos ? text : id.substr(id_start));
  return ImGui::Button(lines.c_str());
}

// [SECTION] Sliders from the key table

namespace {

// Whether imported data fixes `key` (validate() allows no other value): seq_len, and d_k when the
// data has Q and K.
bool fixed_by_import(const Params& params, std::string_view key) {
  if (params.imported == nullptr) return false;
  return key == "seq_len" || (key == "d_k" && params.imported->key_dim > 0);
}

// A training key's value (train_*, a number) as a slider: read and written as the key table's text,
// so set_training_key's validation is the one applied (a refused value leaves the old one).
bool training_slider(Params& edit, const TrainingKey& row, const std::string& label, const char* format,
                     ImGuiSliderFlags flags) {
  const std::optional<std::string> text = get_training_key(edit.training, row.name);
  if (!text) return false;
  std::string value;
  if (row.kind == TrainingKeyKind::integer) {
    const int min = static_cast<int>(row.min), max = static_cast<int>(row.max);
    int current = std::clamp(std::stoi(*text), min, max);
    if (!ImGui::SliderInt(label.c_str(), &current, min, max, format, flags)) return false;
    value = std::to_string(current);
  } else if (row.kind == TrainingKeyKind::real) {
    double current = std::stod(*text);
    if (!ImGui::SliderScalar(label.c_str(), ImGuiDataType_Double, &current, &row.min, &row.max, format, flags))
      return false;
    char buffer[40];
    std::snprintf(buffer, sizeof buffer, "%.6g", current);
    value = buffer;
  } else {
    return false;  // flags, choices and texts have their own controls
  }
  return set_training_key(edit.training, row.name, value).ok();
}

// The upper end the slider offers: the key's, the one validation applies now (row: the last
// position; batch and head: the imported data's last), or the caller's.
double slider_max(const Params& params, const ParamKey& key, const SliderText& text) {
  if (text.max) return *text.max;
  if (key.name == "row") return params.seq_len - 1;
  if (params.imported != nullptr && key.name == "batch") return params.imported->batches - 1;
  if (params.imported != nullptr && key.name == "head") return params.imported->heads - 1;
  return key.max;
}

}  // namespace

ControlsReport key_slider(Params& edit, std::string_view name, const SliderText& text) {
  ControlsReport report;
  const ParamKey* key = find_param_key(name);
  if (key == nullptr) return report;  // a program error; the key-table test names every slider's key
  const bool fixed = fixed_by_import(edit, name), held = key_held(name);
  ImGui::BeginDisabled(fixed || held);
  // The label: the key's own name where it is the same in every language (d_k), else the table's.
  std::string label;
  if (!text.label_shown) {
    label = "##" + std::string(text.id);
  } else if (text.label == nullptr) {
    if (labels_above) ImGui::TextUnformatted(key->name.data(), key->name.data() + key->name.size());
    label = (labels_above ? "##" : "") + std::string(key->name);
  } else {
    label = control_label(text.label, text.id);
  }
  const bool logarithmic = key->scale == KeyScale::logarithmic || key->log_slider;
  const ImGuiSliderFlags flags =
      ImGuiSliderFlags_AlwaysClamp | (logarithmic ? ImGuiSliderFlags_Logarithmic : ImGuiSliderFlags_None);
  const double max = slider_max(edit, *key, text);
  if (const auto* real = std::get_if<double Params::*>(&key->member)) {
    double value = edit.**real;
    if (ImGui::SliderScalar(label.c_str(), ImGuiDataType_Double, &value, &key->min, &max, text.format, flags)) {
      edit.** real = value;
      report.changed = true;
    }
  } else if (const auto* whole = std::get_if<int Params::*>(&key->member)) {
    // Shown inside the offered range (the loss lab's target is an index into a shorter row).
    const int low = static_cast<int>(key->min), high = static_cast<int>(max);
    int value = std::clamp(edit.**whole, low, high);
    if (ImGui::SliderInt(label.c_str(), &value, low, high, text.format, flags)) {
      edit.** whole = value;
      report.changed = true;
      // The shown row stays inside a shorter sequence, wherever L is dragged (column or strip).
      if (key->name == "seq_len") edit.row = std::min(edit.row, edit.seq_len - 1);
    }
  } else if (const auto* training = std::get_if<TrainingMember>(&key->member)) {
    report.changed = training_slider(edit, *training->key, label, text.format, flags);
  } else if (const auto* seed = std::get_if<std::uint64_t Params::*>(&key->member)) {
    ImU64 value = edit.**seed;
    const ImU64 step = 1;
    if (ImGui::InputScalar(label.c_str(), ImGuiDataType_U64, &value, &step, nullptr, text.format)) {
      edit.** seed = std::min<ImU64>(value, static_cast<ImU64>(key->max));
      report.changed = true;
    }
  }
  ImGui::EndDisabled();
  report.keys.push_back(key->name);
  if (key->scale != KeyScale::none && (ImGui::IsItemHovered() || ImGui::IsItemActive())) report.hovered_key = key->name;
  const char* help = held ? "lesson.held" : fixed ? "controls.import.fixed" : text.help;
  if (!text.label_shown) {
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
      const std::string name = text.label != nullptr ? i18n::tr(text.label) : std::string(key->name);
      wrapped_tooltip(help != nullptr ? name + ": " + i18n::tr(help) : name);
    }
  } else if (help != nullptr) {
    if (text.help_as == SliderText::Help::marker)
      help_marker(i18n::tr(help));
    else if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      ImGui::SetTooltip("%s", i18n::tr(help));
  }
  return report;
}

const char* MainKey::name() const { return label != nullptr ? i18n::tr(label) : key; }

ControlsReport draw_control_strip(Params& edit, std::span<const MainKey> keys, float width) {
  ControlsReport report;
  if (keys.empty()) return report;
  const ImGuiStyle& style = ImGui::GetStyle();
  const float em = ImGui::GetFontSize(), gap = style.ItemSpacing.x;
  const auto checkbox_width = [&](const MainKey& main) {
    return ImGui::GetFrameHeight() + style.ItemInnerSpacing.x + ImGui::CalcTextSize(main.name()).x;
  };
  // The flags' checkboxes take their text's width; the sliders share what is left (one row where
  // they keep 7 em each).
  float flags_width = 0.0f;
  int sliders = 0;
  for (const MainKey& main : keys) {
    if (main.format != nullptr) {
      ++sliders;
    } else {
      flags_width += checkbox_width(main);
    }
  }
  const float share =
      (width - flags_width - gap * static_cast<float>(keys.size() - 1)) / static_cast<float>(std::max(sliders, 1));
  const float slider_width = std::clamp(share, 7.0f * em, 12.0f * em);
  const float left = ImGui::GetCursorScreenPos().x, right = left + width;
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const MainKey& main = keys[k];
    const ParamKey* key = find_param_key(main.key);
    if (key == nullptr) continue;  // a program error; the main-keys test names every key
    const std::string id = "strip " + std::string(main.key);
    const float item_width = main.format != nullptr ? slider_width : checkbox_width(main);
    // On the same row while it fits, else the next row.
    if (k > 0) {
      ImGui::SameLine(0.0f, gap);
      if (ImGui::GetCursorScreenPos().x + item_width > right) ImGui::NewLine();
    }
    if (main.format == nullptr) {  // a flag: Params' own, or a training key's ("true" / "false")
      const std::string checkbox = std::string(main.name()) + "###" + id;
      const bool held = key_held(main.key);
      ImGui::BeginDisabled(held);
      if (const auto* flag = std::get_if<bool Params::*>(&key->member)) {
        report.changed |= ImGui::Checkbox(checkbox.c_str(), &(edit.**flag));
      } else if (std::holds_alternative<TrainingMember>(key->member)) {
        bool on = get_training_key(edit.training, main.key).value_or("false") == "true";
        if (ImGui::Checkbox(checkbox.c_str(), &on))
          report.changed |= set_training_key(edit.training, main.key, on ? "true" : "false").ok();
      }
      ImGui::EndDisabled();
      report.keys.push_back(key->name);
      if ((held || main.help != nullptr) && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        wrapped_tooltip(i18n::tr(held ? "lesson.held" : main.help));
      continue;
    }
    const std::string format = main.format_key != nullptr
                                   ? i18n::slider_format(main.format_key, key->is_integer() ? "%d" : "%.3g")
                                   : std::string(main.format);
    SliderText text(main.label, id.c_str(), format.c_str(), main.help);
    text.label_shown = false;
    ImGui::PushItemWidth(slider_width);
    report += key_slider(edit, main.key, text);
    ImGui::PopItemWidth();
  }
  return report;
}

namespace {

using i18n::label;
using i18n::tr;

// [SECTION] Read-outs, presets, import and language

// One read-out line: as written where it fits (the tables align the numbers with spaces), else
// wrapped at the column's edge by plot::wrap_text (never inside a number, unlike ImGui's wrap,
// which breaks "0.|1160") with each run of spaces made one, so nothing is cut off.
void readout_line(const std::string& text, bool disabled = false) {
  const float width = content_right() - ImGui::GetCursorScreenPos().x;
  if (ImGui::CalcTextSize(text.c_str()).x <= width) {
    if (disabled) ImGui::BeginDisabled();
    ImGui::TextUnformatted(text.c_str());
    if (disabled) ImGui::EndDisabled();
    return;
  }
  std::string collapsed;
  for (const char c : text)
    if (c != ' ' || collapsed.empty() || collapsed.back() != ' ') collapsed.push_back(c);
  plot::wrapped_text(collapsed, width, disabled);
}

// A combo of the presets and an Apply button: the preset replaces every Params value
// (it is defined on top of the defaults) and switches to its view, if it names one.
void draw_presets(UiState& ui, Params& edit) {
  section(tr("controls.section.presets"));
  if (!ui.presets.ok() || ui.presets->empty()) {
    ImGui::TextDisabled("%s", ui.presets.ok() ? tr("controls.no_presets") : ui.presets.error().message.c_str());
    return;
  }
  const std::vector<Preset>& presets = *ui.presets;
  const auto count = static_cast<int>(presets.size());
  ui.preset_index = std::clamp(ui.preset_index, 0, count - 1);
  const Preset& selected = presets[static_cast<std::size_t>(ui.preset_index)];
  // A preset's title in the current language, else the English title from presets.json.
  const auto title_of = [](const Preset& preset) {
    const char* translated = i18n::find("controls.preset." + preset.name);
    return translated != nullptr ? translated : preset.title.c_str();
  };
  ImGui::PushItemWidth(-ImGui::CalcTextSize(tr("controls.apply")).x - 3.0f * ImGui::GetStyle().FramePadding.x -
                       ImGui::GetStyle().ItemSpacing.x);
  if (ImGui::BeginCombo("##preset", selected.name.c_str())) {
    for (int index = 0; index < count; ++index) {
      const Preset& preset = presets[static_cast<std::size_t>(index)];
      if (ImGui::Selectable(preset.name.c_str(), index == ui.preset_index)) ui.preset_index = index;
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", title_of(preset));
    }
    ImGui::EndCombo();
  }
  ImGui::PopItemWidth();
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", title_of(selected));
  ImGui::SameLine();
  if (ImGui::Button(label("controls.apply", "apply").c_str())) {
    edit = selected.params;
    if (selected.view && *selected.view != ui.view) {
      ui.view = *selected.view;
      ui.select_view_tab = true;
    }
  }
}

// What was imported, its batch and head, the causal mask, and the way back to random data.
void draw_imported(Params& edit) {
  const ImportedAttention& data = *edit.imported;
  section(tr("controls.section.imported"));
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled("%s", data.summary.c_str());
  ImGui::PopTextWrapPos();
  using Help = SliderText::Help;
  if (data.batches > 1)
    key_slider(edit, "batch", {"controls.import.batch", "batch", "%d", "controls.import.batch.help", Help::marker});
  if (data.heads > 1)
    key_slider(edit, "head", {"controls.import.head", "head", "%d", "controls.import.head.help", Help::marker});
  control_checkbox("common.causal_mask", "imported causal", &edit.causal);
  if (ImGui::Button(label("controls.import.forget", "forget import").c_str()))
    (void)attach_import(edit, nullptr);  // a refusal leaves `edit` as it was (the button does nothing)
}

// The language combo: each language names itself. Chinese is greyed out when its table or font
// is missing (ui.chinese_available says why); the switch itself happens between frames (App).
void draw_language(UiState& ui) {
  const i18n::Language languages[] = {i18n::Language::English, i18n::Language::Chinese};
  if (ImGui::BeginCombo(control_label("controls.language", "language").c_str(), i18n::language_name(ui.language))) {
    for (const i18n::Language language : languages) {
      const bool unavailable = language == i18n::Language::Chinese && !ui.chinese_available;
      if (ImGui::Selectable(i18n::language_name(language), language == ui.language,
                            unavailable ? ImGuiSelectableFlags_Disabled : 0))
        ui.language = language;
      if (unavailable && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("%s", ui.chinese_available.error().message.c_str());
    }
    ImGui::EndCombo();
  }
  help_marker(tr("controls.language.help"));
  if (!ui.chinese_available) ImGui::TextDisabled("%s", ui.chinese_available.error().message.c_str());
}

// The dashboard's own sliders: the softmax's T and score scale, the imported data, the attention's
// d_k, L, row and seed, and the custom scores.
ControlsReport dashboard_controls(UiState& ui, Params& edit) {
  using Help = SliderText::Help;
  ControlsReport report;
  section(tr("controls.section.softmax"));
  report += key_slider(edit, "temperature",
                       {"controls.temperature", "temperature", "T = %.3g", "controls.temperature.help", Help::marker});
  report += key_slider(edit, "score_scale",
                       {"controls.score_scale", "score scale", "x %.3g", "controls.score_scale.help", Help::marker});

  if (edit.imported != nullptr) draw_imported(edit);
  section(tr("controls.section.attention"));
  // Imported Q and K fix d_k and L (key_slider shows them disabled); imported scores or weights fix L.
  const bool imported = edit.imported != nullptr, dim_fixed = imported && edit.imported->key_dim > 0;
  report += key_slider(edit, "d_k", {nullptr, "d_k", "d_k = %d", "controls.d_k.help", Help::marker});
  control_checkbox("controls.scaled", "scaled", &edit.scaled);
  help_marker(imported && !dim_fixed ? tr("controls.import.no_dk") : tr("controls.scaled.help"));
  // A fixed L is shown at the right end of its track.
  report += key_slider(edit, "seq_len",
                       {"controls.seq_len", "seq_len", "L = %d", "controls.seq_len.help", Help::marker,
                        imported ? std::optional<double>(edit.seq_len) : std::nullopt});
  const std::string row_format =
      i18n::slider_format("controls.row.format", "%d");  // the table's text is never a format
  report += key_slider(edit, "row", {"controls.row", "row", row_format.c_str(), "controls.row.help", Help::marker});
  report += key_slider(edit, "seed", {"controls.seed", "seed", "%llu", "controls.seed.help", Help::marker});

  section(tr("controls.section.custom_scores"));
  ImGui::PushItemWidth(-1.0f);
  const bool entered = ImGui::InputTextWithHint("##scores", tr("controls.scores_hint"), &ui.scores_text,
                                                ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::PopItemWidth();
  if (ImGui::Button(label("controls.use_scores", "use scores").c_str()) || entered) {
    const Result<std::vector<double>> parsed = parse_scores(ui.scores_text);
    if (!parsed.ok()) {
      ui.input_error = i18n::format("controls.scores_error", {parsed.error().message});
    } else if (parsed->empty()) {
      ui.input_error = tr("controls.scores_empty");
    } else {
      edit.scores = *parsed;
    }
  }
  same_line_if_fits(label("controls.use_row", "use row").c_str());
  if (ImGui::Button(label("controls.use_row", "use row").c_str())) edit.scores.clear();
  same_line_if_fits(label("controls.reset", "reset all").c_str());
  if (ImGui::Button(label("controls.reset", "reset all").c_str())) {
    // Every slider back to its default; imported data stays (Back to random data drops it).
    const auto imported = edit.imported;
    edit = Params{};
    if (imported != nullptr) (void)attach_import(edit, imported);  // a refusal keeps the defaults without the data
    ui.scores_text.clear();
  }
  if (!edit.scores.empty())
    ImGui::TextDisabled("%s", i18n::format("controls.showing_custom", {std::to_string(edit.scores.size())}).c_str());

  return report;
}

}  // namespace

// [SECTION] The control column

void draw_controls(UiState& ui, Params& edit, const Snapshot* snapshot, const FrameStats& stats) {
  // Room right of the sliders for the longest label of this language, plus the "(?)" marker.
  float label_room = 0.0f;
  for (const char* key : {"controls.temperature", "controls.score_scale", "controls.seq_len", "controls.seed",
                          "controls.theme", "controls.font", "controls.language"})
    label_room = std::max(label_room, ImGui::CalcTextSize(tr(key)).x);
  for (const LabDefinition* lab : lab_definitions())  // every lab's, so the column does not jump between tabs
    for (const char* key : lab->control_labels) label_room = std::max(label_room, ImGui::CalcTextSize(tr(key)).x);
  // Laid out as: slider, ItemInnerSpacing, label, ItemSpacing, "(?)".
  const float marker = ImGui::GetStyle().ItemSpacing.x + ImGui::CalcTextSize("(?)").x;
  label_room += ImGui::GetStyle().ItemInnerSpacing.x + marker;
  // A slider narrower than 8 em beside the longest label shows a few pixels of its value (1024×768
  // at font 1.5): then every label goes on its own line above its control, which takes the width.
  labels_above = ImGui::GetContentRegionAvail().x - label_room < 8.0f * ImGui::GetFontSize();
  ImGui::PushItemWidth(labels_above ? -marker : -label_room);
  ui.controls_slider_width = ImGui::CalcItemWidth();
  ui.controls_font_size = ImGui::GetFontSize();
  ui.controls_labels_above = labels_above;

  // The column's sliders, each with its "(?)"; the key under the mouse is the one Left/Right nudge.
  ControlsReport report;
  // A lab that trains its own model (the training lab) has controls of its own first, and none of
  // the dashboard's: its T, d_k and L sliders would not touch the training, and a lecturer dragging
  // the first d_k in the column would wonder why nothing learns differently.
  const LabDefinition* lab = lab_definition(ui.view);
  const bool own_model = lab != nullptr && lab->own_model;
  if (own_model) {
    section(i18n::format("controls.section.lab", {view_title(ui.view)}).c_str());
    report += lab->controls(edit);
    if (lab->controls_ui != nullptr) lab->controls_ui(ui, edit, snapshot);
  } else {
    report += dashboard_controls(ui, edit);
  }

  draw_presets(ui, edit);
  draw_lesson_launcher(ui);

  if (lab != nullptr && !own_model) {
    section(i18n::format("controls.section.lab", {view_title(ui.view)}).c_str());
    report += lab->controls(edit);
    if (lab->controls_ui != nullptr) lab->controls_ui(ui, edit, snapshot);
  }
  if (!report.hovered_key.empty()) ui.interaction.nudge_key_this_frame = std::string(report.hovered_key);
  // The key table's sliders drawn above come before what the lab's own controls noted (the
  // training lab's, which are first in the column only when its sliders are its own).
  ui.control_items.insert(ui.control_items.begin(), report.keys.begin(), report.keys.end());
  if (!ui.input_error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, readable_text(ImVec4(1.0f, 0.45f, 0.4f, 1.0f)));
    ImGui::TextWrapped("%s", ui.input_error.c_str());
    ImGui::PopStyleColor();
  }

  // The read-outs are the dashboard row's: not the training lab's model.
  if (!own_model) section(tr("controls.section.readout"));
  if (snapshot != nullptr && !own_model) {
    // The tables give the words with {0}, {1} where the numbers go; the numbers are formatted
    // here, so a table's text is never a printf format (it is a file users edit).
    const auto n = static_cast<int>(snapshot->probabilities.size());
    const auto fixed = [](double value, int digits) { return i18n::fixed(value, digits); };
    readout_line(i18n::format("controls.readout.entropy",
                              {fixed(snapshot->entropy_nats, 4), fixed(snapshot->max_entropy_nats, 3)}));
    readout_line(i18n::format("controls.readout.choices", {fixed(snapshot->effective_choices, 2), std::to_string(n)}));
    readout_line(i18n::format("controls.readout.max_weight",
                              {fixed(snapshot->max_weight, 4), std::to_string(snapshot->argmax)}));
    readout_line(i18n::format("controls.readout.gradient",
                              {fixed(snapshot->gradient[static_cast<std::size_t>(snapshot->argmax)], 4)}));
    readout_line(i18n::format("controls.readout.jacobian", {fixed(snapshot->jacobian_norm, 4)}));
    const Params& shown = snapshot->params;
    if (shown.imported != nullptr && !snapshot->custom_scores &&
        shown.imported->tokens.size() == snapshot->probabilities.size()) {
      const auto& tokens = shown.imported->tokens;
      readout_line(i18n::format("controls.readout.tokens",
                                {shorten_label(tokens[static_cast<std::size_t>(shown.row)], 16),
                                 shorten_label(tokens[static_cast<std::size_t>(snapshot->argmax)], 16)}));
    }
  }
  if (stats.computing) {
    ImGui::ProgressBar(stats.progress, ImVec2(-1.0f, 0.0f), tr("controls.recomputing"));
  } else {
    readout_line(i18n::format("controls.timing", {i18n::fixed(stats.compute_ms, 1), i18n::fixed(stats.frame_ms, 1)}),
                 true);
  }

  section(tr("controls.section.look"));
  int theme = static_cast<int>(ui.theme);
  const char* const theme_names[] = {tr("controls.theme.dark"), tr("controls.theme.light"),
                                     tr("controls.theme.projector")};
  if (ImGui::Combo(control_label("controls.theme", "theme").c_str(), &theme, theme_names, 3))
    ui.theme = static_cast<Theme>(theme);
  help_marker(tr("controls.theme.help"));
  float font_scale = ui.font_scale;
  // Steps of 0.25×: the font atlas is rebuilt only when a step changes, not every drag frame.
  if (ImGui::SliderFloat(control_label("controls.font", "font").c_str(), &font_scale, font_scale_min, font_scale_max,
                         "%.2fx", ImGuiSliderFlags_AlwaysClamp))
    ui.font_scale = std::round(font_scale * 4.0f) / 4.0f;
  help_marker(tr("controls.font.help"));
  draw_language(ui);

  draw_interaction_controls(ui);

  section(tr("controls.section.screenshot"));
  ImGui::PushItemWidth(-1.0f);
  ImGui::InputText("##folder", &ui.screenshot_dir);
  ImGui::PopItemWidth();
  if (ImGui::Button(label("controls.save_png", "save png").c_str())) ui.interaction.commands.push(Command::screenshot);
  if (!ui.status.empty()) {
    if (ui.status_is_error) ImGui::PushStyleColor(ImGuiCol_Text, readable_text(ImVec4(1.0f, 0.45f, 0.4f, 1.0f)));
    ImGui::TextWrapped("%s", ui.status.c_str());
    if (ui.status_is_error) ImGui::PopStyleColor();
  }
  // Last, so that adding it moved no control a person (or the live-window test) knows where to find.
  draw_pins_section(ui);
  ImGui::PopItemWidth();
  labels_above = false;  // control_label elsewhere (lesson panel, presenter) keeps labels beside
}

}  // namespace smlab::app
