// The page's address read setting by setting and written back (url_state.hpp).
//
// [SECTION] Index
//   [SECTION] Refusals in the page's language
//   [SECTION] Reading: each setting on its own
//   [SECTION] Writing: the shown state
//   [SECTION] Encoding and the address bar
#include "url_state.hpp"

#include "files/text_file.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>

#include "i18n/i18n.hpp"
#include "plot/color_scale.hpp"
#include "smlab/assignments.hpp"
#include "smlab/params.hpp"
#include "smlab/views.hpp"
#include "state/start_state.hpp"

namespace smlab::web {
namespace {

constexpr std::array<std::string_view, 12> setting_names = {"view", "preset", "lesson", "set",      "import", "tokens",
                                                            "lang", "theme",  "font",   "colormap", "scale",  "pin"};

// [SECTION] Refusals in the page's language

// "a number from 0.01 to 100" (the key table's and the start checks' words) in this thread's
// language: the tables hold the phrases with the numbers as arguments; a list reads "a、b 或 c" in
// Chinese. Anything else is kept as the checks wrote it.
std::string localized_allowed(std::string_view allowed) {
  struct Phrase {
    std::string_view prefix, key;
  };
  constexpr std::array<Phrase, 3> ranges = {{{"a number from ", "web.url.allowed.number"},
                                             {"an integer from ", "web.url.allowed.integer"},
                                             {"a step from ", "web.url.allowed.step"}}};
  for (const Phrase& phrase : ranges) {
    if (!allowed.starts_with(phrase.prefix)) continue;
    const std::string_view rest = allowed.substr(phrase.prefix.size());
    const std::size_t to = rest.find(" to ");
    if (to == std::string_view::npos) break;
    return i18n::format(phrase.key, {rest.substr(0, to), rest.substr(to + 4)});
  }
  // A real key out of range says just "0.01 to 100".
  if (const std::size_t to = allowed.find(" to "); to != std::string_view::npos && allowed.find_first_of(" ,") == to &&
                                                   allowed.find(' ', to + 4) == std::string_view::npos)
    return i18n::format("web.url.allowed.number", {allowed.substr(0, to), allowed.substr(to + 4)});
  if (allowed == "true or false") return i18n::tr("web.url.allowed.flag");
  if (i18n::language() != i18n::Language::Chinese) return std::string(allowed);
  // A list "a, b, c or d" / "a, b, c".
  std::string list(allowed);
  for (std::size_t at = 0; (at = list.find(", ", at)) != std::string::npos;) list.replace(at, 2, "、");
  if (const std::size_t last_or = list.rfind(" or "); last_or != std::string::npos) list.replace(last_or, 4, " 或 ");
  return list;
}

// What the start checks allow, taken from their line: the part after "allowed ", "allowed: " or
// "expected " (the key table's words); nullopt when the line does not say.
std::optional<std::string> allowed_part(std::string_view message) {
  for (const std::string_view marker : {"allowed keys are ", "is not allowed: expected ",
                                        "is not allowed: ", "is out of range: allowed ", ": allowed "}) {
    const std::size_t at = message.rfind(marker);
    if (at != std::string_view::npos) return std::string(message.substr(at + marker.size()));
  }
  return std::nullopt;
}

// A piece of the address quoted in a line: it may hold anything (a NUL, an escape sequence, a
// newline, bytes that are not UTF-8, a megabyte), so it is cut and made printable.
std::string shown(std::string_view text) { return app::shown_text(text); }

// A pin's name inside pin=NAME|KEY=VALUE|…: '%' and '|' written as %25 and %7C (any other
// character is the name's own).
std::string escape_pin_name(std::string_view name) {
  std::string out;
  for (const char c : name) out += c == '%' ? "%25" : c == '|' ? "%7C" : std::string(1, c);
  return out;
}
std::string unescape_pin_name(std::string_view text) {
  std::string out;
  for (std::size_t at = 0; at < text.size(); ++at) {
    const std::string_view rest = text.substr(at);
    if (rest.starts_with("%25") || rest.starts_with("%7C") || rest.starts_with("%7c")) {
      out += rest[1] == '2' ? '%' : '|';
      at += 2;
    } else {
      out += text[at];
    }
  }
  return out;
}

// The line for a refused setting: the setting as typed and why, in this thread's language.
std::string refusal(const UrlPair& pair, std::string reason) {
  // The reason comes from the start checks, which may quote the value whole: printable here too, and
  // as long as the longest list of what is allowed (every key's name).
  return i18n::format("web.url.skipped", {shown(pair.name) + "=" + shown(pair.value), app::shown_text(reason, 1000)});
}

// Why a value was refused, from the start check's Error: "'abc' is not allowed: <allowed>" when the
// check says what it allows, else the check's own line (without its command-line option name).
std::string value_reason(std::string_view value, const Error& error) {
  if (const auto allowed = allowed_part(error.message))
    return i18n::format("web.url.reason.value", {shown(value), localized_allowed(*allowed)});
  std::string line = error.message;
  if (line.starts_with("--")) line.erase(0, std::min(line.find(' '), line.size() - 1) + 1);
  return line;
}

std::string setting_list() {
  std::string list;
  for (const std::string_view name : setting_names) list += (list.empty() ? "" : ", ") + std::string(name);
  return list;
}

// [SECTION] Reading: each setting on its own

// A file the page keeps: a plain name (no folder, not hidden), with an optional ":ARRAY[=ROLE]".
std::optional<std::string> kept_file_spec(std::string_view value) {
  const std::string_view file = value.substr(0, value.find(':'));
  if (file.empty() || file.front() == '.' || file.find('/') != std::string_view::npos) return std::nullopt;
  return std::string(import_dir) + "/" + std::string(value);
}

// The key of a set=KEY=VALUE (empty without '=').
std::string_view set_key(std::string_view assignment) {
  const std::size_t equals = assignment.find('=');
  return equals == std::string_view::npos ? std::string_view{} : assignment.substr(0, equals);
}

std::size_t key_rank(std::string_view key) {
  const auto keys = param_keys();
  for (std::size_t rank = 0; rank < keys.size(); ++rank)
    if (keys[rank].name == key) return rank;
  return keys.size();
}

// The refusal of one set=KEY=VALUE: no '=', an unknown key, or a value its check refused.
std::string set_reason(std::string_view assignment, const Error& error) {
  const std::string_view key = set_key(assignment);
  if (key.empty()) return i18n::tr("web.url.reason.assignment");
  if (find_param_key(key) == nullptr) {
    std::string keys;
    for (const ParamKey& known : param_keys()) keys += (keys.empty() ? "" : ", ") + std::string(known.name);
    return i18n::format("web.url.reason.unknown_key", {shown(key), keys});
  }
  return value_reason(assignment.substr(key.size() + 1), error);
}

}  // namespace

bool look_setting(std::string_view name) {
  return name == "lang" || name == "theme" || name == "font" || name == "colormap";
}

std::vector<UrlPair> content_pairs(std::span<const UrlPair> pairs) {
  std::vector<UrlPair> content;
  for (const UrlPair& pair : pairs)
    if (!look_setting(pair.name)) content.push_back(pair);
  return content;
}

std::string lesson_position(const app::UiModel& model) {
  const app::Session session = app::session_of(model);
  return session.lesson ? session.lesson->name + ":" + std::to_string(session.lesson->step) : std::string();
}

UrlStart apply_url(std::span<const UrlPair> pairs, app::AppOptions& options,
                   std::shared_ptr<const ImportedAttention> loaded) {
  UrlStart start;
  // The language first: the lines below are in it.
  for (const UrlPair& pair : pairs)
    if (pair.name == "lang")
      if (const auto language = app::language_option(pair.value)) options.language = *language;
  const i18n::Use words(options.language);
  const auto refuse = [&](const UrlPair& pair, std::string reason) {
    start.refused.push_back({pair, refusal(pair, std::move(reason))});
  };

  // The look and the view: one value each, the last one given wins.
  app::StartRequest request;
  for (const UrlPair& pair : pairs) {
    const std::string_view name = pair.name;
    if (std::find(setting_names.begin(), setting_names.end(), name) == setting_names.end()) {
      refuse(pair, i18n::format("web.url.reason.unknown_name", {setting_list()}));
    } else if (name == "lang") {
      if (const auto language = app::language_option(pair.value); !language)
        refuse(pair, value_reason(pair.value, language.error()));
    } else if (name == "theme") {
      if (const auto theme = app::theme_option(pair.value))
        options.theme = *theme;
      else
        refuse(pair, value_reason(pair.value, theme.error()));
    } else if (name == "font") {
      if (const auto scale = app::font_scale_option(pair.value))
        options.font_scale = *scale;
      else
        refuse(pair, value_reason(pair.value, scale.error()));
    } else if (name == "colormap") {
      if (const auto colormap = app::colormap_option(pair.value))
        options.colormap = *colormap;
      else
        refuse(pair, value_reason(pair.value, colormap.error()));
    } else if (name == "view") {
      if (const auto view = app::view_option(pair.value)) {
        options.view = *view;
        request.given.view = true;
        start.any_state = true;
      } else {
        refuse(pair, value_reason(pair.value, view.error()));
      }
    }
  }

  // What changes Params, each through resolve_start on a copy: kept only when it passes.
  const auto attempt = [&](const app::StartRequest& one) -> Result<void> {
    app::StartState state = options;
    if (Result<void> resolved = app::resolve_start(one, options.presets, options.lessons, state); !resolved)
      return resolved;
    static_cast<app::StartState&>(options) = std::move(state);
    start.any_state = true;
    return {};
  };
  for (const UrlPair& pair : pairs) {
    if (pair.name != "preset" && pair.name != "lesson") continue;
    app::StartRequest one;
    one.given = request.given;
    (pair.name == "preset" ? one.preset_name : one.lesson_spec) = pair.value;
    if (Result<void> applied = attempt(one); !applied) refuse(pair, value_reason(pair.value, applied.error()));
  }

  // Imported files the page keeps: all of them or none.
  app::StartRequest import;
  import.loaded = std::move(loaded);
  std::vector<const UrlPair*> import_pairs;
  for (const UrlPair& pair : pairs) {
    if (pair.name != "import" && pair.name != "tokens") continue;
    const auto spec = kept_file_spec(pair.value);
    if (!spec) {
      refuse(pair, i18n::format("web.url.reason.import_missing", {shown(pair.value)}));
      continue;
    }
    (pair.name == "import" ? import.import_specs.emplace_back() : import.tokens_path) = *spec;
    import_pairs.push_back(&pair);
  }
  if (!import.import_specs.empty()) {
    if (Result<void> attached = attempt(import); !attached) {
      for (const UrlPair* pair : import_pairs)
        refuse(*pair, attached.error().kind == Error::Kind::file
                          ? i18n::format("web.url.reason.import_missing", {shown(pair->value)})
                          : value_reason(pair->value, attached.error()));
    }
  } else {
    for (const UrlPair* pair : import_pairs)  // tokens alone label nothing
      refuse(*pair, i18n::format("web.url.reason.import_missing", {shown(pair->value)}));
  }

  // Each set on its own, seq_len before row whatever the typed order.
  std::vector<const UrlPair*> sets;
  for (const UrlPair& pair : pairs)
    if (pair.name == "set") sets.push_back(&pair);
  std::stable_sort(sets.begin(), sets.end(), [](const UrlPair* a, const UrlPair* b) {
    return key_rank(set_key(a->value)) < key_rank(set_key(b->value));
  });
  for (const UrlPair* pair : sets) {
    app::StartRequest one;
    one.assignments = {pair->value};
    if (Result<void> applied = attempt(one); !applied) refuse(*pair, set_reason(pair->value, applied.error()));
  }

  // Colour scales and pins: like a session's.
  for (const UrlPair& pair : pairs) {
    if (pair.name == "scale") {
      const std::size_t colon = pair.value.rfind(':');
      const std::string key = colon == std::string::npos ? "" : pair.value.substr(0, colon);
      const auto scale =
          colon == std::string::npos ? std::nullopt : plot::color_scale_from_name(pair.value.substr(colon + 1));
      if (!plot::valid_color_scale_key(key) || !scale ||
          (options.color_scales.size() >= plot::color_scale_max_entries && !options.color_scales.contains(key))) {
        refuse(pair, i18n::tr("web.url.reason.scale"));
        continue;
      }
      options.color_scales[key] = *scale;
      start.any_state = true;
    } else if (pair.name == "pin") {
      // NAME|KEY=VALUE|…: the pin's settings on top of the shown ones.
      std::vector<std::string> parts;
      for (std::size_t at = 0;;) {
        const std::size_t bar = pair.value.find('|', at);
        parts.push_back(pair.value.substr(at, bar == std::string::npos ? std::string::npos : bar - at));
        if (bar == std::string::npos) break;
        at = bar + 1;
      }
      app::Pin pin{unescape_pin_name(parts.front()), options.params};
      if (Result<void> named = app::check_pin_name(pin.name); !named) {
        refuse(pair, value_reason(pin.name, named.error()));
        continue;
      }
      if (options.pins.size() >= app::max_pins) {
        refuse(pair, i18n::format("web.url.reason.pins_max", {std::to_string(app::max_pins)}));
        continue;
      }
      const bool taken = std::any_of(options.pins.begin(), options.pins.end(),
                                     [&](const app::Pin& other) { return other.name == pin.name; });
      std::string problem = taken ? i18n::format("web.url.reason.pin_taken", {shown(pin.name)}) : "";
      for (std::size_t k = 1; k < parts.size() && problem.empty(); ++k)
        if (Result<void> set = apply_assignments(pin.params, {parts[k]}); !set)
          problem = set_reason(parts[k], set.error());
      if (!problem.empty()) {
        refuse(pair, problem);
        continue;
      }
      options.pins.push_back(std::move(pin));
      start.any_state = true;
    }
  }
  return start;
}

// [SECTION] Writing: the shown state

namespace {

// A real value rounded to 4 significant digits, as the shortest text of the rounded number.
std::string rounded(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  const double near = std::strtod(text, nullptr);
  std::array<char, 48> buffer{};
  const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), near);
  return ec == std::errc{} ? std::string(buffer.data(), end) : std::string(text);
}

