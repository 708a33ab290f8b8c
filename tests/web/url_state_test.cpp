// The web page's address (app/frame/url_state.hpp), built natively: it carries every setting a
// session carries and reads back exactly; values are the shortest text (rounded only while an
// animation plays); a bad setting is skipped with one line in the page's language while the rest
// apply, and stays in the address until that setting is set in the page.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "i18n/i18n.hpp"
#include "lessons/lessons.hpp"
#include "smlab/assignments.hpp"
#include "smlab/utf8.hpp"
#include "state/presets.hpp"
#include "frame/url_state.hpp"

namespace smlab::web {
namespace {

// What the page's JavaScript does with location.search (URLSearchParams): split at '&', the name at
// the first '=', '+' as a space, percent-escapes decoded.
std::vector<UrlPair> decode_query(const std::string& query) {
  const auto decode = [](std::string_view text) {
    std::string out;
    for (std::size_t at = 0; at < text.size(); ++at) {
      if (text[at] == '+') {
        out += ' ';
      } else if (text[at] == '%' && at + 2 < text.size() + 0) {
        out += static_cast<char>(std::stoi(std::string(text.substr(at + 1, 2)), nullptr, 16));
        at += 2;
      } else {
        out += text[at];
      }
    }
    return out;
  };
  std::vector<UrlPair> pairs;
  std::string_view rest = query;
  if (rest.starts_with("?")) rest.remove_prefix(1);
  while (!rest.empty()) {
    const std::size_t amp = rest.find('&');
    const std::string_view part = rest.substr(0, amp);
    const std::size_t equals = part.find('=');
    pairs.push_back(
        {decode(part.substr(0, equals)), equals == std::string_view::npos ? "" : decode(part.substr(equals + 1))});
    rest = amp == std::string_view::npos ? std::string_view{} : rest.substr(amp + 1);
  }
  return pairs;
}

class UrlState : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!i18n::has_catalogue()) (void)i18n::load_catalogue(app::find_assets_dir());
  }
  static app::AppOptions fresh_options() {
    app::AppOptions options;
    options.lessons = app::load_lessons(app::find_assets_dir() / "lessons");
    options.presets = app::load_presets(app::find_assets_dir() / "presets.json");
    return options;
  }
  static UrlStart read(const std::string& query, app::AppOptions& options) {
    const std::vector<UrlPair> pairs = decode_query(query);
    return apply_url(pairs, options);
  }
  // The session an App started from `options` would save (App::current_session's fields).
  static app::Session session_of(const app::AppOptions& options) {
    app::Session session;
    session.params = options.params;
    session.view = options.view;
    session.language = options.language;
    session.theme = app::theme_name(options.theme);
    session.font_scale = options.font_scale;
    session.colormap = plot::name(options.colormap);
    session.color_scales = options.color_scales;
    if (options.lesson)
      session.lesson = app::SessionLesson{options.lessons.lessons[options.lesson->lesson].name,
                                          static_cast<int>(options.lesson->step) + 1};
    session.pins = options.pins;
    return session;
  }
};

TEST_F(UrlState, EverySettingOfASessionReadsBackExactly) {
  app::AppOptions shown = fresh_options();
  shown.view = View::scaling;
  ASSERT_TRUE(apply_assignments(shown.params, {"temperature=1.3318138204027494", "d_k=256", "scaled=false",
                                               "seq_len=64", "row=40", "scores=-1e+30,2.5,+3,-inf", "format=bf16"})
                  .ok());
  shown.lesson = app::LessonPosition{*app::find_lesson(shown.lessons, "scaling"), 2};
  shown.language = i18n::Language::Chinese;
  shown.theme = app::Theme::projector;
  shown.font_scale = 1.75f;
  shown.colormap = plot::Colormap::Magma;
  shown.color_scales = {{"gradients/jacobian", plot::ColorScale::Auto},
                        {"dashboard/attention", plot::ColorScale::Fixed}};
  Params pinned = shown.params;
  ASSERT_TRUE(apply_assignments(pinned, {"temperature=0.25", "causal=true"}).ok());
  shown.pins = {app::Pin{"A|100% 中", pinned}, app::Pin{"B", shown.params}};
  const app::Session session = session_of(shown);

  const std::string query = url_query(url_pairs(session, false));
  app::AppOptions reopened = fresh_options();
  const UrlStart start = read(query, reopened);
  EXPECT_TRUE(start.refused.empty()) << query << "\n" << refused_summary(start.refused, i18n::Language::English);
  EXPECT_TRUE(start.any_state);
  const app::Session back = session_of(reopened);
  EXPECT_TRUE(back.params == session.params) << query;
  EXPECT_EQ(back.view, session.view) << query;
  EXPECT_EQ(back.language, session.language) << query;
  EXPECT_EQ(back.theme, session.theme) << query;
  EXPECT_EQ(back.font_scale, session.font_scale) << query;
  EXPECT_EQ(back.colormap, session.colormap) << query;
  EXPECT_EQ(back.color_scales, session.color_scales) << query;
  EXPECT_EQ(back.lesson, session.lesson) << query;
  EXPECT_TRUE(back.pins == session.pins) << query;
  // Only what differs from the defaults is written, each value as get_param's shortest text.
  EXPECT_NE(query.find("set=temperature=1.3318138204027494"), std::string::npos) << query;
  EXPECT_NE(query.find("set=scores=-1e%2B30,2.5,3,-inf"), std::string::npos) << query;
  EXPECT_EQ(query.find("set=seed="), std::string::npos) << query;
  EXPECT_NE(query.find("theme=projector"), std::string::npos) << query;
  EXPECT_NE(query.find("font=1.75"), std::string::npos) << query;
  EXPECT_NE(query.find("lang=zh-CN"), std::string::npos) << query;
}

