// The teacher's side of a class: the server and its join code, what the students' pages are sent
// (the App's state as the page's address writes it, url_state.hpp, without the teacher's look: each
// student keeps their own language and theme), and peer instruction on a predict step: the first
// vote, closing it, a second vote after discussion, the histograms (no names) shown when the
// teacher chooses, the reveal with the true answer marked, and the answers as CSV afterwards.
// On the UI thread: update() is called in the App's frame by its host (class_controller.hpp).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "classroom/class_server.hpp"
#include "lessons/lessons.hpp"
#include "smlab/error.hpp"
#include "smlab/import.hpp"
#include "state/ui_state.hpp"

namespace smlab::classroom {

using Clock = std::chrono::steady_clock;

struct HostRequest {
  std::string address = "127.0.0.1";  // "0.0.0.0": every IPv4 interface of this machine
  std::uint16_t port = 0;             // 0: any free port
  std::filesystem::path site;         // find_site_dir()
  ServerLimits limits;
  std::function<void()> wake;                                         // the window's wake (platform::Window::wake)
  std::string join_code;                                              // empty: a new random one
  std::vector<std::pair<std::string, std::uint64_t>> known_students;  // a reopened class's (token, number)
};

// Where to host, as --class and the dialog give it.
struct HostAddress {
  std::string address = "0.0.0.0";  // an IPv4 literal, or "0.0.0.0": every network
  std::uint16_t port = 8080;        // 0: any free port
  friend bool operator==(const HostAddress&, const HostAddress&) = default;
};

// "[ADDR:]PORT": PORT from 0 to 65535 (0: any free port); ADDR an IPv4 address, "*" or none for
// every network, or "localhost" for this machine only. An Error::usage naming the value and what
// is allowed otherwise (options.cpp's --class check).
Result<HostAddress> parse_host_address(std::string_view text);

// An IPv4 address of this machine that a class may be hosted on, as the host dialog lists them.
struct Interface {
  std::string name;     // "wlan0", "lo"
  std::string address;  // "192.168.1.5"
  bool loopback = false;
};
// This machine's IPv4 interfaces that are up, the room's networks first and loopback last.
std::vector<Interface> local_interfaces();

// Where students open the class: "http://192.168.1.5:8080/class" (IPv6 in brackets).
std::string join_address(std::string_view address, std::uint16_t port);

// The student site (the web build's site/ folder): $SOFTMAX_LAB_SITE, else the installed one
// (<assets>/site, which the .deb ships), else the build tree's `make web` output.
std::filesystem::path find_site_dir();

// The most of the teacher's imported data the students are sent, as the .npz they fetch once (its
// arrays as float32): 300 students fetch 4.8 GB at this size, a few minutes on a classroom's Wi-Fi.
// Larger data stays on the teacher's machine, and the class window and the pages say so.
inline constexpr std::uint64_t max_shared_data_bytes = 16'000'000;  // 16 MB

// Where a question stands in peer instruction.
enum class Phase { open, closed, revealed };

// One vote's answers as a histogram: a bar per choice, or per range of typed numbers (the same
// ranges for both votes, so they compare side by side).
struct Tally {
  int vote = 1;
  std::vector<std::string> labels;
  std::vector<std::size_t> counts;
  std::optional<std::size_t> truth;  // the bar that holds the true answer, once revealed
  std::size_t answered = 0;
};

// A predict step the class was asked, with every answer kept (by student number, no names).
struct Question {
  std::size_t lesson = 0, step = 0;
  std::string position;  // NAME:STEP (1-based), as the page's address writes a lesson position
  app::LessonPredict predict;
  int vote = 1;  // the vote taken now (2 after discussion)
  Phase phase = Phase::open;
  bool shown = false;  // the histograms on the projector and on the students' pages
  struct Answer {
    double value = 0.0;
    double seconds = 0.0;  // from the vote's opening to the answer kept
  };
  std::array<std::map<std::uint64_t, Answer>, 2> answers;
  std::array<Clock::time_point, 2> opened{};
  std::optional<double> truth;  // the App's answer, once revealed
  std::string truth_text;
};

// The histograms of `question`'s votes taken so far (one, or both after a second vote).
std::vector<Tally> tallies(const Question& question);

class ClassHost {
 public:
  // Starts the server (ClassServer::start's errors, e.g. the site missing or the port taken).
  static Result<std::unique_ptr<ClassHost>> start(HostRequest request);

