// The class's server (class_server.hpp) on Boost.Beast: one io_context run by one thread, so the
// sessions and the server's tables are touched by that thread only; the host's calls reach it
// through asio's own queue (post), and what students send leaves it through the event inbox.
//
// [SECTION] Index
//   [SECTION] The site in memory
//   [SECTION] The server's state
//   [SECTION] A student's channel
//   [SECTION] HTTP: the site's files and the channel's upgrade
//   [SECTION] Accepting, joining, stopping
//   [SECTION] ClassServer
#include "classroom/class_server.hpp"

// Boost 1.74's asio/awaitable.hpp uses std::exchange without including <utility> (GCC 12, C++20).
#include <utility>

#include <sys/resource.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

#include <algorithm>
#include <atomic>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "files/text_file.hpp"
#include "work/background_job.hpp"

namespace smlab::classroom {

namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

// [SECTION] The site in memory

// One file of the student site, read once at start: no request ever touches the file system, so
// no path a client asks for can reach anything but these.
struct SiteFile {
  std::string type;
  std::string bytes;
  std::optional<std::string> gzip;  // the .gz beside it (finish_site.py makes them)
  std::string etag;
};
using Site = std::map<std::string, SiteFile, std::less<>>;

inline constexpr std::uintmax_t max_site_file_bytes = 64u << 20;
inline constexpr std::uintmax_t max_site_bytes = 512u << 20;

// An entity tag that changes with the content (a reload after `make web` fetches anew).
std::string entity_tag(std::string_view bytes) { return "\"" + content_hash(bytes) + "\""; }

Result<Site> load_site(const std::filesystem::path& folder) {
  std::error_code error;
  const std::string shown = folder.string();
  if (!std::filesystem::is_directory(folder, error))
    return Error::file("the student site '" + shown + "' is missing: build it once with `make web`");
  Site site;
  std::uintmax_t total = 0;
  std::error_code listing;
  for (const auto& entry : std::filesystem::directory_iterator(folder, listing)) {
    const std::string name = entry.path().filename().string();
    // Regular files only (a link could point anywhere), no hidden or temporary ones; the .gz copies
    // go with the file they compress.
    if (name.empty() || name.front() == '.' || name.ends_with(".tmp") || name.ends_with(".gz")) continue;
    if (!std::filesystem::is_regular_file(entry.symlink_status(error))) continue;
    app::TextFile file = app::read_text_file(entry.path(), max_site_file_bytes);
    if (file.status != app::TextFile::Status::ok)
      return Error::file(app::cannot_read("'" + entry.path().string() + "'", file));
    SiteFile served{content_type(name), std::move(file.text), std::nullopt, {}};
    served.etag = entity_tag(served.bytes);
    const std::filesystem::path packed = entry.path().string() + ".gz";
    if (std::filesystem::is_regular_file(std::filesystem::symlink_status(packed, error))) {
      app::TextFile gzip = app::read_text_file(packed, max_site_file_bytes);
      if (gzip.status == app::TextFile::Status::ok) served.gzip = std::move(gzip.text);
    }
    total += served.bytes.size() + (served.gzip ? served.gzip->size() : 0);
    if (total > max_site_bytes) return Error::file("the student site '" + shown + "' is larger than 512 MB");
    site.emplace(name, std::move(served));
  }
  if (listing) return Error::file("cannot read the student site '" + shown + "': " + listing.message());
  if (!site.contains("index.html"))
    return Error::file("the student site '" + shown + "' has no index.html: build it once with `make web`");
  return site;
}

// How much of the descriptor limit the server may use: the soft limit raised to the hard one
// (8192 at most), less a reserve for the rest of the app (fonts, exports, the evaluator's files).
std::size_t descriptor_budget() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return 900;
  const rlim_t wanted = std::min<rlim_t>(limit.rlim_max, 8192);
  if (limit.rlim_cur < wanted) {
    limit.rlim_cur = wanted;
    (void)::setrlimit(RLIMIT_NOFILE, &limit);
    (void)::getrlimit(RLIMIT_NOFILE, &limit);
  }
  return limit.rlim_cur > 256 ? static_cast<std::size_t>(limit.rlim_cur) - 128 : 128;
}

