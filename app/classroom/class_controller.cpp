// Hosting a class from the window (class_controller.hpp): the dialog, the class window with its QR
// code and peer instruction's buttons and histograms, drawn in the App's frame.
//
// [SECTION] Index
//   [SECTION] Hosting and stopping
//   [SECTION] The dialog: network and port
//   [SECTION] Histograms and the QR code
//   [SECTION] The class window
#include "classroom/class_controller.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "classroom/site_build.hpp"
#include "i18n/i18n.hpp"
#include "lesson_player/lesson_player.hpp"

namespace smlab::classroom {

// [SECTION] Hosting and stopping

ClassController::ClassController(std::function<void()> wake, std::filesystem::path site)
    : wake_(std::move(wake)), site_(std::move(site)) {}

ClassController::~ClassController() = default;

void ClassController::attach(app::App& app) {
  app.ui().interaction.class_offered = true;
  app.set_host(this);
}

std::string ClassController::session_record() { return host_ ? host_->record() : std::string(); }

void ClassController::reopen_session(app::App& app, const std::string& record) {
  if (Result<void> reopened = reopen(record, app); !reopened)
    report_failure(app, "class.status.not_reopened", reopened.error());
}

void ClassController::detach(app::App& app) {
  stop(app);
  app.set_host(nullptr);
  app.ui().interaction.class_offered = false;
}

void ClassController::report_failure(app::App& app, const char* key, const Error& error) {
  const i18n::Use language(app.language());
  app.report(i18n::format(key, {error.message}), true);
}

HostRequest ClassController::request_at(const HostAddress& where) const {
  HostRequest request;
  request.address = where.address;
  request.port = where.port;
  request.site = site_;
  request.wake = wake_;
  return request;
}

Result<bool> ClassController::build_site_first(std::function<Result<void>(app::App&)> then, const char* failed_key) {
  std::error_code error;
  if (std::filesystem::is_regular_file(site_ / "index.html", error)) return false;
  // A build under way goes on: what it does when done is the newest request.
  if (site_job_) {
    after_site_ = std::move(then);
    after_site_failed_ = failed_key;
    return true;
  }
  Result<SiteBuildPlan> plan = site_build_plan(site_);
  if (!plan) return plan.error();
  after_site_ = std::move(then);
  after_site_failed_ = failed_key;
  site_job_ = std::make_unique<app::BackgroundJob<Result<void>>>(
      [plan = std::move(*plan)](const Progress& progress) { return build_site(plan, progress); }, wake_);
  return true;
}

Result<void> ClassController::host(const HostAddress& where, app::App& app) {
  // A source checkout where `make web` never ran: the app builds the student site, then hosts.
  if (const Result<bool> building =
          build_site_first([this, where](app::App& built) { return host(where, built); }, "class.status.failed");
      !building || *building)
    return building ? Result<void>() : Result<void>(building.error());
  stop(app);
  Result<std::unique_ptr<ClassHost>> started = ClassHost::start(request_at(where));
  if (!started) return started.error();
  hosting_started(std::move(*started), app);
  const i18n::Use language(app.language());
  app.report(i18n::format("class.status.hosting", {host_->join_addresses().front(), host_->code()}), false);
  return {};
}

Result<void> ClassController::reopen(const std::string& record, app::App& app) {
  // Checked whole before anything stops: a bad record leaves the class hosted now as it is.
  const Result<HostAddress> where = ClassHost::record_address(record);
  if (!where) return where.error();
  if (Result<void> checked = ClassHost::check_record(record, app.ui().lessons); !checked) return checked.error();
  if (const Result<bool> building = build_site_first([this, record](app::App& built) { return reopen(record, built); },
                                                     "class.status.not_reopened");
      !building || *building)
    return building ? Result<void>() : Result<void>(building.error());
  stop(app);
  HostRequest request = request_at(*where);
  Result<std::unique_ptr<ClassHost>> started = ClassHost::reopen(request, record, app.ui().lessons);
  // Its port taken (another program, a class hosted since): any free one, said in the status line.
  const bool moved = !started && where->port != 0;
  if (moved) {
    request.port = 0;
    Result<std::unique_ptr<ClassHost>> elsewhere = ClassHost::reopen(request, record, app.ui().lessons);
    if (!elsewhere) return started.error();
    started = std::move(elsewhere);
  }
  if (!started) return started.error();
  hosting_started(std::move(*started), app);
  // A session keeps the lesson step, not its reveal: a question the class saw revealed is revealed
  // in the App again (the class follows the App's reveal, and would cover it otherwise).
  app::UiState& ui = app.ui();
  if (ui.lesson.open && !ui.lesson.revealed && host_->revealed(ui.lesson.open->lesson, ui.lesson.open->step))
    (void)app::commit_guess(ui, std::nullopt);
  const i18n::Use language(app.language());
  std::string line = i18n::format(
      "class.status.reopened", {host_->join_addresses().front(), host_->code(), std::to_string(host_->answers_kept())});
  if (moved) line += " " + i18n::format("class.status.port_moved", {std::to_string(where->port)});
  app.report(std::move(line), false);
  return {};
}

void ClassController::hosting_started(std::unique_ptr<ClassHost> host, app::App& app) {
  host_ = std::move(host);
  Result<QrCode> code = make_qr_code(host_->qr_text());
  qr_ = code ? std::optional<QrCode>(std::move(*code)) : std::nullopt;
  app.ui().interaction.class_hosting = true;
}

void ClassController::stop(app::App& app) {
  if (!host_) return;
  host_.reset();  // the server stops: every socket closed, the port free
  qr_.reset();
  big_qr_ = false;
  app.ui().interaction.class_hosting = false;
  const i18n::Use language(app.language());
  app.report(i18n::tr("class.status.stopped"), false);
}

void ClassController::frame(app::App& app) {
  app::UiState& ui = app.ui();
  if (site_job_) {
    if (std::optional<Result<void>> built = site_job_->take_result()) {
      site_job_.reset();
      std::function<Result<void>(app::App&)> then = std::exchange(after_site_, {});
      if (!*built) {
        report_failure(app, "class.status.failed", built->error());
      } else if (Result<void> done = then(app); !done) {
        report_failure(app, after_site_failed_, done.error());
      }
    } else {
      draw_site_build(app);
    }
  }
  if (ui.interaction.commands.take(app::Command::host_class)) {
    if (host_)
      stop(app);
    else
      dialog_requested_ = true;
  }
  draw_dialog(app);
  if (!host_) return;
  if (const std::string failure = host_->server().failure(); !failure.empty()) {
    const i18n::Use language(app.language());
    app.report(i18n::format("class.status.failed", {failure}), true);
    host_.reset();
    ui.interaction.class_hosting = false;
    return;
  }
  const app::Evaluator::Latest& shown = app.shown_latest();
  host_->update(ui, shown.snapshot.get(), shown.sweep.get());
  draw_class_window(app);
  if (big_qr_) draw_big_qr();
}

// [SECTION] The dialog: network and port

void ClassController::draw_dialog(app::App& app) {
  const char* title = i18n::tr("class.dialog.title");
  const std::string id = std::string(title) + "###host-class";
  if (dialog_requested_) {
    dialog_requested_ = false;
    dialog_error_.clear();
    ImGui::OpenPopup(id.c_str());
  }
  const ImGuiViewport* viewport = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(viewport->GetCenter(), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  if (!ImGui::BeginPopupModal(id.c_str(), nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
  const float scale = app.ui().ui_scale;
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + 420.0f * scale);
  ImGui::TextUnformatted(i18n::tr("class.dialog.text"));
  ImGui::PopTextWrapPos();
  const std::vector<Interface> interfaces = local_interfaces();
  // The networks, then every network at once; loopback (this computer only) is one of the first.
  std::vector<std::string> names;
  for (const Interface& candidate : interfaces)
    names.push_back(candidate.name + "  " + candidate.address +
                    (candidate.loopback ? "  (" + std::string(i18n::tr("class.dialog.loopback_note")) + ")" : ""));
  names.push_back(std::string(i18n::tr("class.dialog.every")) + "  0.0.0.0");
  interface_index_ = std::clamp(interface_index_, 0, static_cast<int>(names.size()) - 1);
  ImGui::SetNextItemWidth(320.0f * scale);
  if (ImGui::BeginCombo(i18n::label("class.dialog.interface", "class-interface").c_str(),
                        names[static_cast<std::size_t>(interface_index_)].c_str())) {
    for (std::size_t k = 0; k < names.size(); ++k)
      if (ImGui::Selectable(names[k].c_str(), static_cast<int>(k) == interface_index_))
        interface_index_ = static_cast<int>(k);
    ImGui::EndCombo();
  }
  ImGui::SetNextItemWidth(120.0f * scale);
  ImGui::InputInt(i18n::label("class.dialog.port", "class-port").c_str(), &port_, 0, 0);
  port_ = std::clamp(port_, 1, 65535);
  if (!dialog_error_.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + 420.0f * scale);
    ImGui::TextUnformatted(dialog_error_.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
  }
  if (ImGui::Button(i18n::label("class.dialog.start", "class-start").c_str())) {
    const std::size_t index = static_cast<std::size_t>(interface_index_);
    HostAddress where{index < interfaces.size() ? interfaces[index].address : "0.0.0.0",
                      static_cast<std::uint16_t>(port_)};
    if (Result<void> started = host(where, app); started)
      ImGui::CloseCurrentPopup();
    else
      dialog_error_ = started.error().message;
  }
  ImGui::SameLine();
  if (ImGui::Button(i18n::label("class.dialog.cancel", "class-cancel").c_str()) ||
      ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false))
    ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
}

// The site's build, in the corner the class window takes: what it does, how far, and Cancel.
void ClassController::draw_site_build(app::App& app) {
  const ImGuiViewport* viewport = ImGui::GetMainViewport();
  const float margin = 12.0f * app.ui().ui_scale;
  ImGui::SetNextWindowPos(
      ImVec2(viewport->WorkPos.x + viewport->WorkSize.x - margin, viewport->WorkPos.y + viewport->WorkSize.y - margin),
      ImGuiCond_Always, ImVec2(1.0f, 1.0f));
  const std::string title = std::string(i18n::tr("class.build.title")) + "###class-site-build";
  if (!ImGui::Begin(title.c_str(), nullptr,
                    ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoCollapse)) {
    ImGui::End();
    return;
  }
  const app::JobProgress progress = site_job_->progress();
  const float width = 24.0f * ImGui::GetFontSize();
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
  ImGui::TextUnformatted(i18n::tr("class.build.text"));
  ImGui::PopTextWrapPos();
  char percent[16];
  std::snprintf(percent, sizeof percent, "%.0f %%", 100.0 * progress.fraction);
  ImGui::ProgressBar(static_cast<float>(progress.fraction), ImVec2(width, 0.0f), percent);
  if (site_job_->cancel_requested()) {
    ImGui::TextUnformatted(i18n::tr("class.build.cancelling"));
  } else if (ImGui::Button(i18n::label("class.build.cancel", "class-build-cancel").c_str())) {
    site_job_->cancel();
  }
  ImGui::End();
}

// [SECTION] Histograms and the QR code

namespace {

// "35.2 kB", "1.4 MB": a size for the class window, as the page writes sizes (page.js sizeText).
std::string size_text(std::uint64_t bytes) {
  char text[32];
  const double value = static_cast<double>(bytes);
  std::snprintf(text, sizeof text, value < 1e6 ? "%.1f kB" : "%.1f MB", value < 1e6 ? value / 1e3 : value / 1e6);
  return text;
}

// The QR code at `origin`, `side` pixels square with its quiet zone (4 light modules around it,
// which a scanner needs), dark on white whatever the theme.
void draw_qr(ImDrawList& list, const QrCode& code, ImVec2 origin, float side) {
  const int modules = code.size + 8;
  const float module = std::floor(side / static_cast<float>(modules));
  const float whole = module * static_cast<float>(modules);
  // Whole pixels per module (crisp edges a camera reads), centred in the square it was given.
  origin.x += std::floor((side - whole) / 2.0f);
  origin.y += std::floor((side - whole) / 2.0f);
  list.AddRectFilled(origin, ImVec2(origin.x + whole, origin.y + whole), IM_COL32(255, 255, 255, 255));
  for (int row = 0; row < code.size; ++row)
    for (int column = 0; column < code.size; ++column)
      if (code.at(row, column)) {
        const ImVec2 from(origin.x + module * static_cast<float>(column + 4),
                          origin.y + module * static_cast<float>(row + 4));
        list.AddRectFilled(from, ImVec2(from.x + module, from.y + module), IM_COL32(0, 0, 0, 255));
      }
}

// One vote's answers as horizontal bars (label, bar, count), the true answer's bar marked.
void draw_tally(const Tally& tally, float width, float scale) {
  ImGui::BeginGroup();
  ImGui::TextUnformatted(i18n::format("class.window.vote", {std::to_string(tally.vote)}).c_str());
  std::size_t most = 1;
  for (const std::size_t count : tally.counts) most = std::max(most, count);
  float label_width = 0.0f;
  for (const std::string& label : tally.labels)
    label_width = std::max(label_width, ImGui::CalcTextSize(label.c_str()).x);
  const float bar_room = std::max(40.0f * scale, width - label_width - 60.0f * scale);
  ImDrawList& list = *ImGui::GetWindowDrawList();
  const float row = ImGui::GetTextLineHeightWithSpacing();
  for (std::size_t k = 0; k < tally.counts.size(); ++k) {
    const bool truth = tally.truth && *tally.truth == k;
    const ImVec2 at = ImGui::GetCursorScreenPos();
    list.AddText(at, ImGui::GetColorU32(ImGuiCol_Text), tally.labels[k].c_str());
    const float length = bar_room * static_cast<float>(tally.counts[k]) / static_cast<float>(most);
    const ImVec2 bar(at.x + label_width + 8.0f * scale, at.y + 2.0f * scale);
    const ImU32 colour = truth ? IM_COL32(60, 170, 90, 255) : IM_COL32(90, 130, 210, 255);
    list.AddRectFilled(bar, ImVec2(bar.x + std::max(length, 1.0f), at.y + row - 3.0f * scale), colour);
    // The truth marked in words: the UI's fonts carry no check mark.
    const std::string count =
        std::to_string(tally.counts[k]) + (truth ? "  " + std::string(i18n::tr("class.window.truth_mark")) : "");
    list.AddText(ImVec2(bar.x + length + 6.0f * scale, at.y), ImGui::GetColorU32(ImGuiCol_Text), count.c_str());
    ImGui::Dummy(ImVec2(width, row));
  }
  ImGui::EndGroup();
}

}  // namespace

void ClassController::draw_big_qr() {
  const ImGuiViewport* viewport = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(viewport->Pos);
  ImGui::SetNextWindowSize(viewport->Size);
  ImGui::SetNextWindowFocus();
  ImGui::PushStyleColor(ImGuiCol_WindowBg, IM_COL32(255, 255, 255, 255));
  ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(0, 0, 0, 255));
  ImGui::Begin("##class-qr-large", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings);
  const float line = ImGui::GetTextLineHeightWithSpacing();
  const float side = std::max(64.0f, std::min(viewport->Size.x, viewport->Size.y - 5.0f * line));
  if (qr_)
    draw_qr(*ImGui::GetWindowDrawList(), *qr_,
            ImVec2(viewport->Pos.x + (viewport->Size.x - side) / 2, viewport->Pos.y + line), side);
  ImGui::SetCursorPosY(line + side + 0.5f * line);
  const std::string address =
      host_->join_addresses().front() + "    " + i18n::tr("class.window.code") + " " + host_->code();
  ImGui::SetWindowFontScale(1.6f);
  ImGui::SetCursorPosX(std::max(0.0f, (viewport->Size.x - ImGui::CalcTextSize(address.c_str()).x) / 2));
  ImGui::TextUnformatted(address.c_str());
  ImGui::SetWindowFontScale(1.0f);
  const char* hint = i18n::tr("class.window.qr_close");
  ImGui::SetCursorPosX(std::max(0.0f, (viewport->Size.x - ImGui::CalcTextSize(hint).x) / 2));
  ImGui::TextUnformatted(hint);
  if (ImGui::IsWindowHovered() && ImGui::IsMouseClicked(ImGuiMouseButton_Left)) big_qr_ = false;
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false)) big_qr_ = false;
  ImGui::End();
  ImGui::PopStyleColor(2);
}

