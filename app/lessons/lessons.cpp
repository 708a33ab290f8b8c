// Lessons: reading assets/lessons/*.json with every field checked, the panels a step may point
// at, and the in-between Params of an animated step change.
//
// [SECTION] Index
//   [SECTION] Small helpers: error text, names, bilingual text
//   [SECTION] Reading claims: quantity and claim
//   [SECTION] Reading a predict block
//   [SECTION] Reading bound numbers: "bind" and the {NAME} in the texts
//   [SECTION] Reading a step
//   [SECTION] Parsing a lesson: parse_lesson
//   [SECTION] The lesson folder: load_lessons, find_lesson, lesson_names
//   [SECTION] The --lesson NAME:STEP:GUESS argument: lookup_lesson
//   [SECTION] Panels a step may point at and show
//   [SECTION] Guesses and the reveal: numbers as shown, check_guess, parse_guess, the close rule
//   [SECTION] Bound numbers in the text: bound_text, step_text
//   [SECTION] Animated step changes: interpolate_params, lesson_ease
#include "lessons/lessons.hpp"
#include "files/json_parse.hpp"
#include "files/text_file.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string_view>
#include <system_error>

namespace smlab::app {
namespace {

// [SECTION] Small helpers: error text, names, bilingual text

using OrderedJson = nlohmann::ordered_json;

LessonLoad failure(std::string message) { return Error::usage(std::move(message)); }

// Error text that is certainly one line (nlohmann's messages and file names may hold anything).
std::string one_line(std::string text) {
  for (char& c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return text;
}

bool is_valid_name(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_')) return false;
  return true;
}

// Titles are one line; texts may hold line breaks ("\n") but no other control character.
bool is_clean_text(const std::string& text, bool allow_newline) {
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && !(allow_newline && c == '\n')) || byte == 0x7f) return false;
  }
  return true;
}

std::string shown(const std::string& text) { return shown_text(text); }

// {"en": "…", "zh-CN": "…"}, both non-empty strings within `max_bytes`.
Result<void> read_text(const OrderedJson& value, const std::string& where, std::size_t max_bytes, bool allow_newline,
                       LessonText& out) {
  if (!value.is_object())
    return Error::usage(where + " must be an object {\"en\": …, \"zh-CN\": …}, not " + value.type_name());
  for (const auto& [language, text] : value.items()) {
    if (language != "en" && language != "zh-CN")
      return Error::usage(where + " has language '" + shown(language) + "': allowed en, zh-CN");
    if (!text.is_string()) return Error::usage(where + "." + language + " must be a string, not " + text.type_name());
    const std::string& content = text.get_ref<const std::string&>();
    if (content.empty()) return Error::usage(where + "." + language + " is empty");
    if (content.size() > max_bytes)
      return Error::usage(where + "." + language + " is longer than " + std::to_string(max_bytes) + " bytes");
    if (!is_clean_text(content, allow_newline))
      return Error::usage(where + "." + language + " holds a control character" +
                          (allow_newline ? " (only \\n is allowed)" : ""));
    (language == "en" ? out.english : out.chinese) = content;
  }
  if (out.english.empty()) return Error::usage(where + " needs \"en\"");
  if (out.chinese.empty()) return Error::usage(where + " needs \"zh-CN\"");
  return {};
}

std::string view_names() {
  std::string names;
  for (const ViewInfo& info : all_views()) names += (names.empty() ? "" : ", ") + std::string(info.name);
  return names;
}

std::string panel_names(View view) {
  std::string names;
  for (const LessonPanel& panel : lesson_panels(view)) names += (names.empty() ? "" : ", ") + std::string(panel.name);
  return names;
}

// [SECTION] Reading claims: quantity and claim

// {"quantity": NAME, "series": S, "index": I, "at": D} (the last three as the quantity needs).
Result<void> read_quantity(const OrderedJson& value, const std::string& where, bool top_level, ClaimQuantity& out) {
  if (!value.is_object()) return Error::usage(where + " must be an object, not " + value.type_name());
  for (const auto& [field, part] : value.items()) {
    const bool known = field == "quantity" || field == "series" || field == "index" || field == "at" ||
                       (top_level && (field == "op" || field == "value" || field == "than" || field == "times" ||
                                      field == "tolerance"));
    if (!known) return Error::usage(where + " has an unknown field '" + shown(field) + "'");
  }
  if (!value.contains("quantity") || !value["quantity"].is_string())
    return Error::usage(where + " needs a \"quantity\" string");
  out.quantity = value["quantity"].get<std::string>();
  if (value.contains("series")) {
    if (!value["series"].is_string()) return Error::usage(where + " \"series\" must be a string");
    out.series = value["series"].get<std::string>();
  }
  for (const char* key : {"index", "at"})
    if (value.contains(key)) {
      if (!value[key].is_number_integer() || value[key].get<long long>() < 0 || value[key].get<long long>() > 1'000'000)
        return Error::usage(where + " \"" + key + "\" must be an integer in 0 … 1000000");
      (std::string(key) == "index" ? out.index : out.at) = value[key].get<int>();
    }
  if (Result<void> checked = check_claim_quantity(out); !checked.ok())
    return Error::usage(where + " " + checked.error().message);
  return {};
}