// A student's allowance of messages: `burst` at once, refilled at `rate` a second.
class TokenBucket {
 public:
  TokenBucket(double rate, double burst) : rate_(rate), burst_(burst), tokens_(burst) {}
  bool take(Clock::time_point now) {
    const double elapsed = std::chrono::duration<double>(now - last_).count();
    last_ = now;
    tokens_ = std::min(burst_, tokens_ + elapsed * rate_);
    if (tokens_ < 1.0) return false;
    tokens_ -= 1.0;
    return true;
  }

 private:
  double rate_, burst_, tokens_;
  Clock::time_point last_ = Clock::now();
};

}  // namespace

// [SECTION] The server's state

class WsSession;

class ClassServer::Impl {
 public:
  Impl(ServerOptions options, Site site) : options_(std::move(options)), site_(std::move(site)) {}

  // On the server's thread only.
  void accept();
  void shutdown();
  // A message from `session`: false closes its channel (the reason is then set).
  bool on_message(WsSession& session, std::string_view text, std::string& reason);
  void on_closed(WsSession& session);
  void pump_all();
  // The newest published state to the students, now or when state_interval has passed since the last.
  void release_state();
  void connection_opened() { connections_.fetch_add(1); }
  void connection_closed() { connections_.fetch_sub(1); }
  void count_refusal() { refused_.fetch_add(1); }
  bool full_of_connections() const { return connections_.load() >= options_.limits.max_connections; }
  const Site& site() const { return site_; }
  const ClassServer::SharedFiles& shared() const { return shared_; }
  // The join code from `address`: true when it is the class's; else false, counted against the
  // address (max_join_failures within join_failure_window, then every code is refused for as long).
  bool admit(const std::string& address, std::string_view code);
  const ServerLimits& limits() const { return options_.limits; }
  const std::shared_ptr<const std::string>& state() const { return state_; }
  std::uint64_t state_version() const { return state_version_; }
  const std::shared_ptr<const std::string>& pending_state() const { return pending_state_; }
  std::uint64_t pending_version() const { return pending_version_; }
  // Every open session, so that stopping closes them all.
  void track(const std::shared_ptr<void>& session, std::function<void()> close) {
    open_[session.get()] = {session, std::move(close)};
  }
  void untrack(const void* session) { open_.erase(session); }

  // From any thread.
  void push_event(StudentEvent event);
  void wake() const {
    if (options_.wake) options_.wake();
  }

  ServerOptions options_;
  Site site_;
  net::io_context io_{1};
  tcp::acceptor acceptor_{io_};
  std::string address_;
  std::uint16_t port_ = 0;

  // The server's thread only.
  struct Open {
    std::weak_ptr<void> session;
    std::function<void()> close;
  };
  std::unordered_map<const void*, Open> open_;
  // Written on the server's thread under tokens_mutex_ (known_students reads it from the host's).
  std::unordered_map<std::string, std::uint64_t> students_by_token_;
  mutable std::mutex tokens_mutex_;
  std::unordered_map<std::uint64_t, std::weak_ptr<WsSession>> joined_;
  std::uint64_t next_student_ = 1;
  // Versions count publications: the state released to the students is the publication
  // state_version_; a newer one may wait for the interval (pending, pending_version_).
  std::shared_ptr<const std::string> state_;
  std::uint64_t state_version_ = 0;
  std::shared_ptr<const std::string> pending_state_;
  std::uint64_t pending_version_ = 0;
  Clock::time_point last_release_;
  net::steady_timer release_timer_{io_};
  bool release_armed_ = false;
  struct Failures {
    std::size_t count = 0;
    Clock::time_point since;
  };
  std::unordered_map<std::string, Failures> join_failures_;
  ClassServer::SharedFiles shared_;
  bool stopping_ = false;

  // Shared with the host's thread.
  mutable std::mutex mutex_;  // guards events_
  std::vector<StudentEvent> events_;
  std::atomic<std::size_t> connections_{0}, students_{0};
  std::atomic<std::uint64_t> refused_{0};
  std::unique_ptr<app::BackgroundJob<Result<void>>> job_;  // last: stopped and joined first
};

