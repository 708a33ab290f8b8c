// --class-driver (tests only, not in --help): the teacher's app headless (EGL, no display) hosting
// a class at --class, stepped by commands on stdin, one a line, each answered with one JSON line on
// stdout once the frame after it has published the state (its "seq"). The first line says where
// the class is: {"ready":true,"address":…,"code":…,"port":…}. Commands:
//   lesson NAME:STEP   open a lesson step        next / previous   the clicker's keys
//   set KEY=VALUE      a slider                  view NAME         a tab
//   close / reopen / vote2 / show / hide / reveal                  the class window's buttons
//   status             students, answers, the question, its histograms
//   csv FILE           the answers as CSV        quit
//   import SPEC… [tokens FILE]   File → Import (the data the students' pages then get)
//   save FILE / open FILE        File → Save / Open session… (a session saved while hosting keeps
//                                the class; opening it hosts that class again)
//   bench N            N frames of a temperature drag, timed as --bench-frames times them
#include <poll.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include "classroom/class_controller.hpp"
#include "files/atomic_file.hpp"
#include "frame/frame_bench.hpp"
#include "lesson_player/lesson_player.hpp"
#include "modes/modes.hpp"
#include "smlab/assignments.hpp"
#include "work/background_job.hpp"

namespace smlab::app {
namespace {

using nlohmann::json;

// One line of stdin, read on the background-job engine's thread so that frames go on meanwhile; an
// Error at the end of input or when cancelled.
Result<std::string> read_line(const Progress& progress) {
  std::string line;
  for (;;) {
    pollfd input{STDIN_FILENO, POLLIN, 0};
    if (progress.cancelled()) return cancelled_error("reading");
    if (::poll(&input, 1, 100) <= 0) continue;
    char c = 0;
    if (::read(STDIN_FILENO, &c, 1) != 1) {
      if (line.empty()) return Error::file("the end of the input");
      return line;
    }
    if (c == '\n') return line;
    if (line.size() < 4096) line += c;
  }
}

void reply(const json& answer) {
  std::printf("%s\n", answer.dump().c_str());
  std::fflush(stdout);
}

json status(const classroom::ClassHost& host) {
  json out{{"students", host.students()},
           {"answered", host.answered()},
           {"shared", host.shared_data().files},
           {"withheld", host.shared_data().withheld_bytes},
           {"question", nullptr},
           {"state", json::parse(host.state_message().empty() ? "{}" : host.state_message())}};
  if (const classroom::Question* asked = host.question()) {
    out["question"] = asked->position;
    out["vote"] = asked->vote;
    out["phase"] = asked->phase == classroom::Phase::open     ? "open"
                   : asked->phase == classroom::Phase::closed ? "closed"
                                                              : "revealed";
    out["truth"] = asked->truth_text;
    json shown = json::array();
    for (const classroom::Tally& tally : classroom::tallies(*asked))
      shown.push_back({{"vote", tally.vote},
                       {"labels", tally.labels},
                       {"counts", tally.counts},
                       {"answered", tally.answered},
                       {"truth", tally.truth ? json(*tally.truth) : json(nullptr)}});
    out["tallies"] = std::move(shown);
  }
  return out;
}

// Carries out one command; its reply, or an "error".
json command(const std::string& line, App& app, classroom::ClassController& controller, bool& quit) {
  if (controller.hosting() == nullptr) return {{"error", "no class is hosted"}};
  classroom::ClassHost& host = *controller.hosting();
  std::istringstream words(line);
  std::string verb, argument;
  words >> verb;
  std::getline(words >> std::ws, argument);
  UiState& ui = app.ui();
  if (verb == "quit") {
    quit = true;
    return {{"ok", true}};
  }
  if (verb == "lesson") {
    const LessonLookup position = lookup_lesson(ui.lessons, argument);
    if (!position) return {{"error", position.error().message}};
    open_lesson_step(ui, position->lesson, position->step, false);
  } else if (verb == "next") {
    lesson_next(ui);
  } else if (verb == "previous") {
    lesson_previous(ui);
  } else if (verb == "set") {
    Params params = ui.params;
    if (Result<void> set = apply_assignments(params, {argument}); !set) return {{"error", set.error().message}};
    apply_params(ui, params);
  } else if (verb == "view") {
    const Result<View> view = view_option(argument);
    if (!view) return {{"error", view.error().message}};
    ui.view = *view;
    ui.select_view_tab = true;
  } else if (verb == "close") {
    host.close_answering();
  } else if (verb == "reopen") {
    host.reopen_answering();
  } else if (verb == "vote2") {
    host.start_second_vote();
  } else if (verb == "show" || verb == "hide") {
    host.show_tallies(verb == "show");
  } else if (verb == "reveal") {
    (void)commit_guess(ui, std::nullopt);
  } else if (verb == "bench") {
    // The teacher's frames while hosting: --bench-frames' temperature drag, each frame's change
    // published to every student joined (bench/class_bench.py runs it with and without a class).
    int frames = 0;
    std::istringstream count(argument);
    if (!(count >> frames) || frames < 10 || frames > 100'000)
      return {{"error", "bench '" + argument.substr(0, 40) + "' is not allowed: a frame count from 10 to 100000"}};
    const Result<FrameBenchResult> timed = run_frame_bench(app, "temperature", frames);
    if (!timed) return {{"error", timed.error().message}};
    return {{"ok", true}, {"bench", json::parse(timed->to_json())}};
  } else if (verb == "import") {
    std::vector<std::string> specs;
    std::string tokens, word;
    std::istringstream given(argument);
    while (given >> word) {
      if (word == "tokens" && given >> tokens) continue;
      specs.push_back(word);
    }
    if (Result<void> imported = app.import_files(specs, tokens); !imported)
      return {{"error", imported.error().message}};
  } else if (verb == "save" || verb == "open") {
    const Result<void> done =
        app.save_or_load_session(verb == "save" ? SessionPopup::Mode::save : SessionPopup::Mode::load, argument, true);
    if (!done) return {{"error", done.error().message}};
    if (ui.status_is_error) return {{"error", ui.status}};  // the class not hosted again: why
  } else if (verb == "csv") {
    if (Result<void> written = files::write_file_atomically(argument, host.answers_csv(), true); !written)
      return {{"error", written.error().message}};
  } else if (verb != "status") {
    return {{"error", "unknown command '" + verb.substr(0, 40) + "'"}};
  }
  return {{"ok", true}};
}

}  // namespace

Result<void> run_class_driver(const Options& o, AppOptions options) {
  auto created = create_offscreen(o.size);
  if (!created) return created.error();
  App app(**created, options);
  classroom::ClassController controller([] {});  // no window sleeps: the loop below polls
  controller.attach(app);
  if (Result<void> hosted = controller.host(*o.class_address, app); !hosted) return hosted;
  const classroom::ClassHost* host = controller.hosting();
  // The window builds a missing student site first; this teacher of the tests does not wait for one.
  if (host == nullptr) return Error::file("no student site to host: `make web` builds it");
  app.frame();
  reply({{"ready", true}, {"address", host->join_addresses().front()}, {"code", host->code()}, {"port", host->port()}});
  using Reader = BackgroundJob<Result<std::string>>;
  auto reader = std::make_unique<Reader>(read_line);
  bool quit = false;
  while (!quit) {
    app.frame();
    std::optional<Result<std::string>> line = reader->take_result();
    if (!line) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      continue;
    }
    if (!*line) break;  // the end of input
    reader = std::make_unique<Reader>(read_line);
    json answer = command(**line, app, controller, quit);
    if (**line == "reveal") app.wait_for_snapshot();  // the truth is the final picture's
    app.frame();                                      // the state after the command is published in this frame
    app.frame();
    // `open` may host another class (a session's): the host is asked for anew.
    host = controller.hosting();
    if (host != nullptr && answer.contains("ok")) {
      answer["status"] = status(*host);
      answer["status"]["code"] = host->code();
      answer["status"]["port"] = host->port();
    }
    reply(answer);
  }
  reader.reset();
  controller.detach(app);
  return {};
}

}  // namespace smlab::app
