// The teacher's side of a class (class_host.hpp).
//
// [SECTION] Index
//   [SECTION] Where the class is: --class, interfaces, addresses, the site
//   [SECTION] Tallies
//   [SECTION] Starting and the students' events
//   [SECTION] Following the teacher's lesson
//   [SECTION] The state the students are sent
//   [SECTION] Answers as CSV
//   [SECTION] A class kept in a session
#include "classroom/class_host.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "export/png.hpp"
#include "files/json_parse.hpp"
#include "files/text_file.hpp"
#include "lesson_player/lesson_player.hpp"
#include "state/presets.hpp"
#include "frame/url_state.hpp"

namespace smlab::classroom {

using nlohmann::json;

// [SECTION] Where the class is: --class, interfaces, addresses, the site

Result<HostAddress> parse_host_address(std::string_view text) {
  const auto refuse = [&] {
    return Error::usage("--class '" + std::string(text.substr(0, 40)) +
                        "' is not allowed: [ADDR:]PORT, PORT from 0 to 65535 (0: any free port), ADDR an IPv4 "
                        "address of this computer, * for every network or localhost");
  };
  HostAddress where;
  std::string_view port = text;
  if (const std::size_t colon = text.rfind(':'); colon != std::string_view::npos) {
    const std::string address(text.substr(0, colon));
    port = text.substr(colon + 1);
    in_addr parsed{};
    if (address == "*" || address == "0.0.0.0")
      where.address = "0.0.0.0";
    else if (address == "localhost")
      where.address = "127.0.0.1";
    else if (::inet_pton(AF_INET, address.c_str(), &parsed) == 1)
      where.address = address;
    else
      return refuse();
  }
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string_view::npos)
    return refuse();
  const int number = std::stoi(std::string(port));
  if (number > 65535) return refuse();
  where.port = static_cast<std::uint16_t>(number);
  return where;
}

std::vector<Interface> local_interfaces() {
  std::vector<Interface> found;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return {{"lo", "127.0.0.1", true}};
  for (const ifaddrs* entry = list; entry != nullptr; entry = entry->ifa_next) {
    if (entry->ifa_addr == nullptr || entry->ifa_addr->sa_family != AF_INET || (entry->ifa_flags & IFF_UP) == 0)
      continue;
    char text[INET_ADDRSTRLEN] = {};
    const auto* address = reinterpret_cast<const sockaddr_in*>(entry->ifa_addr);
    if (::inet_ntop(AF_INET, &address->sin_addr, text, sizeof text) == nullptr) continue;
    found.push_back({entry->ifa_name != nullptr ? entry->ifa_name : "", text, (entry->ifa_flags & IFF_LOOPBACK) != 0});
  }
  ::freeifaddrs(list);
  std::stable_sort(found.begin(), found.end(),
                   [](const Interface& a, const Interface& b) { return !a.loopback && b.loopback; });
  if (found.empty()) found.push_back({"lo", "127.0.0.1", true});
  return found;
}

std::string join_address(std::string_view address, std::uint16_t port) {
  const bool v6 = address.find(':') != std::string_view::npos;
  return "http://" + (v6 ? "[" + std::string(address) + "]" : std::string(address)) + ":" + std::to_string(port) +
         std::string(class_page_path);
}

std::filesystem::path find_site_dir() {
  if (const char* site = std::getenv("SOFTMAX_LAB_SITE"); site != nullptr && *site != '\0') return site;
  std::error_code error;
  const std::filesystem::path installed = app::find_assets_dir() / "site";
  if (std::filesystem::is_directory(installed, error)) return installed;
#ifdef SMLAB_SITE_DIR
  return SMLAB_SITE_DIR;  // a developer build: its `make web` output beside the build tree
#else
  return installed;
#endif
}

// [SECTION] Tallies

namespace {

constexpr std::size_t typed_bins = 8;

}  // namespace