Result<void> read_claim(const OrderedJson& value, const std::string& where, LessonClaim& claim) {
  if (Result<void> read = read_quantity(value, where, true, claim.left); !read) return read;
  if (!value.contains("op") || !value["op"].is_string())
    return Error::usage(where + " needs an \"op\" string: allowed <, <=, >, >=, ~");
  claim.op = value["op"].get<std::string>();
  for (const char* key : {"value", "times", "tolerance"})
    if (value.contains(key)) {
      if (!value[key].is_number()) return Error::usage(where + " \"" + key + "\" must be a number");
      const double number = value[key].get<double>();
      (std::string(key) == "value"   ? claim.value
       : std::string(key) == "times" ? claim.times
                                     : claim.tolerance) = number;
    }
  if (value.contains("than")) {
    if (value.contains("value")) return Error::usage(where + " has both \"value\" and \"than\": give one");
    claim.than.emplace();
    if (Result<void> read = read_quantity(value["than"], where + " than", false, *claim.than); !read) return read;
  } else if (!value.contains("value")) {
    return Error::usage(where + " needs a \"value\" or a \"than\"");
  }
  if (Result<void> checked = check_claim(claim); !checked.ok())
    return Error::usage(where + " " + checked.error().message);
  return {};
}

// [SECTION] Reading a predict block

bool finite_number(const OrderedJson& value) { return value.is_number() && std::isfinite(value.get<double>()); }

// "predict": {"question", "quantity", "choices" | "min" + "max" + "tolerance", "hides", "reveal_text"}.
Result<void> read_predict(const OrderedJson& value, const std::string& where, View view, const std::string& step_panel,
                          LessonPredict& out) {
  if (!value.is_object()) return Error::usage(where + " must be an object, not " + value.type_name());
  for (const auto& [field, part] : value.items())
    if (field != "question" && field != "quantity" && field != "choices" && field != "min" && field != "max" &&
        field != "decimals" && field != "significant" && field != "hides" && field != "reveal_text")
      return Error::usage(
          where + " has an unknown field '" + shown(field) +
          "': allowed question, quantity, choices, min, max, decimals, significant, hides, reveal_text");
  if (!value.contains("question")) return Error::usage(where + " needs a \"question\"");
  if (Result<void> read =
          read_text(value["question"], where + " question", lesson_title_max_chars, false, out.question);
      !read)
    return read;
  if (!value.contains("quantity"))
    return Error::usage(where + " needs a \"quantity\": {\"quantity\": NAME, …} as claims take");
  if (Result<void> read = read_quantity(value["quantity"], where + " quantity", false, out.quantity); !read)
    return read;
  const bool has_choices = value.contains("choices");
  const bool has_range =
      value.contains("min") || value.contains("max") || value.contains("decimals") || value.contains("significant");
  if (has_choices == has_range)
    return Error::usage(
        where +
        " needs either \"choices\" (2 to 6 numbers) or \"min\", \"max\" and \"decimals\" or \"significant\" (a "
        "typed guess), not " +
        (has_choices ? "both" : "neither"));
  if (has_choices) {
    const OrderedJson& choices = value["choices"];
    if (!choices.is_array() || choices.size() < lesson_min_choices || choices.size() > lesson_max_choices)
      return Error::usage(where + " \"choices\" must be an array of 2 to 6 numbers");
    for (const OrderedJson& choice : choices) {
      if (!finite_number(choice))
        return Error::usage(where + " \"choices\" holds " + shown(choice.dump()) + ": allowed finite numbers");
      const double number = choice.get<double>();
      if (std::find(out.choices.begin(), out.choices.end(), number) != out.choices.end())
        return Error::usage(where + " \"choices\" holds " + predict_number(number) + " twice");
      out.choices.push_back(number);
    }
  } else {
    for (const char* key : {"min", "max"}) {
      if (!value.contains(key) || !finite_number(value[key]))
        return Error::usage(where + " needs \"" + key +
                            "\" as a finite number (a typed guess takes min, max and its precision)");
      (std::string(key) == "min" ? out.min : out.max) = value[key].get<double>();
    }
    if (!(out.min < out.max))
      return Error::usage(where + " \"min\" " + predict_number(out.min) + " must be below \"max\" " +
                          predict_number(out.max));
    // The precision the question asks for: it shows the answer and decides what is close.
    const bool decimals = value.contains("decimals"), significant = value.contains("significant");
    if (decimals == significant)
      return Error::usage(where +
                          " needs one of \"decimals\" (0 to 12) or \"significant\" (1 to 15 digits): the precision the "
                          "question asks for");
    const OrderedJson& digits = value[decimals ? "decimals" : "significant"];
    const int lowest = decimals ? 0 : 1, highest = decimals ? 12 : 15;
    if (!digits.is_number_integer() || digits.get<long long>() < lowest || digits.get<long long>() > highest)
      return Error::usage(where + " \"" + (decimals ? "decimals" : "significant") + "\" must be a whole number from " +
                          std::to_string(lowest) + " to " + std::to_string(highest));
    out.precision = {decimals ? PredictPrecision::Kind::decimals : PredictPrecision::Kind::significant,
                     digits.get<int>()};
  }
  out.hides = step_panel;
  if (value.contains("hides")) {
    if (!value["hides"].is_string())
      return Error::usage(where + " \"hides\" must be a panel name: allowed " + panel_names(view));
    out.hides = value["hides"].get<std::string>();
    if (panel_entry_plots(view, out.hides).empty())
      return Error::usage(where + " hides '" + shown(out.hides) + "', not a panel of " +
                          std::string(view_info(view).name) + ": allowed " + panel_names(view) +
                          " or one of their plots");
  }
  if (value.contains("reveal_text")) {
    out.after.emplace();
    if (Result<void> read =
            read_text(value["reveal_text"], where + " reveal_text", lesson_text_max_chars, true, *out.after);
        !read)
      return read;
  }
  return {};
}

