// The window: GLFW on X11 (no display: exit 4). A start with no state on the command line resumes
// the last session (window_run.hpp). It offers File → Host a class…, and hosts one from the start
// with --class (classroom/class_controller.hpp).
#include <cstdio>

#include "classroom/class_controller.hpp"
#include "i18n/i18n.hpp"
#include "modes/modes.hpp"
#include "platform/window.hpp"
#include "modes/window_run.hpp"

namespace smlab::app {

Result<void> run_window(const Options& o, AppOptions options) {
  if (!options.presets)
    std::fprintf(stderr, "softmax-lab: %s (the Presets menu is empty)\n", options.presets.error().message.c_str());
  WindowRun window_run;
  options.live_training = true;  // the training lab trains on a worker thread as you watch
  window_run.options = std::move(options);
  window_run.width = o.size.width;
  window_run.height = o.size.height;
  window_run.full_redraw = o.full_redraw;
  window_run.state_from_command_line = o.state_from_command_line;
  window_run.given = o.start.given;
  // The class: stopped as soon as the window closes, before the autosave.
  classroom::ClassController controller(&platform::Window::wake);
  window_run.attach = [&](App& app) -> Result<void> {
    controller.attach(app);
    if (!o.class_address) return {};
    if (Result<void> hosted = controller.host(*o.class_address, app); !hosted) return hosted;
    if (const classroom::ClassHost* host = controller.hosting(); host != nullptr)
      std::fprintf(stderr, "softmax-lab: hosting a class at %s (code %s)\n", host->join_addresses().front().c_str(),
                   host->code().c_str());
    else  // a source checkout without `make web`: the window builds the site, then hosts
      std::fprintf(stderr, "softmax-lab: building the student site first (%s); the class is hosted when it is done\n",
                   classroom::find_site_dir().string().c_str());
    return {};
  };
  window_run.detach = [&](App& app) { controller.detach(app); };
  return run_window(std::move(window_run));
}

}  // namespace smlab::app
