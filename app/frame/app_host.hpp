// What hosts an App from outside its frame (the class: classroom/class_controller.hpp): its own
// windows and work in each frame, and its part of the sessions the user saves and opens. An App
// without a host draws its own windows only, and its sessions hold nothing more.
#pragma once

#include <string>

namespace smlab::app {

class App;

class AppHost {
 public:
  virtual ~AppHost() = default;
  // After the App's windows are drawn and before the frame ends: it may draw, edit the model and
  // queue commands, as a panel does.
  virtual void frame(App& app) = 0;
  // What a session the user saves keeps of the host, as JSON ("" for nothing).
  virtual std::string session_record() = 0;
  // A session's record, opened again (File → Open session…, after the session is shown); the host
  // reports how that went.
  virtual void reopen_session(App& app, const std::string& record) = 0;
};

}  // namespace smlab::app
