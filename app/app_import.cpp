// Importing in the window: File → Import (path fields in a popup) and files dropped onto it, both
// through load_import and attach_import, the same checks as --import.
#include <imgui.h>
#include <imgui_stdlib.h>
#include <GLFW/glfw3.h>

#include <algorithm>

#include "app.hpp"
#include "i18n/i18n.hpp"
#include "state/import_files.hpp"

namespace smlab::app {
namespace {

bool names_tokens(const std::string& path) {
  std::string lower = path;
  for (char& c : lower) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  return lower.ends_with(".json") || lower.ends_with(".txt");
}

}  // namespace

Result<void> App::import_files(const std::vector<std::string>& specs, const std::string& tokens_file) {
  std::vector<std::string> sources = specs;
  // Token labels alone relabel what is already imported.
  if (sources.empty() && ui_.params.imported != nullptr) sources = ui_.params.imported->sources;
  const i18n::Use language(applied_language_);  // also called between frames (tests, the web page)
  const ImportLoad loaded = load_import(sources, tokens_file);
  Result<void> imported = loaded.ok() ? Result<void>() : Result<void>(loaded.error());
  if (loaded.ok()) {
    Params candidate = ui_.params;
    candidate.scores.clear();  // the imported rows, not a custom score vector
    imported = attach_import(candidate, *loaded);
    if (imported.ok()) ui_.params = std::move(candidate);
  }
  // A toast as well as the status line: a file dropped onto the plots is answered where the eyes are.
  if (imported.ok())
    report(i18n::format("import.loaded", {(*loaded)->summary}), false);
  else
    report(imported.error().message, true);
  return imported;
}

void App::import_dropped_files() {
  const std::vector<std::string> dropped = surface_.take_dropped_paths();
  if (dropped.empty()) return;
  // .txt and .json are token labels; everything else (.npy, .npz, .csv) is data, roles from names.
  std::vector<std::string> specs;
  std::string tokens;
  for (const std::string& path : dropped) {
    if (names_tokens(path))
      tokens = path;
    else
      specs.push_back(path);
  }
  (void)import_files(specs, tokens);  // answered in the status line and a toast
}

void App::draw_import_popup() {
  ImportPopup& popup = import_popup_;
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
  if (!popup.message.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
    ImGui::PushTextWrapPos(width);
    ImGui::TextWrapped("%s", popup.message.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
  }
  bool close = false;
  if (ImGui::Button(i18n::label("import.popup.open", "import-open").c_str()) || entered) {
    std::vector<std::string> specs;
    for (const std::string* field : {&popup.first, &popup.second})
      if (!field->empty()) specs.push_back(*field);
    const Result<void> imported = import_files(specs, popup.tokens);
    popup.message = imported.ok() ? "" : imported.error().message;
    close = imported.ok();
  }
  ImGui::SameLine();
  if (ImGui::Button(i18n::label("import.popup.cancel", "import-cancel").c_str()) ||
      ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false))
    close = true;
  if (close) {
    popup.open = false;
    ImGui::CloseCurrentPopup();
  }
  ImGui::EndPopup();
}

}  // namespace smlab::app
