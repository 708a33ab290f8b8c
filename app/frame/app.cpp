// The per-frame work shared by the window and the headless renderer.
//
// [SECTION] Index
//   [SECTION] Whether Chinese can be shown
//   [SECTION] Construction
//   [SECTION] Look: fonts, theme and scale
//   [SECTION] Evaluation: submit and take the snapshot
//   [SECTION] One frame
//   [SECTION] Sessions
//   [SECTION] Screenshots and reports
//   [SECTION] Idle wait
#include "app.hpp"

#include <imgui.h>

#include <imgui_internal.h>  // the windows drawn this frame: is a menu open?

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>  // key codes only: the GLFW backend fills io.KeysDown by GLFW key

#include "app_recording.hpp"
#include "export/png.hpp"
#include "lesson_player/lesson_player.hpp"
#include "lessons/lesson_corpus.hpp"
#include "panels/lesson_panel.hpp"
#include "panels/panels.hpp"
#include "panels/pins_panel.hpp"
#include "panels/pointer_gestures.hpp"
#include "panels/dashboard_plots.hpp"
#include "platform/font_atlas.hpp"
#include "state/presets.hpp"

namespace smlab::app {
namespace {

// A key as its slider names it in the UI's language (a view's main key: "温度" for temperature),
// else its --set name (scores), which is the same in both languages.
std::string key_title(std::string_view key) {
  for (const ViewInfo& info : all_views())
    for (const MainKey& main : main_keys(info.view))
      if (key == main.key) return main.name();
  return std::string(key);
}

// [SECTION] Whether Chinese can be shown

// Whether Chinese can be shown, or why not: no zh-CN table, or no readable CJK font file.
// `catalogue`: how loading the string tables went.
Result<void> chinese_availability(const Result<void>& catalogue) {
  if (!i18n::has_catalogue()) return catalogue.ok() ? Error::file("no string tables") : catalogue.error();
  if (!i18n::has_chinese())
    return Error::file(
        i18n::format("controls.language.no_table", {catalogue ? "zh-CN.json" : catalogue.error().message}));
  const std::string path = platform::chinese_font_path();
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error))
    return Error::file(i18n::format("controls.language.no_font", {path}));
  return {};
}

// Whether this frame drew a menu, a combo's list or a context popup (not a modal dialog): windows
// begun this frame with the popup flag.
bool menu_or_popup_drawn() {
  for (const ImGuiWindow* window : GImGui->Windows)
    if (window->Active && (window->Flags & ImGuiWindowFlags_Popup) != 0 &&
        (window->Flags & ImGuiWindowFlags_Modal) == 0)
      return true;
  return false;
}

}  // namespace

// [SECTION] Construction

App::App(platform::Surface& surface, const AppOptions& options) : surface_(surface), plot_style_(plot::dark_style()) {
  surface_.make_current();
  // main.cpp loads the string tables first; an App made elsewhere (tests) loads them here.
  Result<void> catalogue;
  if (!i18n::has_catalogue()) catalogue = i18n::load_catalogue(find_assets_dir());
  {
    // Why Chinese cannot be shown is said in English: Chinese is exactly what it cannot show.
    const i18n::Use english(i18n::Language::English);
    ui_.chinese_available = chinese_availability(catalogue);
  }
  ui_.language = options.language;
  if (ui_.language == i18n::Language::Chinese && !ui_.chinese_available) {
    // Without any table main.cpp has said so already.
    if (i18n::has_catalogue()) language_warning_ = ui_.chinese_available.error().message;
    ui_.language = i18n::Language::English;
  }
  ui_.params = options.params;
  if (!options.import_warning.empty()) {
    ui_.status = options.import_warning;
    ui_.status_is_error = true;
  }
  ui_.view = options.view;
  ui_.scores_text = format_scores(options.params.scores);
  ui_.screenshot_dir =
      options.screenshot_dir.empty() ? exporting::default_screenshot_dir().string() : options.screenshot_dir;
  ui_.ui_scale = surface_.content_scale();
  ui_.presets = options.presets;
  ui_.lessons = options.lessons;
  // --lesson NAME:STEP:GUESS (or an export of a revealed step) shows the step revealed.
  if (options.lesson && resume_lesson(ui_, options.lesson->lesson, options.lesson->step) &&
      (options.lesson->guess || options.lesson_revealed))
    (void)commit_guess(ui_, options.lesson->guess);  // lookup_lesson checked the guess
  ui_.pins.pins = options.pins;

  ui_.presenter = options.presenter;
  ui_.controls_shown = options.controls_shown;
  files_by_host_ = options.files_by_host;
  ui_.theme = options.theme;
  ui_.font_scale = std::clamp(options.font_scale, font_scale_min, font_scale_max);
  ui_.interaction.colormap = options.colormap;
  ui_.interaction.color_scales.chosen = options.color_scales;
  font_pixels_ = options.font_pixels;
  apply_look();
  training_.start(options, ui_);  // before the history's first Params (it attaches the corpus)
  history_.reset(ui_.params);

  if (options.refine_trials > 0) evaluator_.set_refine_limit(options.refine_trials);
  submit();
}