// The settings of `params` that differ from `base`, as set values.
std::vector<std::string> differences(const Params& params, const Params& base, bool animating) {
  std::vector<std::string> assignments;
  for (const ParamKey& key : param_keys()) {
    const auto value = get_param(params, key.name);
    if (!value || *value == get_param(base, key.name)) continue;
    const auto number = key.is_real() ? numeric_param(params, key) : std::nullopt;
    std::string text = animating && number ? rounded(*number) : *value;
    // A score vector prints as "1, 2, 3": the spaces would be %20 in the address and read back the same without.
    if (key.name == "scores")
      for (std::size_t at = 0; (at = text.find(", ", at)) != std::string::npos;) text.erase(at + 1, 1);
    assignments.push_back(std::string(key.name) + "=" + text);
  }
  return assignments;
}

std::string font_text(float scale) {
  std::array<char, 48> buffer{};
  const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), scale);
  return std::string(buffer.data(), ec == std::errc{} ? end : buffer.data());
}

}  // namespace

std::vector<UrlPair> url_pairs(const app::Session& session, bool animating) {
  std::vector<UrlPair> pairs;
  pairs.push_back({"view", std::string(view_info(session.view).name)});
  // Imported data: set values relative to the defaults come after it, as they are read back.
  const std::string kept_prefix = std::string(import_dir) + "/";
  for (const std::string& spec : session.imports)
    if (spec.starts_with(kept_prefix)) pairs.push_back({"import", spec.substr(kept_prefix.size())});
  if (!session.import_tokens.empty() && session.import_tokens.starts_with(kept_prefix))
    pairs.push_back({"tokens", session.import_tokens.substr(kept_prefix.size())});
  Params defaults;
  if (session.params.imported != nullptr) {
    // The data's own lengths are what an import gives: only what differs from that is written.
    if (Result<void> attached = attach_import(defaults, session.params.imported); !attached) defaults = Params{};
  }
  for (std::string& assignment : differences(session.params, defaults, animating))
    pairs.push_back({"set", std::move(assignment)});
  if (session.lesson) pairs.push_back({"lesson", session.lesson->name + ":" + std::to_string(session.lesson->step)});
  if (session.language && *session.language != i18n::Language::English)
    pairs.push_back({"lang", i18n::language_code(*session.language)});
  if (session.theme && *session.theme != "dark") pairs.push_back({"theme", *session.theme});
  if (session.font_scale && *session.font_scale != 1.0f) pairs.push_back({"font", font_text(*session.font_scale)});
  if (session.colormap && *session.colormap != "viridis") pairs.push_back({"colormap", *session.colormap});
  if (session.color_scales)
    for (const auto& [key, scale] : *session.color_scales) pairs.push_back({"scale", key + ":" + plot::name(scale)});
  for (const app::Pin& pin : session.pins) {
    std::string value = escape_pin_name(pin.name);
    for (const std::string& assignment : differences(pin.params, session.params, false)) value += "|" + assignment;
    pairs.push_back({"pin", std::move(value)});
  }
  return pairs;
}