bool ClassServer::Impl::admit(const std::string& address, std::string_view code) {
  const Clock::time_point now = Clock::now();
  if (join_failures_.size() > 10'000)  // addresses that failed long ago are forgotten
    std::erase_if(join_failures_,
                  [&](const auto& entry) { return now - entry.second.since > limits().join_failure_window; });
  Failures& failures = join_failures_[address];
  if (now - failures.since > limits().join_failure_window) failures = {0, now};
  if (failures.count < limits().max_join_failures && code == options_.join_code) return true;
  ++failures.count;
  count_refusal();
  return false;
}

void ClassServer::Impl::push_event(StudentEvent event) {
  bool first = false;
  {
    const std::lock_guard lock(mutex_);
    if (events_.size() >= options_.limits.max_pending_events) return;
    first = events_.empty();
    events_.push_back(std::move(event));
  }
  if (first) wake();
}

// [SECTION] A student's channel

class WsSession : public std::enable_shared_from_this<WsSession> {
 public:
  WsSession(tcp::socket socket, ClassServer::Impl& server)
      : ws_(std::move(socket)),
        server_(server),
        join_timer_(ws_.get_executor()),
        bucket_(server.limits().messages_per_second, server.limits().message_burst) {
    boost::system::error_code error;
    const tcp::endpoint remote = beast::get_lowest_layer(ws_).socket().remote_endpoint(error);
    address_ = error ? std::string("?") : remote.address().to_string();
  }

  template <class Request>
  void accept(const Request& request) {
    server_.track(shared_from_this(), [weak = weak_from_this()] {
      if (const auto self = weak.lock()) self->hard_close();
    });
    beast::get_lowest_layer(ws_).expires_never();  // the stream's own timeouts below take over
    websocket::stream_base::timeout timeouts{};
    timeouts.handshake_timeout = server_.limits().request_timeout;
    timeouts.idle_timeout = server_.limits().idle_timeout;
    timeouts.keep_alive_pings = true;
    ws_.set_option(timeouts);
    ws_.read_message_max(server_.limits().max_message_bytes);
    ws_.set_option(websocket::stream_base::decorator(
        [](websocket::response_type& response) { response.set(http::field::server, "softmax-lab"); }));
    ws_.async_accept(request, [self = shared_from_this()](beast::error_code error) { self->on_accept(error); });
  }

  const std::string& address() const { return address_; }
  std::uint64_t student() const { return student_; }
  bool joined() const { return student_ != 0; }

  // The server's join decision.
  void admit(std::uint64_t student) {
    student_ = student;
    join_timer_.cancel();
  }

  // Queues a message (the state goes separately: only its newest version is ever sent).
  void send(std::shared_ptr<const std::string> message) {
    if (closing_) return;
    if (queue_.size() >= server_.limits().max_queued_messages) {
      close(websocket::close_code::policy_error, "too slow: messages were not taken");
      return;
    }
    queue_.push_back(std::move(message));
    pump();
  }

  // Writes the next message: a queued one, else the state if a newer one was published.
  void pump() {
    if (writing_ || finished_) return;
    if (closing_) {
      if (!close_sent_) send_close();
      return;
    }
    std::shared_ptr<const std::string> message;
    if (!queue_.empty()) {
      message = std::move(queue_.front());
      queue_.pop_front();
    } else if (joined() && sent_state_ == 0 && server_.pending_state()) {
      // A student who just joined gets the newest state at once, not after the interval.
      message = server_.pending_state();
      sent_state_ = server_.pending_version();
    } else if (joined() && server_.state() && sent_state_ < server_.state_version()) {
      message = server_.state();
      sent_state_ = server_.state_version();
    } else {
      return;
    }
    writing_ = true;
    ws_.text(true);
    ws_.async_write(net::buffer(*message), [self = shared_from_this(), message](beast::error_code error, std::size_t) {
      self->writing_ = false;
      if (error) return self->finish();
      self->pump();
    });
  }

  // Ends the channel politely: the close frame after the write in progress.
  void close(websocket::close_code code, std::string reason) {
    if (closing_ || finished_) return;
    closing_ = true;
    close_reason_ = websocket::close_reason(code, reason.substr(0, 120));
    queue_.clear();
    if (!writing_) send_close();
  }

  // Ends it at once (stopping, or replaced by the same student's new channel).
  void hard_close() {
    boost::system::error_code ignored;
    join_timer_.cancel();
    beast::get_lowest_layer(ws_).socket().shutdown(tcp::socket::shutdown_both, ignored);
    beast::get_lowest_layer(ws_).socket().close(ignored);
    finish();
  }

 private:
  void on_accept(beast::error_code error) {
    if (error) return finish();
    // The join must come soon: a channel that only holds a slot is closed.
    join_timer_.expires_after(server_.limits().request_timeout);
    join_timer_.async_wait([weak = weak_from_this()](beast::error_code error) {
      const auto self = weak.lock();
      if (error || !self || self->joined()) return;
      self->server_.count_refusal();
      self->close(websocket::close_code::policy_error, "no join within the time allowed");
    });
    read();
  }

  void read() {
    ws_.async_read(buffer_,
                   [self = shared_from_this()](beast::error_code error, std::size_t) { self->on_read(error); });
  }

  void on_read(beast::error_code error) {
    if (error) {
      // Too big, a broken frame, a timeout or the client's close: the channel ends. A message over
      // the limit (whole or in fragments) arrives here as message_too_big.
      if (error == websocket::error::message_too_big) server_.count_refusal();
      return finish();
    }
    if (closing_) {
      buffer_.consume(buffer_.size());
      return read();  // until the close handshake ends
    }
    if (!ws_.got_text()) {
      server_.count_refusal();
      buffer_.consume(buffer_.size());
      close(websocket::close_code::unknown_data, "text messages only");
      return read();
    }
    if (!bucket_.take(Clock::now())) {
      server_.count_refusal();
      buffer_.consume(buffer_.size());
      close(websocket::close_code::policy_error, "too many messages");
      return read();
    }
    const std::string text = beast::buffers_to_string(buffer_.data());
    buffer_.consume(buffer_.size());
    std::string reason;
    if (!server_.on_message(*this, text, reason)) close(websocket::close_code::policy_error, reason);
    read();
  }

  void send_close() {
    close_sent_ = true;
    writing_ = true;  // a close is a write: nothing else is written after it
    ws_.async_close(close_reason_, [self = shared_from_this()](beast::error_code) {
      self->writing_ = false;
      // The read in progress ends with the peer's close (or the handshake timeout): then finish.
    });
  }

  // Once, whatever ended the channel.
  void finish() {
    if (finished_) return;
    finished_ = true;
    closing_ = true;
    join_timer_.cancel();
    boost::system::error_code ignored;
    beast::get_lowest_layer(ws_).socket().close(ignored);
    server_.on_closed(*this);
    server_.untrack(this);
    server_.connection_closed();
  }

  websocket::stream<beast::tcp_stream> ws_;
  ClassServer::Impl& server_;
  net::steady_timer join_timer_;
  TokenBucket bucket_;
  beast::flat_buffer buffer_;
  std::string address_;
  std::uint64_t student_ = 0;
  std::deque<std::shared_ptr<const std::string>> queue_;
  std::uint64_t sent_state_ = 0;
  bool writing_ = false, closing_ = false, close_sent_ = false, finished_ = false;
  websocket::close_reason close_reason_;
};

// [SECTION] HTTP: the site's files and the channel's upgrade

namespace {

class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(tcp::socket socket, ClassServer::Impl& server) : stream_(std::move(socket)), server_(server) {}

  void start() {
    server_.track(shared_from_this(), [weak = weak_from_this()] {
      if (const auto self = weak.lock()) self->finish();
    });
    read();
  }

 private:
  void read() {
    parser_.emplace();
    parser_->header_limit(8 * 1024);
    parser_->body_limit(0);
    // The whole request header within the limit: a client that trickles it is closed.
    stream_.expires_after(server_.limits().request_timeout);
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code error, std::size_t) { self->on_read(error); });
  }

  void on_read(beast::error_code error) {
    if (error) {
      if (error != http::error::end_of_stream && error != beast::error::timeout &&
          error != net::error::operation_aborted)
        server_.count_refusal();
      return finish();
    }
    http::request<http::empty_body>& request = parser_->get();
    const std::string_view target(request.target().data(), request.target().size());
    const std::string_view path = target.substr(0, target.find('?'));
    if (websocket::is_upgrade(request)) {
      if (path != channel_path || !same_origin(request))
        return respond_text(request, http::status::forbidden, "forbidden\n");
      // The channel takes the socket over; this session ends without closing it.
      auto session = std::make_shared<WsSession>(stream_.release_socket(), server_);
      done_ = true;
      server_.untrack(this);
      session->accept(parser_->release());
      return;
    }
    if (request.method() != http::verb::get && request.method() != http::verb::head)
      return respond_text(request, http::status::method_not_allowed, "GET or HEAD only\n");
    if (path.starts_with(data_path)) {
      if (!server_.admit(remote_address(), query_value(target, "code")))
        return respond_text(request, http::status::forbidden, "the join code is missing or wrong\n");
      const auto shared = server_.shared().find(path.substr(data_path.size()));
      if (shared == server_.shared().end()) return respond_text(request, http::status::not_found, "not shared now\n");
      return respond_shared(request, shared->second);
    }
    std::string_view name = path;
    if (name == "/" || name == class_page_path || name == std::string(class_page_path) + "/") name = "/index.html";
    const auto found =
        name.size() > 1 && name.front() == '/' ? server_.site().find(name.substr(1)) : server_.site().end();
    if (found == server_.site().end()) return respond_text(request, http::status::not_found, "not found\n");
    respond_file(request, found->second);
  }

  // The value of `name` in the target's query ("" when it has none), as a page's fetch writes it:
  // the join code is letters and digits, so nothing in it needs decoding.
  static std::string_view query_value(std::string_view target, std::string_view name) {
    const std::size_t question = target.find('?');
    if (question == std::string_view::npos) return {};
    std::string_view query = target.substr(question + 1);
    while (!query.empty()) {
      const std::string_view pair = query.substr(0, query.find('&'));
      if (pair.size() > name.size() && pair.starts_with(name) && pair[name.size()] == '=')
        return pair.substr(name.size() + 1);
      query.remove_prefix(std::min(query.size(), pair.size() + 1));
    }
    return {};
  }

  std::string remote_address() {
    boost::system::error_code error;
    const tcp::endpoint remote = stream_.socket().remote_endpoint(error);
    return error ? std::string("?") : remote.address().to_string();
  }

  // A channel is opened only from a page of this server (a browser sends Origin; a page of another
  // site must not open one on a student's behalf). Clients that send no Origin are not browsers.
  static bool same_origin(const http::request<http::empty_body>& request) {
    const auto origin = request.find(http::field::origin);
    if (origin == request.end()) return true;
    const std::string_view value(origin->value().data(), origin->value().size());
    const std::string_view host(request[http::field::host].data(), request[http::field::host].size());
    const std::size_t scheme = value.find("://");
    return scheme != std::string_view::npos && !host.empty() && value.substr(scheme + 3) == host;
  }

  template <class Response>
  void common_headers(Response& response, const http::request<http::empty_body>& request) {
    response.set(http::field::server, "softmax-lab");
    response.set("X-Content-Type-Options", "nosniff");
    response.set("Referrer-Policy", "no-referrer");
    response.keep_alive(request.keep_alive());
  }

  void respond_text(const http::request<http::empty_body>& request, http::status status, std::string_view text) {
    auto response = std::make_shared<http::response<http::string_body>>(status, request.version());
    common_headers(*response, request);
    response->set(http::field::content_type, "text/plain; charset=utf-8");
    response->keep_alive(false);
    if (request.method() != http::verb::head) response->body() = std::string(text);
    response->prepare_payload();
    write(response, server_.limits().request_timeout);
  }

  void respond_file(const http::request<http::empty_body>& request, const SiteFile& file) {
    const auto accepts = request[http::field::accept_encoding];
    const bool gzip =
        file.gzip && std::string_view(accepts.data(), accepts.size()).find("gzip") != std::string_view::npos;
    const std::string& bytes = gzip ? *file.gzip : file.bytes;
    const auto matches = request[http::field::if_none_match];
    const bool unchanged = std::string_view(matches.data(), matches.size()) == file.etag;
    const auto headers = [&](auto& response) {
      common_headers(response, request);
      response.set(http::field::content_type, file.type);
      response.set(http::field::etag, file.etag);
      // Each load asks whether the file changed (a 304 costs a few bytes): a new build is never
      // mixed with the old one; the page's service worker keeps its own copy for offline use.
      response.set(http::field::cache_control, "no-cache");
      response.set(http::field::vary, "Accept-Encoding");
      if (gzip) response.set(http::field::content_encoding, "gzip");
    };
    if (unchanged || request.method() == http::verb::head) {
      auto response = std::make_shared<http::response<http::empty_body>>(
          unchanged ? http::status::not_modified : http::status::ok, request.version());
      headers(*response);
      if (!unchanged) response->content_length(bytes.size());
      write(response, server_.limits().request_timeout);
      return;
    }
    // The bytes stay in the site's table for the server's whole life: the response only points at them.
    auto response = std::make_shared<http::response<http::span_body<const char>>>(http::status::ok, request.version());
    headers(*response);
    response->body() = http::span_body<const char>::value_type(bytes.data(), bytes.size());
    response->prepare_payload();
    write(response, server_.limits().file_write_timeout);
  }

  // A shared file: its bytes are kept alive by the response's write, whatever the host shares next.
  void respond_shared(const http::request<http::empty_body>& request, std::shared_ptr<const std::string> bytes) {
    if (request.method() == http::verb::head) {
      auto response = std::make_shared<http::response<http::empty_body>>(http::status::ok, request.version());
      common_headers(*response, request);
      response->set(http::field::content_type, "application/octet-stream");
      response->set(http::field::cache_control, "no-store");
      response->content_length(bytes->size());
      write(response, server_.limits().request_timeout);
      return;
    }
    auto response = std::make_shared<http::response<http::span_body<const char>>>(http::status::ok, request.version());
    common_headers(*response, request);
    response->set(http::field::content_type, "application/octet-stream");
    response->set(http::field::cache_control, "no-store");
    response->body() = http::span_body<const char>::value_type(bytes->data(), bytes->size());
    response->prepare_payload();
    write(response, server_.limits().file_write_timeout, std::move(bytes));
  }

  template <class Response>
  void write(std::shared_ptr<Response> response, std::chrono::milliseconds timeout,
             std::shared_ptr<const void> keep_alive = nullptr) {
    stream_.expires_after(timeout);
    const bool keep = response->keep_alive();
    http::async_write(stream_, *response,
                      [self = shared_from_this(), response, keep, keep_alive](beast::error_code error, std::size_t) {
                        if (error || !keep) return self->finish();
                        self->read();
                      });
  }

  void finish() {
    if (done_) return;
    done_ = true;
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.socket().close(ignored);
    server_.untrack(this);
    server_.connection_closed();
  }

  beast::tcp_stream stream_;
  ClassServer::Impl& server_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::empty_body>> parser_;
  bool done_ = false;
};

}  // namespace

