// Hosting a class from the desktop app: File → Host a class… (a dialog: the network and the port),
// --class [ADDR:]PORT, and while hosting the class window (the join address, its QR code, the join
// code, the students connected and answered, peer instruction's buttons and histograms), all drawn
// inside the App's frame as its host (frame/app_host.hpp). Stopping hosting (the menu, the window's
// button) or the end of the window stops the server.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "frame/app.hpp"
#include "classroom/class_host.hpp"
#include "classroom/qr_code.hpp"
#include "work/background_job.hpp"

namespace smlab::classroom {

class ClassController final : public app::AppHost {
 public:
  // `wake` wakes the window when students' events wait (platform::Window::wake); `site` the
  // student site (find_site_dir() unless a test gives its own).
  explicit ClassController(std::function<void()> wake, std::filesystem::path site = find_site_dir());
  ~ClassController();
  ClassController(const ClassController&) = delete;
  ClassController& operator=(const ClassController&) = delete;

  // Offers File → Host a class… in `app` and draws the class's windows in its frames. The App must
  // outlive neither the controller nor a detach().
  void attach(app::App& app);
  // Stops hosting and leaves `app` (the window is closing).
  void detach(app::App& app);

  // Starts hosting at `where` (--class, the dialog's Start); the Error says why not.
  Result<void> host(const HostAddress& where, app::App& app);
  // Hosts a saved session's class again (File → Open session… of a session saved while hosting):
  // its code, students and answers, at its address and port, or any free port when that is taken.
  Result<void> reopen(const std::string& record, app::App& app);
  void stop(app::App& app);
  ClassHost* hosting() { return host_.get(); }

  // As the App's host (frame/app_host.hpp): the hosted class in a saved session, and hosted again
  // from one opened.
  std::string session_record() override;
  void reopen_session(app::App& app, const std::string& record) override;

 private:
  void frame(app::App& app) override;  // the class's windows and its students' events
  void hosting_started(std::unique_ptr<ClassHost> host, app::App& app);
  // The student site missing from a source checkout: built first (site_build.hpp), then `then`
  // hosts, its failure reported with the string table's `failed_key`. False when it is there already.
  Result<bool> build_site_first(std::function<Result<void>(app::App&)> then, const char* failed_key);
  HostRequest request_at(const HostAddress& where) const;                   // with this controller's site and wake
  void report_failure(app::App& app, const char* key, const Error& error);  // in the status line, in red
  void draw_site_build(app::App& app);
  void draw_dialog(app::App& app);
  void draw_class_window(app::App& app);
  void draw_big_qr();

  std::function<void()> wake_;
  std::filesystem::path site_;
  std::unique_ptr<ClassHost> host_;
  std::optional<QrCode> qr_;
  bool dialog_requested_ = false;
  int interface_index_ = 0;
  int port_ = 8080;
  std::string dialog_error_;
  bool big_qr_ = false;
  std::unique_ptr<app::BackgroundJob<Result<void>>> site_job_;  // the student site's build, while it runs
  std::function<Result<void>(app::App&)> after_site_;           // what hosts once it is built
  const char* after_site_failed_ = nullptr;                     // its failure's string table key
};

}  // namespace smlab::classroom