// [SECTION] Encoding and the address bar

std::string url_query(std::span<const UrlPair> pairs) {
  const auto encode = [](std::string_view text, bool keep_equals) {
    std::string out;
    for (const char c : text) {
      const auto byte = static_cast<unsigned char>(c);
      const bool plain = (byte >= 'a' && byte <= 'z') || (byte >= 'A' && byte <= 'Z') || (byte >= '0' && byte <= '9') ||
                         std::string_view("-_.~,:/|!*()'").find(c) != std::string_view::npos ||
                         (keep_equals && c == '=');
      if (plain) {
        out += c;
      } else {
        char escaped[4];
        std::snprintf(escaped, sizeof escaped, "%%%02X", byte);
        out += escaped;
      }
    }
    return out;
  };
  std::string query;
  for (const UrlPair& pair : pairs) {
    query += query.empty() ? "?" : "&";
    query += encode(pair.name, false) + "=" + encode(pair.value, true);
  }
  return query;
}

namespace {

// Which setting a pair sets: its name, with the key for set, scale and pin.
std::string setting_of(const UrlPair& pair) {
  if (pair.name == "set") return "set:" + std::string(set_key(pair.value));
  if (pair.name == "scale") return "scale:" + pair.value.substr(0, pair.value.rfind(':'));
  if (pair.name == "pin") return "pin:" + pair.value.substr(0, pair.value.find('|'));
  if (pair.name == "tokens") return "import";
  return pair.name;
}

std::string setting_value(std::span<const UrlPair> pairs, const std::string& setting) {
  std::string value;
  for (const UrlPair& pair : pairs)
    if (setting_of(pair) == setting) value += pair.value + "\n";
  return value;
}

}  // namespace