// [SECTION] Reading bound numbers: "bind" and the {NAME} in the texts

bool is_binding_name(std::string_view name) {
  if (name.empty() || name.size() > lesson_binding_name_max || !(name[0] >= 'a' && name[0] <= 'z')) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; });
}

// Calls `each(name)` for every {NAME} of `text`; an error for a brace that is not part of one
// (braces are for bound numbers only: a stray one is a typo that would show as is).
template <class Each>
Result<void> for_each_placeholder(std::string_view text, const std::string& where, Each&& each) {
  for (std::size_t at = 0; at < text.size(); ++at) {
    if (text[at] == '}') return Error::usage(where + " has a '}' with no '{' before it: a bound number is {NAME}");
    if (text[at] != '{') continue;
    const std::size_t end = text.find('}', at + 1);
    const std::string_view name =
        end == std::string_view::npos ? text.substr(at + 1) : text.substr(at + 1, end - at - 1);
    if (end == std::string_view::npos || !is_binding_name(name))
      return Error::usage(where + " has '{" + shown(std::string(name.substr(0, 40))) +
                          "', which is not a bound number: write {NAME}, NAME a binding of the step's \"bind\" "
                          "(a to z, 0 to 9 and _, starting with a letter)");
    if (Result<void> used = each(name); !used) return used;
    at = end;
  }
  return {};
}

// "bind": {"NAME": {"quantity": …, "series"/"index"/"at", "decimals": D}, …}; then every {NAME} in
// both texts must be one of them, and each of them must be in both.
Result<void> read_bindings(const OrderedJson& entry, const std::string& where, LessonStep& step) {
  if (entry.contains("bind")) {
    const OrderedJson& bind = entry["bind"];
    if (!bind.is_object())
      return Error::usage(where + " \"bind\" must be an object of NAME: {\"quantity\": …, \"decimals\": D}, not " +
                          bind.type_name());
    if (bind.size() > lesson_max_bindings)
      return Error::usage(where + " binds more than " + std::to_string(lesson_max_bindings) + " numbers");
    for (const auto& [name, value] : bind.items()) {
      const std::string at = where + " bind '" + shown(name) + "'";
      if (!is_binding_name(name))
        return Error::usage(at + ": a name is a to z, 0 to 9 and _, starting with a letter, at most " +
                            std::to_string(lesson_binding_name_max) + " bytes");
      if (!value.is_object()) return Error::usage(at + " must be an object, not " + value.type_name());
      LessonBinding binding;
      binding.name = name;
      OrderedJson quantity = value;
      if (!quantity.contains("decimals") || !quantity["decimals"].is_number_integer() ||
          quantity["decimals"].get<long long>() < 0 ||
          quantity["decimals"].get<long long>() > lesson_binding_max_decimals)
        return Error::usage(at + " needs \"decimals\": an integer from 0 to " +
                            std::to_string(lesson_binding_max_decimals) + " (the digits shown after the point)");
      binding.decimals = quantity["decimals"].get<int>();
      quantity.erase("decimals");
      if (Result<void> read = read_quantity(quantity, at, false, binding.quantity); !read) return read;
      step.bindings.push_back(std::move(binding));
    }
  }
  const auto find = [&](std::string_view name) {
    return std::find_if(step.bindings.begin(), step.bindings.end(),
                        [&](const LessonBinding& binding) { return binding.name == name; });
  };
  for (const auto& [language, text] : {std::pair<const char*, const std::string*>{"en", &step.text.english},
                                       std::pair<const char*, const std::string*>{"zh-CN", &step.text.chinese}}) {
    std::vector<bool> used(step.bindings.size(), false);
    const std::string in = where + " text." + language;
    const auto mark = [&](std::string_view name) -> Result<void> {
      const auto found = find(name);
      if (found == step.bindings.end())
        return Error::usage(in + " writes {" + std::string(name) + "}, which the step's \"bind\" does not name");
      used[static_cast<std::size_t>(found - step.bindings.begin())] = true;
      return {};
    };
    if (Result<void> scanned = for_each_placeholder(*text, in, mark); !scanned) return scanned;
    for (std::size_t k = 0; k < used.size(); ++k)
      if (!used[k])
        return Error::usage(where + " binds '" + step.bindings[k].name + "', which text." + language +
                            " does not write: bind a number in both languages");
  }
  return {};
}

// [SECTION] Reading a step