// [SECTION] The class window

void ClassController::draw_class_window(app::App& app) {
  app::UiState& ui = app.ui();
  const float scale = ui.ui_scale;
  const ImGuiViewport* viewport = ImGui::GetMainViewport();
  // Compact and sized to what it holds, so that on a projector at 1024x768 the lesson's plots stay
  // in sight; kept in the bottom-right corner as it grows (the histograms) and shrinks, since an
  // auto-sized window that moved would run off the screen. Collapsing it clears the plots under
  // it. The QR code here is for the front rows; the large one fills the screen for the back row.
  ImGui::SetNextWindowPos(
      ImVec2(viewport->Pos.x + viewport->Size.x - 8.0f * scale, viewport->Pos.y + viewport->Size.y - 8.0f * scale),
      ImGuiCond_Always, ImVec2(1.0f, 1.0f));
  const std::string title = std::string(i18n::tr("class.window.title")) + "###class-window";
  if (!ImGui::Begin(title.c_str(), nullptr, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoMove)) {
    ImGui::End();
    return;
  }
  const float line = ImGui::GetTextLineHeightWithSpacing();
  if (qr_) {
    const float side = std::min(5.0f * line, 0.25f * viewport->Size.y);
    const ImVec2 at = ImGui::GetCursorScreenPos();
    draw_qr(*ImGui::GetWindowDrawList(), *qr_, at, side);
    ImGui::InvisibleButton("##class-qr", ImVec2(side, side));
    if (ImGui::IsItemClicked()) big_qr_ = true;
    ImGui::SameLine();
  }
  ImGui::BeginGroup();
  for (const std::string& address : host_->join_addresses()) ImGui::TextUnformatted(address.c_str());
  ImGui::SetWindowFontScale(1.6f);
  ImGui::Text("%s  %s", i18n::tr("class.window.code"), host_->code().c_str());
  ImGui::SetWindowFontScale(1.0f);
  ImGui::TextUnformatted(i18n::format("class.window.students", {std::to_string(host_->students())}).c_str());
  if (qr_ && ImGui::Button(i18n::label("class.window.qr_big", "class-qr-big").c_str())) big_qr_ = true;
  ImGui::EndGroup();
  ImGui::Separator();
  const Question* asked = host_->question();
  const float text_width = 24.0f * ImGui::GetFontSize();
  // The students get the imported data the teacher shows, or are told it is too large to send.
  const ClassHost::SharedData& data = host_->shared_data();
  if (!data.files.empty() || data.withheld_bytes > 0) {
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + text_width);
    ImGui::TextUnformatted(data.withheld_bytes > 0
                               ? i18n::format("class.window.data_withheld",
                                              {size_text(data.withheld_bytes), size_text(max_shared_data_bytes)})
                                     .c_str()
                               : i18n::format("class.window.data_shared", {size_text(data.bytes)}).c_str());
    ImGui::PopTextWrapPos();
    ImGui::Separator();
  }
  if (asked == nullptr) {
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + text_width);
    ImGui::TextUnformatted(i18n::tr("class.window.no_question"));
    ImGui::PopTextWrapPos();
  } else {
    const char* phase = asked->phase == Phase::open     ? i18n::tr("class.window.open")
                        : asked->phase == Phase::closed ? i18n::tr("class.window.closed")
                                                        : i18n::tr("class.window.revealed");
    ImGui::TextUnformatted(
        i18n::format("class.window.answered", {std::to_string(host_->answered()), std::to_string(host_->students()),
                                               std::to_string(asked->vote)})
            .c_str());
    ImGui::SameLine();
    ImGui::TextDisabled("· %s", phase);
    if (asked->phase == Phase::open && ImGui::Button(i18n::label("class.window.close", "class-close").c_str()))
      host_->close_answering();
    if (asked->phase == Phase::closed) {
      if (ImGui::Button(i18n::label("class.window.reopen", "class-reopen").c_str())) host_->reopen_answering();
      if (asked->vote == 1) {
        ImGui::SameLine();
        if (ImGui::Button(i18n::label("class.window.second_vote", "class-second-vote").c_str()))
          host_->start_second_vote();
      }
    }
    if (asked->phase != Phase::revealed) {
      ImGui::SameLine();
      // The class's reveal is the App's: the lesson shows the answer, and the host follows it.
      if (ImGui::Button(i18n::label("class.window.reveal", "class-reveal").c_str()))
        (void)app::commit_guess(ui, std::nullopt);
    }
    if (ImGui::Button(i18n::label(asked->shown ? "class.window.hide" : "class.window.show", "class-show").c_str()))
      host_->show_tallies(!asked->shown);
    if (asked->shown) {
      const std::vector<Tally> votes = tallies(*asked);
      const float each = 14.0f * ImGui::GetFontSize();
      for (std::size_t k = 0; k < votes.size(); ++k) {
        if (k > 0) ImGui::SameLine(0.0f, 2.0f * ImGui::GetFontSize());
        draw_tally(votes[k], each, scale);
      }
      if (!asked->truth_text.empty())
        ImGui::TextUnformatted(i18n::format("class.window.truth", {asked->truth_text}).c_str());
    }
  }
  ImGui::Separator();
  if (ImGui::Button(i18n::label("class.window.save", "class-save").c_str())) {
    const Result<std::filesystem::path> saved = host_->save_answers(ui.screenshot_dir);
    if (saved)
      app.report(i18n::format("class.window.saved", {saved->string()}), false);
    else
      app.report(saved.error().message, true);
  }
  ImGui::SameLine();
  const bool stop_now = ImGui::Button(i18n::label("class.window.stop", "class-stop").c_str());
  ImGui::End();
  if (stop_now) stop(app);
}

}  // namespace smlab::classroom