App::~App() {
  // A recording's or an export's App has contexts of its own and leaves none current when it goes:
  // first, so that this App's textures are then deleted in this surface's context (names are per
  // context). An export's thread is cancelled and waited for: what it staged is removed.
  gif_recording_.reset();
  exports_.clear();
  surface_.make_current();
}

// [SECTION] Look: fonts, theme and scale

namespace {

// The imported data whose token labels need glyphs beyond ASCII (CJK, accents, …), or null.
const ImportedAttention* token_glyph_source(const Params& params) {
  if (params.imported == nullptr) return nullptr;
  for (const std::string& token : params.imported->tokens)
    for (char c : token)
      if (static_cast<unsigned char>(c) >= 0x80) return params.imported.get();
  return nullptr;
}

// What decides the glyphs the plots need beyond ASCII in either language: the imported token
// labels, and the training lab's language model, whose maps and bars label tokens with the lesson
// texts' characters (Chinese ones too, in an English window) and the typed sentence's. These stay
// once gathered (`before`): a lesson stepping in and out of the language model would otherwise
// rebuild the atlas, a visible pause, at each step.
App::GlyphSources glyph_sources(const Params& params, const App::GlyphSources& before) {
  const TrainingSettings& training = params.training;
  const bool language = training.run.task == train::Task::language && training.corpus != nullptr;
  const void* corpus = language ? training.corpus.get() : nullptr;
  if (corpus == nullptr && before.corpus != nullptr && before.corpus == training.corpus.get()) corpus = before.corpus;
  return {token_glyph_source(params), corpus, language ? training.sentence : before.sentence};
}

}  // namespace

void apply_theme_colors(Theme theme, ImGuiStyle& style) {
  if (theme == Theme::dark)
    ImGui::StyleColorsDark(&style);
  else
    ImGui::StyleColorsLight(&style);
  if (theme == Theme::projector) style.Colors[ImGuiCol_Text] = ImVec4(0.0f, 0.0f, 0.0f, 1.0f);
  // Menus, tooltips and dialogs opaque: Dear ImGui's 94-98% let the plot labels beneath show
  // through a menu's items, which a projector makes hard to read.
  style.Colors[ImGuiCol_PopupBg].w = 1.0f;
  // Child windows and the menu bar are drawn over the window's colour: composite them on it.
  const ImVec4 window = style.Colors[ImGuiCol_WindowBg];
  const auto over_window = [&](ImVec4 color) {
    const float a = color.w;
    return plot::Color{color.x * a + window.x * (1.0f - a), color.y * a + window.y * (1.0f - a),
                       color.z * a + window.z * (1.0f - a)};
  };
  for (const ImGuiCol text : {ImGuiCol_Text, ImGuiCol_TextDisabled}) {
    ImVec4& color = style.Colors[text];
    plot::Color readable{color.x, color.y, color.z, color.w};
    for (const ImGuiCol background :
         {ImGuiCol_WindowBg, ImGuiCol_ChildBg, ImGuiCol_PopupBg, ImGuiCol_FrameBg, ImGuiCol_MenuBarBg})
      readable = plot::readable_on(readable, over_window(style.Colors[background]));
    color = ImVec4(readable.r, readable.g, readable.b, readable.a);
  }
}

plot::Style theme_plot_style(Theme theme) {
  switch (theme) {
    case Theme::dark: return plot::dark_style();
    case Theme::light: return plot::light_style();
    case Theme::projector: return plot::projector_style();
  }
  return plot::light_style();
}