// [SECTION] Accepting, joining, stopping

void ClassServer::Impl::accept() {
  acceptor_.async_accept([this](beast::error_code error, tcp::socket socket) {
    if (stopping_) return;
    if (!error) {
      if (full_of_connections()) {
        // Beyond the bound a connection is closed at once: the descriptors stay within the limit.
        boost::system::error_code ignored;
        socket.close(ignored);
        refused_.fetch_add(1);
      } else {
        connection_opened();
        std::make_shared<HttpSession>(std::move(socket), *this)->start();
      }
    } else if (error == net::error::operation_aborted) {
      return;
    }
    // Other errors (EMFILE, ECONNABORTED) end one accept, not the server.
    accept();
  });
}

bool ClassServer::Impl::on_message(WsSession& session, std::string_view text, std::string& reason) {
  Result<StudentMessage> message = parse_student_message(text);
  if (!message) {
    count_refusal();
    reason = message.error().message;
    return false;
  }
  const Clock::time_point now = Clock::now();
  if (const auto* join = std::get_if<JoinMessage>(&*message)) {
    if (session.joined()) {
      reason = "joined already";
      return false;
    }
    if (!admit(session.address(), join->code)) {
      session.send(std::make_shared<const std::string>(wrong_code_message()));
      reason = "wrong join code";
      return false;
    }
    // A known token is the same student (a reload, a dropped Wi-Fi): their old channel goes.
    std::uint64_t student = 0;
    bool resumed = false;
    if (!join->token.empty())
      if (const auto known = students_by_token_.find(join->token); known != students_by_token_.end()) {
        student = known->second;
        resumed = true;
      }
    std::string token = join->token;
    if (student == 0) {
      if (joined_.size() >= limits().max_students) {
        count_refusal();
        session.send(std::make_shared<const std::string>(full_message()));
        reason = "the class is full";
        return false;
      }
      // Tokens of students gone are forgotten once as many as the class holds are kept.
      const std::lock_guard lock(tokens_mutex_);
      if (students_by_token_.size() >= 4 * limits().max_students) {
        for (auto it = students_by_token_.begin(); it != students_by_token_.end();)
          it = joined_.contains(it->second) ? std::next(it) : students_by_token_.erase(it);
      }
      student = next_student_++;
      if (token.empty() || students_by_token_.contains(token)) token = make_token();
      students_by_token_[token] = student;
    }
    if (const auto old = joined_.find(student); old != joined_.end())
      if (const auto previous = old->second.lock(); previous && previous.get() != &session) {
        joined_.erase(old);
        previous->hard_close();
      }
    session.admit(student);
    joined_[student] = session.weak_from_this();
    students_.store(joined_.size());
    session.send(std::make_shared<const std::string>(welcome_message(token)));
    session.pump();  // the state follows the welcome
    StudentEvent event;
    event.kind = StudentEvent::Kind::joined;
    event.student = student;
    event.resumed = resumed;
    event.nickname = join->nickname;
    event.at = now;
    push_event(std::move(event));
    return true;
  }
  if (!session.joined()) {
    count_refusal();
    reason = "join first";
    return false;
  }
  StudentEvent event;
  event.kind = StudentEvent::Kind::answer;
  event.student = session.student();
  event.answer = std::get<AnswerMessage>(std::move(*message));
  event.at = now;
  push_event(std::move(event));
  return true;
}

