// Text the page shows outside the canvas: the words of its HTML bar and dialogs in the App's
// language, and the mirror of what the canvas shows (the lesson step, the read-out, the active
// plot's title and numbers) that a screen reader follows, Ctrl+F finds and a student can copy.
#pragma once

#include <string>

#include "frame/app.hpp"

namespace smlab::web {

// The HTML bar's and dialogs' words in `language`, as a JSON object {"key": "text", …} of the
// string table's web.bar.* and web.page.* entries (keys without that prefix).
std::string page_words_json(i18n::Language language);

// The mirror as JSON {"lesson", "readout", "view", "plot"} (each plain text, lines separated by
// '\n', empty when there is none): the open lesson step's title and text, the control column's
// read-out of the shown row, the view's name and the lab's explanation and notes, and the active
// plot (hovered, else the one the compact layout shows when `compact`, else the one the lesson step
// highlights, else the view's first) as "plot k of n", with its axes, up to 24 values per series
// (keys by index and token), and a small heatmap's largest cell per row.
std::string mirror_json(app::App& app, bool compact);

}  // namespace smlab::web
