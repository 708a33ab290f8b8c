// The per-frame work shared by the window and the headless renderer.
#include "app.hpp"

#include <imgui.h>

#include <imgui_stdlib.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>  // key codes only: the GLFW backend fills io.KeysDown by GLFW key

#include "export/png.hpp"
#include "panels/dashboard_plots.hpp"
#include "platform/fonts.hpp"

namespace smlab::app {

App::App(platform::Surface& surface, const AppOptions& options) : surface_(surface), plot_style_(plot::dark_style()) {
  ImGui::SetCurrentContext(surface_.imgui_context());
  ui_.params = options.params;
  ui_.view = options.view;
  ui_.scores_text = format_scores(options.params.scores);
  ui_.screenshot_dir =
      options.screenshot_dir.empty() ? exporting::default_screenshot_dir().string() : options.screenshot_dir;
  ui_.ui_scale = surface_.content_scale();
  ui_.presets = options.presets;

  ui_.theme = options.theme;
  ui_.font_scale = std::clamp(options.font_scale, font_scale_min, font_scale_max);
  font_pixels_ = options.font_pixels;
  apply_look();

  if (options.refine_trials > 0) evaluator_.set_refine_limit(options.refine_trials);
  submit();
}

App::~App() { ImGui::SetCurrentContext(surface_.imgui_context()); }

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

void App::apply_look() {
  // The projector theme starts 1.15× larger so the back row can read it at font scale 1.
  const float theme_boost = ui_.theme == Theme::projector ? 1.15f : 1.0f;
  ui_.ui_scale = surface_.content_scale() * ui_.font_scale * theme_boost;

  platform::UiFontOptions fonts;
  fonts.pixel_size = font_pixels_ * ui_.font_scale * theme_boost;
  fonts.content_scale = surface_.content_scale();
  fonts.framebuffer_scale = surface_.framebuffer_scale();
  font_warning_ = platform::load_ui_fonts(ImGui::GetIO(), fonts).warning;

  ImGuiStyle& style = ImGui::GetStyle();
  style = ImGuiStyle();  // ScaleAllSizes multiplies: start from the unscaled sizes every time
  if (ui_.theme == Theme::dark) {
    ImGui::StyleColorsDark();
    plot_style_ = plot::dark_style();
  } else {
    ImGui::StyleColorsLight();
    plot_style_ = ui_.theme == Theme::projector ? plot::projector_style() : plot::light_style();
  }
  style.WindowRounding = 0.0f;
  style.FrameRounding = 3.0f;
  style.GrabRounding = 3.0f;
  if (ui_.theme == Theme::projector) {
    style.FrameBorderSize = 1.0f;  // outlined widgets stay visible on a washed-out projector
    style.Colors[ImGuiCol_Text] = ImVec4(0.0f, 0.0f, 0.0f, 1.0f);
  }
  style.ScaleAllSizes(ui_.ui_scale);
  plot_style_.font_size = 0.0f;          // plots use the UI font size
  plot_style_.fill_background = false;   // the clear colour below is the plot background
  plot_style_.line_scale *= ui_.ui_scale;
  plot_style_.marker_scale *= ui_.ui_scale;
  plot_style_.padding *= ui_.ui_scale;
  surface_.set_clear_color(ImVec4(plot_style_.background.r, plot_style_.background.g, plot_style_.background.b, 1));
  applied_theme_ = ui_.theme;
  applied_font_scale_ = ui_.font_scale;
}

std::int64_t headless_refine_trials(int seq_len) {
  const auto points = static_cast<std::int64_t>(power_of_two_key_dims().size());
  return std::clamp<std::int64_t>(2'000'000 / (points * seq_len), automatic_dk_trials(seq_len),
                                  Evaluator::refine_max_trials);
}

void App::submit() {
  submitted_ = ui_.params;
  submitted_view_ = ui_.view;
  evaluator_.submit(submitted_, submitted_view_);
}

// Params changed, or a new tab needs its lab's numbers.
bool App::needs_submit() const { return ui_.params != submitted_ || ui_.view != submitted_view_; }

void App::wait_for_snapshot() {
  if (needs_submit()) submit();
  evaluator_.wait_until_idle();
  sync_snapshot();
}

void App::sync_snapshot() {
  Evaluator::Latest latest = evaluator_.latest();
  const bool new_snapshot = latest.version != latest_.version;
  latest_ = std::move(latest);
  if (!new_snapshot || !latest_.snapshot) return;
  lab_textures_.new_snapshot();
  // Upload only when the data changed: a 4096² texture costs milliseconds.
  const Snapshot& snap = *latest_.snapshot;
  const int size = snap.attention_size;
  const double vmax = snap.attention_max;
  scaled_texture_.update(snap.attention_scaled, size, size, 0.0, vmax, plot::Colormap::Viridis);
  unscaled_texture_.update(snap.attention_unscaled, size, size, 0.0, vmax, plot::Colormap::Viridis);
}

bool App::frame() {
  using Clock = std::chrono::steady_clock;
  const auto frame_start = Clock::now();
  ImGui::SetCurrentContext(surface_.imgui_context());
  if (ui_.theme != applied_theme_ || ui_.font_scale != applied_font_scale_) apply_look();
  if (!surface_.begin_frame()) return false;

  if (ImGui::IsKeyPressed(GLFW_KEY_F12, false)) ui_.screenshot_requested = true;
  // Ctrl+= / Ctrl+− (and the keypad's + / −) change the font scale by 0.25×, next frame.
  const ImGuiIO& io = ImGui::GetIO();
  if (io.KeyCtrl && (ImGui::IsKeyPressed(GLFW_KEY_EQUAL) || ImGui::IsKeyPressed(GLFW_KEY_KP_ADD)))
    ui_.font_scale = std::min(ui_.font_scale + 0.25f, font_scale_max);
  if (io.KeyCtrl && (ImGui::IsKeyPressed(GLFW_KEY_MINUS) || ImGui::IsKeyPressed(GLFW_KEY_KP_SUBTRACT)))
    ui_.font_scale = std::max(ui_.font_scale - 0.25f, font_scale_min);
  if (ImGui::GetIO().KeyCtrl && session_popup_.mode == SessionPopup::Mode::closed) {
    const bool save = ImGui::IsKeyPressed(GLFW_KEY_S, false), load = ImGui::IsKeyPressed(GLFW_KEY_O, false);
    if (save || load) {
      session_popup_.mode = save ? SessionPopup::Mode::save : SessionPopup::Mode::load;
      session_popup_.open_requested = true;
      session_popup_.message.clear();
    }
  }
  timing_.blocked_ms = 0.0;
  if (needs_submit()) {
    submit();
    // A few ms is enough for L ≤ 256: the plots then change on this very frame.
    const auto wait_start = Clock::now();
    evaluator_.wait_for_latest(std::chrono::milliseconds(8));
    timing_.blocked_ms = std::chrono::duration<double, std::milli>(Clock::now() - wait_start).count();
  }
  sync_snapshot();
  if (std::string error = evaluator_.take_error(); !error.empty()) {
    ui_.status = error;
    ui_.status_is_error = true;
  }

  FrameStats stats;
  stats.computing = evaluator_.busy();
  stats.progress = evaluator_.progress();
  stats.compute_ms = evaluator_.last_compute_ms();
  stats.frame_ms = timing_.frame_ms;
  HeatmapTextures textures{scaled_texture_.id(), unscaled_texture_.id()};
  draw_main_window(ui_, latest_.snapshot.get(), latest_.sweep.get(), textures, lab_textures_, plot_style_, stats);
  draw_session_popup();

  surface_.end_frame();
  if (ui_.screenshot_requested) save_screenshot();

  timing_.frame_ms = std::chrono::duration<double, std::milli>(Clock::now() - frame_start).count();
  timing_.recompute_ms = evaluator_.last_compute_ms();
  return true;
}

Session App::current_session() const {
  Session session;
  session.params = ui_.params;
  session.view = ui_.view;
  session.screenshot_dir = ui_.screenshot_dir;
  return session;
}

void App::restore_session(const Session& session) {
  ui_.params = session.params;
  ui_.scores_text = format_scores(session.params.scores);
  ui_.input_error.clear();
  if (session.view != ui_.view) {
    ui_.view = session.view;
    ui_.select_view_tab = true;
  }
  if (!session.screenshot_dir.empty()) ui_.screenshot_dir = session.screenshot_dir;
}

void App::draw_session_popup() {
  using Mode = SessionPopup::Mode;
  SessionPopup& popup = session_popup_;
  if (popup.mode == Mode::closed) return;
  const char* title = popup.mode == Mode::save ? "Save session" : "Load session";
  if (popup.open_requested) {
    popup.open_requested = false;
    if (popup.path.empty()) {
      const std::filesystem::path home = std::getenv("HOME") != nullptr ? std::getenv("HOME") : ".";
      popup.path = (home / "softmax-lab-session.json").string();
    }
    ImGui::OpenPopup(title);
  }
  if (!ImGui::BeginPopupModal(title, nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
    popup.mode = Mode::closed;
    return;
  }
  ImGui::TextUnformatted(popup.mode == Mode::save ? "Save Params, view and screenshot folder as JSON to:"
                                                  : "Load a session saved with Ctrl+S from:");
  if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 32.0f);
  const bool entered = ImGui::InputText("##session-path", &popup.path, ImGuiInputTextFlags_EnterReturnsTrue);
  if (popup.mode == Mode::save) ImGui::Checkbox("replace an existing file", &popup.overwrite);
  if (!popup.message.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32.0f);
    ImGui::TextWrapped("%s", popup.message.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
  }
  bool close = false;
  if (ImGui::Button(popup.mode == Mode::save ? "Save" : "Load") || entered) {
    if (popup.mode == Mode::save) {
      const auto error = save_session(popup.path, current_session(), popup.overwrite);
      popup.message = error.value_or("");
      if (!error) ui_.status = "Saved session " + popup.path;
    } else {
      const SessionLoad loaded = load_session(popup.path);
      popup.message = loaded.error;
      if (loaded.session) {
        restore_session(*loaded.session);  // a bad file changes nothing
        ui_.status = "Loaded session " + popup.path;
      }
    }
    if (popup.message.empty()) {
      ui_.status_is_error = false;
      close = true;
    }
  }
  ImGui::SameLine();
  if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false)) close = true;
  if (close) {
    popup.mode = Mode::closed;
    ImGui::CloseCurrentPopup();
  }
  ImGui::EndPopup();
}

void App::save_screenshot() {
  ui_.screenshot_requested = false;
  const Image image = surface_.capture();
  const auto saved = exporting::save_screenshot(image, ui_.screenshot_dir, std::chrono::system_clock::now());
  ui_.status_is_error = saved.error.has_value();
  ui_.status = saved.error ? *saved.error : "Saved " + saved.path.string();
}

}  // namespace smlab::app