// Every name a step's "panels" may hold in `view`, for error messages.
std::string panel_entry_names(View view) {
  std::vector<std::string_view> names;
  const auto add = [&names](std::string_view name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  for (const LessonPanel& panel : lesson_panels(view)) {
    add(panel.name);
    for (std::string_view plot : panel.plots) add(plot);
  }
  if (view != View::dashboard) names.push_back(lesson_notes_panel);
  std::string text;
  for (std::string_view name : names) text += (text.empty() ? "" : ", ") + std::string(name);
  return text;
}

// "panels": ["softmax", "linear", "notes"]: 1 to lesson_max_panels names, each a lesson panel or a
// plot of the view (or "notes" in a lab), no plot twice, the highlighted panel among them.
Result<void> read_panels(const OrderedJson& entry, const std::string& where, LessonStep& step) {
  if (!entry.contains("panels")) {
    step.panels = {step.panel};
    return {};
  }
  const OrderedJson& panels = entry["panels"];
  if (!panels.is_array() || panels.empty() || panels.size() > lesson_max_panels)
    return Error::usage(where + " \"panels\" must be an array of 1 to " + std::to_string(lesson_max_panels) +
                        " names: allowed " + panel_entry_names(step.view));
  std::vector<std::string_view> plots;
  for (const OrderedJson& name : panels) {
    if (!name.is_string())
      return Error::usage(where + " \"panels\" holds " + shown(name.dump()) + ": allowed " +
                          panel_entry_names(step.view));
    const std::string entry_name = name.get<std::string>();
    if (entry_name == lesson_notes_panel && step.view != View::dashboard) {
      if (std::find(step.panels.begin(), step.panels.end(), entry_name) != step.panels.end())
        return Error::usage(where + " \"panels\" names 'notes' twice");
      step.panels.push_back(entry_name);
      continue;
    }
    const std::vector<std::string_view> named = panel_entry_plots(step.view, entry_name);
    if (named.empty())
      return Error::usage(where + " \"panels\" holds '" + shown(entry_name) + "', not a panel of " +
                          std::string(view_info(step.view).name) + ": allowed " + panel_entry_names(step.view));
    for (std::string_view plot : named) {
      if (std::find(plots.begin(), plots.end(), plot) != plots.end())
        return Error::usage(where + " \"panels\" shows plot '" + std::string(plot) + "' twice ('" + shown(entry_name) +
                            "')");
      plots.push_back(plot);
    }
    step.panels.push_back(entry_name);
  }
  if (plots.empty()) return Error::usage(where + " \"panels\" shows no plot: name at least the step's \"panel\"");
  for (std::string_view plot : panel_entry_plots(step.view, step.panel))
    if (std::find(plots.begin(), plots.end(), plot) == plots.end())
      return Error::usage(where + " panel '" + shown(step.panel) +
                          "' is not among its \"panels\" (the highlighted panel is shown)");
  return {};
}

// "hold": ["temperature", "scores"]: 1 to lesson_max_held names of the key table, each once.
Result<void> read_held(const OrderedJson& entry, const std::string& where, LessonStep& step) {
  if (!entry.contains("hold")) return {};
  const OrderedJson& hold = entry["hold"];
  if (!hold.is_array() || hold.empty() || hold.size() > lesson_max_held)
    return Error::usage(where + " \"hold\" must be an array of 1 to " + std::to_string(lesson_max_held) + " key names");
  for (const OrderedJson& name : hold) {
    if (!name.is_string()) return Error::usage(where + " \"hold\" holds a " + name.type_name() + ", not a key name");
    const std::string key = name.get<std::string>();
    if (find_param_key(key) == nullptr)
      return Error::usage(where + " holds '" + shown(key) + "', which is not a key (softmax-lab --list-keys)");
    if (std::find(step.held.begin(), step.held.end(), key) != step.held.end())
      return Error::usage(where + " holds '" + shown(key) + "' twice");
    step.held.push_back(key);
  }
  return {};
}

// A number a step quotes, claims or asks for that one lab computes comes from the lab its view shows:
// on another view's step the Snapshot holds no such lab, and a bound number would show "…" for
// good, a claim never hold.
Result<void> check_labs_shown(const std::string& where, const LessonStep& step) {
  const auto check = [&](const ClaimQuantity& quantity, const std::string& what) -> Result<void> {
    const std::optional<View> lab = claim_quantity_lab(quantity);
    if (!lab || *lab == step.view) return {};
    return Error::usage(where + " " + what + " " + quantity.quantity + ", a number of the " +
                        std::string(view_info(*lab).name) + " lab, but its view is " +
                        std::string(view_info(step.view).name) + ": show that view or name a number of this one");
  };
  for (const LessonBinding& binding : step.bindings)
    if (Result<void> shown_lab = check(binding.quantity, "binds '" + binding.name + "' to"); !shown_lab)
      return shown_lab;
  for (std::size_t k = 0; k < step.claims.size(); ++k) {
    const std::string what = "claim " + std::to_string(k + 1) + " reads";
    if (Result<void> shown_lab = check(step.claims[k].left, what); !shown_lab) return shown_lab;
    if (step.claims[k].than)
      if (Result<void> shown_lab = check(*step.claims[k].than, what); !shown_lab) return shown_lab;
  }
  if (step.predict)
    if (Result<void> shown_lab = check(step.predict->quantity, "predict asks for"); !shown_lab) return shown_lab;
  return {};
}

Result<void> read_step(const OrderedJson& entry, const std::string& where, Params& params, LessonStep& step) {
  if (!entry.is_object()) return Error::usage(where + " must be an object, not " + entry.type_name());
  for (const auto& [field, value] : entry.items())
    if (field != "title" && field != "text" && field != "set" && field != "view" && field != "panel" &&
        field != "panels" && field != "claims" && field != "predict" && field != "bind" && field != "hold")
      return Error::usage(where + " has an unknown field '" + shown(field) +
                          "': allowed title, text, bind, set, hold, view, panel, panels, claims, predict");
  if (!entry.contains("title")) return Error::usage(where + " needs a \"title\"");
  if (Result<void> read = read_text(entry["title"], where + " title", lesson_title_max_chars, false, step.title); !read)
    return read;
  if (!entry.contains("text")) return Error::usage(where + " needs a \"text\"");
  if (Result<void> read = read_text(entry["text"], where + " text", lesson_text_max_chars, true, step.text); !read)
    return read;
  if (Result<void> read = read_bindings(entry, where, step); !read) return read;

  if (!entry.contains("view") || !entry["view"].is_string())
    return Error::usage(where + " needs a \"view\" string: allowed " + view_names());
  const auto view = view_from_name(entry["view"].get<std::string>());
  if (!view)
    return Error::usage(where + " view '" + shown(entry["view"].get<std::string>()) + "' is not a view: allowed " +
                        view_names());
  step.view = *view;
  if (!entry.contains("panel") || !entry["panel"].is_string())
    return Error::usage(where + " needs a \"panel\" string: allowed " + panel_names(step.view));
  step.panel = entry["panel"].get<std::string>();
  if (panel_entry_plots(step.view, step.panel).empty())
    return Error::usage(where + " panel '" + shown(step.panel) + "' is not a panel of " +
                        std::string(view_info(step.view).name) + ": allowed " + panel_names(step.view) +
                        " or one of their plots");

  if (Result<void> read = read_panels(entry, where, step); !read) return read;

  if (entry.contains("set")) {
    const OrderedJson& set = entry["set"];
    if (!set.is_object())
      return Error::usage(where + " \"set\" must be an object of KEY: VALUE, not " + set.type_name());
    for (const auto& [key, value] : set.items()) {
      std::string text;
      if (value.is_string())
        text = value.get<std::string>();
      else if (value.is_boolean() || value.is_number())
        text = value.dump();
      else
        return Error::usage(where + " key '" + shown(key) + "' must be a string, number or boolean, not " +
                            value.type_name());
      if (Result<void> set = set_param(params, key, text); !set.ok())
        return Error::usage(where + " key '" + shown(key) + "': " + set.error().message);
      step.settings.emplace_back(key, text);
    }
  }
  step.params = params;
  if (Result<void> read = read_held(entry, where, step); !read) return read;
  if (entry.contains("claims")) {
    const OrderedJson& claims = entry["claims"];
    if (!claims.is_array()) return Error::usage(where + " \"claims\" must be an array, not " + claims.type_name());
    if (claims.size() > lesson_max_claims)
      return Error::usage(where + " has more than " + std::to_string(lesson_max_claims) + " claims");
    for (std::size_t k = 0; k < claims.size(); ++k) {
      const std::string at = where + " claim " + std::to_string(k + 1);
      LessonClaim claim;
      if (Result<void> read = read_claim(claims[k], at, claim); !read) return read;
      step.claims.push_back(std::move(claim));
    }
  }
  if (entry.contains("predict")) {
    step.predict.emplace();
    if (Result<void> read = read_predict(entry["predict"], where + " predict", step.view, step.panel, *step.predict);
        !read)
      return read;
    // The question covers a panel the class must be able to see once it is revealed: a step that
    // names no "panels" shows it beside its own panel.
    if (!entry.contains("panels") && step.predict->hides != step.panel) step.panels.push_back(step.predict->hides);
    for (const LessonBinding& binding : step.bindings)
      if (binding.quantity == step.predict->quantity)
        return Error::usage(where + " binds '" + binding.name +
                            "' to the predict question's answer, which the text would show before the reveal");
    const std::vector<std::string_view> shown_plots = step_plots(step);
    for (std::string_view plot : panel_entry_plots(step.view, step.predict->hides))
      if (std::find(shown_plots.begin(), shown_plots.end(), plot) == shown_plots.end())
        return Error::usage(where + " predict hides '" + shown(step.predict->hides) +
                            "', which its \"panels\" do not show");
  }
  return check_labs_shown(where, step);
}

}  // namespace