std::vector<Tally> tallies(const Question& question) {
  const app::LessonPredict& predict = question.predict;
  const int votes = question.vote;
  std::vector<Tally> out;
  // Typed numbers: one set of ranges over both votes' answers (and the truth once known).
  double low = 0.0, high = 0.0;
  bool any = false;
  const auto widen = [&](double value) {
    low = any ? std::min(low, value) : value;
    high = any ? std::max(high, value) : value;
    any = true;
  };
  if (predict.choices.empty()) {
    for (int vote = 0; vote < votes; ++vote)
      for (const auto& [student, answer] : question.answers[static_cast<std::size_t>(vote)]) widen(answer.value);
    if (question.truth) widen(*question.truth);
  }
  const std::size_t bins = predict.choices.empty() ? (!any ? 0 : low == high ? 1 : typed_bins) : predict.choices.size();
  const double width = bins > 1 ? (high - low) / static_cast<double>(bins) : 0.0;
  const auto bin_of = [&](double value) -> std::size_t {
    if (!predict.choices.empty()) {
      std::size_t nearest = 0;
      for (std::size_t k = 1; k < predict.choices.size(); ++k)
        if (std::abs(predict.choices[k] - value) < std::abs(predict.choices[nearest] - value)) nearest = k;
      return nearest;
    }
    if (bins <= 1) return 0;
    return std::min(bins - 1, static_cast<std::size_t>(std::max(0.0, std::floor((value - low) / width))));
  };
  for (int vote = 1; vote <= votes; ++vote) {
    Tally tally;
    tally.vote = vote;
    tally.counts.assign(bins, 0);
    for (std::size_t k = 0; k < bins; ++k) {
      if (!predict.choices.empty())
        tally.labels.push_back(app::predict_number(predict.choices[k]));
      else if (bins == 1)
        tally.labels.push_back(app::predict_number(low));
      else
        tally.labels.push_back(app::predict_number(low + width * static_cast<double>(k)) + "–" +
                               app::predict_number(low + width * static_cast<double>(k + 1)));
    }
    for (const auto& [student, answer] : question.answers[static_cast<std::size_t>(vote - 1)]) {
      ++tally.counts[bin_of(answer.value)];
      ++tally.answered;
    }
    if (question.truth && bins > 0) tally.truth = bin_of(*question.truth);
    out.push_back(std::move(tally));
  }
  return out;
}

// [SECTION] Starting and the students' events

Result<std::unique_ptr<ClassHost>> ClassHost::start(HostRequest request) {
  std::unique_ptr<ClassHost> host(new ClassHost());
  host->code_ = request.join_code.empty() ? make_join_code() : request.join_code;
  ServerOptions options;
  options.address = request.address;
  options.port = request.port;
  options.site = request.site;
  options.join_code = host->code_;
  options.limits = request.limits;
  options.wake = std::move(request.wake);
  options.known_students = std::move(request.known_students);
  Result<std::unique_ptr<ClassServer>> server = ClassServer::start(std::move(options));
  if (!server) return server.error();
  host->server_ = std::move(*server);
  host->bound_address_ = request.address;
  return host;
}

ClassHost::~ClassHost() {
  if (server_) server_->stop();
}

std::uint16_t ClassHost::port() const { return server_->port(); }
std::size_t ClassHost::students() const { return server_->counts().students; }

std::size_t ClassHost::answered() const {
  const Question* asked = question();
  return asked == nullptr ? 0 : asked->answers[static_cast<std::size_t>(asked->vote - 1)].size();
}

std::size_t ClassHost::answers_kept() const {
  std::size_t count = 0;
  for (const Question& asked : questions_)
    for (const auto& vote : asked.answers) count += vote.size();
  return count;
}

bool ClassHost::revealed(std::size_t lesson, std::size_t step) const {
  return std::any_of(questions_.begin(), questions_.end(), [&](const Question& asked) {
    return asked.lesson == lesson && asked.step == step && asked.phase == Phase::revealed;
  });
}

std::vector<std::string> ClassHost::join_addresses() const {
  if (bound_address_ != "0.0.0.0") return {join_address(bound_address_, port())};
  std::vector<std::string> addresses;
  for (const Interface& candidate : local_interfaces())
    if (!candidate.loopback) addresses.push_back(join_address(candidate.address, port()));
  if (addresses.empty()) addresses.push_back(join_address("127.0.0.1", port()));
  return addresses;
}

std::string ClassHost::qr_text() const { return join_addresses().front() + "?code=" + code_; }

void ClassHost::update(app::UiState& ui, const Snapshot* snapshot, const DkSweep* sweep) {
  take_events(ui);
  follow_lesson(ui, snapshot, sweep);
  if (ui.params.imported != shared_from_) share_data(ui.params.imported);
  const std::string body = state_body(ui);
  if (body == last_body_) return;
  last_body_ = body;
  json message = json::parse(body);
  message["seq"] = ++sequence_;
  published_ = message.dump();
  server_->publish(published_);
}