void App::apply_look() {
  // The projector theme starts 1.15× larger so the back row can read it at font scale 1.
  const float theme_boost = ui_.theme == Theme::projector ? 1.15f : 1.0f;
  ui_.ui_scale = surface_.content_scale() * ui_.font_scale * theme_boost;

  platform::FontAtlasRequest request;
  platform::UiFontOptions& fonts = request.fonts;
  fonts.pixel_size = font_pixels_ * ui_.font_scale * theme_boost;
  fonts.content_scale = surface_.content_scale();
  fonts.framebuffer_scale = surface_.framebuffer_scale();
  // CJK glyphs only while Chinese is shown (platform/font_atlas.hpp says which and why).
  fonts.merge_chinese = ui_.language == i18n::Language::Chinese;
  fonts.chinese_font_path = platform::chinese_font_path();
  request.chinese_offered = ui_.chinese_available.ok();
  request.chinese_name = i18n::language_name(i18n::Language::Chinese);
  request.add_chinese_text = [this](ImFontGlyphRangesBuilder& builder) {
    builder.AddText(i18n::all_text(i18n::Language::Chinese).c_str());
    // The lessons this app was given carry their own zh-CN text: their characters too (already
    // loaded and checked: no second read of the files).
    for (const Lesson& lesson : ui_.lessons.lessons) {
      builder.AddText(lesson.title.chinese.c_str());
      for (const LessonStep& step : lesson.steps) {
        builder.AddText(step.title.chinese.c_str());
        builder.AddText(step.text.chinese.c_str());
      }
    }
  };
  // Token labels bring their own characters: merged from the same font, in either language.
  if (const GlyphSources sources = glyph_sources(ui_.params, glyph_sources_);
      sources != glyph_sources_ || extra_glyphs_ == nullptr) {
    auto text = std::make_shared<std::vector<std::string>>();
    if (sources.imported != nullptr) *text = static_cast<const ImportedAttention*>(sources.imported)->tokens;
    if (sources.corpus != nullptr) {
      const auto& corpus = *static_cast<const train::Corpus*>(sources.corpus);
      for (int token = 0; token < corpus.vocab_size(); ++token) text->push_back(corpus.label(token));
      text->push_back(sources.sentence);
    }
    // Made while the old list lives, so its address (the atlas's owner key) is a new one.
    extra_glyphs_ = std::move(text);
    glyph_sources_ = sources;
  }
  if (!extra_glyphs_->empty()) {
    request.extra_text_owner = extra_glyphs_.get();
    request.extra_text = *extra_glyphs_;
  }
  const bool show_chinese = fonts.merge_chinese;
  const platform::UiFonts loaded = font_atlas_.load(ImGui::GetIO(), std::move(request));
  font_warning_ = loaded.warning;
  if (show_chinese && !loaded.chinese_merged) {
    // The font went away since start-up (or is unusable): English, which needs no CJK glyphs.
    ui_.language = i18n::Language::English;
    const i18n::Use english(i18n::Language::English);
    font_warning_ = i18n::format("controls.language.no_font", {platform::chinese_font_path()});
    ui_.chinese_available = Error::file(font_warning_);
  }
  applied_language_ = ui_.language;
  const i18n::Use language(applied_language_);  // the plot words below

  ImGuiStyle& style = ImGui::GetStyle();
  style = ImGuiStyle();  // ScaleAllSizes multiplies: start from the unscaled sizes every time
  apply_theme_colors(ui_.theme, style);
  plot_style_ = theme_plot_style(ui_.theme);
  style.WindowRounding = 0.0f;
  style.FrameRounding = 3.0f;
  style.GrabRounding = 3.0f;
  // Light colours draw white slider and input frames on a white column: outlined, a slider is
  // seen as one (Dear ImGui's StyleColorsLight asks for the frame border), and stays visible on a
  // washed-out projector.
  if (ui_.theme != Theme::dark) style.FrameBorderSize = 1.0f;
  style.ScaleAllSizes(ui_.ui_scale);
  plot_style_.font_size = 0.0f;         // plots use the UI font size
  plot_style_.fill_background = false;  // the clear colour below is the plot background
  plot_style_.line_scale *= ui_.ui_scale;
  plot_style_.marker_scale *= ui_.ui_scale;
  plot_style_.padding *= ui_.ui_scale;
  // The hover read-outs' words follow the language (apply_look runs again when it changes).
  plot_style_.words = {i18n::tr("plot.hover.row"),       i18n::tr("plot.hover.col"),  i18n::tr("plot.hover.value"),
                       i18n::tr("plot.hover.bar"),       i18n::tr("plot.hover.band"), i18n::tr("plot.hover.line"),
                       i18n::tr("plot.hover.points"),    i18n::tr("plot.hover.bars"), i18n::tr("plot.hover.no_texture"),
                       i18n::tr("plot.color_scale.hint")};
  surface_.set_clear_color(ImVec4(plot_style_.background.r, plot_style_.background.g, plot_style_.background.b, 1));
  applied_theme_ = ui_.theme;
  applied_font_scale_ = ui_.font_scale;
  applied_framebuffer_scale_ = surface_.framebuffer_scale();
}

