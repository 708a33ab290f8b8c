// The one guarded JSON parse (app/files/json_parse.hpp): each way a text is refused says so in one
// Error::usage line, with or without the subject the caller names, and a good text parses whole.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>

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

TEST(JsonParse, AWholeMegabyteLimitIsSaidInMegabytes) {
  const JsonLimits one_megabyte{1 << 20, 8, 64};
  EXPECT_EQ(refusal(std::string((1 << 20) + 1, ' '), "session", one_megabyte), "session is larger than 1 MB");
}

}  // namespace
