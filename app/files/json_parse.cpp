// parse_json: the guarded parse shared by every JSON input (json_parse.hpp).
#include "files/json_parse.hpp"
#include "files/text_file.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace smlab::app {
namespace {

std::string size_limit(std::size_t max_bytes) {
  constexpr std::size_t megabyte = std::size_t{1} << 20;
  if (max_bytes % megabyte == 0) return std::to_string(max_bytes / megabyte) + " MB";
  return std::to_string(max_bytes) + " bytes";
}

}  // namespace

template <typename Json>
Result<Json> parse_json(std::string_view text, std::string_view subject, const JsonLimits& limits) {
  // "lesson is not valid JSON", or "not valid JSON" where the caller names the file itself.
  const std::string subject_is = subject.empty() ? std::string() : std::string(subject) + " is ";
  const std::string subject_does = subject.empty() ? std::string() : std::string(subject) + " ";
  if (text.size() > limits.max_bytes) return Error::usage(subject_is + "larger than " + size_limit(limits.max_bytes));
  if (Result<void> checked = check_json_text(text, limits.max_depth, limits.max_keys); !checked)
    return Error::usage(subject_does + checked.error().message);
  try {
    return Json::parse(text);
  } catch (const typename Json::parse_error& e) {
    return Error::usage(subject_is + json_syntax_error(text, e.byte));
  } catch (const typename Json::out_of_range& e) {
    // "number overflow parsing '1e999'": the lexer has checked the token is a number.
    const std::string what = e.what();
    return Error::usage(subject_is + "not valid JSON: " +
                        what.substr(what.find("] ") == std::string::npos ? 0 : what.find("] ") + 2, 80));
  } catch (const typename Json::exception&) {
    return Error::usage(subject_is + "not valid JSON");
  }
}

template Result<nlohmann::json> parse_json<nlohmann::json>(std::string_view, std::string_view, const JsonLimits&);
template Result<nlohmann::ordered_json> parse_json<nlohmann::ordered_json>(std::string_view, std::string_view,
                                                                           const JsonLimits&);

}  // namespace smlab::app