bool App::extra_glyphs_need_cjk() const {
  if (extra_glyphs_ == nullptr) return false;
  // The CJK blocks page.js's needsChineseFont tests for: radicals to the unified ideographs, the
  // compatibility ideographs and the full-width forms. Lead bytes E2 BA (U+2E80) to E9 BF (U+9FFF),
  // EF A4 to EF AB (U+F900-FAFF), EF BC to EF BF (U+FF00-FFEF).
  for (const std::string& text : *extra_glyphs_)
    for (std::size_t i = 0; i + 1 < text.size(); ++i) {
      const auto lead = static_cast<unsigned char>(text[i]), next = static_cast<unsigned char>(text[i + 1]);
      if ((lead == 0xE2 && next >= 0xBA) || (lead >= 0xE3 && lead <= 0xE9) ||
          (lead == 0xEF && ((next >= 0xA4 && next <= 0xAB) || next >= 0xBC)))
        return true;
    }
  return false;
}

// [SECTION] Evaluation: submit and take the snapshot

void App::submit() {
  // Params set from keys (a lesson step, a session) lack the language model's corpus, and Params'
  // == does not see it: attached here, every evaluation has it (wait_for_snapshot submits before
  // any frame's training_.sync could attach it; the lesson's language step drew no next-token bars).
  attach_corpus(ui_.params, training_.corpus());
  submitted_ = ui_.params;
  submitted_view_ = ui_.view;
  evaluator_.submit(submitted_, training_.evaluated_view(submitted_view_, submitted_.training));
}

// Params changed, or a new tab needs its lab's numbers.
bool App::needs_submit() const { return ui_.params != submitted_ || ui_.view != submitted_view_; }

void App::wait_for_snapshot() {
  if (needs_submit()) submit();
  evaluator_.wait_until_idle();
  // Called between frames, maybe while another surface's context is current (a recording's App is
  // driven from the window's frame): the maps must go into this surface's textures.
  surface_.make_current();
  sync_snapshot();
}

void App::sync_snapshot() {
  Evaluator::Latest latest = evaluator_.latest();
  const bool new_snapshot = latest.version != latest_.version;
  latest_ = std::move(latest);
  ui_.pins.live = latest_.complete ? latest_.snapshot : nullptr;
  const bool new_colormap = ui_.interaction.colormap != uploaded_colormap_;
  // Both maps share one colour scale choice ("dashboard/attention", right-click either map).
  const bool fixed_range =
      plot_style_.color_scales.scale("dashboard/attention", plot::ColorScale::Auto) == plot::ColorScale::Fixed;
  const bool new_scale = fixed_range != uploaded_fixed_range_;
  // Textures need no more texels than half the framebuffer's longer side (the dashboard shows
  // each map in well under that); a 4× export has a 4× framebuffer and gets 4× the texels.
  const platform::PixelSize framebuffer = surface_.framebuffer_size();
  const int max_side = std::max({256, framebuffer.width / 2, framebuffer.height / 2});
  const bool new_size = max_side != uploaded_max_side_;
  const Evaluator::MapImageSpec spec{max_side, ui_.interaction.colormap, fixed_range};
  evaluator_.set_map_image_spec(spec);
  if ((!new_snapshot && !new_colormap && !new_size && !new_scale) || !latest_.snapshot) return;
  uploaded_colormap_ = ui_.interaction.colormap;
  uploaded_fixed_range_ = fixed_range;
  uploaded_max_side_ = max_side;
  lab_textures_.new_snapshot();
  // A first result whose maps follow: the textures of the maps before stay until they do.
  if (latest_.maps_pending) return;
  // Upload only when the data changed: a 4096² texture costs milliseconds.
  const Snapshot& snap = *latest_.snapshot;
  const double vmax = fixed_range ? 1.0 : snap.attention_max;
  if (latest_.images != nullptr && latest_.images->spec == spec) {  // coloured by the worker
    if (latest_.images == uploaded_images_) return;                 // the same maps (a row change): on the GPU already
    uploaded_images_ = latest_.images;
    scaled_texture_.upload(latest_.images->scaled);
    unscaled_texture_.upload(latest_.images->unscaled);
    return;
  }
  uploaded_images_ = nullptr;
  for (const bool scaled : {true, false}) {
    const MapTextureSource source = map_texture_source(snap, scaled);
    if (source.size == 0) continue;  // maps still being computed: the old texture stays
    (scaled ? scaled_texture_ : unscaled_texture_)
        .update(source.fill_row, source.size, source.size, 0.0, vmax, uploaded_colormap_, max_side, plot::Pooling::max);
  }
}

