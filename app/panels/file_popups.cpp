// The session and import popups and the import's progress window (panels/file_popups.hpp).
#include "panels/file_popups.hpp"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <utility>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>  // key codes only: the GLFW backend fills io.KeysDown by GLFW key

#include "i18n/i18n.hpp"
#include "panels/panels.hpp"

namespace smlab::app {
namespace {

// A failure line under the fields, wrapped at `width`.
void draw_failure(const std::string& message, float width) {
  if (message.empty()) return;
  ImGui::PushStyleColor(ImGuiCol_Text, readable_text(ImVec4(1.0f, 0.45f, 0.4f, 1.0f)));
  ImGui::PushTextWrapPos(width);
  ImGui::TextWrapped("%s", message.c_str());
  ImGui::PopTextWrapPos();
  ImGui::PopStyleColor();
}

}  // namespace

// Sessions

void draw_session_popup(SessionPopup& popup, const SessionFileCall& act) {
  using Mode = SessionPopup::Mode;
  if (popup.mode == Mode::closed) return;
  // "text###id": the popup keeps its ID when the language changes.
  const std::string title = popup.mode == Mode::save ? i18n::label("app.session.save_title", "save session")
                                                     : i18n::label("app.session.load_title", "load session");
  if (popup.open_requested) {
    popup.open_requested = false;
    if (popup.path.empty()) {
      const std::filesystem::path home = std::getenv("HOME") != nullptr ? std::getenv("HOME") : ".";
      popup.path = (home / "softmax-lab-session.json").string();
    }
    ImGui::OpenPopup(title.c_str());
  }
  if (!ImGui::BeginPopupModal(title.c_str(), nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
    popup.mode = Mode::closed;
    return;
  }
  ImGui::TextUnformatted(popup.mode == Mode::save ? i18n::tr("app.session.save_prompt")
                                                  : i18n::tr("app.session.load_prompt"));
  if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 32.0f);
  const bool entered = ImGui::InputText("##session-path", &popup.path, ImGuiInputTextFlags_EnterReturnsTrue);
  if (popup.mode == Mode::save)
    ImGui::Checkbox(i18n::label("app.session.overwrite", "overwrite").c_str(), &popup.overwrite);
  draw_failure(popup.message, ImGui::GetFontSize() * 32.0f);
  bool close = false;
  if (ImGui::Button(popup.mode == Mode::save ? i18n::label("app.session.save", "save").c_str()
                                             : i18n::label("app.session.load", "load").c_str()) ||
      entered) {
    const Result<void> done = act(popup.mode, popup.path, popup.overwrite);
    popup.message = done.ok() ? std::string() : done.error().message;
    if (popup.message.empty()) close = true;
  }
  ImGui::SameLine();
  if (ImGui::Button(i18n::label("common.cancel", "cancel").c_str()) || ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false))
    close = true;
  if (close) {
    popup.mode = Mode::closed;
    ImGui::CloseCurrentPopup();
  }
  ImGui::EndPopup();
}

// Import

namespace {

// A running job's stage, fraction and a Cancel button (in the Import dialog, or among the background
// work). True when Cancel was pressed.
bool draw_job_progress(const JobProgress& progress, float width) {
  ImGui::TextUnformatted(progress.stage.c_str());
  ImGui::ProgressBar(static_cast<float>(progress.fraction), ImVec2(width, 0.0f));
  return ImGui::Button(i18n::label("import.popup.cancel", "job-progress-cancel").c_str());
}

}  // namespace

void draw_import_popup(ImportPopup& popup, const std::optional<JobProgress>& running, bool importing,
                       const ImportPopupCalls& calls) {
  if (!popup.open) return;
  const std::string title = i18n::label("import.popup.title", "import-popup");
  if (popup.open_requested) {
    popup.open_requested = false;
    popup.message.clear();
    ImGui::OpenPopup(title.c_str());
  }
  if (!ImGui::BeginPopupModal(title.c_str(), nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
    popup.open = false;
    return;
  }
  const float width = ImGui::GetFontSize() * 32.0f;
  if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
  ImGui::SetNextItemWidth(width);
  bool entered = ImGui::InputTextWithHint("##import-first", i18n::tr("import.popup.hint"), &popup.first,
                                          ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SetNextItemWidth(width);
  entered |= ImGui::InputTextWithHint("##import-second", i18n::tr("import.popup.second"), &popup.second,
                                      ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SetNextItemWidth(width);
  entered |= ImGui::InputTextWithHint("##import-tokens", i18n::tr("import.popup.tokens"), &popup.tokens,
                                      ImGuiInputTextFlags_EnterReturnsTrue);
  draw_failure(popup.message, width);
  bool close = std::exchange(popup.close_requested, false);
  if (running) {
    if (draw_job_progress(*running, width)) calls.cancel();
  } else if (!importing && (ImGui::Button(i18n::label("import.popup.open", "import-open").c_str()) || entered)) {
    std::vector<std::string> specs;
    for (const std::string* field : {&popup.first, &popup.second})
      if (!field->empty()) specs.push_back(*field);
    popup.message.clear();
    if (const std::optional<Result<void>> imported = calls.start(std::move(specs), popup.tokens)) {
      popup.message = imported->ok() ? "" : imported->error().message;
      close = imported->ok();
    }  // else the popup closes when the data is in
  }
  if (!running) {
    ImGui::SameLine();
    if (ImGui::Button(i18n::label("import.popup.cancel", "import-cancel").c_str()) ||
        ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false)) {
      calls.cancel();
      close = true;
    }
  }
  if (close) {
    popup.open = false;
    ImGui::CloseCurrentPopup();
  }
  ImGui::EndPopup();
}

// Background work

std::optional<std::size_t> draw_background_work(const std::vector<JobProgress>& rows) {
  if (rows.empty()) return std::nullopt;
  const ImGuiViewport* viewport = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(ImVec2(viewport->WorkPos.x + viewport->WorkSize.x * 0.5f, viewport->WorkPos.y + 8.0f),
                          ImGuiCond_Always, ImVec2(0.5f, 0.0f));
  std::optional<std::size_t> cancelled;
  const std::string title = i18n::label("background.title", "background-work");
  if (ImGui::Begin(title.c_str(), nullptr,
                   ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings))
    for (std::size_t row = 0; row < rows.size(); ++row) {
      ImGui::PushID(static_cast<int>(row));
      if (row > 0) ImGui::Separator();
      if (draw_job_progress(rows[row], ImGui::GetFontSize() * 20.0f)) cancelled = row;
      ImGui::PopID();
    }
  ImGui::End();
  return cancelled;
}

}  // namespace smlab::app