// The data as files the students' pages fetch (once each: their names change with their content)
// and import as the address's import= and tokens= do.
void ClassHost::share_data(const std::shared_ptr<const ImportedAttention>& data) {
  shared_from_ = data;
  shared_data_ = {};
  ClassServer::SharedFiles files;
  if (data != nullptr) {
    const std::uint64_t size = imported_npz_size(*data);
    if (size > max_shared_data_bytes) {
      shared_data_.withheld_bytes = size;
    } else {
      const std::vector<std::uint8_t> npz = imported_npz(*data);
      auto bytes = std::make_shared<const std::string>(npz.begin(), npz.end());
      const std::string stem = "class-" + content_hash(*bytes);
      shared_data_.files.push_back(stem + ".npz");
      shared_data_.bytes = bytes->size();
      files[stem + ".npz"] = std::move(bytes);
      if (!data->tokens.empty()) {
        auto tokens = std::make_shared<const std::string>(json(data->tokens).dump());
        shared_data_.files.push_back(stem + "-tokens.json");
        shared_data_.bytes += tokens->size();
        files[stem + "-tokens.json"] = std::move(tokens);
      }
    }
  }
  server_->share(std::move(files));
}

void ClassHost::take_events(const app::UiState& ui) {
  for (const StudentEvent& event : server_->take_events()) {
    switch (event.kind) {
      case StudentEvent::Kind::joined:
        if (!event.nickname.empty()) nicknames_[event.student] = event.nickname;
        send_kept_answer(event.student);  // a page that reconnects shows the answer it gave
        break;
      case StudentEvent::Kind::left: break;
      case StudentEvent::Kind::answer: answer(event, ui); break;
    }
  }
}

void ClassHost::answer(const StudentEvent& event, const app::UiState& ui) {
  const auto refuse = [&](std::string_view why, const std::string& message) {
    server_->send_to(
        event.student,
        json{{"t", "answer"}, {"vote", event.answer.vote}, {"kept", false}, {"why", why}, {"message", message}}.dump());
  };
  // The address's own check of a lesson position with a guess: the lesson, the step and the guess
  // within the step's choices or range.
  const app::LessonLookup position = app::lookup_lesson(ui.lessons, event.answer.answer);
  if (!position || !position->guess) return refuse("invalid", position ? "no answer given" : position.error().message);
  if (current_ >= questions_.size()) return refuse("not_asked", "no question is asked now");
  Question& asked = questions_[current_];
  if (position->lesson != asked.lesson || position->step != asked.step)
    return refuse("not_asked", "that question is not asked now");
  if (event.answer.vote != asked.vote || asked.phase != Phase::open) return refuse("closed", "answering is closed");
  const std::size_t vote = static_cast<std::size_t>(asked.vote - 1);
  const double seconds = std::max(0.0, std::chrono::duration<double>(event.at - asked.opened[vote]).count());
  asked.answers[vote][event.student] = {*position->guess, seconds};
  send_kept_answer(event.student);
}

void ClassHost::send_kept_answer(std::uint64_t student) {
  const Question* asked = question();
  if (asked == nullptr) return;
  const auto& answers = asked->answers[static_cast<std::size_t>(asked->vote - 1)];
  const auto found = answers.find(student);
  if (found == answers.end()) return;
  server_->send_to(student, json{{"t", "answer"},
                                 {"vote", asked->vote},
                                 {"kept", true},
                                 {"answer", asked->position + ":" + app::predict_guess(found->second.value)}}
                                .dump());
}

// [SECTION] Following the teacher's lesson