// [SECTION] One frame

bool App::frame() {
  using Clock = std::chrono::steady_clock;
  const auto frame_start = Clock::now();
  surface_.make_current();
  if (ui_.theme != applied_theme_ || ui_.font_scale != applied_font_scale_ || ui_.language != applied_language_ ||
      glyph_sources(ui_.params, glyph_sources_) != glyph_sources_ ||
      surface_.framebuffer_scale() != applied_framebuffer_scale_ || std::exchange(fonts_stale_, false))
    apply_look();
  // Everything this frame draws (and reports) is in this App's language, whatever another App or an
  // export on this thread uses before or after it.
  const i18n::Use language(applied_language_);
  // The keys the open lesson step holds are drawn disabled (panels.hpp).
  const LessonStep* open_step = current_step(ui_);
  const HeldKeysScope held(open_step != nullptr ? std::span<const std::string>(open_step->held)
                                                : std::span<const std::string>());
  if (!surface_.begin_frame()) return false;
  import_dropped_files();           // before the interaction frame, so an import is one undo step
  begin_interaction_frame();        // undo/redo, nudges, the sweep: before Params are submitted
  training_.sync(ui_, reporter());  // the training lab's corpus and Trainer

  if (ImGui::IsKeyPressed(GLFW_KEY_F12, false)) ui_.interaction.commands.push(Command::screenshot);
  // Ctrl+Q quits, also in full screen where there is no close button (File > Quit does the same).
  if (ImGui::GetIO().KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_Q, false)) ui_.interaction.commands.push(Command::quit);
  // Ctrl+= / Ctrl+− (and the keypad's + / −) change the font scale by 0.25×, next frame. One step
  // a press, no key repeat: each step rebuilds the font atlas, and that slow frame would otherwise
  // count as holding the key past the repeat delay (two steps for one short press).
  const ImGuiIO& io = ImGui::GetIO();
  if (io.KeyCtrl && (ImGui::IsKeyPressed(GLFW_KEY_EQUAL, false) || ImGui::IsKeyPressed(GLFW_KEY_KP_ADD, false)))
    ui_.font_scale = std::min(ui_.font_scale + 0.25f, font_scale_max);
  if (io.KeyCtrl && (ImGui::IsKeyPressed(GLFW_KEY_MINUS, false) || ImGui::IsKeyPressed(GLFW_KEY_KP_SUBTRACT, false)))
    ui_.font_scale = std::max(ui_.font_scale - 0.25f, font_scale_min);
  if (ImGui::GetIO().KeyCtrl && session_popup_.mode == SessionPopup::Mode::closed) {
    const bool save = ImGui::IsKeyPressed(GLFW_KEY_S, false), load = ImGui::IsKeyPressed(GLFW_KEY_O, false);
    if (files_by_host_) {  // the host's own save and open (AppOptions::files_by_host)
      if (save) ui_.interaction.commands.push(Command::save_session);
      if (load) ui_.interaction.commands.push(Command::open_session);
    } else if (save || load) {
      session_popup_.open(save ? SessionPopup::Mode::save : SessionPopup::Mode::load);
    }
  }
  // What the open step's text describes is what the plots show: a held key changed another way
  // than its (disabled) slider is put back (lesson_player.hpp).
  if (const std::vector<std::string_view> restored = hold_step_settings(ui_); !restored.empty()) {
    std::string names;
    for (std::string_view key : restored) names.append(names.empty() ? "" : ", ").append(key_title(key));
    report(i18n::format("lesson.held.restored", {names}), false);
  }
  timing_.blocked_ms = 0.0;
  bool submitted_this_frame = false;
  if (needs_submit()) {
    // The worker takes a submission only after the job it is running (a job is never cancelled:
    // see Evaluator::submit), so while it is busy, the later stages of an L = 4096 recompute for
    // instance, no result can come within a frame's wait: that frame is drawn at once.
    const bool worker_free = !evaluator_.busy();
    // A step on its own (a click, a key, the clicker), not the next position of something moving:
    // a slider or plot held by the pointer, a lesson step's glide, the sweep playing, or Params
    // that changed on the frame before too (--bench-frames moves its slider every frame).
    const bool single_step = !ImGui::IsAnyItemActive() && !ui_.gesture.active() && !ui_.lesson.animating &&
                             !ui_.interaction.sweep_playing && !submitted_last_frame_;
    submitted_this_frame = true;
    submit();
    // When first results are quick (the dashboard's staged recompute: the row, its plots and a
    // coarse d_k sweep, ~1 ms) a few ms of waiting lets the plots change on this very frame. When
    // the last one took more than half the wait (a slow lab), waiting would mostly stall the
    // frame: the snapshot lands a frame later.
    constexpr double wait_budget_ms = 8.0;
    if (worker_free && evaluator_.last_first_result_ms() < 0.5 * wait_budget_ms) {
      const auto wait_start = Clock::now();
      const auto budget = std::chrono::duration_cast<std::chrono::microseconds>(
          std::chrono::duration<double, std::milli>(wait_budget_ms));
      evaluator_.wait_for_latest(budget);
      const auto rest = std::chrono::duration_cast<std::chrono::microseconds>(budget - (Clock::now() - wait_start));
      // Small problems (all stages within half the budget last time): the complete Snapshot on
      // this frame too, rather than a first result now and the rest a frame later.
      if (evaluator_.last_compute_ms() < 0.5 * wait_budget_ms) {
        evaluator_.wait_for_complete(rest);
      } else if (single_step && final_wait_skips_ == 0 &&
                 evaluator_.last_final_ms() < final_wait_probe_factor * final_wait_budget_ms) {
        // Otherwise, for a single step, up to one 60 Hz frame in all for the maps and H(T) (all but
        // the Monte Carlo curves): at L = 1024 they take a few ms while the cores are free, but
        // about a frame longer when they run beside the first result's frame (a software
        // rasteriser takes both cores), so waiting here shows the final picture a whole frame
        // sooner (docs/PERFORMANCE.md). During a drag the first results follow the hand
        // at once instead, and where the last final took several frames (L = 4096) no frame waits.
        // When the final does not come within the budget, the next single steps show first results.
        evaluator_.wait_for_final(std::chrono::duration_cast<std::chrono::microseconds>(
            std::chrono::duration<double, std::milli>(final_wait_budget_ms) - (Clock::now() - wait_start)));
        const Evaluator::Latest shown = evaluator_.latest();
        if (!shown.snapshot || shown.snapshot->params != submitted_ || shown.maps_pending ||
            shown.entropy_curve_pending)
          final_wait_skips_ = final_wait_retry_submissions;
      } else if (single_step && final_wait_skips_ > 0) {
        --final_wait_skips_;
      }
      timing_.blocked_ms = std::chrono::duration<double, std::milli>(Clock::now() - wait_start).count();
    }
  }
  submitted_last_frame_ = submitted_this_frame;
  sync_snapshot();
  // The live training lab's newest picture into the Snapshot drawn; a new one has new maps.
  if (training_.compose(ui_, latest_.snapshot)) lab_textures_.new_snapshot();
  if (Result<void> worker = evaluator_.take_error(); !worker) report(worker.error().message, true);

  // A status line about an import the Params no longer hold goes before the frame is drawn
  // (UiStatus::status_import): a change made after drawing submits Params, so a frame follows.
  if (ui_.status_reports_import && (ui_.status_import.expired() || ui_.status_import.lock() != ui_.params.imported)) {
    ui_.status.clear();
    ui_.status_is_error = false;
    ui_.status_reports_import = false;
  }

  FrameStats stats;
  stats.computing = evaluator_.busy();
  stats.progress = evaluator_.progress();
  stats.compute_ms = evaluator_.last_compute_ms();
  stats.frame_ms = timing_.frame_ms;
  HeatmapTextures textures{scaled_texture_.id(), unscaled_texture_.id()};
  advance_lesson(ui_, animation_step_seconds());  // a step's Params glide over 0.5 s
  handle_pin_keys(ui_);                           // P pins; the pins' Snapshots are brought up to date for the plots
  draw_main_window(ui_, latest_.snapshot.get(), latest_.sweep.get(), textures, lab_textures_, view_cache_, plot_style_,
                   stats);
  // Direct manipulation: the mouse's press, moves and release on the plots just placed.
  if (const LabView* view = view_cache_.current(); view != nullptr)
    feed_mouse(ui_, view_info(ui_.view).name, view->plots, plot_style_, latest_.snapshot.get());
  // Before the session popup: Escape closing the popup must not also close the lesson.
  draw_lesson(ui_, latest_.snapshot.get(), latest_.sweep.get());
  log_committed_guess();
  draw_session_popup(session_popup_, [this](SessionPopup::Mode mode, const std::string& path, bool overwrite) {
    return save_or_load_session(mode, path, overwrite);
  });
  toast_.draw(surface_.time_seconds(), ui_.ui_scale);
  draw_import();
  draw_background_progress();  // exports, a GIF, an import behind a closed dialog: bars and Cancel
  if (frame_hook_) frame_hook_(*this);
  // Escape closes an open menu, combo list or context menu, as it closes the dialogs (they take
  // their own Escape): left open, the next click would pick from the list. This frame's other Escape
  // users (presenter mode, the lesson) left the key alone while the popup was open.
  if (ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false)) ImGui::ClosePopupsExceptModals();

  // A screenshot shows the picture, not the menu it was asked from: File → Screenshot is clicked in
  // a frame that still draws the File menu, so the capture waits for a frame with no menu, combo
  // or context popup drawn (a modal dialog still counts as the picture).
  const bool popup_drawn = menu_or_popup_drawn();
  surface_.end_frame();
  training_.export_npz(ui_, latest_.snapshot.get(), reporter());
  if (!popup_drawn && ui_.interaction.commands.take(Command::screenshot)) start_screenshot();
  end_interaction_frame();  // history, PNG export, GIF recording

  timing_.frame_ms = std::chrono::duration<double, std::milli>(Clock::now() - frame_start).count();
  timing_.recompute_ms = evaluator_.last_compute_ms();
  return true;
}

