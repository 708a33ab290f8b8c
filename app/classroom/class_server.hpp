// The class's embedded server (Boost.Beast, docs/ARCHITECTURE.md "Facts about the dependencies"):
// the student site's files over HTTP and one WebSocket channel per student, bound to the interface
// the teacher picked, all on one thread of its own (a BackgroundJob, work/background_job.hpp). It
// knows the join code and the limits, not the lesson: what students send reaches the teacher's
// ClassHost as events (take_events, each frame), what the host publishes reaches every student
// (the newest state wins: a slow student gets the latest, never a backlog).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "classroom/protocol.hpp"
#include "smlab/error.hpp"

namespace smlab::classroom {

// Every bound the server keeps, so that no client, however hostile, can stall the teacher or run
// the server out of memory or descriptors (docs/ROBUSTNESS.md counts the tests).
struct ServerLimits {
  std::size_t max_students = 400;      // joined at once; the next one is told the class is full
  std::size_t max_connections = 1500;  // open sockets of any kind (also capped by the descriptor limit)
  std::size_t max_message_bytes = max_student_message_bytes;  // one message, its fragments together
  double messages_per_second = 10.0;                          // a student's sustained rate ...
  double message_burst = 20.0;                                // ... and burst; beyond them the channel is closed
  std::size_t max_queued_messages = 16;  // to one student besides the state; beyond, a slow one is dropped
  // An HTTP request's header, a WebSocket handshake and the join after it must each come within this
  // (a client that trickles bytes, "slowloris", is closed then).
  std::chrono::milliseconds request_timeout{10'000};
  // A joined channel that says nothing (the server pings at half of it) is closed after this.
  std::chrono::milliseconds idle_timeout{30'000};
  std::chrono::milliseconds file_write_timeout{120'000};  // one file's response to a slow phone
  std::size_t max_join_failures = 20;                     // wrong codes from one address ...
  std::chrono::milliseconds join_failure_window{60'000};  // ... within this; then refused for as long
  std::size_t max_pending_events = 20'000;                // for the host; beyond, messages are dropped
  // The state goes out at most this often, the newest then: a teacher dragging a slider at 60+
  // frames a second costs a send per student per interval, not per frame (bench/class_bench.py).
  std::chrono::milliseconds state_interval{50};
};

struct ServerOptions {
  std::string address = "127.0.0.1";  // an IPv4 or IPv6 literal: the interface to listen on
  std::uint16_t port = 0;             // 0: any free port (tests)
  std::filesystem::path site;         // the student site (the web build's site/ folder)
  std::string join_code;              // is_join_code
  ServerLimits limits;
  std::function<void()> wake;  // called (from the server's thread) when events wait: the window's wake
  // A class reopened from a session: the students it knew (token, number), so that their pages
  // rejoin as the same students; new students are numbered after them.
  std::vector<std::pair<std::string, std::uint64_t>> known_students;
};

// What a student did, for the host.
struct StudentEvent {
  enum class Kind { joined, left, answer };
  Kind kind = Kind::joined;
  std::uint64_t student = 0;                 // 1, 2, …: the same number after a reconnect with the student's token
  bool resumed = false;                      // joined: a reconnect of a student the server knew
  std::string nickname;                      // joined: as given (may be empty)
  AnswerMessage answer;                      // answer
  std::chrono::steady_clock::time_point at;  // when the server read it
};

// What the server counts, read by the host each frame.
struct ServerCounts {
  std::size_t students = 0;     // joined channels now
  std::size_t connections = 0;  // open sockets of any kind
  std::uint64_t refused = 0;    // channels closed for a broken rule (size, rate, format, code, full)
};

class ClassServer {
 public:
  // Loads the site's files into memory (regular files directly in `site`, their .gz beside them),
  // binds and listens, then serves on a thread of its own. An Error::usage naming the address and
  // port that cannot be listened on, or Error::file naming the site folder that cannot be read.
  static Result<std::unique_ptr<ClassServer>> start(ServerOptions options);
  ~ClassServer();  // stop()
  ClassServer(const ClassServer&) = delete;
  ClassServer& operator=(const ClassServer&) = delete;

  // The port listened on (the one asked for, or the free one picked for 0).
  std::uint16_t port() const;
  const std::string& address() const;
  // The limits in force (max_connections lowered to fit the open-file limit).
  const ServerLimits& limits() const;

  // The state every joined student gets now and on joining (a "state" message), newest first.
  void publish(std::string message);
  // Files for the students beside the site (the teacher's imported data), served at data_path +
  // NAME to a request that holds the join code (wrong codes count as a join's do). Replaces the files
  // shared before; an empty map shares none.
  using SharedFiles = std::map<std::string, std::shared_ptr<const std::string>, std::less<>>;
  void share(SharedFiles files);
  // A message for one student's open channel (the answer the host kept); dropped if none is open.
  void send_to(std::uint64_t student, std::string message);
  // The students' joins, leaves and answers since the last call, in order.
  std::vector<StudentEvent> take_events();
  ServerCounts counts() const;
  // Every student the class knows (token, number), joined now or before: what a saved session keeps.
  std::vector<std::pair<std::string, std::uint64_t>> known_students() const;
  // The server stopped by itself (never expected): why; else empty.
  std::string failure() const;

  // Closes every socket and the listening one, and joins the thread: when it returns, the port is
  // free. Called by the destructor.
  void stop();

  class Impl;  // the server's tables and sessions (class_server.cpp)

 private:
  explicit ClassServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The content type the server sends for a site file name (".wasm": application/wasm, …).
std::string content_type(std::string_view file_name);

}  // namespace smlab::classroom
