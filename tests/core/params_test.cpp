// Params: one validation for every entry point; errors name key, value and range.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "smlab/assignments.hpp"
#include "smlab/params.hpp"

namespace smlab {
namespace {

TEST(Params, DefaultsAreValid) { EXPECT_TRUE(validate(Params{}).ok()); }

TEST(Params, SetAcceptsEveryKeyAndRoundTrips) {
  Params p;
  EXPECT_TRUE(set_param(p, "temperature", "0.3").ok());
  EXPECT_TRUE(set_param(p, "d_k", "256").ok());
  EXPECT_TRUE(set_param(p, "score_scale", "2.5").ok());
  EXPECT_TRUE(set_param(p, "seq_len", "100").ok());
  EXPECT_TRUE(set_param(p, "seed", "123456789").ok());
  EXPECT_TRUE(set_param(p, "scaled", "false").ok());
  EXPECT_TRUE(set_param(p, "row", "99").ok());
  EXPECT_TRUE(set_param(p, "scores", "1, 2.5, -inf, 1e-300").ok());
  EXPECT_TRUE(set_param(p, "alpha", "1.25").ok());
  EXPECT_TRUE(set_param(p, "format", "bf16").ok());
  EXPECT_TRUE(set_param(p, "gamma", "3").ok());
  EXPECT_TRUE(set_param(p, "qk_norm", "4").ok());
  EXPECT_TRUE(set_param(p, "pe_amplitude", "0").ok());
  EXPECT_TRUE(set_param(p, "heads", "8").ok());
  EXPECT_TRUE(set_param(p, "causal", "on").ok());
  EXPECT_TRUE(set_param(p, "nudge", "-0.5").ok());
  EXPECT_EQ(p.format, Format::bf16);
  EXPECT_TRUE(p.causal);
  EXPECT_EQ(p.heads, 8);
  EXPECT_EQ(p.temperature, 0.3);
  EXPECT_EQ(p.key_dim, 256);
  EXPECT_EQ(p.seq_len, 100);
  EXPECT_EQ(p.row, 99);
  EXPECT_FALSE(p.scaled);
  ASSERT_EQ(p.scores.size(), 4u);
  EXPECT_TRUE(std::isinf(p.scores[2]) && p.scores[2] < 0);
  Params copy;
  for (const ParamKey& key : param_keys()) {
    const auto text = get_param(p, key.name);
    ASSERT_TRUE(text) << key.name;
    EXPECT_TRUE(set_param(copy, key.name, *text).ok()) << key.name << "=" << *text;
  }
  EXPECT_EQ(copy, p);
}

struct BadValue {
  const char* key;
  std::string value;
};

class RejectsBadValue : public ::testing::TestWithParam<BadValue> {};

// Every rejection leaves Params untouched and names the key and what is allowed.
TEST_P(RejectsBadValue, WithOneLineNamingKeyAndRange) {
  const BadValue bad = GetParam();
  Params p;
  const Params before = p;
  const Result<void> set = set_param(p, bad.key, bad.value);
  ASSERT_FALSE(set.ok()) << bad.key << "=" << bad.value;
  EXPECT_EQ(p, before);
  const std::string& message = set.error().message;
  EXPECT_NE(message.find(bad.key), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_LT(message.size(), 300u) << message;
}

INSTANTIATE_TEST_SUITE_P(
    Params, RejectsBadValue,
    ::testing::Values(BadValue{"temperature", "-1"}, BadValue{"temperature", "0"}, BadValue{"temperature", "nan"},
                      BadValue{"temperature", "inf"}, BadValue{"temperature", ""}, BadValue{"temperature", "abc"},
                      BadValue{"temperature", "1e999"}, BadValue{"temperature", "100.0001"},
                      BadValue{"temperature", std::string(10000, '7')}, BadValue{"d_k", "abc"}, BadValue{"d_k", "0"},
                      BadValue{"d_k", "4097"}, BadValue{"d_k", "2.5"}, BadValue{"d_k", "99999999999999999999999"},
                      BadValue{"score_scale", "0.001"}, BadValue{"seq_len", "1"}, BadValue{"seq_len", "4097"},
                      BadValue{"seed", "-1"}, BadValue{"seed", "9007199254740993"}, BadValue{"scaled", "maybe"},
                      BadValue{"row", "16"}, BadValue{"row", "-1"}, BadValue{"scores", "1, nan, 2"},
                      BadValue{"scores", "1, inf"}, BadValue{"scores", "-inf, -inf"}, BadValue{"scores", "1, two, 3"},
                      BadValue{"nonsense", "1"}, BadValue{"alpha", "0.5"}, BadValue{"alpha", "2.5"},
                      BadValue{"format", "fp12"}, BadValue{"format", ""}, BadValue{"gamma", "0"},
                      BadValue{"qk_norm", "50"}, BadValue{"pe_amplitude", "-1"}, BadValue{"heads", "0"},
                      BadValue{"heads", "17"}, BadValue{"causal", "maybe"}, BadValue{"nudge", "4"},
                      BadValue{"nudge", "nan"}));

// Every key against the values that break most parsers, in-process (tests/app/reliability_test.cpp
// runs a sample of them through the real command line): each is refused in one line naming the key
// with Params untouched, or accepted as a value that key allows (nudge=-1, scores= for "the row").
TEST(Params, EveryKeyRejectsEveryBadValueWithOneLineNamingTheKey) {
  const std::vector<std::string> bad_values = {"",   "nan",   "inf", "-inf",
                                               "-1", "1e999", "abc", std::string(10'000, '7')};
  int refused = 0;
  for (const ParamKey& key : param_keys()) {
    for (const std::string& value : bad_values) {
      SCOPED_TRACE(std::string(key.name) + "=" + value.substr(0, 20));
      Params params;
      const Params before = params;
      const Result<void> set = set_param(params, key.name, value);
      if (set.ok()) {  // accepted: a legitimate value for this key
        EXPECT_TRUE(validate(params).ok());
        continue;
      }
      ++refused;
      EXPECT_EQ(params, before);
      EXPECT_EQ(set.error().kind, Error::Kind::usage);
      const std::string& message = set.error().message;
      EXPECT_NE(message.find(key.name), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
      EXPECT_LT(message.size(), 400u) << message;
    }
  }
  // Every key x 8 values minus the few legitimate ones (at least the first 16 keys' worth).
  EXPECT_GE(refused, 115) << "too many values were accepted";
}

TEST(Params, ErrorTextIsSpecific) {
  Params p;
  const Result<void> set = set_param(p, "temperature", "-1");
  ASSERT_FALSE(set.ok());
  const std::string& message = set.error().message;
  EXPECT_NE(message.find("-1"), std::string::npos) << message;
  EXPECT_NE(message.find("0.01"), std::string::npos) << message;
  EXPECT_NE(message.find("100"), std::string::npos) << message;
  const Result<void> unknown = set_param(p, "tempreature", "1");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("temperature"), std::string::npos)
      << "lists allowed keys: " << unknown.error().message;
  // A bad value is bad usage: exit code 2 wherever it surfaces (--set, a session, a lesson).
  EXPECT_EQ(set.error().kind, Error::Kind::usage);
  EXPECT_EQ(unknown.error().kind, Error::Kind::usage);
}

TEST(Params, ShorteningSequenceClampsRow) {
  Params p;
  ASSERT_TRUE(set_param(p, "row", "15").ok());
  ASSERT_TRUE(set_param(p, "seq_len", "4").ok());
  EXPECT_EQ(p.row, 3);
}

TEST(Params, ValidateCatchesDirectEdits) {
  Params p;
  p.key_dim = 0;
  EXPECT_FALSE(validate(p).ok());
  p = Params{};
  p.scores = {1.0, std::nan("")};
  EXPECT_FALSE(validate(p).ok());
  p = Params{};
  p.scores.assign(5000, 1.0);
  EXPECT_FALSE(validate(p).ok());
}

TEST(ParseScores, SeparatorsAndErrors) {
  const Result<std::vector<double>> ok = parse_scores(" [1,2 ;3]\n4 ");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, (std::vector<double>{1, 2, 3, 4}));
  const Result<std::vector<double>> blank = parse_scores("");
  ASSERT_TRUE(blank.ok());
  EXPECT_TRUE(blank->empty());
  const Result<std::vector<double>> bad = parse_scores("1, 2, x3");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("entry 3"), std::string::npos) << bad.error().message;
  std::string many;
  for (int i = 0; i < 5000; ++i) many += "1,";
  EXPECT_FALSE(parse_scores(many).ok());
}

TEST(ParseScores, FormatRoundTripsExactly) {
  const std::vector<double> scores{0.1, -2.5e-300, 1e300, -std::numeric_limits<double>::infinity(), 3.0};
  const Result<std::vector<double>> parsed = parse_scores(format_scores(scores));
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(*parsed, scores);
}

}  // namespace
}  // namespace smlab

namespace smlab {
namespace {

// The key table is the one source of the ranges: the --list-keys text of every number with a
// fixed range names its kind, set_param accepts both ends of [min, max] and rejects values just
// outside them.
TEST(ParamKeys, RangesComeFromTheTable) {
  int numbers = 0;
  for (const ParamKey& key : param_keys()) {
    if (!key.is_real() && !key.is_integer()) continue;
    if (key.name == "row" || key.name == "batch" || key.name == "head" || key.name == "seed") continue;
    // As seed: 2^53 + 1 prints as 2^53. As row's top: train_vocab's bottom depends on train_seq_len.
    if (key.name == "train_seed" || key.name == "train_vocab") continue;
    ++numbers;
    const std::string lo = get_param(Params{}, key.name).value_or("");
    for (double end : {key.min, key.max}) {
      Params at = Params{};
      char text[64];
      std::snprintf(text, sizeof text, key.is_real() ? "%.17g" : "%.0f", end);
      EXPECT_TRUE(set_param(at, key.name, text).ok()) << key.name << "=" << text;
    }
    // Reals: a millionth beyond the end (a subnormal step would read back as 0); integers: 1.
    const double outside_low = key.is_real() ? key.min - 1e-6 * (1.0 + std::abs(key.min)) : key.min - 1;
    const double outside_high = key.is_real() ? key.max + 1e-6 * (1.0 + std::abs(key.max)) : key.max + 1;
    for (double outside : {outside_low, outside_high}) {
      Params at = Params{};
      char text[64];
      std::snprintf(text, sizeof text, key.is_real() ? "%.17g" : "%.0f", outside);
      EXPECT_FALSE(set_param(at, key.name, text).ok()) << key.name << "=" << text << " was accepted";
    }
    EXPECT_NE(key.allowed.find(key.is_real() ? "a number from " : "an integer from "), std::string_view::npos)
        << key.name;
    EXPECT_FALSE(lo.empty()) << key.name;
  }
  EXPECT_GE(numbers, 10);
}

// A lesson's blend: at t = 0.5 a logarithmic key (range above 0) is at the geometric mean of its
// ends, a linear one at the arithmetic mean (to a few ulps: exp∘log rounds), integers rounded;
// keys that do not blend (seed, flags, format, scores) are the target's at once.
TEST(ParamKeys, BlendMovesEachKeyOnItsScale) {
  Params from, to;
  from.temperature = 0.1;
  to.temperature = 10.0;
  from.alpha = 1.0;
  to.alpha = 2.0;
  from.seq_len = 4;
  to.seq_len = 64;
  from.row = 0;
  to.row = 60;
  from.seed = 1;
  to.seed = 99;
  to.causal = true;
  const Params mid = blend_params(from, to, 0.5);
  EXPECT_NEAR(mid.temperature, 1.0, 1e-14);  // √(0.1 · 10)
  EXPECT_NEAR(mid.alpha, 1.5, 1e-15);
  EXPECT_EQ(mid.seq_len, 16);  // √(4 · 64)
  EXPECT_EQ(mid.row, 15);      // 30 on its own, but below the blended seq_len
  EXPECT_EQ(mid.seed, 99u);
  EXPECT_TRUE(mid.causal);
  EXPECT_TRUE(validate(mid).ok()) << validate(mid).error().message;
}

// Several keys at once (--set, a session's "params") are one set: a check between keys is made on
// the whole of it, whatever order the keys were typed or are applied in. recall needs vocab ≥ L − 1:
// vocab 2 beside the default L = 9 is refused alone, yet train_seq_len=3 with train_vocab=2 is a
// valid pair (the key table applies train_vocab first, so it was refused against L = 9).
TEST(Assignments, KeysThatDependOnEachOtherAreCheckedOnTheWholeSet) {
  for (const std::vector<std::string>& typed :
       {std::vector<std::string>{"train_seq_len=3", "train_vocab=2"},
        std::vector<std::string>{"train_vocab=2", "train_seq_len=3"},
        std::vector<std::string>{"train_task=maximum", "train_vocab=4", "train_seq_len=5"}}) {
    Params params;
    const Result<void> applied = apply_assignments(params, typed);
    ASSERT_TRUE(applied.ok()) << typed.front() << ": " << applied.error().message;
    EXPECT_EQ(get_param(params, "train_vocab"), typed.back() == "train_seq_len=5" ? "4" : "2");
  }
  // A pair that does not hold is refused, naming the key and the other key's value as typed.
  Params params;
  const Result<void> too_small = apply_assignments(params, {"train_vocab=10", "train_seq_len=20"});
  ASSERT_FALSE(too_small.ok()) << "vocab 10 was silently raised to 19";
  EXPECT_NE(too_small.error().message.find("train_vocab=10"), std::string::npos) << too_small.error().message;
  EXPECT_NE(too_small.error().message.find("20"), std::string::npos) << too_small.error().message;
  // An untyped vocab is still raised to fit a typed L, as the slider raises it.
  Params raised;
  ASSERT_TRUE(apply_assignments(raised, {"train_seq_len=20"}).ok());
  EXPECT_EQ(get_param(raised, "train_vocab"), "19");
  // seq_len before row, either order; a row past it stays refused.
  Params rows;
  EXPECT_TRUE(apply_assignments(rows, {"row=10", "seq_len=16"}).ok());
  EXPECT_EQ(rows.row, 10);
  const Result<void> past = apply_assignments(rows, {"row=10", "seq_len=4"});
  ASSERT_FALSE(past.ok());
  EXPECT_NE(past.error().message.find("row=10"), std::string::npos) << past.error().message;
  // A repeated key: its last value; a bad value is still refused with set_param's line.
  Params repeated;
  EXPECT_TRUE(apply_assignments(repeated, {"temperature=2", "temperature=0.5"}).ok());
  EXPECT_EQ(repeated.temperature, 0.5);
  const Result<void> bad = apply_assignments(repeated, {"temperature=abc", "d_k=8"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("temperature"), std::string::npos) << bad.error().message;
}

// A session's params go through the same set: the refused key comes back with its name, and a key
// the caller lets stay as it was (imported data that is gone) does not stop the others.
TEST(Assignments, ASessionsKeysAreOneSetAndMayLeaveSomeAsTheyWere) {
  Params params;
  const std::vector<KeyValue> values = {{"train_vocab", "2"}, {"train_seq_len", "3"}, {"seq_len", "99999"}};
  const auto may_stay = [](std::string_view key) { return key == "seq_len"; };
  EXPECT_FALSE(apply_key_values(params, values, may_stay).has_value());
  EXPECT_EQ(params.training.run.vocab, 2);
  EXPECT_EQ(params.seq_len, Params{}.seq_len);
  const std::optional<RefusedKey> refused = apply_key_values(params, values);
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->key, "seq_len");
}

}  // namespace
}  // namespace smlab
