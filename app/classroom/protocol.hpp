// What the class's server and the students' pages say to each other over the WebSocket channel:
// one JSON object per text message, {"t": TYPE, …}. A student's message is read by the guarded
// JSON parse (files/json_parse.hpp) within student_message_limits and checked field by field here;
// the answer in it is a lesson position as the page's address writes it (NAME:STEP:GUESS), which
// the teacher's host checks with the lessons' own lookup (the address's lesson= check).
//
//   student → server  {"t":"join","code":"K7P2QX","token":"<32 hex or empty>","nick":"<optional>"}
//                     {"t":"answer","vote":1,"answer":"why-softmax:4:0.665"}
//   server → student  {"t":"welcome","token":"…"}  {"t":"full"}  {"t":"wrong_code"}
//                     {"t":"state",…} (class_host.hpp)  {"t":"answer",…} (the answer kept, or why not)
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "smlab/error.hpp"

namespace smlab::classroom {

// The path of the channel on the class's server; the site's files are everything else.
inline constexpr std::string_view channel_path = "/class/ws";
// The page in class mode: the site's index.html under this path (a short address to type).
inline constexpr std::string_view class_page_path = "/class";
// The files the teacher shares with the class (imported data), each at this path and its name, to a
// request whose query holds the join code: /class/data/NAME?code=K7P2QX.
inline constexpr std::string_view data_path = "/class/data/";

// A join code: six characters without the look-alikes (0/O, 1/I): 32^6 ≈ 10^9 codes.
inline constexpr std::size_t join_code_length = 6;
inline constexpr std::string_view join_code_alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
// A student's token: what makes a reconnect the same student (kept in the page's session storage).
inline constexpr std::size_t token_length = 32;  // hex digits: 128 random bits
// An optional nickname: printable UTF-8, no control characters, at most this many bytes.
inline constexpr std::size_t max_nickname_bytes = 32;
// A student's message, whole (the server's WebSocket read limit; fragments count together).
inline constexpr std::size_t max_student_message_bytes = 512;
// NAME:STEP:GUESS: a lesson name (64), a step and a number as typed (64) fit well inside.
inline constexpr std::size_t max_answer_bytes = 160;

struct JoinMessage {
  std::string code;
  std::string token;  // empty: a new student
  std::string nickname;
  friend bool operator==(const JoinMessage&, const JoinMessage&) = default;
};

// vote 1 or 2 (peer instruction's second vote after discussion).
struct AnswerMessage {
  int vote = 1;
  std::string answer;  // NAME:STEP:GUESS, as the page's address writes a lesson position
  friend bool operator==(const AnswerMessage&, const AnswerMessage&) = default;
};

using StudentMessage = std::variant<JoinMessage, AnswerMessage>;

// A student's message, or an Error::usage of one line saying what is wrong with it (the server
// closes the channel with it). Checks: the guarded parse (size, UTF-8, nesting, keys), an object,
// a known "t", exactly the fields of that type, each of its type and length.
Result<StudentMessage> parse_student_message(std::string_view text);

// A new random join code / token (the system's random device).
std::string make_join_code();
std::string make_token();
bool is_join_code(std::string_view text);
bool is_token(std::string_view text);
// Success, or why `nickname` is refused (control characters, not UTF-8, too long).
Result<void> check_nickname(std::string_view nickname);

// 16 hex digits that change with `bytes` (FNV-1a, 64 bits): a file's entity tag and a shared
// file's name. Not a defence against a forger: the join code keeps strangers out.
std::string content_hash(std::string_view bytes);

// The server's short messages.
std::string welcome_message(std::string_view token);
std::string full_message();
std::string wrong_code_message();

}  // namespace smlab::classroom
