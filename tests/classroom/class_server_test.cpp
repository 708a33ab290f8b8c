// The class's server (app/classroom/class_server.hpp) on loopback, as students and as hostile
// clients: the site's files and nothing else, the join code, the class-full message, reconnects,
// the newest state to everyone, and every limit: oversized, fragmented, binary and malformed
// messages, broken frames, floods, slowloris requests and joins, wrong codes, many connects. After
// each attack the server still serves a student, and after stop() nothing listens on its port.
// Also a class saved in a session and reopened, and the student site the app builds itself.
#include <gtest/gtest.h>

// Boost 1.74's asio/awaitable.hpp uses std::exchange without including <utility> (GCC 12, C++20).
#include <utility>

#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <iterator>
#include <stop_token>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "classroom/class_host.hpp"
#include "classroom/class_server.hpp"
#include "classroom/protocol.hpp"
#include "classroom/site_build.hpp"
#include "lessons/lessons.hpp"
#include "smlab/import.hpp"
#include "smlab/params.hpp"
#include "state/ui_state.hpp"
#include "state/presets.hpp"

namespace smlab::classroom {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using nlohmann::json;
using namespace std::chrono_literals;

constexpr const char* code = "K7P2QX";

// [SECTION] A site, a server, clients

struct TestSite {
  std::filesystem::path folder;
  TestSite() {
    folder = std::filesystem::temp_directory_path() / ("smlab-class-site-" + std::to_string(::getpid()) + "-" +
                                                       std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    std::filesystem::create_directories(folder / "sub");
    write("index.html", "<!doctype html><title>class</title>");
    write("page.js", "'use strict'; // the page");
    write("page.js.gz", "GZIPPED-PAGE");  // the server sends it as it is: the name says what it is
    write(".hidden", "secret");
    write("sub/inner.txt", "inner");
    write("notes.tmp", "temporary");
    std::filesystem::create_symlink("/etc/hostname", folder / "link.txt");
  }
  ~TestSite() {
    std::error_code ignored;
    std::filesystem::remove_all(folder, ignored);
  }
  void write(const std::string& name, const std::string& text) const { std::ofstream(folder / name) << text; }
};

ServerOptions options_for(const TestSite& site, ServerLimits limits = {}) {
  ServerOptions options;
  options.address = "127.0.0.1";
  options.port = 0;
  options.site = site.folder;
  options.join_code = code;
  options.limits = limits;
  return options;
}

// Blocking reads and writes time out (SO_RCVTIMEO/SO_SNDTIMEO) rather than hang the test.
void time_out_socket(tcp::socket& socket, std::chrono::milliseconds timeout = 10s) {
  timeval value{};
  value.tv_sec = static_cast<time_t>(timeout.count() / 1000);
  value.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
  ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &value, sizeof value);
  ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_SNDTIMEO, &value, sizeof value);
}

struct HttpReply {
  unsigned status = 0;
  std::string body;
  std::string encoding, etag, type;
};

HttpReply http_get(std::uint16_t port, const std::string& target,
                   const std::vector<std::pair<std::string, std::string>>& headers = {},
                   http::verb method = http::verb::get) {
  net::io_context io;
  tcp::socket socket(io);
  socket.connect({net::ip::make_address("127.0.0.1"), port});
  time_out_socket(socket);
  http::request<http::string_body> request(method, target, 11);
  request.set(http::field::host, "127.0.0.1:" + std::to_string(port));
  for (const auto& [name, value] : headers) request.set(name, value);
  http::write(socket, request);
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  if (method == http::verb::head) parser.skip(true);
  http::read(socket, buffer, parser);
  const auto& response = parser.get();
  return {response.result_int(), response.body(), std::string(response[http::field::content_encoding]),
          std::string(response[http::field::etag]), std::string(response[http::field::content_type])};
}

// A student: a WebSocket on the channel, blocking with timeouts.
class Student {
 public:
  explicit Student(std::uint16_t port, const std::string& origin = {}) : ws_(io_) {
    ws_.next_layer().connect({net::ip::make_address("127.0.0.1"), port});
    time_out_socket(ws_.next_layer());
    ws_.set_option(websocket::stream_base::decorator([origin](websocket::request_type& request) {
      if (!origin.empty()) request.set(http::field::origin, origin);
    }));
    ws_.handshake("127.0.0.1:" + std::to_string(port), std::string(channel_path));
  }
  void send(const std::string& text) { ws_.write(net::buffer(text)); }
  void join(const std::string& token = {}, const std::string& join_code = code) {
    send(json{{"t", "join"}, {"code", join_code}, {"token", token}}.dump());
  }
  // The next message, or the error that ended the channel ("closed: <reason>").
  std::string read() {
    beast::flat_buffer buffer;
    beast::error_code error;
    ws_.read(buffer, error);
    const auto& reason = ws_.reason().reason;
    if (error) return "closed: " + (reason.empty() ? error.message() : std::string(reason.data(), reason.size()));
    return beast::buffers_to_string(buffer.data());
  }
  // Reads until a message of type `type` (or the end): it.
  json read_type(const std::string& type) {
    for (int k = 0; k < 100; ++k) {
      const std::string text = read();
      if (text.starts_with("closed:")) return json{{"t", "closed"}, {"why", text}};
      const json message = json::parse(text, nullptr, false);
      if (message.is_object() && message.value("t", "") == type) return message;
    }
    return json{{"t", "none"}};
  }
  websocket::stream<tcp::socket>& stream() { return ws_; }

 private:
  net::io_context io_;
  websocket::stream<tcp::socket> ws_;
};