TEST_F(UrlState, ValuesAreShortestAndRoundedOnlyWhileAnimating) {
  app::Session session;
  ASSERT_TRUE(apply_assignments(session.params, {"temperature=0.5", "score_scale=1.3318138204027494"}).ok());
  const std::string still = url_query(url_pairs(session, false));
  const std::string playing = url_query(url_pairs(session, true));
  EXPECT_EQ(still, "?view=dashboard&set=temperature=0.5&set=score_scale=1.3318138204027494");
  EXPECT_EQ(playing, "?view=dashboard&set=temperature=0.5&set=score_scale=1.332");
  // Defaults write nothing but the view.
  EXPECT_EQ(url_query(url_pairs(app::Session{}, false)), "?view=dashboard");
}

TEST_F(UrlState, ABadSettingIsSkippedTheRestAppliedAndTheLineFollowsTheLanguage) {
  app::AppOptions options = fresh_options();
  const std::string query = "?set=temperature=0.5&view=bogus&lang=zh-CN";
  const UrlStart start = read(query, options);
  EXPECT_EQ(options.params.temperature, 0.5) << query;
  EXPECT_EQ(options.language, i18n::Language::Chinese) << query;
  EXPECT_EQ(options.view, View::dashboard) << query;
  ASSERT_EQ(start.refused.size(), 1u) << query;
  const std::string& line = start.refused.front().message;
  EXPECT_EQ(start.refused.front().pair, (UrlPair{"view", "bogus"}));
  EXPECT_NE(line.find("view=bogus"), std::string::npos) << line;
  EXPECT_NE(line.find("已跳过"), std::string::npos) << line;
  EXPECT_NE(line.find("dashboard、normalizers"), std::string::npos) << line;
  EXPECT_EQ(line.find("--view"), std::string::npos) << line;
  EXPECT_EQ(line.find("--set"), std::string::npos) << line;

  app::AppOptions english = fresh_options();
  const UrlStart bad_value = read("?set=temperature=abc&set=d_k=8", english);
  ASSERT_EQ(bad_value.refused.size(), 1u);
  EXPECT_EQ(bad_value.refused.front().message,
            "link setting set=temperature=abc skipped: 'abc' is not allowed: a number from 0.01 to 100");
  EXPECT_EQ(english.params.key_dim, 8);
}