void ClassServer::Impl::on_closed(WsSession& session) {
  if (!session.joined()) return;
  const auto found = joined_.find(session.student());
  // Replaced by the same student's new channel: not a leave.
  if (found == joined_.end()) return;
  if (const auto current = found->second.lock(); current && current.get() != &session) return;
  joined_.erase(found);
  students_.store(joined_.size());
  if (stopping_) return;
  StudentEvent event;
  event.kind = StudentEvent::Kind::left;
  event.student = session.student();
  event.at = Clock::now();
  push_event(std::move(event));
}

void ClassServer::Impl::pump_all() {
  for (const auto& [student, weak] : joined_)
    if (const auto session = weak.lock()) session->pump();
}

void ClassServer::Impl::release_state() {
  if (!pending_state_ || release_armed_ || stopping_) return;
  const Clock::time_point now = Clock::now();
  if (const Clock::time_point due = last_release_ + options_.limits.state_interval; now < due) {
    release_armed_ = true;
    release_timer_.expires_at(due);
    release_timer_.async_wait([this](const boost::system::error_code& error) {
      release_armed_ = false;
      if (!error) release_state();
    });
    return;
  }
  state_ = std::move(pending_state_);
  pending_state_.reset();
  state_version_ = pending_version_;
  last_release_ = now;
  pump_all();
}