// Waits (10 s at most: a generous bound on loopback, not a measurement) until `done` holds.
bool eventually(const std::function<bool()>& done) {
  for (int k = 0; k < 1000; ++k) {
    if (done()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return done();
}

// Events of `kind` gathered from the server until `count` are in (or the wait ends).
std::vector<StudentEvent> events_of(ClassServer& server, StudentEvent::Kind kind, std::size_t count,
                                    std::vector<StudentEvent>* others = nullptr) {
  std::vector<StudentEvent> found;
  eventually([&] {
    for (StudentEvent& event : server.take_events())
      if (event.kind == kind)
        found.push_back(std::move(event));
      else if (others != nullptr)
        others->push_back(std::move(event));
    return found.size() >= count;
  });
  return found;
}

// What every attack ends with: the server still serves a page and takes a student's join.
void expect_still_serving(ClassServer& server) {
  EXPECT_EQ(http_get(server.port(), "/").status, 200u);
  Student student(server.port());
  student.join();
  EXPECT_EQ(student.read_type("welcome").value("t", ""), "welcome");
}

std::unique_ptr<ClassServer> start(const ServerOptions& options) {
  Result<std::unique_ptr<ClassServer>> started = ClassServer::start(options);
  if (!started) ADD_FAILURE() << started.error().message;
  return started ? std::move(*started) : nullptr;
}

// [SECTION] The site

TEST(ClassServer, ServesTheSiteFilesAndNothingElse) {
  const TestSite site;
  auto server = start(options_for(site));
  ASSERT_TRUE(server);
  const std::uint16_t port = server->port();
  EXPECT_EQ(http_get(port, "/").body, "<!doctype html><title>class</title>");
  EXPECT_EQ(http_get(port, "/class").body, "<!doctype html><title>class</title>");
  EXPECT_EQ(http_get(port, "/class?code=K7P2QX").status, 200u);
  EXPECT_EQ(http_get(port, "/index.html").type, "text/html; charset=utf-8");
  EXPECT_EQ(http_get(port, "/page.js").body, "'use strict'; // the page");
  // The precompressed copy to a browser that takes gzip, named as such.
  const HttpReply packed = http_get(port, "/page.js", {{"Accept-Encoding", "gzip, deflate"}});
  EXPECT_EQ(packed.body, "GZIPPED-PAGE");
  EXPECT_EQ(packed.encoding, "gzip");
  // Unchanged since the last load: 304 and no body.
  const HttpReply again = http_get(port, "/page.js", {{"If-None-Match", packed.etag}});
  EXPECT_EQ(again.status, 304u);
  EXPECT_TRUE(again.body.empty());
  EXPECT_EQ(http_get(port, "/page.js", {}, http::verb::head).status, 200u);
  // Nothing outside the site's own regular files: hidden, temporary, nested, linked, traversing.
  for (const std::string target : {"/.hidden", "/notes.tmp", "/sub/inner.txt", "/link.txt", "/../index.html",
                                   "/%2e%2e/%2e%2e/etc/passwd", "/..%2f..%2fetc%2fpasswd", "/etc/passwd",
                                   "//etc/passwd", "/page.js.gz", "/sub", "/class/ws", "index.html", "*"})
    EXPECT_EQ(http_get(port, target).status, 404u) << target;
  EXPECT_EQ(http_get(port, "/", {}, http::verb::post).status, 405u);
  EXPECT_EQ(http_get(port, "/", {}, http::verb::delete_).status, 405u);
}

TEST(ClassServer, ASiteOfOnlyAnIndexWithoutCompressedCopiesServes) {
  const std::filesystem::path folder =
      std::filesystem::temp_directory_path() / ("smlab-class-index-" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "index.html") << "only";
  ServerOptions options;
  options.site = folder;
  options.join_code = code;
  auto server = start(options);
  ASSERT_TRUE(server);
  EXPECT_EQ(http_get(server->port(), "/", {{"Accept-Encoding", "gzip"}}).body, "only");
  server.reset();
  std::filesystem::remove_all(folder);
}

TEST(ClassServer, RefusesToStartWithoutTheSiteOrOnABadAddress) {
  const TestSite site;
  ServerOptions options = options_for(site);
  options.site = site.folder / "missing";
  Result<std::unique_ptr<ClassServer>> started = ClassServer::start(options);
  ASSERT_FALSE(started);
  EXPECT_NE(started.error().message.find("make web"), std::string::npos) << started.error().message;
  options = options_for(site);
  options.address = "not-an-address";
  started = ClassServer::start(options);
  ASSERT_FALSE(started);
  EXPECT_NE(started.error().message.find("not-an-address"), std::string::npos) << started.error().message;
  // A port already in use: the line names the address and port.
  auto first = start(options_for(site));
  ASSERT_TRUE(first);
  options = options_for(site);
  options.port = first->port();
  started = ClassServer::start(options);
  ASSERT_FALSE(started);
  EXPECT_NE(started.error().message.find(std::to_string(first->port())), std::string::npos) << started.error().message;
  options.join_code = "bad";
  EXPECT_FALSE(ClassServer::start(options));
}

// [SECTION] Joining

TEST(ClassServer, AJoinWithTheCodeIsWelcomedWithATokenAndTheNewestState) {
  const TestSite site;
  auto server = start(options_for(site));
  ASSERT_TRUE(server);
  for (int k = 1; k <= 50; ++k) server->publish(json{{"t", "state"}, {"seq", k}}.dump());
  Student student(server->port());
  student.join();
  const json welcome = student.read_type("welcome");
  ASSERT_EQ(welcome.value("t", ""), "welcome");
  const std::string token = welcome.value("token", "");
  EXPECT_TRUE(is_token(token)) << token;
  // Only the newest state: the ones published before it are never sent.
  EXPECT_EQ(student.read_type("state").value("seq", 0), 50);
  const std::vector<StudentEvent> joined = events_of(*server, StudentEvent::Kind::joined, 1);
  ASSERT_EQ(joined.size(), 1u);
  EXPECT_FALSE(joined.front().resumed);
  // A later state reaches the student.
  server->publish(json{{"t", "state"}, {"seq", 51}}.dump());
  EXPECT_EQ(student.read_type("state").value("seq", 0), 51);
  // An answer reaches the host as it was sent.
  student.send(R"({"t":"answer","vote":2,"answer":"why-softmax:4:0.665"})");
  const std::vector<StudentEvent> answers = events_of(*server, StudentEvent::Kind::answer, 1);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers.front().student, joined.front().student);
  EXPECT_EQ(answers.front().answer, (AnswerMessage{2, "why-softmax:4:0.665"}));
  EXPECT_EQ(server->counts().students, 1u);
}

TEST(ClassServer, ADragOfStatesReachesAStudentAtMostOncePerIntervalAndEndsOnTheNewest) {
  const TestSite site;
  ServerLimits limits;
  limits.state_interval = 50ms;
  auto server = start(options_for(site, limits));
  ASSERT_TRUE(server);
  Student student(server->port());
  student.join();
  ASSERT_EQ(student.read_type("welcome").value("t", ""), "welcome");
  // A teacher's drag: a state every 2 ms for 200 states.
  const auto started = std::chrono::steady_clock::now();
  for (int k = 1; k <= 200; ++k) {
    server->publish(json{{"t", "state"}, {"seq", k}}.dump());
    std::this_thread::sleep_for(2ms);
  }
  const double elapsed_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  int received = 0, last = 0;
  while (last < 200) {
    const json state = student.read_type("state");
    ASSERT_EQ(state.value("t", ""), "state") << "after " << received << " states, the last " << last;
    ASSERT_GT(state.value("seq", 0), last) << "states arrive newest last";
    last = state.value("seq", 0);
    ++received;
  }
  // One state at most per interval of the drag, and the one it ends on.
  EXPECT_LE(received, static_cast<int>(elapsed_ms / 50.0) + 2) << "over " << elapsed_ms << " ms";
  EXPECT_LT(received, 200);
}

TEST(ClassServer, AReconnectWithTheTokenIsTheSameStudentAndReplacesTheOldChannel) {
  const TestSite site;
  auto server = start(options_for(site));
  ASSERT_TRUE(server);
  auto first = std::make_unique<Student>(server->port());
  first->join();
  const std::string token = first->read_type("welcome").value("token", "");
  const std::uint64_t student = events_of(*server, StudentEvent::Kind::joined, 1).at(0).student;
  // The same page again (a reload, the Wi-Fi back) while the old channel still looks open.
  Student second(server->port());
  second.join(token);
  EXPECT_EQ(second.read_type("welcome").value("token", ""), token);
  std::vector<StudentEvent> others;
  const std::vector<StudentEvent> rejoined = events_of(*server, StudentEvent::Kind::joined, 1, &others);
  ASSERT_EQ(rejoined.size(), 1u);
  EXPECT_EQ(rejoined.front().student, student);
  EXPECT_TRUE(rejoined.front().resumed);
  // The old channel is closed, and that is no leave: the student is still here.
  EXPECT_TRUE(first->read().starts_with("closed"));
  first.reset();
  std::this_thread::sleep_for(100ms);
  for (const StudentEvent& event : server->take_events()) EXPECT_NE(event.kind, StudentEvent::Kind::left);
  EXPECT_EQ(server->counts().students, 1u);
  // An unknown token is a new student with a new token.
  Student third(server->port());
  third.join(std::string(32, 'a'));
  const std::string new_token = third.read_type("welcome").value("token", "");
  EXPECT_NE(new_token, token);
  EXPECT_NE(events_of(*server, StudentEvent::Kind::joined, 1).at(0).student, student);
}

// The teacher's shared files (imported data) go only to a request with the join code, only while
// shared; a wrong code counts against the address as a join's does.
TEST(ClassServer, SharedFilesNeedTheJoinCodeAndGoWhenReplaced) {
  const TestSite site;
  ServerLimits limits;
  limits.max_join_failures = 4;
  auto server = start(options_for(site, limits));
  ASSERT_TRUE(server);
  const std::uint16_t port = server->port();
  std::string bytes(3 << 20, '\0');  // 3 MiB, every byte value
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7919 % 251);
  server->share({{"class-1.npz", std::make_shared<const std::string>(bytes)}});
  ASSERT_TRUE(eventually([&] { return http_get(port, "/class/data/class-1.npz?code=K7P2QX").status == 200u; }));
  const HttpReply got = http_get(port, "/class/data/class-1.npz?lang=zh-CN&code=K7P2QX");
  EXPECT_EQ(got.status, 200u);
  EXPECT_TRUE(got.body == bytes) << got.body.size() << " bytes";
  EXPECT_EQ(got.type, "application/octet-stream");
  EXPECT_EQ(http_get(port, "/class/data/other.npz?code=K7P2QX").status, 404u);
  EXPECT_EQ(http_get(port, "/class/data/../index.html?code=K7P2QX").status, 404u);
  // Replaced: the old name is gone, the new one served.
  server->share({{"class-2.npz", std::make_shared<const std::string>("second")}});
  ASSERT_TRUE(eventually([&] { return http_get(port, "/class/data/class-2.npz?code=K7P2QX").body == "second"; }));
  EXPECT_EQ(http_get(port, "/class/data/class-1.npz?code=K7P2QX").status, 404u);
  // Without the code, or a wrong one: refused, and after four the address is refused the right one too.
  for (const std::string target : {"/class/data/class-2.npz", "/class/data/class-2.npz?code=AAAAAA",
                                   "/class/data/class-2.npz?code=", "/class/data/class-2.npz?xcode=K7P2QX"})
    EXPECT_EQ(http_get(port, target).status, 403u) << target;
  EXPECT_EQ(http_get(port, "/class/data/class-2.npz?code=K7P2QX").status, 403u);
  Student blocked(port);
  blocked.join();
  EXPECT_EQ(blocked.read_type("wrong_code").value("t", ""), "wrong_code");
  EXPECT_EQ(http_get(port, "/").status, 200u) << "the site is still served";
}