TEST_F(UrlState, EachKindOfBadSettingIsRefusedAlone) {
  struct Case {
    std::string query, expected;  // the setting refused and a piece of its line
  };
  const std::vector<Case> cases = {
      {"?bogus=1", "not a link setting: allowed view, preset"},
      {"?set=temperature", "expected KEY=VALUE"},
      {"?set=warmth=2", "there is no key 'warmth': allowed temperature, d_k"},
      {"?set=seq_len=5000", "'5000' is not allowed: an integer from 2 to 4096"},
      {"?set=scaled=maybe", "'maybe' is not allowed: true or false"},
      {"?set=format=fp7", "'fp7' is not allowed: fp64, fp32"},
      {"?theme=neon", "'neon' is not allowed: dark, light or projector"},
      {"?font=3.5", "'3.5' is not allowed: a number from 1 to 3"},
      {"?colormap=jet", "'jet' is not allowed: viridis, cividis, magma or greys"},
      {"?lang=fr", "'fr' is not allowed: en, zh-CN"},
      {"?lesson=scaling:99", "'scaling:99' is not allowed: a step from 1 to"},
      {"?lesson=nope", "'nope' is not allowed: why-softmax"},
      {"?preset=nope", "'nope' is not allowed:"},
      {"?import=q.npy", "'q.npy' is not among the files this browser keeps"},
      {"?import=../etc/passwd", "'../etc/passwd' is not among the files"},
      {"?scale=gradients/jacobian:bright", "expected HEATMAP:fixed or HEATMAP:auto"},
      {"?pin=A|temperature=0", "'0' is not allowed: a number from 0.01 to 100"},
      {"?pin=A&pin=A", "the pin name 'A' is used twice"},
      {"?pin=A&pin=B&pin=C&pin=D&pin=E", "at most 4 pins"},
  };
  for (const Case& item : cases) {
    app::AppOptions options = fresh_options();
    const UrlStart start = read(item.query + "&set=temperature=0.25", options);
    ASSERT_EQ(start.refused.size(), 1u) << item.query << ": "
                                        << refused_summary(start.refused, i18n::Language::English);
    const std::string& line = start.refused.front().message;
    EXPECT_NE(line.find(item.expected), std::string::npos) << item.query << " gave: " << line;
    EXPECT_EQ(line.find('\n'), std::string::npos) << line;
    EXPECT_EQ(options.params.temperature, 0.25) << item.query << ": the good setting was not applied";
  }
}

// A hostile address, as a link passed around a class could carry: control and invalid UTF-8
// bytes, values a megabyte long, numbers past double's range, steps past int's, thousands of
// repeats. Each bad setting is refused with one line of bounded length that names it, whatever it
// holds, and the good setting beside it still applies.
TEST_F(UrlState, AHostileSettingIsOneBoundedLineAndTheRestApplies) {
  const std::string nul("temperature=0.5\0x", 17), megabyte(1 << 20, '9');
  const std::vector<UrlPair> hostile = {
      {"set", nul},
      {"set", "temperature=\xff\xfe"},
      {"set", "temperature=" + megabyte},
      {"set", "\xc0\xaftemperature=2"},
      {"set", "temperature=1e400"},
      {"set", "temperature=nan"},
      {"set", "temperature=inf"},
      {"set", "temperature=-inf"},
      {"set", "temperature=0x10"},
      {"set", "seq_len=18446744073709551617"},
      {"set", "seq_len=-1"},
      {"set", "scores=" + std::string(100000, ',')},
      {"set", "train_d_model=99999999999"},
      {"view", std::string("training\0", 9)},
      {"view", "../../etc"},
      {"lesson", "scaling:0"},
      {"lesson", "scaling:-1"},
      {"lesson", "scaling:18446744073709551617"},
      {"lesson", "scaling:"},
      {"lesson", ":1"},
      {"lesson", "scaling:1:" + megabyte},
      {"font", "1e400"},
      {"font", "nan"},
      {"theme", "\x1b[31mred"},
      {"colormap", std::string(1 << 16, 'v')},
      {"lang", "zh-CN\n"},
      {"import", std::string("q.npy\0../x", 10)},
      {"import", "/etc/passwd"},
      {"tokens", "../../../../proc/self/environ"},
      {"scale", ":fixed"},
      {"scale", "training/map-a:fixed:auto"},
      {"pin", "|temperature=2"},
      {"pin", "A|temperature=" + megabyte},
      {"pin", "A|" + std::string(5000, '|')},
      {"pin", std::string(1 << 16, 'P') + "|temperature=2"},
      {"\xff\xfe", "1"},
      {std::string("set\0", 4), "temperature=2"},
  };
  for (const UrlPair& bad : hostile) {
    app::AppOptions options = fresh_options();
    const std::vector<UrlPair> pairs = {bad, {"set", "d_k=256"}};
    UrlStart start;
    ASSERT_NO_THROW(start = apply_url(pairs, options)) << bad.name.substr(0, 40) << "=" << bad.value.substr(0, 40);
    ASSERT_EQ(start.refused.size(), 1u) << bad.name.substr(0, 40) << "=" << bad.value.substr(0, 40)
                                        << ": accepted, or more than itself refused: "
                                        << refused_summary(start.refused, i18n::Language::English).substr(0, 400);
    const std::string& line = start.refused.front().message;
    EXPECT_EQ(line.find('\n'), std::string::npos) << line.substr(0, 200);
    EXPECT_EQ(line.find('\0'), std::string::npos) << line.substr(0, 200);
    EXPECT_EQ(line.find('\x1b'), std::string::npos) << line.substr(0, 200);
    EXPECT_EQ(first_invalid_utf8(line), std::string_view::npos) << "not UTF-8: " << line.substr(0, 200);
    EXPECT_LE(line.size(), 1200u) << "a refusal is one line a page can show: " << line.substr(0, 200) << "…";
    EXPECT_EQ(options.params.key_dim, 256) << bad.name.substr(0, 40) << "=" << bad.value.substr(0, 40);
  }

  // Ten thousand repeats of one setting: read once each, in a bounded time, the last one standing.
  std::vector<UrlPair> repeated(10000, UrlPair{"set", "temperature=2"});
  repeated.push_back({"set", "temperature=0.5"});
  app::AppOptions options = fresh_options();
  const UrlStart start = apply_url(repeated, options);
  EXPECT_TRUE(start.refused.empty()) << refused_summary(start.refused, i18n::Language::English).substr(0, 200);
  EXPECT_EQ(options.params.temperature, 0.5);
}