// [SECTION] Parsing a lesson: parse_lesson

LessonLoad parse_lesson(std::string_view json_text) {
  Result<OrderedJson> parsed =
      parse_json<OrderedJson>(json_text, "lesson", {lesson_max_bytes, lesson_max_depth, lesson_max_keys});
  if (!parsed) return parsed.error();
  OrderedJson& document = *parsed;  // not const, as before: operator[] reads below
  if (!document.is_object()) return failure(std::string("lesson must be a JSON object, not ") + document.type_name());
  for (const auto& [field, value] : document.items())
    if (field != "name" && field != "title" && field != "steps" && field != "_comment")
      return failure(one_line("lesson has an unknown field '" + shown(field) + "': allowed name, title, steps"));
  if (!document.contains("name") || !document["name"].is_string() ||
      !is_valid_name(document["name"].get<std::string>()))
    return failure("lesson needs a \"name\" of 1 to 64 lower-case letters, digits, '-' or '_'");
  Lesson lesson;
  lesson.name = document["name"].get<std::string>();
  const std::string named = "lesson '" + lesson.name + "'";
  if (!document.contains("title")) return failure(named + " needs a \"title\"");
  if (Result<void> read = read_text(document["title"], named + " title", lesson_title_max_chars, false, lesson.title);
      !read)
    return failure(one_line(read.error().message));
  if (!document.contains("steps") || !document["steps"].is_array() || document["steps"].empty())
    return failure(named + " needs a \"steps\" array of 1 to " + std::to_string(lesson_max_steps) + " steps");
  if (document["steps"].size() > lesson_max_steps)
    return failure(named + " has " + std::to_string(document["steps"].size()) + " steps: allowed 1 to " +
                   std::to_string(lesson_max_steps));
  Params params;  // each step starts from the one before
  for (std::size_t index = 0; index < document["steps"].size(); ++index) {
    LessonStep step;
    const std::string where = named + " step " + std::to_string(index + 1);
    if (Result<void> read = read_step(document["steps"][index], where, params, step); !read)
      return failure(one_line(read.error().message));
    lesson.steps.push_back(std::move(step));
  }
  return lesson;
}