TEST(ClassServer, AWrongCodeIsRefusedAndRepeatedWrongCodesBlockTheAddress) {
  const TestSite site;
  ServerLimits limits;
  limits.max_join_failures = 5;
  auto server = start(options_for(site, limits));
  ASSERT_TRUE(server);
  for (const std::string wrong : {"AAAAAA", "k7p2qx", "K7P2Q", "", "K7P2QXX"}) {
    Student student(server->port());
    student.join({}, wrong);
    EXPECT_EQ(student.read_type("wrong_code").value("t", ""), "wrong_code") << wrong;
    EXPECT_TRUE(student.read().starts_with("closed")) << wrong;
  }
  // Five failures from this address: even the right code is refused for a while (no guessing).
  Student blocked(server->port());
  blocked.join();
  EXPECT_EQ(blocked.read_type("wrong_code").value("t", ""), "wrong_code");
  EXPECT_EQ(server->counts().students, 0u);
  EXPECT_GE(server->counts().refused, 6u);
}

TEST(ClassServer, TheStudentAfterTheLimitIsToldTheClassIsFullAndAReturningOneStillFits) {
  const TestSite site;
  ServerLimits limits;
  limits.max_students = 3;
  auto server = start(options_for(site, limits));
  ASSERT_TRUE(server);
  std::vector<std::unique_ptr<Student>> students;
  std::vector<std::string> tokens;
  for (int k = 0; k < 3; ++k) {
    students.push_back(std::make_unique<Student>(server->port()));
    students.back()->join();
    tokens.push_back(students.back()->read_type("welcome").value("token", ""));
  }
  Student fourth(server->port());
  fourth.join();
  EXPECT_EQ(fourth.read_type("full").value("t", ""), "full");
  EXPECT_TRUE(fourth.read().starts_with("closed"));
  // A student who is in already comes back in a full class.
  Student back(server->port());
  back.join(tokens[1]);
  EXPECT_EQ(back.read_type("welcome").value("token", ""), tokens[1]);
  // One leaves: a place is free.
  students[0].reset();
  ASSERT_TRUE(eventually([&] { return server->counts().students == 2u; }));
  Student fifth(server->port());
  fifth.join();
  EXPECT_EQ(fifth.read_type("welcome").value("t", ""), "welcome");
}