// [SECTION] Sessions

Session App::current_session() const { return session_of(ui_); }

Session session_of(const UiModel& model) {
  Session session;
  session.params = model.params;
  session.view = model.view;
  session.screenshot_dir = model.screenshot_dir;
  session.language = model.language;
  session.theme = theme_name(model.theme);
  session.font_scale = model.font_scale;
  session.colormap = plot::name(model.interaction.colormap);
  session.color_scales = model.interaction.color_scales.chosen;
  if (const LessonStep* step = current_step(model); step != nullptr)
    session.lesson = SessionLesson{current_lesson(model)->name, static_cast<int>(model.lesson.open->step) + 1};
  session.pins = model.pins.pins;
  if (model.params.imported != nullptr) {
    session.imports = model.params.imported->sources;
    session.import_tokens = model.params.imported->tokens_file;
  }
  return session;
}

void App::restore_session(const Session& session) {
  const i18n::Use language(applied_language_);
  StartState state;
  state.view = ui_.view;
  state.screenshot_dir = ui_.screenshot_dir;
  state.theme = ui_.theme;
  state.font_scale = ui_.font_scale;
  state.colormap = ui_.interaction.colormap;
  state.language = ui_.language;
  const Result<void> applied = apply_session(session, ui_.lessons, SessionGiven{}, state);
  ui_.params = state.params;
  ui_.scores_text = format_scores(state.params.scores);
  ui_.input_error.clear();
  if (state.view != ui_.view) {
    ui_.view = state.view;
    ui_.select_view_tab = true;
  }
  ui_.screenshot_dir = state.screenshot_dir;
  // Applied between frames (fonts); Chinese only when its table and font are there.
  if (state.language == i18n::Language::English || ui_.chinese_available) ui_.language = state.language;
  ui_.theme = state.theme;
  ui_.font_scale = state.font_scale;
  ui_.interaction.colormap = state.colormap;
  ui_.interaction.color_scales.chosen = state.color_scales;
  if (!state.import_warning.empty()) {  // the files are gone: say so once, in the status line
    ui_.status = state.import_warning;
    ui_.status_is_error = true;
  }
  ui_.pins = PinState{};
  ui_.pins.pins = session.pins;
  // A lesson position is kept only if that lesson and step still exist; Params stay the session's.
  ui_.lesson.animating = false;
  ui_.lesson.open.reset();
  if (session.lesson && (!applied || !state.lesson || !resume_lesson(ui_, state.lesson->lesson, state.lesson->step)))
    report(i18n::format("lesson.not_available", {session.lesson->name, std::to_string(session.lesson->step)}), true);
}

