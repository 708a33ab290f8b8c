// The web page's address: the start state read from it (each setting on its own, so one bad value
// is reported and skipped while the rest apply, and stays visible in the address bar) and the shown
// state written back into it (every setting a session carries, each value the shortest text that
// reads back exactly). A page link is shared by hand; the command line stays strict. A hosted
// class (classroom/) sends the teacher's state to the students' pages in the same words, and the
// pages apply it through the same checks: it lives here, beside the App, for both.
//
//   ?view=scaling&set=d_k=1024&set=scaled=false&lesson=scaling:3&lang=zh-CN&theme=projector
//    &font=1.5&colormap=magma&scale=gradients/jacobian:auto&pin=A|temperature=0.3&import=q.npy
//
// Settings: view, preset, lesson (NAME[:STEP[:GUESS]]), set (KEY=VALUE, repeatable), import and
// tokens (files the page keeps in its storage, under import_dir), lang, theme, font (the font
// scale), colormap, scale (HEATMAP:fixed|auto, repeatable) and pin (NAME|KEY=VALUE|…: the pin's
// settings that differ from the shown ones, repeatable).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "app.hpp"
#include "state/session.hpp"

namespace smlab::web {

struct UrlPair {
  std::string name, value;
  friend bool operator==(const UrlPair&, const UrlPair&) = default;
};

// Where the page keeps imported files (its in-memory file system, filled from the browser's storage
// before start): import=NAME and tokens=NAME name files here.
inline constexpr std::string_view import_dir = "/imports";

// A setting of the address the page did not apply, and why: one line in the page's language.
struct RefusedSetting {
  UrlPair pair;
  std::string message;
};

struct UrlStart {
  std::vector<RefusedSetting> refused;
  // A setting of the shown state was applied (not only lang, theme, font or colormap): the address
  // then wins over the session kept in the browser's storage.
  bool any_state = false;
};

// Applies the address's settings to `options`, each through the start state's own checks
// (state/start_state.hpp: view_option, theme_option, …, and resolve_start for preset, lesson,
// import and every set), in this order whatever the typed order: lang, theme, font, colormap and
// view; preset; lesson; import and tokens; each set (param_keys() order: seq_len before row); scale;
// pin. A refused setting leaves `options` as it was and adds its line, in the language the address
// asks for (else options.language). `loaded`: the data the page shows now, attached again rather
// than read anew when the import= and tokens= name the files it came from.
UrlStart apply_url(std::span<const UrlPair> pairs, app::AppOptions& options,
                   std::shared_ptr<const ImportedAttention> loaded = nullptr);

// Whether a setting's name is one of the page's look settings (lang, theme, font, colormap).
bool look_setting(std::string_view name);

// The settings of `pairs` that say what is shown, not how it looks (no look_setting): what a class
// sends its students, each of whom keeps their own language and theme, and follows the teacher
// while their page shows these.
std::vector<UrlPair> content_pairs(std::span<const UrlPair> pairs);

// The open lesson step as the address writes it, "NAME:STEP" (STEP from 1), or "" when none.
std::string lesson_position(const app::UiModel& model);

// The settings that reopen `session`: view, each set whose value differs from the defaults (as
// get_param prints it: the shortest text that reads back exactly; while `animating`, real values
// rounded to 4 significant digits so a playing sweep writes 1.332, not 1.3318138204027494),
// lesson, import and tokens (files under import_dir only), then the look where it differs from
// the defaults, chosen colour scales and pins.
std::vector<UrlPair> url_pairs(const app::Session& session, bool animating);

// "?name=value&…": percent-encoded where a query needs it ('&', '#', '+', '%', spaces, non-ASCII).
std::string url_query(std::span<const UrlPair> pairs);

// The address bar's settings: `shown` (url_pairs) and, after them, the refused settings whose
// setting still has the value it had at start (`start`: url_pairs then), so a typo stays in sight
// until the user sets that value in the page.
std::vector<UrlPair> address_pairs(std::span<const UrlPair> shown, std::span<const UrlPair> start,
                                   std::span<const RefusedSetting> refused);

// What makes a new entry in the browser's history (Back returns to it): the view and the lesson
// step, "view=…;lesson=NAME:STEP" from the address's settings. A change of anything else (a
// slider, the look) rewrites the entry the user is on.
std::string history_key(std::span<const UrlPair> pairs);

// The first refused setting's line, with "(and N more)" when there are more; "" when none.
std::string refused_summary(std::span<const RefusedSetting> refused, i18n::Language language);

}  // namespace smlab::web