// [SECTION] Hostile clients

TEST(ClassServer, BadMessagesCloseTheirChannelOnly) {
  const TestSite site;
  auto server = start(options_for(site));
  ASSERT_TRUE(server);
  Student bystander(server->port());
  bystander.join();
  ASSERT_EQ(bystander.read_type("welcome").value("t", ""), "welcome");
  const std::vector<std::string> bad = {
      "not json",
      "[1,2,3]",
      R"({"t":"join"})",
      R"({"t":"join","code":"K7P2QX","extra":1})",
      R"({"t":"join","code":"K7P2QX","token":"zz"})",
      R"({"t":"join","code":"K7P2QX","nick":"a\u0001b"})",
      R"({"t":"answer","vote":1,"answer":"why-softmax:1:1"})",  // before the join
      R"({"t":"shutdown"})",
      R"({"t":"join","code":"K7P2QX","t":"join"})",  // a key twice
      std::string("{\"t\":\"join\",\"code\":\"K7P2QX\",\"nick\":\"") + "\xff\xfe" + "\"}",
      std::string(100, '[') + std::string(100, ']'),
      std::string("{\"t\":\"join\",\0\"code\":\"K7P2QX\"}", 30),
  };
  for (const std::string& message : bad) {
    Student student(server->port());
    student.send(message);
    EXPECT_TRUE(student.read_type("welcome").value("t", "") == "closed") << message;
  }
  // A joined student's bad answer closes that student's channel, and only that one.
  Student joined(server->port());
  joined.join();
  ASSERT_EQ(joined.read_type("welcome").value("t", ""), "welcome");
  for (const std::string answer : {R"({"t":"answer","vote":3,"answer":"x:1:1"})", R"({"t":"answer","vote":1})",
                                   R"({"t":"answer","vote":1,"answer":7})", R"({"t":"join","code":"K7P2QX"})"}) {
    Student again(server->port());
    again.join();
    ASSERT_EQ(again.read_type("welcome").value("t", ""), "welcome");
    again.send(answer);
    EXPECT_EQ(again.read_type("never").value("t", ""), "closed") << answer;
  }
  server->publish(R"({"t":"state","seq":1})");
  EXPECT_EQ(bystander.read_type("state").value("seq", 0), 1);
  EXPECT_GE(server->counts().refused, bad.size());
  expect_still_serving(*server);
}

TEST(ClassServer, OversizedFragmentedAndBinaryMessagesAreRefused) {
  const TestSite site;
  auto server = start(options_for(site));
  ASSERT_TRUE(server);
  {  // one message over the limit
    Student student(server->port());
    student.join();
    ASSERT_EQ(student.read_type("welcome").value("t", ""), "welcome");
    student.send(std::string(max_student_message_bytes + 1, 'x'));
    EXPECT_EQ(student.read_type("never").value("t", ""), "closed");
  }
  {  // many small fragments that add up to more than the limit
    Student student(server->port());
    student.join();
    ASSERT_EQ(student.read_type("welcome").value("t", ""), "welcome");
    auto& ws = student.stream();
    beast::error_code error;
    for (int k = 0; k < 200 && !error; ++k) ws.write_some(false, net::buffer(std::string(16, 'y')), error);
    EXPECT_EQ(student.read_type("never").value("t", ""), "closed");
  }
  {  // a valid message in fragments within the limit is one message
    Student student(server->port());
    auto& ws = student.stream();
    const std::string join = json{{"t", "join"}, {"code", code}}.dump();
    for (std::size_t at = 0; at < join.size(); at += 5)
      ws.write_some(at + 5 >= join.size(), net::buffer(join.substr(at, 5)));
    EXPECT_EQ(student.read_type("welcome").value("t", ""), "welcome");
  }
  {  // binary
    Student student(server->port());
    student.stream().binary(true);
    student.send(json{{"t", "join"}, {"code", code}}.dump());
    EXPECT_EQ(student.read_type("welcome").value("t", ""), "closed");
  }
  expect_still_serving(*server);
}