Result<void> App::save_or_load_session(SessionPopup::Mode mode, const std::string& path, bool overwrite) {
  if (mode == SessionPopup::Mode::save) {
    Session session = current_session();
    if (class_record_) session.class_record = class_record_();
    const Result<void> saved = save_session(path, session, overwrite);
    if (saved.ok()) report(i18n::format("app.status.saved_session", {path}), false);
    // The file layer refuses an existing file in the command line's words (--overwrite); here the
    // way to replace it is the popup's checkbox, so say that, in the window's language.
    std::error_code error;
    if (!saved.ok() && !overwrite && std::filesystem::is_regular_file(path, error))
      return Error::file(i18n::format("app.session.exists", {path, i18n::tr("app.session.overwrite")}));
    return saved;
  }
  const Result<Session> loaded = load_session(path);
  if (!loaded) return loaded.error();
  restore_session(*loaded);  // a bad file changes nothing
  report(i18n::format("app.status.loaded_session", {path}), false);
  // Its class, hosted again after the session is shown (the host reports how that went).
  if (!loaded->class_record.empty() && class_reopen_) class_reopen_(loaded->class_record);
  return {};
}

// [SECTION] Screenshots and reports

double animation_step_seconds() {
  // After the window slept (idle), the first frame's DeltaTime spans the whole sleep: an animation
  // started on that frame must not jump. A slow frame still moves an animation by its own length.
  return std::clamp(static_cast<double>(ImGui::GetIO().DeltaTime), 0.0, 0.25);
}

