// Pin and compare: pins as named Params (add, rename, remove, at most four), their
// Snapshots recomputed by evaluate(), the session field 'pins' (round trip and one-line refusals),
// the pins' CSV and SVG files, the P key, and a render whose ghosts change the dashboard's pixels.
#include <gtest/gtest.h>

#include "cli_support.hpp"
#include "headless_support.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "frame/app.hpp"
#include "i18n/i18n.hpp"
#include "panels/pins_panel.hpp"
#include "platform/offscreen.hpp"
#include "smlab/evaluate.hpp"
#include "state/pins.hpp"
#include "state/session.hpp"

namespace smlab::app {
namespace {

namespace fs = std::filesystem;
using test_support::differing_pixels;

bool one_line(const std::string& text) { return !text.empty() && text.find('\n') == std::string::npos; }

Params with_temperature(double temperature) {
  Params params;
  params.temperature = temperature;
  return params;
}

TEST(Pins, AddRenameRemoveKeepAtMostFourUniqueCleanNames) {
  PinState state;
  for (int k = 0; k < 4; ++k) ASSERT_TRUE(add_pin(state, with_temperature(1.0 + k)).ok());
  EXPECT_EQ(state.pins[0].name, "A");
  EXPECT_EQ(state.pins[3].name, "D");
  EXPECT_FALSE(add_pin(state, with_temperature(9.0)).ok());
  EXPECT_TRUE(one_line(state.error));
  EXPECT_NE(state.error.find("at most 4 pins"), std::string::npos) << state.error;
  EXPECT_EQ(state.pins.size(), 4u);

  EXPECT_TRUE(rename_pin(state, 1, "T = 2, 高温").ok());
  EXPECT_EQ(state.pins[1].name, "T = 2, 高温");
  for (const std::string& bad : {std::string(), std::string("a\nb"), std::string(41, 'x'), std::string("A")}) {
    EXPECT_FALSE(rename_pin(state, 2, bad).ok()) << bad;
    EXPECT_TRUE(one_line(state.error)) << state.error;
  }
  EXPECT_EQ(state.pins[2].name, "C");

  remove_pin(state, 0);
  ASSERT_EQ(state.pins.size(), 3u);
  EXPECT_EQ(state.pins[0].params.temperature, 2.0);
  ASSERT_TRUE(add_pin(state, with_temperature(7.0)).ok());
  EXPECT_EQ(state.pins.back().name, "A") << "the first free name";
}

// A pin keeps Params only: its Snapshot is evaluate(params), recomputed when they change.
TEST(Pins, SnapshotsAreTheCoreEvaluationOfThePinsParams) {
  PinState state;
  ASSERT_TRUE(add_pin(state, with_temperature(0.3)).ok());
  ASSERT_TRUE(add_pin(state, with_temperature(3.0)).ok());
  refresh_pins(state);
  ASSERT_EQ(state.snapshots.size(), 2u);
  for (std::size_t k = 0; k < 2; ++k) {
    ASSERT_TRUE(state.snapshots[k]);
    const Snapshot expected = evaluate(state.pins[k].params);
    EXPECT_EQ(state.snapshots[k]->probabilities, expected.probabilities) << k;
    EXPECT_EQ(state.snapshots[k]->entropy_nats, expected.entropy_nats) << k;
  }
  const Snapshot* before = state.snapshots[0].get();
  refresh_pins(state);
  EXPECT_EQ(state.snapshots[0].get(), before) << "unchanged Params are not recomputed";
  state.pins[0].params.temperature = 5.0;
  refresh_pins(state);
  EXPECT_EQ(state.snapshots[0]->params.temperature, 5.0) << "changed Params are";
  EXPECT_EQ(state.snapshots[0]->probabilities, evaluate(state.pins[0].params).probabilities);
}

// A pin of the Params on screen takes the complete Snapshot shown (state.live); any other Params
// are evaluated.
TEST(Pins, APinOfTheShownParamsSharesTheShownSnapshot) {
  PinState state;
  state.live = std::make_shared<const Snapshot>(evaluate(with_temperature(0.3)));
  ASSERT_TRUE(add_pin(state, with_temperature(0.3)));
  ASSERT_TRUE(add_pin(state, with_temperature(3.0)));
  refresh_pins(state);
  ASSERT_EQ(state.snapshots.size(), 2u);
  EXPECT_EQ(state.snapshots[0], state.live);
  ASSERT_TRUE(state.snapshots[1]);
  EXPECT_NE(state.snapshots[1], state.live);
  EXPECT_EQ(state.snapshots[1]->params.temperature, 3.0);
}

TEST(PinsSession, PinsRoundTripExactlyAndAbsentMeansNone) {
  Session session;
  session.params = with_temperature(0.5);
  Params odd;
  odd.temperature = 0.123456789;
  odd.key_dim = 256;
  odd.scores = {1.0, -2.5, 3.25};
  session.pins = {{"A", with_temperature(2.0)}, {"wide, \"quoted\" 名", odd}};
  const std::string text = serialize_session(session);
  EXPECT_NE(text.find("\"pins\""), std::string::npos);
  const smlab::Result<Session> load = parse_session(text);
  ASSERT_TRUE(load) << load.error().message;
  EXPECT_EQ(load->pins, session.pins);
  EXPECT_EQ(*load, session);

  Session plain;
  const std::string none = serialize_session(plain);
  EXPECT_EQ(none.find("\"pins\""), std::string::npos) << "no pins: no field";
  ASSERT_TRUE(parse_session(none));
  EXPECT_TRUE(parse_session(none)->pins.empty());
}

TEST(PinsSession, MalformedPinsAreRefusedWithOneLineNamingThePinAndField) {
  const std::string head = R"({"version": 1, "pins": )";
  const std::string pin = R"({"name": "A", "params": {"temperature": "2"}})";
  const struct {
    std::string pins, needle;
  } cases[] = {
      {"{}", "'pins' must be an array"},
      {"[" + pin + "," + pin + "]", "pins[1].name' 'A' is used twice"},
      {R"([{"name": "A", "params": {}}, {"name": "B", "params": {}}, {"name": "C", "params": {}}, {"name": "D", "params": {}}, {"name": "E", "params": {}}])",
       "holds 5 pins"},
      {"[3]", "pins[0]' must be an object"},
      {R"([{"name": "A", "params": {}, "colour": "red"}])", "pins[0].colour' is not a field"},
      {R"([{"params": {}}])", "pins[0].name' is missing"},
      {R"([{"name": 5, "params": {}}])", "pins[0].name' is missing or not a string"},
      {R"([{"name": "", "params": {}}])", "pin name is empty"},
      {R"([{"name": "a\u0007b", "params": {}}])", "control character"},
      {R"([{"name": ")" + std::string(41, 'x') + R"(", "params": {}}])", "longer than 40 bytes"},
      {R"([{"name": "A"}])", "pins[0].params' is missing"},
      {R"([{"name": "A", "params": [1]}])", "pins[0].params' is missing or not an object"},
      {R"([{"name": "A", "params": {"temprature": "2"}}])", "pins[0].params.temprature' is not a key"},
      {R"([{"name": "A", "params": {"temperature": "500"}}])", "pins[0].params.temperature'"},
      {R"([{"name": "A", "params": {"temperature": [1]}}])", "must be a string, number or boolean"},
      {R"([{"name": "A", "params": {"seq_len": "8", "row": "9"}}])", "pins[0].params.row'"},
  };
  for (const auto& c : cases) {
    const smlab::Result<Session> load = parse_session(head + c.pins + "}");
    EXPECT_FALSE(load) << c.pins;
    EXPECT_TRUE(one_line(load.error().message)) << c.pins << " -> " << load.error().message;
    EXPECT_NE(load.error().message.find(c.needle), std::string::npos) << c.pins << " -> " << load.error().message;
  }
  // Numbers and booleans are read as session params are.
  const smlab::Result<Session> numbers =
      parse_session(head + R"([{"name": "A", "params": {"temperature": 2, "scaled": false}}]})");
  ASSERT_TRUE(numbers) << numbers.error().message;
  EXPECT_EQ(numbers->pins[0].params.temperature, 2.0);
  EXPECT_FALSE(numbers->pins[0].params.scaled);
}

// pins-distribution.csv holds each pin's row as evaluate() gives it, under a pin column.
TEST(PinsCsv, PinnedRowsCarryThePinAndMatchTheCoreNumbers) {
  PinState state;
  ASSERT_TRUE(add_pin(state, with_temperature(0.5)).ok());
  ASSERT_TRUE(add_pin(state, with_temperature(2.0)).ok());
  ASSERT_TRUE(rename_pin(state, 1, "hot, \"T=2\"").ok());
  refresh_pins(state);
  const auto files = pins_csv_files(state.pins, state.snapshots);
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[0].first, "pins.csv");
  EXPECT_EQ(files[1].first, "pins-distribution.csv");
  EXPECT_EQ(files[2].first, "pins-entropy_temperature.csv");
  std::istringstream distribution(files[1].second);
  std::string line;
  std::getline(distribution, line);
  EXPECT_EQ(line, "pin,name,index,score,logit,probability,gradient");
  std::vector<std::vector<double>> probabilities(2);
  while (std::getline(distribution, line)) {
    const int pin = std::stoi(line.substr(0, line.find(',')));
    ASSERT_TRUE(pin == 1 || pin == 2) << line;
    // The probability is the next-to-last field; names with commas are quoted.
    const std::size_t last = line.rfind(','), before = line.rfind(',', last - 1);
    probabilities[static_cast<std::size_t>(pin - 1)].push_back(std::stod(line.substr(before + 1, last - before - 1)));
    if (pin == 2) {
      EXPECT_EQ(line.rfind("2,\"hot, \"\"T=2\"\"\",", 0), 0u) << line;
    }
  }
  for (std::size_t k = 0; k < 2; ++k)
    EXPECT_EQ(probabilities[k], evaluate(state.pins[k].params).probabilities)
        << "pin " << k + 1 << ": shortest round-trip text";
  EXPECT_NE(files[0].second.find("1,A,temperature,0.5\n"), std::string::npos) << files[0].second.substr(0, 200);
  std::istringstream entropy(files[2].second);
  std::getline(entropy, line);
  EXPECT_EQ(line, "pin,name,temperature,entropy_nats");
}

// The command line: a session's pins go into --export-csv (pins*.csv beside the usual files, which
// keep their schema) and --export-svg (pinned-dashboard-*.svg with the ghost series).
TEST(PinsCli, ExportsOfASessionWithPinsAddThePinFiles) {
  const fs::path dir = cli_test::fresh_test_dir("pins-cli");
  {
    std::ofstream(dir / "s.json") << R"({"version": 1, "params": {"temperature": "0.4"},
      "pins": [{"name": "warm", "params": {"temperature": "2"}}]})";
    std::ofstream(dir / "bad.json") << R"({"version": 1, "pins": [{"name": "warm", "params": {"d_k": "0"}}]})";
  }
  auto run = [&](const std::vector<std::string>& args) {
    return cli_test::run_program(SMLAB_BINARY, args, dir, "env -u DISPLAY");
  };
  const cli_test::Outcome csv = run({"--load", (dir / "s.json").string(), "--export-csv", (dir / "csv").string()});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  const std::string pinned = cli_test::read_all(dir / "csv" / "pins-distribution.csv");
  EXPECT_EQ(pinned.rfind("pin,name,index,score,logit,probability,gradient\n1,warm,0,", 0), 0u) << pinned.substr(0, 120);
  EXPECT_EQ(cli_test::read_all(dir / "csv" / "distribution.csv").rfind("index,score,logit,probability,gradient", 0), 0u)
      << "the usual file keeps its schema";
  EXPECT_TRUE(fs::exists(dir / "csv" / "pins.csv"));

  const cli_test::Outcome svg = run({"--load", (dir / "s.json").string(), "--export-svg", (dir / "svg").string()});
  ASSERT_EQ(svg.exit_code, 0) << svg.err;
  const std::string ghost = cli_test::read_all(dir / "svg" / "pinned-dashboard-distribution.svg");
  EXPECT_NE(ghost.find("warm"), std::string::npos) << "the ghost's legend entry";
  EXPECT_TRUE(fs::exists(dir / "svg" / "pinned-dashboard-pin-1.svg"));
  EXPECT_EQ(cli_test::read_all(dir / "svg" / "dashboard-distribution.svg").find("warm"), std::string::npos);

  const cli_test::Outcome bad = run({"--load", (dir / "bad.json").string(), "--export-csv", (dir / "csv2").string()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err.find('\n'), bad.err.size() - 1) << bad.err;
  EXPECT_NE(bad.err.find("pins[0].params.d_k"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(dir / "csv2" / "pins.csv"));
  fs::remove_all(dir);
}

class PinsRender : public test_support::HeadlessRender {
 protected:
  PinsRender() : HeadlessRender(1280, 720) {}
};

// The same Params with and without a pin: the pin's dashed line shows in the distribution plot,
// and the P key adds a pin of the current Params.
TEST_F(PinsRender, APinnedGhostChangesTheDistributionPlotAndPKeyPins) {
  AppOptions options;
  options.params = with_temperature(0.3);
  PlacedPlot distribution;
  Image plain;
  {
    App app(*surface_, options);
    plain = settle(app);
    for (const PlacedPlot& placed : app.ui().placed_plots)
      if (placed.name == "dashboard/distribution") distribution = placed;
  }
  ASSERT_GT(distribution.max.x, distribution.min.x);
  options.pins = {{"hot", with_temperature(3.0)}};
  App app(*surface_, options);
  const Image pinned = settle(app);
  const int changed = differing_pixels(plain, pinned, distribution.min, distribution.max);
  EXPECT_GT(changed, 200) << "the pin's ghost is not visible in the distribution plot";
  bool has_pin_map = false;
  for (const PlacedPlot& placed : app.ui().placed_plots) has_pin_map |= placed.name == "dashboard/pin-1";
  EXPECT_TRUE(has_pin_map) << "the pin's map is drawn beside the live ones";
  EXPECT_EQ(app.current_session().pins, options.pins) << "the window's session keeps the pins";

  ImGui::SetCurrentContext(surface_->imgui_context());
  ImGui::GetIO().KeysDown[GLFW_KEY_P] = true;
  app.frame();
  ImGui::SetCurrentContext(surface_->imgui_context());
  ImGui::GetIO().KeysDown[GLFW_KEY_P] = false;
  app.frame();
  ASSERT_EQ(app.ui().pins.pins.size(), 2u) << "P pins the current Params";
  EXPECT_EQ(app.ui().pins.pins[1].params, app.ui().params);
  ASSERT_EQ(app.ui().pins.snapshots.size(), 2u);
  EXPECT_EQ(app.ui().pins.snapshots[1], app.evaluator().latest().snapshot)
      << "a pin of the Params on screen shares the shown Snapshot, not a second evaluation on the UI thread";
}

}  // namespace
}  // namespace smlab::app