TEST(ClassServer, BrokenFramesEndTheConnection) {
  const TestSite site;
  ServerLimits limits;
  limits.request_timeout = 1s;  // a close handshake the raw client never answers ends within it
  auto server = start(options_for(site, limits));
  ASSERT_TRUE(server);
  // After a real handshake, bytes that are not WebSocket frames: an unmasked frame (clients must
  // mask), a reserved opcode, reserved bits, a length of 2^63, a control frame over 125 bytes.
  const std::vector<std::string> frames = {
      std::string("\x81\x05hello", 7),
      std::string("\x83\x80\x00\x00\x00\x00", 6),
      std::string("\xf1\x80\x00\x00\x00\x00", 6),
      std::string("\x81\xff\x7f\xff\xff\xff\xff\xff\xff\xff\x00\x00\x00\x00", 14),
      std::string("\x89\xfe\x00\x80\x00\x00\x00\x00", 8) + std::string(128, 'p'),
      std::string(64, '\xff'),
  };
  for (const std::string& frame : frames) {
    Student student(server->port());
    net::write(student.stream().next_layer(), net::buffer(frame));
    // The server ends the connection: the socket reads to its end (or a close frame, then the end).
    std::array<char, 512> bytes{};
    boost::system::error_code error;
    for (int k = 0; k < 20 && !error; ++k) student.stream().next_layer().read_some(net::buffer(bytes), error);
    EXPECT_TRUE(error == net::error::eof || error == net::error::connection_reset) << error.message();
  }
  expect_still_serving(*server);
}

TEST(ClassServer, AFloodOfMessagesClosesTheFlooder) {
  const TestSite site;
  auto server = start(options_for(site));
  ASSERT_TRUE(server);
  Student flooder(server->port());
  flooder.join();
  ASSERT_EQ(flooder.read_type("welcome").value("t", ""), "welcome");
  beast::error_code error;
  for (int k = 0; k < 500 && !error; ++k)
    flooder.stream().write(net::buffer(std::string(R"({"t":"answer","vote":1,"answer":"a:1:1"})")), error);
  EXPECT_EQ(flooder.read_type("never").value("t", ""), "closed");
  // The host got no more than the burst the limits allow.
  std::this_thread::sleep_for(100ms);
  std::size_t answers = 0;
  for (const StudentEvent& event : server->take_events()) answers += event.kind == StudentEvent::Kind::answer;
  EXPECT_LE(answers, static_cast<std::size_t>(ServerLimits{}.message_burst) + 2);
  expect_still_serving(*server);
}

TEST(ClassServer, SlowClientsAreClosedAfterTheRequestTimeout) {
  const TestSite site;
  ServerLimits limits;
  limits.request_timeout = 300ms;
  auto server = start(options_for(site, limits));
  ASSERT_TRUE(server);
  // Slowloris: a request header that never ends, a byte at a time.
  {
    net::io_context io;
    tcp::socket socket(io);
    socket.connect({net::ip::make_address("127.0.0.1"), server->port()});
    time_out_socket(socket);
    boost::system::error_code error;
    net::write(socket, net::buffer(std::string("GET / HTTP/1.1\r\nHost: x\r\n")), error);
    for (int k = 0; k < 40 && !error; ++k) {
      net::write(socket, net::buffer(std::string("X")), error);
      std::this_thread::sleep_for(25ms);
    }
    std::array<char, 64> bytes{};
    for (int k = 0; k < 10 && !error; ++k) socket.read_some(net::buffer(bytes), error);
    EXPECT_TRUE(error) << "the slow request was still open";
  }
  // A channel that never joins.
  Student silent(server->port());
  EXPECT_EQ(silent.read_type("never").value("t", ""), "closed");
  // A header over the limit.
  EXPECT_THROW(http_get(server->port(), "/", {{"X-Big", std::string(16 * 1024, 'b')}}), std::exception);
  expect_still_serving(*server);
}

TEST(ClassServer, ManyConnectsStayWithinTheBoundAndTheClassGoesOn) {
  const TestSite site;
  ServerLimits limits;
  limits.max_connections = 64;
  limits.request_timeout = 2s;
  auto server = start(options_for(site, limits));
  ASSERT_TRUE(server);
  Student student(server->port());
  student.join();
  ASSERT_EQ(student.read_type("welcome").value("t", ""), "welcome");
  {
    // 1000 connections that send nothing: the server holds at most its bound open.
    net::io_context io;
    std::vector<std::unique_ptr<tcp::socket>> sockets;
    for (int k = 0; k < 1000; ++k) {
      auto socket = std::make_unique<tcp::socket>(io);
      boost::system::error_code error;
      socket->connect({net::ip::make_address("127.0.0.1"), server->port()}, error);
      if (!error) sockets.push_back(std::move(socket));
    }
    EXPECT_TRUE(eventually([&] { return server->counts().connections <= limits.max_connections; }));
    EXPECT_LE(server->counts().connections, limits.max_connections);
    // The joined student still gets the state.
    server->publish(R"({"t":"state","seq":7})");
    EXPECT_EQ(student.read_type("state").value("seq", 0), 7);
  }
  // Once they are gone, new students get in.
  EXPECT_TRUE(eventually([&] { return server->counts().connections <= 2u; }));
  expect_still_serving(*server);
}

TEST(ClassServer, AChannelFromAnotherSitesPageIsRefused) {
  const TestSite site;
  auto server = start(options_for(site));
  ASSERT_TRUE(server);
  const std::string self = "http://127.0.0.1:" + std::to_string(server->port());
  EXPECT_THROW(Student(server->port(), "http://evil.example"), std::exception);
  Student student(server->port(), self);
  student.join();
  EXPECT_EQ(student.read_type("welcome").value("t", ""), "welcome");
}

// [SECTION] Stopping

