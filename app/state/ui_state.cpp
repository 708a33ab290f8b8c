// The UiState functions that belong to the state itself: theme names and the one way Params
// change in the window (apply_params).
#include "state/ui_state.hpp"

namespace smlab::app {

const char* theme_name(Theme theme) {
  switch (theme) {
    case Theme::dark: return "dark";
    case Theme::light: return "light";
    case Theme::projector: return "projector";
  }
  return "dark";
}

std::optional<Theme> theme_from_name(std::string_view name) {
  for (Theme theme : {Theme::dark, Theme::light, Theme::projector})
    if (name == theme_name(theme)) return theme;
  return std::nullopt;
}

bool apply_params(UiState& ui, const Params& candidate) {
  if (candidate == ui.params) return false;
  if (Result<void> valid = validate(candidate); !valid.ok()) {
    ui.input_error = valid.error().message;
    return false;
  }
  // Scores can change from elsewhere (presets, dragged bars, reset): the text field follows.
  if (candidate.scores != ui.params.scores) ui.scores_text = format_scores(candidate.scores);
  ui.params = candidate;
  ui.input_error.clear();
  return true;
}

}  // namespace smlab::app