void ClassServer::Impl::shutdown() {
  stopping_ = true;
  release_timer_.cancel();
  boost::system::error_code ignored;
  acceptor_.close(ignored);
  // Closing runs finish(), which erases from open_: walk a copy.
  std::vector<std::function<void()>> closes;
  for (const auto& [key, open] : open_) closes.push_back(open.close);
  for (const auto& close : closes) close();
  io_.stop();
}

// [SECTION] ClassServer

ClassServer::ClassServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ClassServer::~ClassServer() { stop(); }

Result<std::unique_ptr<ClassServer>> ClassServer::start(ServerOptions options) {
  if (!is_join_code(options.join_code)) return Error::usage("the join code is not 6 letters and digits");
  Result<Site> site = load_site(options.site);
  if (!site) return site.error();
  options.limits.max_connections = std::min(options.limits.max_connections, descriptor_budget());
  for (const auto& [token, student] : options.known_students)
    if (!is_token(token) || student == 0) return Error::usage("a known student's token or number is not allowed");
  auto impl = std::make_unique<Impl>(std::move(options), std::move(*site));
  for (const auto& [token, student] : impl->options_.known_students) {
    impl->students_by_token_[token] = student;
    impl->next_student_ = std::max(impl->next_student_, student + 1);
  }
  const std::string where = impl->options_.address + ":" + std::to_string(impl->options_.port);
  boost::system::error_code error;
  const net::ip::address address = net::ip::make_address(impl->options_.address, error);
  if (error) return Error::usage("cannot listen on '" + impl->options_.address + "': not an IP address");
  const tcp::endpoint endpoint(address, impl->options_.port);
  tcp::acceptor& acceptor = impl->acceptor_;
  if (acceptor.open(endpoint.protocol(), error); error)
    return Error::usage("cannot listen on " + where + ": " + error.message());
  acceptor.set_option(net::socket_base::reuse_address(true), error);
  if (acceptor.bind(endpoint, error); error) return Error::usage("cannot listen on " + where + ": " + error.message());
  if (acceptor.listen(net::socket_base::max_listen_connections, error); error)
    return Error::usage("cannot listen on " + where + ": " + error.message());
  impl->port_ = acceptor.local_endpoint(error).port();
  impl->address_ = impl->options_.address;
  impl->accept();
  Impl& server = *impl;
  impl->job_ = std::make_unique<app::BackgroundJob<Result<void>>>([&server](const Progress& progress) -> Result<void> {
    // Stop (the host's stop(), or the job's destruction) closes everything on this thread.
    const std::stop_callback on_stop(progress.stop_token(),
                                     [&server] { net::post(server.io_, [&server] { server.shutdown(); }); });
    server.io_.run();
    return {};
  });
  return std::unique_ptr<ClassServer>(new ClassServer(std::move(impl)));
}