TEST(ClassServer, StopLeavesNoListeningSocketAndClosesEveryChannel) {
  const TestSite site;
  auto server = start(options_for(site));
  ASSERT_TRUE(server);
  const std::uint16_t port = server->port();
  Student student(port);
  student.join();
  ASSERT_EQ(student.read_type("welcome").value("t", ""), "welcome");
  server->stop();
  EXPECT_TRUE(student.read().starts_with("closed"));
  net::io_context io;
  tcp::socket socket(io);
  boost::system::error_code error;
  socket.connect({net::ip::make_address("127.0.0.1"), port}, error);
  EXPECT_EQ(error, net::error::connection_refused) << error.message();
  server.reset();  // a second stop (the destructor's) is harmless
}

// [SECTION] A class kept in a session

// A hosted class's record round-trips: reopened, it is the same class (code, questions, answers,
// nicknames) and a student with a known token rejoins as the student they were.
TEST(ClassRecord, AReopenedClassIsTheSameClassAndItsStudentsRejoinAsThemselves) {
  const TestSite site;
  const app::LessonList lessons = app::load_lessons(app::find_assets_dir() / "lessons");
  const std::string token(32, 'a');
  const json record = {{"code", code},
                       {"address", "127.0.0.1"},
                       {"port", 0},
                       {"students", json::array({json::array({token, 5}), json::array({std::string(32, 'b'), 9})})},
                       {"nicknames", {{5, "=Ada"}}},
                       {"questions",
                        {{{"position", "homework:4"},
                          {"vote", 2},
                          {"phase", "closed"},
                          {"shown", true},
                          {"truth", nullptr},
                          {"answers", {{{5, 1, 2.5}, {9, 3, 4.0}}, {{5, 3, 1.0}}}}}}}};
  HostRequest request;
  request.site = site.folder;
  Result<std::unique_ptr<ClassHost>> reopened = ClassHost::reopen(request, record.dump(), lessons);
  ASSERT_TRUE(reopened) << reopened.error().message;
  ClassHost& host = **reopened;
  EXPECT_EQ(host.code(), code);
  EXPECT_EQ(host.answers_kept(), 3u);
  const std::string question = "\"How many NaN weights does the naive softmax of 1000, 1001, 1002 give in fp64?\"";
  EXPECT_EQ(host.answers_csv(),
            "step,question,vote,answer,seconds_to_answer,nickname\n"
            "homework:4," +
                question +
                ",1,1,2.5,'=Ada\n"
                "homework:4," +
                question +
                ",1,3,4.0,\n"
                "homework:4," +
                question + ",2,3,1.0,'=Ada\n");
  const json again = json::parse(host.record());
  EXPECT_EQ(again["questions"], record["questions"]);
  EXPECT_EQ(again["nicknames"], record["nicknames"]);
  EXPECT_EQ(again["students"], record["students"]);
  // A known token rejoins as student 5, whose answers these are; a new student is numbered after 9.
  Student returning(host.port());
  returning.join(token);
  EXPECT_EQ(returning.read_type("welcome").value("token", ""), token);
  ASSERT_TRUE(eventually([&] { return host.students() == 1; }));
}

// Every field of a record goes through the checks a student's answer does: a crafted session cannot
// host a class with answers no student could give, or a code no page could type.
TEST(ClassRecord, EveryBadFieldIsRefusedWithOneLineNamingIt) {
  const TestSite site;
  const app::LessonList lessons = app::load_lessons(app::find_assets_dir() / "lessons");
  const json good = {
      {"code", code},
      {"address", "127.0.0.1"},
      {"port", 0},
      {"students", json::array({json::array({std::string(32, 'a'), 1})})},
      {"questions", {{{"position", "homework:4"}, {"vote", 1}, {"phase", "open"}, {"answers", {{{1, 2, 0.5}}}}}}}};
  HostRequest request;
  request.site = site.folder;
  ASSERT_TRUE(ClassHost::reopen(request, good.dump(), lessons));
  const auto with = [&](const std::function<void(json&)>& change) {
    json bad = good;
    change(bad);
    return bad.dump();
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"[1, 2]", "not an object"},
      {"{\"code\": \"K7P2QX\"", "not valid JSON"},
      {with([](json& r) { r["code"] = "K7P2Q0"; }), "'code'"},
      {with([](json& r) { r["extra"] = 1; }), "'extra'"},
      {with([](json& r) { r["students"][0][0] = "not hex"; }), "'students[0]'"},
      {with([](json& r) {
         r["students"].push_back(json::array({std::string(32, 'a'), 2}));
       }),
       "each token and each number once"},
      {with([](json& r) {
         r["nicknames"] = {{1, "tab\there"}};
       }),
       "'nicknames[0]'"},
      {with([](json& r) {
         r["nicknames"] = {{7, "Ada"}};
       }),
       "'nicknames[0]'"},
      {with([](json& r) { r["questions"][0]["position"] = "why-softmax:1"; }), "asks a question"},
      {with([](json& r) { r["questions"][0]["position"] = "no-such-lesson:1"; }), "no-such-lesson"},
      {with([](json& r) { r["questions"].push_back(r["questions"][0]); }), "each step once"},
      {with([](json& r) { r["questions"][0]["vote"] = 3; }), "'questions[0].vote'"},
      {with([](json& r) { r["questions"][0]["vote"] = 4294967297LL; }), "'questions[0].vote'"},
      {with([](json& r) { r["questions"][0]["phase"] = "hidden"; }), "'questions[0].phase'"},
      {with([](json& r) { r["questions"][0]["answers"] = json::array(); }), "'questions[0].answers'"},
      {with([](json& r) { r["questions"][0]["answers"][0][0][1] = 7; }), "within the question's range or choices"},
      {with([](json& r) { r["questions"][0]["answers"][0][0][0] = 2; }), "known student"},
      {with([](json& r) { r["questions"][0]["answers"][0][0][2] = -1; }), "seconds >= 0"},
      {with([](json& r) {
         r["questions"][0]["answers"][0].push_back({1, 1, 0.1});
       }),
       "once a vote"},
      {with([](json& r) { r["questions"][0]["truth"] = "3"; }), "'questions[0].truth'"},
      {with([](json& r) { r["questions"][0]["unknown"] = 1; }), "'questions[0].unknown'"},
      {with([](json& r) { r["questions"] = json::array({1}); }), "'questions[0]'"},
  };
  EXPECT_TRUE(ClassHost::check_record(good.dump(), lessons));
  for (const auto& [text, phrase] : cases) {
    // Checked alone first (the window does, before it stops the class hosted now), then reopened.
    EXPECT_FALSE(ClassHost::check_record(text, lessons)) << text;
    const Result<std::unique_ptr<ClassHost>> refused = ClassHost::reopen(request, text, lessons);
    ASSERT_FALSE(refused) << text;
    EXPECT_EQ(refused.error().kind, Error::Kind::usage) << text;
    EXPECT_EQ(refused.error().message.find('\n'), std::string::npos) << refused.error().message;
    EXPECT_NE(refused.error().message.find(phrase), std::string::npos) << refused.error().message << "\n" << text;
  }
  EXPECT_FALSE(ClassHost::record_address(with([](json& r) { r["port"] = 70000; })));
  EXPECT_FALSE(ClassHost::record_address(with([](json& r) { r["address"] = "example.com"; })));
}