// [SECTION] The lesson folder: load_lessons, find_lesson, lesson_names

LessonList load_lessons(const std::filesystem::path& dir) {
  LessonList list;
  std::error_code error;
  std::vector<std::filesystem::path> files;
  for (std::filesystem::directory_iterator it(dir, error), end; !error && it != end; it.increment(error))
    if (it->path().extension() == ".json") files.push_back(it->path());
  if (error) {
    list.error = Error::file(one_line("cannot read lessons '" + dir.string() + "': " + error.message()));
    return list;
  }
  std::sort(files.begin(), files.end());
  if (files.size() > lesson_max_files) {
    list.error =
        Error::file(one_line("lessons '" + dir.string() + "' holds more than " + std::to_string(lesson_max_files) +
                             " files; reading the first " + std::to_string(lesson_max_files)));
    files.resize(lesson_max_files);
  }
  auto report = [&](const std::string& message) {
    if (!list.error) list.error = Error::file(one_line(message));
  };
  for (const std::filesystem::path& file : files) {
    const std::string shown_file = "lesson file '" + file.string() + "'";
    const TextFile text = read_text_file(file, lesson_max_bytes);
    if (text.status == TextFile::Status::unreadable) {
      report(cannot_read(shown_file, text));
      continue;
    }
    if (text.status == TextFile::Status::too_large) {
      report(shown_file + " is larger than 1 MB");
      continue;
    }
    LessonLoad load = parse_lesson(text.text);
    if (!load.ok()) {
      report(shown_file + ": " + load.error().message);
      continue;
    }
    if (find_lesson(list, load->name)) {
      report(shown_file + ": lesson '" + load->name + "' appears twice");
      continue;
    }
    list.lessons.push_back(std::move(*load));
  }
  return list;
}

std::optional<std::size_t> find_lesson(const LessonList& list, std::string_view name) {
  for (std::size_t index = 0; index < list.lessons.size(); ++index)
    if (list.lessons[index].name == name) return index;
  return std::nullopt;
}

std::string lesson_names(const LessonList& list) {
  constexpr std::size_t names_shown = 12;
  std::string names;
  for (std::size_t i = 0; i < list.lessons.size() && i < names_shown; ++i)
    names += (names.empty() ? "" : ", ") + list.lessons[i].name;
  if (list.lessons.size() > names_shown)
    names += ", … (" + std::to_string(list.lessons.size()) + " in all; see --list-lessons)";
  return names.empty() ? "(none: no lesson files loaded)" : names;
}

// [SECTION] The --lesson NAME:STEP:GUESS argument: lookup_lesson

LessonLookup lookup_lesson(const LessonList& list, std::string_view full_spec) {
  auto refused = [](const std::string& message) { return Error::usage(one_line(message)); };
  // NAME:STEP:GUESS: names hold no ':', so the first colon ends the name and a second one the step.
  std::string_view spec = full_spec;
  std::optional<std::string> guess_text;
  if (const std::size_t first = full_spec.find(':'); first != std::string_view::npos) {
    if (const std::size_t second = full_spec.find(':', first + 1); second != std::string_view::npos) {
      guess_text = std::string(full_spec.substr(second + 1));
      spec = full_spec.substr(0, second);
    }
  }
  const std::size_t colon = spec.rfind(':');
  const std::string name(spec.substr(0, colon));
  const auto index = find_lesson(list, name);
  if (!index) return refused("--lesson '" + shown(name) + "' is not a lesson: allowed " + lesson_names(list));
  const std::size_t count = list.lessons[*index].steps.size();
  std::size_t step = 1;
  if (colon != std::string_view::npos) {
    const std::string text(spec.substr(colon + 1));
    const bool digits = !text.empty() && text.size() <= 4 &&
                        std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
    step = digits ? std::stoul(text) : 0;
    if (step < 1 || step > count)
      return refused("--lesson " + name + ": step '" + shown(text) + "' is not allowed: a step from 1 to " +
                     std::to_string(count));
  }
  LessonPosition position{*index, step - 1, std::nullopt};
  if (guess_text) {
    const LessonStep& target = list.lessons[*index].steps[step - 1];
    if (!target.predict) {
      std::string predict_steps;
      for (std::size_t k = 0; k < count; ++k)
        if (list.lessons[*index].steps[k].predict)
          predict_steps += (predict_steps.empty() ? "" : ", ") + std::to_string(k + 1);
      return refused("--lesson " + name + ":" + std::to_string(step) + ": a guess ':" + shown(*guess_text) +
                     "' goes with a predict step only: " +
                     (predict_steps.empty() ? "this lesson has none" : "steps " + predict_steps));
    }
    const Result<double> guess = parse_guess(*target.predict, *guess_text);
    if (!guess.ok()) return refused("--lesson " + name + ":" + std::to_string(step) + ": " + guess.error().message);
    position.guess = *guess;
  }
  return position;
}

