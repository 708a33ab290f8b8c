// The session and import popups and the import's progress window (panels/file_popups.hpp).
#include "panels/file_popups.hpp"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <utility>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>  // key codes only: the GLFW backend fills io.KeysDown by GLFW key

#include "i18n/i18n.hpp"
#include "panels/panels.hpp"
#include "state/import_files.hpp"

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

// The roles the chooser offers, as a spec names them, and their names in the string tables.
struct OfferedRole {
  const char* spec;
  const char* key;
};
constexpr std::array<OfferedRole, 5> offered_roles = {{{"Q", "import.role.q"},
                                                       {"K", "import.role.k"},
                                                       {"V", "import.role.v"},
                                                       {"scores", "import.role.scores"},
                                                       {"weights", "import.role.weights"}}};

enum class RoleAnswer { asking, answered, cancelled };

// The role chooser, asking about the first file of `question` still without a role; the next one
// follows in the same modal. Opened where it is drawn: inside the Import dialog's scope it stacks
// over the dialog (a popup opened at the dialog's own level would replace it).
RoleAnswer draw_role_question(RoleQuestion& question) {
  const auto asked = std::find(question.needed.begin(), question.needed.end(), true);
  if (asked == question.needed.end()) return RoleAnswer::answered;
  const auto index = static_cast<std::size_t>(asked - question.needed.begin());
  const std::string title = i18n::label("import.role.title", "import-role");
  if (std::exchange(question.open_requested, false)) ImGui::OpenPopup(title.c_str());
  if (!ImGui::BeginPopupModal(title.c_str(), nullptr, ImGuiWindowFlags_AlwaysAutoResize))
    return RoleAnswer::cancelled;  // closed by something else than its buttons
  const float width = ImGui::GetFontSize() * 26.0f;
  ImGui::PushTextWrapPos(width);
  const std::string name = std::filesystem::path(question.specs[index]).filename().string();
  ImGui::TextWrapped("%s", i18n::format("import.role.question", {name}).c_str());
  ImGui::PopTextWrapPos();
  RoleAnswer answer = RoleAnswer::asking;
  for (const OfferedRole& role : offered_roles) {
    if (&role == offered_roles.data() && ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
    if (ImGui::Button(i18n::label(role.key, role.spec).c_str(), ImVec2(width, 0.0f))) {
      question.specs[index] += std::string(":") + role.spec;
      question.needed[index] = false;
      if (std::find(question.needed.begin(), question.needed.end(), true) == question.needed.end())
        answer = RoleAnswer::answered;
    }
  }
  if (ImGui::Button(i18n::label("import.popup.cancel", "import-role-cancel").c_str()) ||
      ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false))
    answer = RoleAnswer::cancelled;
  if (answer != RoleAnswer::asking) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
  return answer;
}

// Draws the role chooser of `popup.roles`; once every role is chosen, the import starts (and the
// dialog's fields show the roles), and Cancel imports nothing.
void ask_roles(ImportPopup& popup, const ImportPopupCalls& calls) {
  const RoleAnswer answer = draw_role_question(*popup.roles);
  if (answer == RoleAnswer::asking) return;
  RoleQuestion question = std::move(*popup.roles);
  popup.roles.reset();
  if (answer == RoleAnswer::cancelled) return;
  if (question.from_fields) {
    std::size_t next = 0;
    for (std::string* field : {&popup.first, &popup.second})
      if (!field->empty() && next < question.specs.size()) *field = question.specs[next++];
  }
  if (const std::optional<Result<void>> imported = calls.start(std::move(question.specs), question.tokens)) {
    popup.message = imported->ok() ? "" : imported->error().message;
    popup.close_requested = imported->ok() && popup.open;
  }  // else the dialog closes when the data is in, as after its own Import button
}

}  // namespace

std::optional<RoleQuestion> RoleQuestion::ask(std::vector<std::string> specs, std::string tokens) {
  std::vector<bool> needed = roles_needed(specs);
  if (std::find(needed.begin(), needed.end(), true) == needed.end()) return std::nullopt;
  RoleQuestion question;
  question.specs = std::move(specs);
  question.needed = std::move(needed);
  question.tokens = std::move(tokens);
  return question;
}

void draw_import_popup(ImportPopup& popup, const std::optional<JobProgress>& running, bool importing,
                       const ImportPopupCalls& calls) {
  if (!popup.open) {
    if (popup.roles) ask_roles(popup, calls);  // files dropped onto the window
    return;
  }
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
  } else if (!importing && !popup.roles &&
             (ImGui::Button(i18n::label("import.popup.open", "import-open").c_str()) || entered)) {
    std::vector<std::string> specs;
    for (const std::string* field : {&popup.first, &popup.second})
      if (!field->empty()) specs.push_back(*field);
    popup.message.clear();
    if (std::optional<RoleQuestion> asked = RoleQuestion::ask(specs, popup.tokens)) {
      asked->from_fields = true;
      popup.roles = std::move(asked);
    } else if (const std::optional<Result<void>> imported = calls.start(std::move(specs), popup.tokens)) {
      popup.message = imported->ok() ? "" : imported->error().message;
      close = imported->ok();
    }  // else the popup closes when the data is in
  }
  if (!running) {
    ImGui::SameLine();
    // Escape with the role chooser over the dialog closes only the chooser.
    if (ImGui::Button(i18n::label("import.popup.cancel", "import-cancel").c_str()) ||
        (!popup.roles && ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false))) {
      calls.cancel();
      close = true;
    }
  }
  if (popup.roles) ask_roles(popup, calls);  // over the dialog: its fields, or files dropped now
  if (close) {
    popup.open = false;
    popup.roles.reset();
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