void ClassHost::follow_lesson(app::UiState& ui, const Snapshot* snapshot, const DkSweep* sweep) {
  const app::LessonStep* step = app::current_step(ui);
  if (step == nullptr || !step->predict) {
    current_ = static_cast<std::size_t>(-1);
    return;
  }
  const app::Lesson& lesson = *app::current_lesson(ui);
  const std::size_t lesson_index = ui.lesson.open->lesson, step_index = ui.lesson.open->step;
  const auto same = [&](const Question& q) { return q.lesson == lesson_index && q.step == step_index; };
  auto found = std::find_if(questions_.begin(), questions_.end(), same);
  if (found == questions_.end()) {
    // A new question: the first vote opens as the step does.
    Question asked;
    asked.lesson = lesson_index;
    asked.step = step_index;
    asked.position = lesson.name + ":" + std::to_string(step_index + 1);
    asked.predict = *step->predict;
    asked.opened[0] = Clock::now();
    questions_.push_back(std::move(asked));
    found = questions_.end() - 1;
  }
  current_ = static_cast<std::size_t>(found - questions_.begin());
  Question& asked = *found;
  if (ui.lesson.revealed && asked.phase != Phase::revealed) {
    // The App revealed (Next on the clicker, the teacher's own guess, the class window's Reveal):
    // so does the class, with the truth the plots show once it is final.
    asked.phase = Phase::revealed;
    asked.shown = true;
  } else if (!ui.lesson.revealed && asked.phase == Phase::revealed) {
    asked.phase = Phase::closed;  // back on the step: the App covers it again, the class too
  }
  if (asked.phase == Phase::revealed && !asked.truth && snapshot != nullptr) {
    const Result<app::PredictionReveal> reveal = app::reveal_prediction(asked.predict, *snapshot, std::nullopt, sweep);
    if (reveal && reveal->converged) {
      asked.truth = reveal->answer;
      asked.truth_text = app::predict_answer(asked.predict, reveal->answer);
    }
  }
}

void ClassHost::close_answering() {
  if (Question* asked = current_ < questions_.size() ? &questions_[current_] : nullptr;
      asked && asked->phase == Phase::open)
    asked->phase = Phase::closed;
}

void ClassHost::reopen_answering() {
  if (Question* asked = current_ < questions_.size() ? &questions_[current_] : nullptr;
      asked && asked->phase == Phase::closed)
    asked->phase = Phase::open;
}

void ClassHost::start_second_vote() {
  Question* asked = current_ < questions_.size() ? &questions_[current_] : nullptr;
  if (asked == nullptr || asked->vote != 1 || asked->phase == Phase::revealed) return;
  asked->vote = 2;
  asked->phase = Phase::open;
  asked->opened[1] = Clock::now();
}

void ClassHost::show_tallies(bool shown) {
  if (current_ < questions_.size()) questions_[current_].shown = shown;
}

// [SECTION] The state the students are sent

std::string ClassHost::state_body(const app::UiState& ui) const {
  app::Session session = app::session_of(ui);
  // A step's glide: the students go straight to where it ends (their pages do not glide).
  if (ui.lesson.animating) session.params = ui.lesson.to;
  // Imported data: the shared files, which each page fetches and imports as the address's import=
  // and tokens= name them; data too large to send stays here, and the students get the lesson's.
  session.imports.clear();
  session.import_tokens.clear();
  if (session.params.imported != nullptr && session.params.imported == shared_from_ && !shared_data_.files.empty()) {
    const std::string folder = std::string(web::import_dir) + "/";
    session.imports.push_back(folder + shared_data_.files.front());
    if (shared_data_.files.size() > 1) session.import_tokens = folder + shared_data_.files.back();
  } else {
    session.params.imported = nullptr;
  }
  const std::vector<web::UrlPair> pairs = web::content_pairs(web::url_pairs(session, false));
  json body{{"t", "state"}, {"query", web::url_query(pairs)}, {"question", nullptr}, {"revealed", nullptr}};
  if (!session.imports.empty()) body["data"] = {{"files", shared_data_.files}, {"bytes", shared_data_.bytes}};
  if (shared_data_.withheld_bytes > 0) body["data_withheld"] = shared_data_.withheld_bytes;
  if (const Question* asked = question()) {
    body["question"] = {{"position", asked->position}, {"vote", asked->vote}, {"open", asked->phase == Phase::open}};
    if (asked->phase == Phase::revealed) {
      body["revealed"] = asked->position;
      if (asked->truth) body["truth"] = asked->truth_text;
    }
    if (asked->shown) {
      json shown = json::array();
      for (const Tally& tally : tallies(*asked)) {
        json one{
            {"vote", tally.vote}, {"labels", tally.labels}, {"counts", tally.counts}, {"answered", tally.answered}};
        if (tally.truth) one["truth"] = *tally.truth;
        shown.push_back(std::move(one));
      }
      body["tallies"] = std::move(shown);
    }
  }
  return body.dump();
}

// [SECTION] Answers as CSV

