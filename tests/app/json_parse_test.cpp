// The one guarded JSON parse (app/files/json_parse.hpp): each way a text is refused says so in one
// Error::usage line, with or without the subject the caller names, and a good text parses whole.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <utility>

#include "files/json_parse.hpp"

namespace {

using smlab::Error;
using smlab::Result;
using smlab::app::JsonLimits;
using smlab::app::parse_json;

constexpr JsonLimits small_limits{64, 3, 4};

std::string refusal(const std::string& text, std::string_view subject, const JsonLimits& limits = small_limits) {
  const Result<nlohmann::ordered_json> parsed = parse_json<nlohmann::ordered_json>(text, subject, limits);
  if (parsed) return "(parsed)";
  EXPECT_EQ(parsed.error().kind, Error::Kind::usage) << "text: " << text;
  return parsed.error().message;
}

TEST(JsonParse, AGoodTextParsesWholeInItsKeyOrder) {
  const Result<nlohmann::ordered_json> parsed =
      parse_json<nlohmann::ordered_json>(R"({"b": 1, "a": [2, 3]})", "lesson", small_limits);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->dump(), R"({"b":1,"a":[2,3]})");
  const Result<nlohmann::json> plain = parse_json<nlohmann::json>(R"({"k": "v"})", "", small_limits);
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_EQ((*plain)["k"], "v");
}

TEST(JsonParse, EachRefusalNamesTheSubjectOrLeavesItToTheCaller) {
  struct Case {
    std::string text;
    std::string with_subject;  // subject "lesson"
    std::string without;       // subject ""
  };
  const Case cases[] = {
      {std::string(65, ' '), "lesson is larger than 64 bytes", "larger than 64 bytes"},
      {"[[[[1]]]]", "lesson nests deeper than 3 levels", "nests deeper than 3 levels"},
      {R"({"a":1,"b":2,"c":3,"d":4,"e":5})", "lesson has an object with more than 4 keys",
       "has an object with more than 4 keys"},
      {R"({"a":1,"a":2})", "lesson has the key \"a\" twice in one object", "has the key \"a\" twice in one object"},
      {std::string("{\"a\":1}\0", 8), "lesson holds a NUL byte at byte 8: not a JSON text file",
       "holds a NUL byte at byte 8: not a JSON text file"},
      {"{\n  \"a\": tru\n}", "lesson is not valid JSON at line 2, column 11", "not valid JSON at line 2, column 11"},
      {"[1e999]", "lesson is not valid JSON: number overflow parsing '1e999'",
       "not valid JSON: number overflow parsing '1e999'"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(refusal(c.text, "lesson"), c.with_subject) << "text: " << c.text;
    EXPECT_EQ(refusal(c.text, ""), c.without) << "text: " << c.text;
  }
}

// A key spelt twice, once with escapes: the parser reads both as one key and keeps the last, so the
// check compares keys as the parser reads them (every escape JSON has, a surrogate pair as one
// character), at any depth, and names the key as read.
TEST(JsonParse, AKeyTwiceIsRefusedHoweverItsCharactersAreEscaped) {
  const JsonLimits limits{4096, 8, 64};
  const std::pair<std::string, std::string> cases[] = {
      {R"({"version":1,"params":{"temperature":0.5,"\u0074emperature":2}})", "temperature"},
      {R"({"params":{},"\u0070arams":{}})", "params"},
      {R"({"\u0070\u0061rams":1,"params":2})", "params"},
      {R"({"a\/b":1,"a/b":2})", "a/b"},
      {R"({"tab\tkey":1,"tab\u0009key":2})", "tab key"},
      {R"({"\u00e9t\u00E9":1,"été":2})", "été"},
      {R"({"\ud83d\ude00":1,"😀":2})", "😀"},
      {R"({"q\"":1,"q\u0022":2})", "q\""},
      {R"([{"x":1},{"k":{"\u006b":1,"k":2}}])", "k"},
  };
  for (const auto& [text, key] : cases)
    EXPECT_EQ(refusal(text, "session", limits), "session has the key \"" + key + "\" twice in one object")
        << "text: " << text;
  // Keys that only look alike stay apart: a different character, an escaped backslash.
  for (const std::string text :
       {R"({"\u0074emperaturE":1,"temperature":2})", R"({"a\\u0062":1,"ab":2})", R"({"k":{"x":1},"x":{"k":2}})"})
    EXPECT_EQ(refusal(text, "session", limits), "(parsed)") << "text: " << text;
}

TEST(JsonParse, AWholeMegabyteLimitIsSaidInMegabytes) {
  const JsonLimits one_megabyte{1 << 20, 8, 64};
  EXPECT_EQ(refusal(std::string((1 << 20) + 1, ' '), "session", one_megabyte), "session is larger than 1 MB");
}

}  // namespace