TEST_F(UrlState, SeqLenComesBeforeRowWhateverTheOrder) {
  app::AppOptions options = fresh_options();
  const UrlStart start = read("?set=row=40&set=seq_len=64", options);
  EXPECT_TRUE(start.refused.empty()) << refused_summary(start.refused, i18n::Language::English);
  EXPECT_EQ(options.params.row, 40);
  EXPECT_EQ(options.params.seq_len, 64);
}

TEST_F(UrlState, ARefusedSettingStaysInTheAddressUntilThatSettingChanges) {
  app::AppOptions options = fresh_options();
  const std::string query = "?set=temperature=0.5&view=bogus&set=d_k=abc";
  const UrlStart start = read(query, options);
  ASSERT_EQ(start.refused.size(), 2u);
  EXPECT_NE(refused_summary(start.refused, i18n::Language::English).find("(and 1 more)"), std::string::npos);
  const std::vector<UrlPair> at_start = url_pairs(session_of(options), false);
  std::string address = url_query(address_pairs(at_start, at_start, start.refused));
  EXPECT_EQ(address, "?view=dashboard&set=temperature=0.5&view=bogus&set=d_k=abc");
  // The user picks a view: the bad view goes, the bad d_k stays; then d_k is set too.
  app::Session changed = session_of(options);
  changed.view = View::scaling;
  address = url_query(address_pairs(url_pairs(changed, false), at_start, start.refused));
  EXPECT_EQ(address, "?view=scaling&set=temperature=0.5&set=d_k=abc");
  ASSERT_TRUE(apply_assignments(changed.params, {"d_k=32"}).ok());
  address = url_query(address_pairs(url_pairs(changed, false), at_start, start.refused));
  EXPECT_EQ(address, "?view=scaling&set=temperature=0.5&set=d_k=32");
}

TEST_F(UrlState, LookAloneIsNotState) {
  app::AppOptions options = fresh_options();
  EXPECT_FALSE(read("?lang=zh-CN&theme=light&font=2&colormap=greys", options).any_state);
  EXPECT_TRUE(read("?set=temperature=2", options).any_state);
  EXPECT_TRUE(look_setting("font"));
  EXPECT_FALSE(look_setting("view"));
}

// Back and Forward step through what the user made: a new view or lesson step is a new history
// entry; a slider, the look or a guess typed in the same step rewrite the entry shown.
TEST_F(UrlState, OnlyTheViewAndTheLessonStepMakeAHistoryEntry) {
  const std::vector<UrlPair> at_start = {{"view", "scaling"}, {"set", "d_k=1024"}, {"lesson", "scaling:3"}};
  const std::string key = history_key(at_start);
  EXPECT_EQ(key, history_key(std::vector<UrlPair>{
                     {"view", "scaling"}, {"set", "d_k=512"}, {"lesson", "scaling:3"}, {"theme", "light"}}));
  EXPECT_EQ(history_key(std::vector<UrlPair>{{"view", "scaling"}, {"lesson", "scaling:4"}}),
            history_key(std::vector<UrlPair>{{"view", "scaling"}, {"lesson", "scaling:4:1.5"}}));
  EXPECT_NE(key, history_key(std::vector<UrlPair>{{"view", "scaling"}, {"set", "d_k=1024"}, {"lesson", "scaling:4"}}));
  EXPECT_NE(key, history_key(std::vector<UrlPair>{{"view", "heads"}, {"set", "d_k=1024"}, {"lesson", "scaling:3"}}));
  EXPECT_NE(key, history_key(std::vector<UrlPair>{{"view", "scaling"}, {"set", "d_k=1024"}}));
}

}  // namespace
}  // namespace smlab::web