namespace {

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

// A nickname is a student's own text: one that a spreadsheet would take for a formula (starting
// with =, +, - or @) is written after an apostrophe, which spreadsheets show as text.
std::string nickname_field(std::string_view nickname) {
  if (!nickname.empty() && std::string_view("=+-@").find(nickname.front()) != std::string_view::npos)
    return csv_field("'" + std::string(nickname));
  return csv_field(nickname);
}

}  // namespace

std::string ClassHost::answers_csv() const {
  std::string csv = "step,question,vote,answer,seconds_to_answer,nickname\n";
  for (const Question& asked : questions_)
    for (int vote = 1; vote <= asked.vote; ++vote)
      for (const auto& [student, answer] : asked.answers[static_cast<std::size_t>(vote - 1)]) {
        char seconds[32];
        std::snprintf(seconds, sizeof seconds, "%.1f", answer.seconds);
        const auto nickname = nicknames_.find(student);
        csv += csv_field(asked.position) + "," + csv_field(asked.predict.question.english) + "," +
               std::to_string(vote) + "," + app::predict_guess(answer.value) + "," + seconds + "," +
               (nickname == nicknames_.end() ? std::string() : nickname_field(nickname->second)) + "\n";
      }
  return csv;
}

Result<std::filesystem::path> ClassHost::save_answers(const std::filesystem::path& folder) const {
  const std::string csv = answers_csv();
  return exporting::save_new_file(std::span(reinterpret_cast<const std::uint8_t*>(csv.data()), csv.size()), folder,
                                  "-class-answers.csv", std::chrono::system_clock::now());
}

// [SECTION] A class kept in a session

namespace {

const char* phase_name(Phase phase) {
  return phase == Phase::open ? "open" : phase == Phase::closed ? "closed" : "revealed";
}

std::optional<Phase> phase_from(std::string_view name) {
  if (name == "open") return Phase::open;
  if (name == "closed") return Phase::closed;
  if (name == "revealed") return Phase::revealed;
  return std::nullopt;
}

// The record's limits: a class of max_students over a long course, with room to spare.
inline constexpr std::size_t record_max_bytes = 4u << 20;
inline constexpr std::size_t record_max_questions = 500;
inline constexpr std::size_t record_max_students = 4000;

}  // namespace

std::string ClassHost::record() const {
  json students = json::array();
  for (const auto& [token, student] : server_->known_students()) students.push_back(json::array({token, student}));
  json nicknames = json::array();
  for (const auto& [student, nickname] : nicknames_) nicknames.push_back(json::array({student, nickname}));
  json questions = json::array();
  for (const Question& asked : questions_) {
    json votes = json::array();
    for (int vote = 1; vote <= asked.vote; ++vote) {
      json answers = json::array();
      for (const auto& [student, answer] : asked.answers[static_cast<std::size_t>(vote - 1)])
        answers.push_back(json::array({student, answer.value, answer.seconds}));
      votes.push_back(std::move(answers));
    }
    questions.push_back({{"position", asked.position},
                         {"vote", asked.vote},
                         {"phase", phase_name(asked.phase)},
                         {"shown", asked.shown},
                         {"truth", asked.truth ? json(*asked.truth) : json(nullptr)},
                         {"answers", std::move(votes)}});
  }
  return json{{"code", code_},        {"address", bound_address_}, {"port", port()},
              {"students", students}, {"nicknames", nicknames},    {"questions", questions}}
      .dump();
}

namespace {

Result<json> parse_record(std::string_view record) {
  Result<json> parsed = app::parse_json<json>(record, "the session's class", {record_max_bytes, 8, 16});
  if (!parsed) return parsed.error();
  if (!parsed->is_object()) return Error::usage("the session's class is not an object: allowed {\"code\": …, …}");
  for (const auto& [key, value] : parsed->items())
    if (key != "code" && key != "address" && key != "port" && key != "students" && key != "nicknames" &&
        key != "questions")
      return Error::usage("the session's class has a field '" + app::shown_text(key, 40) +
                          "': allowed code, address, port, students, nicknames, questions");
  return parsed;
}

}  // namespace

Result<HostAddress> ClassHost::record_address(std::string_view record) {
  const Result<json> parsed = parse_record(record);
  if (!parsed) return parsed.error();
  const json& r = *parsed;
  if (!r.contains("address") || !r["address"].is_string() || !r.contains("port") || !r["port"].is_number_unsigned() ||
      r["port"].get<std::uint64_t>() > 65535)
    return Error::usage("the session's class has no usable address and port: allowed an IPv4 address and 0 to 65535");
  Result<HostAddress> where =
      parse_host_address(r["address"].get<std::string>() + ":" + std::to_string(r["port"].get<std::uint64_t>()));
  if (!where) return Error::usage("the session's class: " + where.error().message);
  return where;
}