// [SECTION] The teacher's imported data

// Q and K of [1, 1, L, d] (no V), deterministic values, with L tokens when asked.
std::shared_ptr<const ImportedAttention> data_of(int L, int d, bool tokens) {
  std::vector<float> q(static_cast<std::size_t>(L) * d), k(q.size());
  for (std::size_t i = 0; i < q.size(); ++i) {
    q[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i + 1)));
    k[i] = static_cast<float>(std::cos(0.11 * static_cast<double>(i + 3)));
  }
  std::vector<std::string> labels;
  if (tokens)
    for (int t = 0; t < L; ++t) labels.push_back(t % 2 == 0 ? "tok" + std::to_string(t) : "注意" + std::to_string(t));
  ImportAssembly made = assemble_import({{ArrayRole::queries, {"q", {1, 1, L, d}, q, "<f4", {}}, "q.npy"},
                                         {ArrayRole::keys, {"k", {1, 1, L, d}, k, "<f4", {}}, "k.npy"}},
                                        labels, {"q.npy", "k.npy"}, "");
  EXPECT_TRUE(made.ok()) << made.error().message;
  return made.ok() ? *made : nullptr;
}

// The students get the data the teacher shows, as files that read back to the same numbers, named
// in the state's address; data over the limit stays with the teacher and the state says so.
TEST(ClassData, TheTeachersDataIsSharedUpToTheLimitAndWithheldBeyondIt) {
  const TestSite site;
  HostRequest request;
  request.site = site.folder;
  Result<std::unique_ptr<ClassHost>> started = ClassHost::start(request);
  ASSERT_TRUE(started) << started.error().message;
  ClassHost& host = **started;
  app::UiState ui;
  const auto small = data_of(12, 8, true);
  ASSERT_TRUE(attach_import(ui.params, small).ok());
  host.update(ui, nullptr, nullptr);
  ASSERT_EQ(host.shared_data().files.size(), 2u);
  EXPECT_EQ(host.shared_data().withheld_bytes, 0u);
  const json state = json::parse(host.state_message());
  const std::string npz = host.shared_data().files[0], tokens = host.shared_data().files[1];
  EXPECT_NE(state["query"].get<std::string>().find("import=" + npz), std::string::npos) << state.dump();
  EXPECT_NE(state["query"].get<std::string>().find("tokens=" + tokens), std::string::npos) << state.dump();
  EXPECT_EQ(state["data"]["files"], json(host.shared_data().files));
  // What a page fetches reads back to the teacher's numbers and labels.
  HttpReply fetched;
  ASSERT_TRUE(eventually([&] {
    fetched = http_get(host.port(), "/class/data/" + npz + "?code=" + host.code());
    return fetched.status == 200u;
  }));
  const std::vector<std::uint8_t> bytes(fetched.body.begin(), fetched.body.end());
  EXPECT_TRUE(bytes == imported_npz(*small));
  const HttpReply labels = http_get(host.port(), "/class/data/" + tokens + "?code=" + host.code());
  EXPECT_EQ(json::parse(labels.body), json(small->tokens));
  // The same data keeps its file's name; the data gone, nothing is shared.
  host.update(ui, nullptr, nullptr);
  EXPECT_EQ(host.shared_data().files[0], npz);
  ui.params.imported = nullptr;
  host.update(ui, nullptr, nullptr);
  EXPECT_TRUE(host.shared_data().files.empty());
  EXPECT_FALSE(json::parse(host.state_message()).contains("data"));
  // Over the limit (Q and K of 4096 × 512 as float32: 16.8 MB): withheld, and said.
  const auto large = data_of(4096, 512, false);
  ASSERT_TRUE(attach_import(ui.params, large).ok());
  host.update(ui, nullptr, nullptr);
  EXPECT_TRUE(host.shared_data().files.empty());
  EXPECT_GT(host.shared_data().withheld_bytes, max_shared_data_bytes);
  const json withheld = json::parse(host.state_message());
  EXPECT_EQ(withheld["data_withheld"].get<std::uint64_t>(), host.shared_data().withheld_bytes);
  EXPECT_EQ(withheld["query"].get<std::string>().find("import="), std::string::npos) << withheld.dump();
  EXPECT_EQ(http_get(host.port(), "/class/data/" + npz + "?code=" + host.code()).status, 404u);
}

// [SECTION] The student site built by the app

struct Fractions : ProgressSink {
  std::vector<double> seen;
  void update(double fraction, std::string_view) noexcept override { seen.push_back(fraction); }
};