// [SECTION] Panels a step may point at and show

const LessonPanel* find_lesson_panel(View view, std::string_view name) {
  for (const LessonPanel& panel : lesson_panels(view))
    if (panel.name == name) return &panel;
  return nullptr;
}

std::vector<std::string_view> panel_entry_plots(View view, std::string_view entry) {
  if (const LessonPanel* panel = find_lesson_panel(view, entry)) return panel->plots;
  for (const LessonPanel& panel : lesson_panels(view))
    for (std::string_view plot : panel.plots)
      if (plot == entry) return {plot};
  return {};
}

std::vector<std::string_view> step_plots(const LessonStep& step) {
  std::vector<std::string_view> plots;
  for (const std::string& entry : step.panels)
    for (std::string_view plot : panel_entry_plots(step.view, entry))
      if (std::find(plots.begin(), plots.end(), plot) == plots.end()) plots.push_back(plot);
  return plots;
}

bool step_shows_notes(const LessonStep& step) {
  return std::find(step.panels.begin(), step.panels.end(), lesson_notes_panel) != step.panels.end();
}

// [SECTION] Guesses and the reveal: numbers as shown, check_guess, parse_guess, the close rule

std::string predict_precision_words(const PredictPrecision& precision) {
  if (precision.kind == PredictPrecision::Kind::significant)
    return i18n::format("lesson.predict.significant", {std::to_string(precision.digits)});
  if (precision.digits == 0) return i18n::tr("lesson.predict.whole");
  if (precision.digits == 1) return i18n::tr("lesson.predict.one_decimal");  // "1 decimal", not "1 decimals"
  return i18n::format("lesson.predict.decimals", {std::to_string(precision.digits)});
}

std::string predict_range_words(const LessonPredict& predict) {
  return i18n::format("lesson.predict.range", {predict_number(predict.min), predict_number(predict.max),
                                               predict_precision_words(predict.precision)});
}

std::string predict_number(double value) {
  char text[32];
  // Whole numbers up to 10⁶ in plain digits: a range "from -1500 to 0", not "-1.5e+03".
  if (std::abs(value) < 1e6 && value == std::round(value))
    std::snprintf(text, sizeof text, "%.0f", value);
  else
    std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

namespace {

// `value` with `decimals` digits after the point, never in exponent form; "-0" becomes "0".
std::string fixed_decimals(double value, int decimals) {
  char text[400];  // %f of 1e308 has 309 digits
  std::snprintf(text, sizeof text, "%.*f", std::clamp(decimals, 0, 30), value);
  std::string out = text;
  if (out.find_first_not_of("-0.") == std::string::npos && !out.empty() && out[0] == '-') out.erase(0, 1);
  return out;
}

// Decimals that show `significant` significant digits of `value` (0 for whole numbers beyond them).
int decimals_for(double value, int significant) {
  if (value == 0.0 || !std::isfinite(value)) return std::max(significant - 1, 0);
  const int exponent = static_cast<int>(std::floor(std::log10(std::abs(value))));
  return std::max(0, significant - 1 - exponent);
}

}  // namespace

std::string predict_answer(const PredictPrecision& precision, double value) {
  const int decimals =
      precision.kind == PredictPrecision::Kind::decimals ? precision.digits : decimals_for(value, precision.digits);
  return fixed_decimals(value, decimals);
}

std::string predict_answer(const LessonPredict& predict, double value) {
  return predict.choices.empty() ? predict_answer(predict.precision, value) : predict_number(value);
}

std::string predict_guess(double value) {
  char text[40];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, value);
    if (std::strtod(text, nullptr) == value) break;
  }
  // Short numbers in exponent form ("1e-05", "1.2e+03") read better written out.
  const std::string shortest = text;
  if (shortest.find('e') == std::string::npos) return shortest;
  const int significant = static_cast<int>(std::count_if(shortest.begin(), shortest.begin() + shortest.find('e'),
                                                         [](char c) { return c >= '0' && c <= '9'; }));
  return fixed_decimals(value, decimals_for(value, significant));
}

std::string predict_off_by(double value) {
  std::string text = fixed_decimals(value, decimals_for(value, 2));
  // "3", not "3.0"; "0.5", not "0.50": the digits that carry the size.
  if (text.find('.') != std::string::npos) {
    text.erase(text.find_last_not_of('0') + 1);
    if (text.back() == '.') text.pop_back();
  }
  return text;
}

double close_within(const PredictPrecision& precision, double answer) {
  const int decimals =
      precision.kind == PredictPrecision::Kind::decimals ? precision.digits : decimals_for(answer, precision.digits);
  // Half a unit in the last digit asked; a guess typed exactly on that boundary (0.6655 for an answer
  // of 0.665) counts as close whichever way binary rounding of the two numbers fell.
  return 0.5 * std::pow(10.0, -decimals) * (1.0 + 1e-9);
}