void ClassServer::stop() {
  if (!impl_ || !impl_->job_) return;
  impl_->job_->cancel();
  impl_->job_.reset();  // joined: every socket is closed, the listening one too
  boost::system::error_code ignored;
  impl_->acceptor_.close(ignored);
}

std::uint16_t ClassServer::port() const { return impl_->port_; }
const std::string& ClassServer::address() const { return impl_->address_; }
const ServerLimits& ClassServer::limits() const { return impl_->options_.limits; }

void ClassServer::publish(std::string message) {
  auto shared = std::make_shared<const std::string>(std::move(message));
  Impl& server = *impl_;
  net::post(server.io_, [&server, shared] {
    server.pending_state_ = shared;
    ++server.pending_version_;
    server.release_state();
  });
}

void ClassServer::share(SharedFiles files) {
  Impl& server = *impl_;
  net::post(server.io_, [&server, files = std::move(files)]() mutable { server.shared_ = std::move(files); });
}

void ClassServer::send_to(std::uint64_t student, std::string message) {
  auto shared = std::make_shared<const std::string>(std::move(message));
  Impl& server = *impl_;
  net::post(server.io_, [&server, student, shared] {
    if (const auto found = server.joined_.find(student); found != server.joined_.end())
      if (const auto session = found->second.lock()) session->send(shared);
  });
}