SiteBuildPlan fake_plan(const TestSite& work, const std::string& script) {
  SiteBuildPlan plan;
  plan.commands = {{"/bin/sh", "-c", script}};
  plan.environment = {"SMLAB_FAKE_BUILD=yes"};
  plan.site = work.folder / "built-site";
  plan.log = work.folder / "logs" / "build.log";
  return plan;
}

// The build's "[ NN%]" lines are its progress; its environment is the plan's on top of ours; its
// output is kept in the log; it succeeds when the site's index.html is there.
TEST(SiteBuild, ReportsTheBuildsPercentagesAndSucceedsWhenTheSiteIsThere) {
  const TestSite work;
  const SiteBuildPlan plan =
      fake_plan(work,
                "[ \"$SMLAB_FAKE_BUILD\" = yes ] || exit 9; echo '[ 10%] Building a'; echo '[ 55%] Building b' >&2; "
                "mkdir -p \"" +
                    (work.folder / "built-site").string() + "\" && echo '<html>' > \"" +
                    (work.folder / "built-site" / "index.html").string() + "\"; echo '[100%] Built target site'");
  Fractions fractions;
  const Result<void> built = build_site(plan, Progress(std::stop_token(), &fractions));
  ASSERT_TRUE(built) << built.error().message;
  EXPECT_EQ(fractions.seen, (std::vector<double>{0.10, 0.55, 1.0}));
  std::ifstream log(plan.log);
  const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("[ 55%] Building b"), std::string::npos) << text;
}

TEST(SiteBuild, AFailureSaysWhichCommandHowAndItsLastLine) {
  const TestSite work;
  const Result<void> failed =
      build_site(fake_plan(work, "echo '[ 20%] Building a'; echo 'error: emcc broke' >&2; exit 3"), Progress());
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.error().message.find("exited with 3: error: emcc broke"), std::string::npos)
      << failed.error().message;
  EXPECT_NE(failed.error().message.find("build.log"), std::string::npos) << failed.error().message;
  const Result<void> nothing = build_site(fake_plan(work, "echo '[100%] done'"), Progress());
  ASSERT_FALSE(nothing);
  EXPECT_NE(nothing.error().message.find("made no"), std::string::npos) << nothing.error().message;
  const Result<void> missing = build_site(
      [&] {
        SiteBuildPlan plan = fake_plan(work, "");
        plan.commands = {{"/no/such/emcmake"}};
        return plan;
      }(),
      Progress());
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("/no/such/emcmake"), std::string::npos) << missing.error().message;
}

// Whether `pid` is gone (or a zombie waiting for its new parent to reap it).
bool gone(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  const std::size_t close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z';
}

// Cancel ends the whole build: the command and what it started (make's compilers), within seconds.
TEST(SiteBuild, CancelEndsTheCommandAndEveryProcessItStarted) {
  const TestSite work;
  const std::filesystem::path pids = work.folder / "pids";
  const SiteBuildPlan plan = fake_plan(work, "sleep 300 & echo $! > \"" + pids.string() + ".tmp\"; mv \"" +
                                                 pids.string() + ".tmp\" \"" + pids.string() + "\"; sleep 300");
  std::stop_source stop;
  std::optional<Result<void>> outcome;
  std::thread builder([&] { outcome.emplace(build_site(plan, Progress(stop.get_token(), nullptr))); });
  ASSERT_TRUE(eventually([&] { return std::filesystem::exists(pids); }));
  pid_t child = 0;
  std::ifstream(pids) >> child;
  ASSERT_GT(child, 0);
  const auto asked = std::chrono::steady_clock::now();
  stop.request_stop();
  builder.join();
  EXPECT_LT(std::chrono::steady_clock::now() - asked, 5s) << "Cancel waited for the build";
  ASSERT_TRUE(outcome.has_value());
  ASSERT_FALSE(*outcome);
  EXPECT_NE(outcome->error().message.find("cancelled"), std::string::npos) << outcome->error().message;
  EXPECT_TRUE(eventually([&] { return gone(child); })) << "the build's own child " << child << " still runs";
}

// [SECTION] The protocol's own checks

TEST(ClassProtocol, JoinCodesAndTokensAreRandomAndWellFormed) {
  const std::string first = make_join_code(), second = make_join_code();
  EXPECT_TRUE(is_join_code(first)) << first;
  EXPECT_NE(first, second);
  EXPECT_FALSE(is_join_code("K7P2Q0"));  // 0 is not in the alphabet
  EXPECT_TRUE(is_token(make_token()));
  EXPECT_FALSE(is_token(std::string(32, 'G')));
  EXPECT_FALSE(check_nickname(std::string(max_nickname_bytes + 1, 'n')));
  EXPECT_TRUE(check_nickname("Ada 李"));
}

TEST(ClassProtocol, StudentMessagesParseOnlyInTheirExactShape) {
  const Result<StudentMessage> join = parse_student_message(R"({"t":"join","code":"K7P2QX","nick":"Ada"})");
  ASSERT_TRUE(join);
  EXPECT_EQ(std::get<JoinMessage>(*join), (JoinMessage{"K7P2QX", "", "Ada"}));
  const Result<StudentMessage> answer = parse_student_message(R"({"t":"answer","vote":1,"answer":"homework:2:0.5"})");
  ASSERT_TRUE(answer);
  EXPECT_EQ(std::get<AnswerMessage>(*answer), (AnswerMessage{1, "homework:2:0.5"}));
  for (const std::string text :
       {R"({"t":"answer","vote":1.5,"answer":"a:1:1"})", R"({"t":"answer","vote":0,"answer":"a"})",
        R"({"t":"answer","vote":"1","answer":"a"})", R"({"t":"Join","code":"K7P2QX"})"})
    EXPECT_FALSE(parse_student_message(text)) << text;
  const Result<StudentMessage> long_answer =
      parse_student_message(R"({"t":"answer","vote":1,"answer":")" + std::string(max_answer_bytes + 1, '1') + "\"}");
  EXPECT_FALSE(long_answer);
}

}  // namespace
}  // namespace smlab::classroom