Result<void> check_guess(const LessonPredict& predict, double guess) {
  if (!predict.choices.empty()) {
    if (std::find(predict.choices.begin(), predict.choices.end(), guess) != predict.choices.end()) return {};
    std::string allowed;
    for (double choice : predict.choices) allowed += (allowed.empty() ? "" : ", ") + predict_number(choice);
    return Error::usage("guess " + predict_guess(guess) + " is not one of the choices: allowed " + allowed);
  }
  if (std::isfinite(guess) && guess >= predict.min && guess <= predict.max) return {};
  return Error::usage("guess " + predict_guess(guess) + " is outside the allowed range: a number from " +
                      predict_number(predict.min) + " to " + predict_number(predict.max));
}

Result<double> parse_guess(const LessonPredict& predict, std::string_view text) {
  constexpr std::size_t max_length = 64;
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  if (text.empty()) return Error::usage("no guess typed: type a number, e.g. 0.665 or -2");
  if (text.size() > max_length)
    return Error::usage("guess is " + std::to_string(text.size()) + " characters long: allowed at most 64");
  std::string number(text);
  // The minus sign U+2212 (as the lesson texts write it) and a decimal comma, as many students write.
  if (number.rfind("\xE2\x88\x92", 0) == 0) number.replace(0, 3, "-");
  if (!number.empty() && number[0] == '+') number.erase(0, 1);
  for (char& c : number)
    if (c == ',') c = '.';
  double value = 0.0;
  const auto [end, status] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (status != std::errc{} || end != number.data() + number.size() || !std::isfinite(value))
    return Error::usage("guess '" + shown(std::string(text)) + "' is not a number: type a decimal such as 0.665 or -2");
  if (Result<void> allowed = check_guess(predict, value); !allowed.ok()) return allowed.error();
  return value;
}

Result<PredictionReveal> reveal_prediction(const LessonPredict& predict, const Snapshot& snap,
                                           std::optional<double> guess, const DkSweep* drawn_sweep) {
  const Result<ClaimReading> answer_read = claim_reading(snap, predict.quantity, drawn_sweep);
  if (!answer_read.ok()) return answer_read.error();
  if (!std::isfinite(answer_read->value)) return Error::usage(describe(predict.quantity) + " is not a finite number");
  PredictionReveal reveal;
  reveal.guess = guess;
  reveal.answer = answer_read->value;
  reveal.converged = answer_read->converged;
  reveal.standard_error = answer_read->standard_error;
  reveal.trials = answer_read->trials;
  const double answer = reveal.answer;
  if (!predict.choices.empty()) {
    // The first of equally near choices: a file's order decides a tie, never rounding noise.
    double nearest = predict.choices.front();
    for (double choice : predict.choices)
      if (std::abs(choice - answer) < std::abs(nearest - answer)) nearest = choice;
    reveal.nearest_choice = nearest;
  } else {
    reveal.margin = close_within(predict.precision, answer);
  }
  if (guess) {
    reveal.off_by = std::abs(*guess - answer);
    reveal.close = reveal.nearest_choice ? *guess == *reveal.nearest_choice : reveal.off_by <= reveal.margin;
  }
  return reveal;
}

// [SECTION] Bound numbers in the text: bound_text, step_text

std::string bound_text(std::string_view text, std::span<const LessonBinding> bindings, const Snapshot* snap,
                       const DkSweep* drawn_sweep, std::vector<BoundSpan>* spans) {
  if (spans != nullptr) spans->clear();
  if (bindings.empty()) return std::string(text);
  std::string out;
  out.reserve(text.size() + 16 * bindings.size());
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t open = text.find('{', at);
    const std::size_t close = open == std::string_view::npos ? open : text.find('}', open);
    if (close == std::string_view::npos) break;
    out.append(text.substr(at, open - at));
    const std::string_view name = text.substr(open + 1, close - open - 1);
    const auto binding = std::find_if(bindings.begin(), bindings.end(),
                                      [&](const LessonBinding& candidate) { return candidate.name == name; });
    std::string number = "…";  // the loader lets no unknown name through; "…" all the same
    if (binding != bindings.end() && snap != nullptr)
      if (const Result<ClaimReading> read = claim_reading(*snap, binding->quantity, drawn_sweep);
          read.ok() && std::isfinite(read->value)) {
        number = fixed_decimals(read->value, binding->decimals);
        if (spans != nullptr)
          spans->push_back({out.size(), out.size() + number.size(), read->value, binding->decimals});
      }
    out += number;
    at = close + 1;
  }
  out.append(text.substr(std::min(at, text.size())));
  return out;
}

std::string step_text(const LessonStep& step, i18n::Language language, const Snapshot* snap, const DkSweep* drawn_sweep,
                      std::vector<BoundSpan>* spans) {
  return bound_text(step.text.in(language), step.bindings, snap, drawn_sweep, spans);
}

// [SECTION] Animated step changes: interpolate_params, lesson_ease

Params interpolate_params(const Params& from, const Params& to, double progress) {
  if (!(progress < 1.0)) return to;                        // also NaN: land on the target
  return blend_params(from, to, std::max(progress, 0.0));  // how each key moves: params.cpp's key table
}

double lesson_ease(double progress) {
  const double t = std::clamp(progress, 0.0, 1.0);
  return t * t * (3.0 - 2.0 * t);
}

}  // namespace smlab::app