  // The class as a saved session keeps it (a JSON object, the session's "class"): the join code,
  // the address and port, the students known (their tokens, so their pages rejoin as the same
  // students), nicknames given, and every question asked with its votes, phase and answers.
  std::string record() const;
  // Hosts the class of a saved session's record again, at its address and port (request.port
  // unless the record has one) with its code, students and answers; a vote left open is open
  // again. Every field goes through the checks a student's answer does (a question is a lesson's
  // predict step, an answer within its range or choices); an Error::usage naming the field.
  static Result<std::unique_ptr<ClassHost>> reopen(HostRequest request, std::string_view record,
                                                   const app::LessonList& lessons);
  // Where a record hosts (to try again on any free port when its own is taken).
  static Result<HostAddress> record_address(std::string_view record);
  // reopen's checks alone, hosting nothing (so a bad record does not stop the class hosted now).
  static Result<void> check_record(std::string_view record, const app::LessonList& lessons);
  ~ClassHost();
  ClassHost(const ClassHost&) = delete;
  ClassHost& operator=(const ClassHost&) = delete;

  // Each frame: the students' joins, leaves and answers in (each answer checked by the lessons'
  // lookup of NAME:STEP:GUESS, as the address's lesson= is), the phase followed from the teacher's
  // lesson (the App's reveal is the class's), and the state out when it changed.
  void update(app::UiState& ui, const Snapshot* snapshot, const DkSweep* sweep);

  // The teacher's buttons, on the question asked now (nothing without one).
  void close_answering();
  void reopen_answering();
  void start_second_vote();
  void show_tallies(bool shown);

  const Question* question() const { return current_ < questions_.size() ? &questions_[current_] : nullptr; }
  std::size_t students() const;
  std::size_t answered() const;      // in the vote taken now
  std::size_t answers_kept() const;  // in every vote of every question asked
  // Whether the question of lesson step (`lesson`, `step`), 0-based, was revealed.
  bool revealed(std::size_t lesson, std::size_t step) const;
  const std::string& code() const { return code_; }
  std::uint16_t port() const;
  // The addresses to show (one, or one per interface when every interface listens), and the one
  // the QR code holds with the code in it ("…/class?code=K7P2QX").
  std::vector<std::string> join_addresses() const;
  std::string qr_text() const;
  // The last state message published (tests read it).
  const std::string& state_message() const { return published_; }
  const ClassServer& server() const { return *server_; }

  // The teacher's imported data as the students get it: the files shared (an .npz, and its tokens
  // as a JSON list when it has labels), or none; `withheld_bytes` > 0 when the data is larger than
  // max_shared_data_bytes and the students see the lesson's own data instead.
  struct SharedData {
    std::vector<std::string> files;
    std::uint64_t bytes = 0, withheld_bytes = 0;
  };
  const SharedData& shared_data() const { return shared_data_; }

  // Every answer of every question asked, as CSV: step,question,vote,answer,seconds_to_answer,nickname
  // (the question in English; a nickname only where the student gave one).
  std::string answers_csv() const;
  // Written into `folder` as class-answers-YYYYMMDD-HHMMSS.csv: its path, or why not.
  Result<std::filesystem::path> save_answers(const std::filesystem::path& folder) const;

 private:
  ClassHost() = default;
  // A record's every field checked; the code and students into `request`, the rest out.
  static Result<void> read_record(std::string_view record, const app::LessonList& lessons, HostRequest& request,
                                  std::vector<Question>& questions, std::map<std::uint64_t, std::string>& nicknames);
  void take_events(const app::UiState& ui);
  void share_data(const std::shared_ptr<const ImportedAttention>& data);
  void follow_lesson(app::UiState& ui, const Snapshot* snapshot, const DkSweep* sweep);
  void answer(const StudentEvent& event, const app::UiState& ui);
  void send_kept_answer(std::uint64_t student);
  std::string state_body(const app::UiState& ui) const;

  std::unique_ptr<ClassServer> server_;
  std::string code_;
  std::string bound_address_;
  std::vector<Question> questions_;
  std::size_t current_ = static_cast<std::size_t>(-1);
  std::map<std::uint64_t, std::string> nicknames_;
  std::string last_body_, published_;
  std::uint64_t sequence_ = 0;
  // The data shared_data_ was made from: held, so that new data is never taken for it at its address.
  std::shared_ptr<const ImportedAttention> shared_from_;
  SharedData shared_data_;
};

}  // namespace smlab::classroom