void App::log_committed_guess() {
  // SMLAB_LOG_TOASTS set: a committed guess goes to stderr too, one line, as the toasts do (the
  // live-window test checks that the number typed is the number committed).
  const std::optional<double> committed = ui_.lesson.revealed ? ui_.lesson.guess : std::nullopt;
  if (committed == logged_guess_) return;
  logged_guess_ = committed;
  const Lesson* lesson = current_lesson(ui_);
  if (committed && lesson != nullptr && std::getenv("SMLAB_LOG_TOASTS") != nullptr)
    std::fprintf(stderr, "softmax-lab: guess: %s on %s:%zu\n", predict_guess(*committed).c_str(), lesson->name.c_str(),
                 ui_.lesson.open->step + 1);
}

void App::report(std::string text, bool is_error) {
  ui_.status = std::move(text);
  ui_.status_is_error = is_error;
  ui_.status_reports_import = false;
  toast_.show(ui_.status, is_error, surface_.time_seconds());
  // SMLAB_LOG_TOASTS set: each toast's text also goes to stderr, one line (the live-window test
  // reads what a toast said without reading pixels).
  if (std::getenv("SMLAB_LOG_TOASTS") != nullptr) std::fprintf(stderr, "softmax-lab: toast: %s\n", ui_.status.c_str());
}

// [SECTION] Idle wait

double App::idle_wait_seconds() const {
  const ImGuiIO& io = ImGui::GetIO();
  if (needs_submit() || ui_.lesson.animating || ui_.lesson_view.start_requested || sweep_player_.playing() ||
      gif_recording_ || !ui_.interaction.commands.empty())
    return 0.0;
  // The mouse moved onto or off a bound number of the lesson's text: the plots mark it next frame.
  if (current_step(ui_) != nullptr && ui_.lesson_view.hovered_number != ui_.lesson_view.marked_number) return 0.0;
  // A PNG's offscreen render takes a step each frame; written files end with a wake().
  for (const auto& running : exports_)
    if (running->render != nullptr) return 0.0;
  // A held key repeats on ImGui's clock; a held button may be a drag about to move.
  for (const bool down : io.KeysDown)
    if (down) return 0.0;
  for (const bool down : io.MouseDown)
    if (down) return 0.0;
  double wait = -1.0;
  const auto at_most = [&wait](double seconds) { wait = wait < 0.0 ? seconds : std::min(wait, seconds); };
  if (evaluator_.busy()) at_most(0.1);            // the progress bar; the finished snapshot wakes the window
  if (!exports_.empty()) at_most(0.1);            // their rows appear after a moment, their bars move
  if (ui_.training.running) at_most(1.0 / 30.0);  // the training lab's curves grow
  if (io.WantTextInput) at_most(0.5);             // the text cursor blinks
  if (const std::optional<double> change = toast_.seconds_until_change(surface_.time_seconds())) at_most(*change);
  return wait;
}

}  // namespace smlab::app
