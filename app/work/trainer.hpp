// The training lab's live runs: trained on a worker thread while the lab is shown, so
// the UI never waits on a step. The UI hands over the lab's settings each frame and the buttons'
// commands (train, pause, step, reset); the worker applies a changed setting to the running
// training as its key's effect says (train::Run::change), trains the runs in step with one another
// and publishes the lab's picture (a TrainingLab) several times a second. It is a piece of the
// background-work engine (work/work_runner.hpp): on the desktop its runner is the worker thread; the
// web page has no threads, and there its tick runs the same slices between frames (pump()).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "smlab/labs/training.hpp"
#include "work/work_runner.hpp"

namespace smlab::app {

class Trainer final : private SlicedWork {
 public:
  enum class Command { train, pause, step, reset };

  explicit Trainer(WorkRunner::Mode mode = WorkRunner::platform_mode);
  // Stops and joins the worker: a step in progress is abandoned (train::Run::step's stop), so this
  // returns within a fraction of one step however large the model (a window closes at once).
  ~Trainer();
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  // Each frame. `settings` must pass validate(). `shown`: the lab is on screen (hidden, it pauses
  // and resumes when shown again). `restart`: the runs start over from `settings`, paused at step 0
  // (a lesson step arrived: the class sees its map form from the start, and its numbers are those
  // of a fresh training), unless they are already a fresh training of exactly these runs that was
  // never changed on the way.
  // The first call creates the runs at step 0, paused: training starts only when asked (Train or
  // Step), so opening the lab, restoring a session or a second window never starts one. Once
  // asked, they train towards settings.steps at settings.speed steps a second (0: full speed).
  void update(const TrainingSettings& settings, bool shown, bool restart = false);
  // Train (resume), pause, one step (then paused), or reset to step 0 (keeping train or pause).
  void command(Command command);
  // Replaces the runs with `run` alone, at its step (loaded weights), under `settings` (whose run
  // A must be run.settings(), with no comparison and one seed): the UI sets the same Params next.
  void adopt(train::Run run, const TrainingSettings& settings);
  // Asks for run A's first seed as weights bytes (train::Run::save); they arrive in a later
  // Published (weights, with weights_request set to the number returned here).
  std::uint64_t request_weights();

  struct Published {
    std::shared_ptr<const TrainingLab> lab;  // null before the first picture
    std::uint64_t version = 0;               // changes with every new picture
    bool running = false;                    // training towards the goal now
    double steps_per_second = 0.0;           // of each run, over the last second of training
    std::string error;                       // one line: why the runs could not be made or stepped
    std::shared_ptr<const std::vector<std::uint8_t>> weights;
    std::uint64_t weights_request = 0;
  };
  Published latest() const;

  // Called from the worker after each new picture (a sleeping window wakes up to draw it).
  void set_wake_callback(std::function<void()> callback);
  // Blocks until the runs are idle: at the goal, paused, or hidden (tests and benches).
  void wait_until_idle();
  // Where there is no worker thread (the web page, a pumped runner): takes what the UI handed over
  // and trains for up to `budget` on the caller's thread, between frames. Returns whether training
  // is still due. With a worker (the desktop) the worker does this: pump() does nothing.
  bool pump(std::chrono::steady_clock::duration budget);

  // How many steps a training paced at `speed` steps a second (> 0) may have done `elapsed` after
  // it started or changed pace: the first at once, then one every 1/speed s.
  static long long paced_steps_due(int speed, std::chrono::steady_clock::duration elapsed);
  // When a paced training that has done `done` steps since `start` is due its next one.
  static std::chrono::steady_clock::time_point next_paced_step(int speed, std::chrono::steady_clock::time_point start,
                                                               long long done);

  // The worker's training slice between looks at new settings and commands.
  static constexpr std::chrono::milliseconds slice{20};
  // Pictures are published at most this often while training (and at once when it stops).
  static constexpr std::chrono::milliseconds publish_every{66};

 private:
  // What the UI handed over since the worker last looked.
  struct Inbox {
    std::optional<TrainingSettings> settings;
    bool shown = false;
    bool restart = false;
    std::vector<Command> commands;
    std::optional<train::Run> adopted;
    std::uint64_t weights_wanted = 0;
  };
  // The last settings and visibility handed over: update() posts only what changed.
  std::optional<TrainingSettings> sent_settings_;
  bool sent_shown_ = false;
  // The worker's own state: touched only by work().
  struct Runs {
    TrainingSettings settings;
    std::vector<train::Run> runs;
    bool made = false;     // runs exist for `settings` (or `error` says why not)
    bool fresh = true;     // a training of `settings` from step 0 that no change touched
    bool running = false;  // train (towards the goal) or pause: paused until asked
    bool shown = false;
    // Per run, 1 when it has taken the current round's step (empty or all 0: in step). A round cut
    // short by new mail goes on with the others; the picture is published only in step.
    std::vector<char> stepped;
    std::string error;
    std::chrono::steady_clock::time_point last_publish{};
    std::uint64_t weights_served = 0;
    // Steps per second of wall time while training (paced or not), since the last estimate.
    long long rate_steps = 0;
    std::chrono::steady_clock::time_point rate_since{};
    double steps_per_second = 0.0;
    // The pace (settings.speed > 0): steps done since pace_start, when it started, at which speed.
    // It starts again when the speed changes or the training resumes, so a pause is not caught up.
    std::chrono::steady_clock::time_point pace_start{};
    long long paced_steps = 0;
    int pace_speed = -1;
    bool was_training = false;
  };

  // One slice: take the inbox, apply it, train for up to `budget` (a paced training: the steps
  // due), publish when due. Returns whether there is more training to do (running, shown, below
  // the goal, no error); a paced one sets resume_at_ to when its next step is due.
  bool work(std::chrono::steady_clock::duration budget);
  // The runner's slice: the mail and a slice of work() when there is either, then when the next is
  // due (at once, a paced training's next step, or the UI's next hand-over).
  NextSlice run_slice(std::chrono::steady_clock::duration budget, const std::stop_token& stop) override;
  // Every run's step of one round (those not yet stepped in it); false when `stop` cut it short.
  bool train_round(const std::stop_token& stop);
  void apply(Inbox inbox, const std::stop_token& closing);
  void make_runs();
  void publish(bool force);
  bool wants_training() const;

  mutable std::mutex mutex_;
  // Requested (under mutex_) by the destructor: the worker's steps stop inside the step.
  std::stop_source closing_;
  // Requested (under mutex_) by the destructor and whenever the UI hands something over: a training
  // slice stops inside its step, so a setting, a button or Pause reaches a large model at once
  // rather than after a step of minutes (an abandoned step is trained again: the same bits). The
  // worker replaces it with a fresh one when it takes the mail.
  std::stop_source interrupt_;
  std::condition_variable idle_;  // wait_until_idle waits on it
  Inbox inbox_;
  bool has_mail_ = false;
  bool busy_ = false;  // the worker is in work() or has training to do
  bool stopping_ = false;
  Published published_;
  std::uint64_t next_weights_request_ = 0;
  std::function<void()> on_publish_;
  bool more_ = false;                                               // the last work() left training to do
  Runs state_;                                                      // worker only
  std::optional<std::chrono::steady_clock::time_point> resume_at_;  // worker only: a paced training's next step
  WorkRunner runner_;  // last member: starts after, and is joined before, the rest
};

}  // namespace smlab::app