std::vector<UrlPair> address_pairs(std::span<const UrlPair> shown, std::span<const UrlPair> start,
                                   std::span<const RefusedSetting> refused) {
  std::vector<UrlPair> pairs(shown.begin(), shown.end());
  for (const RefusedSetting& setting : refused) {
    const std::string which = setting_of(setting.pair);
    if (setting_value(shown, which) == setting_value(start, which)) pairs.push_back(setting.pair);
  }
  return pairs;
}

std::string history_key(std::span<const UrlPair> pairs) {
  std::string key;
  for (const UrlPair& pair : pairs) {
    if (pair.name == "view") key += "view=" + pair.value + ";";
    if (pair.name == "lesson") {
      // NAME:STEP[:GUESS]: a guess typed in a step is not a step of its own.
      const std::size_t first = pair.value.find(':');
      const std::size_t second = first == std::string::npos ? first : pair.value.find(':', first + 1);
      key += "lesson=" + pair.value.substr(0, second) + ";";
    }
  }
  return key;
}

std::string refused_summary(std::span<const RefusedSetting> refused, i18n::Language language) {
  if (refused.empty()) return "";
  if (refused.size() == 1) return refused.front().message;
  const i18n::Use words(language);
  return i18n::format("web.url.more", {refused.front().message, std::to_string(refused.size() - 1)});
}

}  // namespace smlab::web
