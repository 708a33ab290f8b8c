// The toast's lifetime and drawing (panels/toast.hpp).
#include "panels/toast.hpp"

#include <imgui.h>

#include <algorithm>
#include <utility>

#include "panels/panels.hpp"

namespace smlab::app {
namespace {
// A toast stays this long (errors longer: there is more to read), fading over its last second.
constexpr double toast_seconds = 4.0, toast_error_seconds = 8.0, toast_fade_seconds = 1.0;

double lifetime(bool is_error) { return is_error ? toast_error_seconds : toast_seconds; }
}  // namespace

void Toast::show(std::string text, bool is_error, double now) { shown_ = Shown{std::move(text), is_error, now}; }

void Toast::draw(double now, float ui_scale) {
  if (!shown_) return;
  const double age = now - shown_->shown_at;
  const double seconds = lifetime(shown_->is_error);
  if (age >= seconds || age < 0.0) {
    shown_.reset();
    return;
  }
  ++shown_->frames_drawn;
  const float alpha = static_cast<float>(std::clamp((seconds - age) / toast_fade_seconds, 0.0, 1.0));
  // Centred over the plots, just below the view tabs: in sight, whatever the control column shows.
  const DashboardLayout layout = dashboard_layout(ImGui::GetIO().DisplaySize, ui_scale);
  const float width = layout.content_max.x - layout.content_min.x;
  ImGui::SetNextWindowPos(ImVec2(0.5f * (layout.content_min.x + layout.content_max.x), layout.content_min.y),
                          ImGuiCond_Always, ImVec2(0.5f, 0.0f));
  ImGui::SetNextWindowBgAlpha(0.95f);
  ImGui::PushStyleVar(ImGuiStyleVar_Alpha, alpha);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(12.0f * ui_scale, 8.0f * ui_scale));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 2.0f * ui_scale);
  const ImVec4 accent = shown_->is_error ? ImVec4(0.9f, 0.25f, 0.2f, 1.0f) : ImVec4(0.2f, 0.65f, 0.3f, 1.0f);
  ImGui::PushStyleColor(ImGuiCol_Border, accent);
  constexpr ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                                     ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                                     ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoInputs;
  if (ImGui::Begin("##toast", nullptr, flags)) {
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + 0.8f * width);
    ImGui::TextUnformatted(shown_->text.c_str());
    ImGui::PopTextWrapPos();
  }
  ImGui::End();
  ImGui::PopStyleColor();
  ImGui::PopStyleVar(3);
}

std::optional<double> Toast::seconds_until_change(double now) const {
  if (!shown_) return std::nullopt;
  if (shown_->frames_drawn < 2) return 0.0;
  const double age = now - shown_->shown_at;
  const double fade_start = lifetime(shown_->is_error) - toast_fade_seconds;
  return age >= fade_start ? 1.0 / 30.0 : fade_start - age;
}

}  // namespace smlab::app
