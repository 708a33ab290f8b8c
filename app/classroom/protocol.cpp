// The class channel's messages (protocol.hpp): a student's read and checked, the server's written.
#include "classroom/protocol.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <random>

#include "files/json_parse.hpp"
#include "files/utf8.hpp"

namespace smlab::classroom {
namespace {

using nlohmann::json;

// A student's message holds one flat object of at most four fields.
const app::JsonLimits student_message_limits{max_student_message_bytes, 2, 8};

Error refused(std::string why) { return Error::usage("message refused: " + std::move(why)); }

// The fields `object` has beyond `allowed`: the first one, or empty.
std::string unexpected_field(const json& object, std::initializer_list<std::string_view> allowed) {
  for (const auto& [name, value] : object.items())
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) return name.substr(0, 24);
  return {};
}

Result<std::string> string_field(const json& object, const char* name, std::size_t max_bytes, bool required) {
  if (!object.contains(name)) {
    if (required) return refused(std::string("\"") + name + "\" is missing");
    return std::string();
  }
  const json& value = object.at(name);
  if (!value.is_string()) return refused(std::string("\"") + name + "\" is not a string");
  std::string text = value.get<std::string>();
  if (text.size() > max_bytes)
    return refused(std::string("\"") + name + "\" is longer than " + std::to_string(max_bytes) + " bytes");
  return text;
}

std::string random_text(std::string_view alphabet, std::size_t length) {
  std::random_device device;
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
  std::string text;
  for (std::size_t k = 0; k < length; ++k) text += alphabet[pick(device)];
  return text;
}

std::string typed(std::string_view type) { return json{{"t", type}}.dump(); }

}  // namespace

Result<StudentMessage> parse_student_message(std::string_view text) {
  Result<json> parsed = app::parse_json<json>(text, "", student_message_limits);
  if (!parsed) return refused(parsed.error().message);
  const json& object = *parsed;
  if (!object.is_object()) return refused("not a JSON object");
  const Result<std::string> type = string_field(object, "t", 16, true);
  if (!type) return type.error();
  if (*type == "join") {
    if (const std::string extra = unexpected_field(object, {"t", "code", "token", "nick"}); !extra.empty())
      return refused("unknown field \"" + extra + "\" in join: allowed code, token, nick");
    JoinMessage join;
    Result<std::string> code = string_field(object, "code", 16, true);
    if (!code) return code.error();
    Result<std::string> token = string_field(object, "token", token_length, false);
    if (!token) return token.error();
    Result<std::string> nickname = string_field(object, "nick", max_nickname_bytes, false);
    if (!nickname) return nickname.error();
    if (!token->empty() && !is_token(*token)) return refused("the token is not 32 hex digits");
    if (Result<void> checked = check_nickname(*nickname); !checked) return checked.error();
    join.code = std::move(*code);
    join.token = std::move(*token);
    join.nickname = std::move(*nickname);
    return StudentMessage{std::move(join)};
  }
  if (*type == "answer") {
    if (const std::string extra = unexpected_field(object, {"t", "vote", "answer"}); !extra.empty())
      return refused("unknown field \"" + extra + "\" in answer: allowed vote, answer");
    if (!object.contains("vote") || !object["vote"].is_number_integer() || object["vote"].get<std::int64_t>() < 1 ||
        object["vote"].get<std::int64_t>() > 2)
      return refused("\"vote\" is not 1 or 2");
    Result<std::string> answer = string_field(object, "answer", max_answer_bytes, true);
    if (!answer) return answer.error();
    return StudentMessage{AnswerMessage{static_cast<int>(object["vote"].get<std::int64_t>()), std::move(*answer)}};
  }
  return refused("unknown type \"" + type->substr(0, 16) + "\": allowed join, answer");
}

std::string make_join_code() { return random_text(join_code_alphabet, join_code_length); }
std::string make_token() { return random_text("0123456789abcdef", token_length); }

bool is_join_code(std::string_view text) {
  return text.size() == join_code_length && text.find_first_not_of(join_code_alphabet) == std::string_view::npos;
}

bool is_token(std::string_view text) {
  return text.size() == token_length && text.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

Result<void> check_nickname(std::string_view nickname) {
  if (nickname.size() > max_nickname_bytes)
    return refused("the nickname is longer than " + std::to_string(max_nickname_bytes) + " bytes");
  if (app::first_invalid_utf8(nickname) != std::string_view::npos) return refused("the nickname is not UTF-8");
  for (const char c : nickname)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return refused("the nickname holds a control character");
  return {};
}

std::string content_hash(std::string_view bytes) {
  std::uint64_t hash = 1469598103934665603ull;
  for (const char c : bytes) hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  char text[20];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

std::string welcome_message(std::string_view token) { return json{{"t", "welcome"}, {"token", token}}.dump(); }
std::string full_message() { return typed("full"); }
std::string wrong_code_message() { return typed("wrong_code"); }

}  // namespace smlab::classroom