std::vector<StudentEvent> ClassServer::take_events() {
  const std::lock_guard lock(impl_->mutex_);
  return std::exchange(impl_->events_, {});
}

ServerCounts ClassServer::counts() const {
  return {impl_->students_.load(), impl_->connections_.load(), impl_->refused_.load()};
}

std::vector<std::pair<std::string, std::uint64_t>> ClassServer::known_students() const {
  const std::lock_guard lock(impl_->tokens_mutex_);
  std::vector<std::pair<std::string, std::uint64_t>> known(impl_->students_by_token_.begin(),
                                                           impl_->students_by_token_.end());
  std::sort(known.begin(), known.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  return known;
}

std::string ClassServer::failure() const {
  if (!impl_->job_ || !impl_->job_->done()) return {};
  return "the class's server stopped";
}

std::string content_type(std::string_view file_name) {
  const std::size_t dot = file_name.rfind('.');
  const std::string_view extension = dot == std::string_view::npos ? std::string_view{} : file_name.substr(dot);
  if (extension == ".html") return "text/html; charset=utf-8";
  if (extension == ".js") return "text/javascript; charset=utf-8";
  if (extension == ".wasm") return "application/wasm";
  if (extension == ".json") return "application/json";
  if (extension == ".ttf") return "font/ttf";
  if (extension == ".css") return "text/css; charset=utf-8";
  if (extension == ".svg") return "image/svg+xml";
  if (extension == ".png") return "image/png";
  return "application/octet-stream";
}

}  // namespace smlab::classroom