Result<void> ClassHost::read_record(std::string_view record, const app::LessonList& lessons, HostRequest& request,
                                    std::vector<Question>& questions_out,
                                    std::map<std::uint64_t, std::string>& nicknames_out) {
  const Result<json> parsed = parse_record(record);
  if (!parsed) return parsed.error();
  const json& r = *parsed;
  const auto refuse = [](const std::string& field, const std::string& allowed) {
    return Error::usage("the session's class: '" + field + "' is not allowed: " + allowed);
  };
  if (!r.contains("code") || !r["code"].is_string() || !is_join_code(r["code"].get<std::string>()))
    return refuse("code", "6 of " + std::string(join_code_alphabet));
  request.join_code = r["code"].get<std::string>();
  // The students: each token once, each number once.
  std::vector<std::pair<std::string, std::uint64_t>> known;
  std::map<std::uint64_t, bool> numbers;
  if (r.contains("students")) {
    const json& list = r["students"];
    if (!list.is_array() || list.size() > record_max_students)
      return refuse("students", "a list of at most " + std::to_string(record_max_students) + " [token, number]");
    std::map<std::string, bool> tokens;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const json& one = list[i];
      const std::string field = "students[" + std::to_string(i) + "]";
      if (!one.is_array() || one.size() != 2 || !one[0].is_string() || !is_token(one[0].get<std::string>()) ||
          !one[1].is_number_unsigned() || one[1].get<std::uint64_t>() == 0 ||
          one[1].get<std::uint64_t>() > record_max_students * 16)
        return refuse(field, "[a token of 32 hex digits, a student number from 1]");
      if (tokens[one[0].get<std::string>()] || numbers[one[1].get<std::uint64_t>()])
        return refuse(field, "each token and each number once");
      tokens[one[0].get<std::string>()] = numbers[one[1].get<std::uint64_t>()] = true;
      known.emplace_back(one[0].get<std::string>(), one[1].get<std::uint64_t>());
    }
  }
  const auto known_student = [&](const json& value) {
    return value.is_number_unsigned() && numbers.contains(value.get<std::uint64_t>());
  };
  std::map<std::uint64_t, std::string> nicknames;
  if (r.contains("nicknames")) {
    const json& list = r["nicknames"];
    if (!list.is_array() || list.size() > record_max_students)
      return refuse("nicknames", "a list of [student number, nickname]");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const json& one = list[i];
      if (!one.is_array() || one.size() != 2 || !known_student(one[0]) || !one[1].is_string() ||
          one[1].get<std::string>().empty() || !check_nickname(one[1].get<std::string>()))
        return refuse("nicknames[" + std::to_string(i) + "]",
                      "[a known student's number, a nickname of printable text up to " +
                          std::to_string(max_nickname_bytes) + " bytes]");
      nicknames[one[0].get<std::uint64_t>()] = one[1].get<std::string>();
    }
  }
  // The questions: each a lesson's predict step (the address's lesson= lookup), once; each answer
  // a known student's, within the step's range or choices (as a student's answer is checked).
  std::vector<Question> questions;
  if (r.contains("questions")) {
    const json& list = r["questions"];
    if (!list.is_array() || list.size() > record_max_questions)
      return refuse("questions", "a list of at most " + std::to_string(record_max_questions) + " questions");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const json& one = list[i];
      const std::string field = "questions[" + std::to_string(i) + "]";
      if (!one.is_object()) return refuse(field, "an object");
      for (const auto& [key, value] : one.items())
        if (key != "position" && key != "vote" && key != "phase" && key != "shown" && key != "truth" &&
            key != "answers")
          return refuse(field + "." + app::shown_text(key, 40), "position, vote, phase, shown, truth, answers");
      if (!one.contains("position") || !one["position"].is_string())
        return refuse(field + ".position", "a lesson step, NAME:STEP");
      const std::string position = one["position"].get<std::string>();
      const app::LessonLookup step = app::lookup_lesson(lessons, position);
      if (!step) return Error::usage("the session's class: '" + field + ".position': " + step.error().message);
      const app::LessonStep& lesson_step = lessons.lessons[step->lesson].steps[step->step];
      if (!lesson_step.predict) return refuse(field + ".position", "a step that asks a question");
      Question asked;
      asked.lesson = step->lesson;
      asked.step = step->step;
      asked.position = lessons.lessons[step->lesson].name + ":" + std::to_string(step->step + 1);
      asked.predict = *lesson_step.predict;
      for (const Question& before : questions)
        if (before.position == asked.position) return refuse(field + ".position", "each step once");
      if (!one.contains("vote") || !one["vote"].is_number_integer() || one["vote"].get<std::int64_t>() < 1 ||
          one["vote"].get<std::int64_t>() > 2)
        return refuse(field + ".vote", "1 or 2");
      asked.vote = static_cast<int>(one["vote"].get<std::int64_t>());
      const auto phase = one.contains("phase") && one["phase"].is_string() ? phase_from(one["phase"].get<std::string>())
                                                                           : std::nullopt;
      if (!phase) return refuse(field + ".phase", "open, closed or revealed");
      asked.phase = *phase;
      if (one.contains("shown") && !one["shown"].is_boolean()) return refuse(field + ".shown", "true or false");
      asked.shown = one.value("shown", false);
      const auto guess_allowed = [&](double value) {
        const app::LessonLookup checked = app::lookup_lesson(lessons, asked.position + ":" + app::predict_guess(value));
        return checked && checked->guess.has_value();
      };
      if (one.contains("truth") && !one["truth"].is_null()) {
        if (!one["truth"].is_number() || !std::isfinite(one["truth"].get<double>()))
          return refuse(field + ".truth", "a number or null");
        asked.truth = one["truth"].get<double>();
        asked.truth_text = app::predict_answer(asked.predict, *asked.truth);
      }
      if (!one.contains("answers") || !one["answers"].is_array() ||
          one["answers"].size() != static_cast<std::size_t>(asked.vote))
        return refuse(field + ".answers", "one list of answers per vote taken");
      for (std::size_t vote = 0; vote < one["answers"].size(); ++vote) {
        const json& answers = one["answers"][vote];
        if (!answers.is_array() || answers.size() > record_max_students)
          return refuse(field + ".answers[" + std::to_string(vote) + "]", "a list of [student, answer, seconds]");
        for (std::size_t k = 0; k < answers.size(); ++k) {
          const json& a = answers[k];
          const std::string at = field + ".answers[" + std::to_string(vote) + "][" + std::to_string(k) + "]";
          if (!a.is_array() || a.size() != 3 || !known_student(a[0]) || !a[1].is_number() || !a[2].is_number() ||
              !std::isfinite(a[2].get<double>()) || a[2].get<double>() < 0.0 ||
              asked.answers[vote].contains(a[0].get<std::uint64_t>()))
            return refuse(at, "[a known student's number (once a vote), the answer, seconds >= 0]");
          const double value = a[1].get<double>();
          if (!std::isfinite(value) || !guess_allowed(value))
            return refuse(at, "an answer within the question's range or choices");
          asked.answers[vote][a[0].get<std::uint64_t>()] = {value, a[2].get<double>()};
        }
      }
      // A vote open again is open from now: its seconds to answer count from the reopening.
      asked.opened[0] = asked.opened[1] = Clock::now();
      questions.push_back(std::move(asked));
    }
  }
  request.known_students = std::move(known);
  questions_out = std::move(questions);
  nicknames_out = std::move(nicknames);
  return {};
}

Result<void> ClassHost::check_record(std::string_view record, const app::LessonList& lessons) {
  HostRequest request;
  std::vector<Question> questions;
  std::map<std::uint64_t, std::string> nicknames;
  return read_record(record, lessons, request, questions, nicknames);
}

Result<std::unique_ptr<ClassHost>> ClassHost::reopen(HostRequest request, std::string_view record,
                                                     const app::LessonList& lessons) {
  std::vector<Question> questions;
  std::map<std::uint64_t, std::string> nicknames;
  if (Result<void> read = read_record(record, lessons, request, questions, nicknames); !read) return read.error();
  Result<std::unique_ptr<ClassHost>> started = start(std::move(request));
  if (!started) return started.error();
  (*started)->questions_ = std::move(questions);
  (*started)->nicknames_ = std::move(nicknames);
  return started;
}

}  // namespace smlab::classroom
