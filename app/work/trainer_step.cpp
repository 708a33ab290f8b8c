// The Trainer's work, run by its runner (trainer.cpp): on a thread on the desktop, between the web
// page's frames there. The mailbox the UI writes, applying it to the runs, one slice of training,
// and publishing the lab's picture.
//
// [SECTION] Index
//   [SECTION] The UI's side: mailbox and the published picture
//   [SECTION] Applying what the UI handed over
//   [SECTION] One slice of work
#include <algorithm>
#include <cmath>
#include <limits>
#include <new>

#include "smlab/parallel.hpp"
#include "work/trainer.hpp"

namespace smlab::app {
namespace {

// The runs of `a` and `b` are the same trainings (their goal, sentence or position may differ).
bool same_runs(const TrainingSettings& a, const TrainingSettings& b) {
  return a.run == b.run && a.compare == b.compare && a.seeds == b.seeds && a.corpus == b.corpus;
}

// The step every run has reached: the least (during a round some runs may be one step ahead,
// Runs::stepped).
int steps_done(const std::vector<train::Run>& runs) {
  int least = runs.empty() ? 0 : runs.front().steps_done();
  for (const train::Run& run : runs) least = std::min(least, run.steps_done());
  return least;
}

}  // namespace

// [SECTION] The UI's side: mailbox and the published picture

void Trainer::update(const TrainingSettings& settings, bool shown, bool restart) {
  if (!restart && sent_settings_ && *sent_settings_ == settings && sent_settings_->corpus == settings.corpus &&
      sent_shown_ == shown)
    return;
  sent_settings_ = settings;
  sent_shown_ = shown;
  const std::lock_guard lock(mutex_);
  inbox_.settings = settings;
  inbox_.shown = shown;
  inbox_.restart = inbox_.restart || restart;
  has_mail_ = true;
  busy_ = true;
  interrupt_.request_stop();
  runner_.poke();
}

void Trainer::command(Command command) {
  const std::lock_guard lock(mutex_);
  inbox_.commands.push_back(command);
  has_mail_ = true;
  interrupt_.request_stop();
  runner_.poke();
}

void Trainer::adopt(train::Run run, const TrainingSettings& settings) {
  const std::lock_guard lock(mutex_);
  inbox_.adopted = std::move(run);
  inbox_.settings = settings;
  has_mail_ = true;
  interrupt_.request_stop();
  runner_.poke();
}

std::uint64_t Trainer::request_weights() {
  const std::lock_guard lock(mutex_);
  inbox_.weights_wanted = ++next_weights_request_;
  has_mail_ = true;
  interrupt_.request_stop();
  runner_.poke();
  return next_weights_request_;
}

Trainer::Published Trainer::latest() const {
  const std::lock_guard lock(mutex_);
  return published_;
}

void Trainer::set_wake_callback(std::function<void()> callback) {
  const std::lock_guard lock(mutex_);
  on_publish_ = std::move(callback);
}

// [SECTION] Applying what the UI handed over

void Trainer::make_runs() {
  Runs& s = state_;
  s.made = true;
  s.fresh = true;
  s.stepped.clear();
  s.runs.clear();
  Result<std::vector<train::Run>> made = make_training_runs(s.settings);
  if (!made.ok()) {
    s.error = made.error().message;
    return;
  }
  s.error.clear();
  s.runs = std::move(*made);
}

bool Trainer::train_round(const std::stop_token& stop) {
  Runs& s = state_;
  s.stepped.resize(s.runs.size(), 0);
  // The runs side by side on the pool (each run on one thread: the same bits as in turn), so the
  // d_k 256 comparison's sixteen runs take every core while the UI thread draws. Each run writes
  // only its own flag.
  parallel_for(static_cast<int>(s.runs.size()), [&](int run) {
    const auto r = static_cast<std::size_t>(run);
    if (s.stepped[r] == 0 && s.runs[r].step(1, stop) > 0) s.stepped[r] = 1;
  });
  if (std::find(s.stepped.begin(), s.stepped.end(), 0) != s.stepped.end()) return false;
  std::fill(s.stepped.begin(), s.stepped.end(), 0);
  return true;
}

void Trainer::apply(Inbox inbox, const std::stop_token& closing) {
  Runs& s = state_;
  if (inbox.adopted) {
    s.settings = *inbox.settings;
    s.runs.clear();
    s.runs.push_back(std::move(*inbox.adopted));
    s.runs.front().set_max_threads(1);
    s.stepped.clear();
    s.made = true;
    s.fresh = false;  // trained elsewhere: not a fresh training of these settings
    s.error.clear();
  } else if (inbox.settings) {
    const TrainingSettings& next = *inbox.settings;
    if (!s.made) {
      s.settings = next;
      make_runs();
    } else if (inbox.restart && !(s.fresh && same_runs(s.settings, next) && steps_done(s.runs) <= next.steps)) {
      // A lesson step: its numbers are those of a fresh training to its step count, shown from
      // step 0 until the lecturer starts it.
      s.settings = next;
      make_runs();
      s.running = false;
    } else if (!same_runs(s.settings, next)) {
      const bool new_runs = next.compare != s.settings.compare || next.seeds != s.settings.seeds ||
                            next.corpus != s.settings.corpus || steps_done(s.runs) == 0 || !s.error.empty();
      s.settings = next;
      if (new_runs) {
        make_runs();  // other runs, or nothing trained yet: start them as a new training would
      } else {
        // Run A's settings changed on a running training: every run takes the change (a compared
        // run keeps its own value of the compared key) as the key's effect says. A restart of any
        // key starts them all again, so they stay in step.
        const std::vector<TrainingRunSpec> specs = training_run_specs(next);
        const std::size_t seeds = static_cast<std::size_t>(next.seeds);
        bool restart = specs.size() * seeds != s.runs.size();
        for (std::size_t r = 0; r < specs.size() && !restart; ++r)
          for (std::size_t k = 0; k < seeds && !restart; ++k) {
            const Result<train::Effect> effect =
                s.runs[r * seeds + k].change(seed_settings(specs[r].settings, static_cast<int>(k)));
            restart = !effect.ok() || *effect == train::Effect::restart;
          }
        if (restart)
          make_runs();
        else
          s.fresh = false;
      }
    } else {
      s.settings = next;  // the goal, the sentence or the position
    }
    s.shown = inbox.shown;
  }
  for (const Command command : inbox.commands) {
    switch (command) {
      case Command::train: s.running = true; break;
      case Command::pause: s.running = false; break;
      case Command::step:
        s.running = false;
        if (s.made && s.error.empty()) {
          try {
            // One step: the round a slice left half-done, or a whole one.
            train_round(closing);
            s.fresh = s.fresh && steps_done(s.runs) <= s.settings.steps;
          } catch (const std::bad_alloc&) {
            s.error = "out of memory while training one step: the runs stay as they were";
          }
        }
        break;
      case Command::reset:
        if (s.made) make_runs();
        break;
    }
  }
}

// [SECTION] One slice of work

bool Trainer::wants_training() const {
  const Runs& s = state_;
  return s.made && s.error.empty() && s.running && s.shown && !s.runs.empty() && steps_done(s.runs) < s.settings.steps;
}

void Trainer::publish(bool force) {
  Runs& s = state_;
  // The runs not in step: the picture waits for the round's end.
  if (std::find(s.stepped.begin(), s.stepped.end(), 1) != s.stepped.end()) return;
  const auto now = std::chrono::steady_clock::now();
  if (!force && now - s.last_publish < publish_every) return;
  s.last_publish = now;
  auto lab = std::make_shared<TrainingLab>();
  if (!s.runs.empty()) summarize_training(*lab, s.settings, s.runs);
  lab->goal = s.settings.steps;
  lab->error = s.error;
  std::function<void()> wake;
  {
    const std::lock_guard lock(mutex_);
    published_.lab = std::move(lab);
    ++published_.version;
    published_.running = wants_training();
    published_.steps_per_second = s.steps_per_second;
    published_.error = s.error;
    wake = on_publish_;
  }
  if (wake) wake();
}

long long Trainer::paced_steps_due(int speed, std::chrono::steady_clock::duration elapsed) {
  const double seconds = std::max(0.0, std::chrono::duration<double>(elapsed).count());
  return 1 + static_cast<long long>(std::floor(seconds * speed));
}

std::chrono::steady_clock::time_point Trainer::next_paced_step(int speed, std::chrono::steady_clock::time_point start,
                                                               long long done) {
  return start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                     std::chrono::duration<double>(static_cast<double>(done) / speed));
}

bool Trainer::work(std::chrono::steady_clock::duration budget) {
  Runs& s = state_;
  bool changed = false;
  std::uint64_t weights_wanted = 0;
  std::stop_token closing, interrupted;
  {
    std::unique_lock lock(mutex_);
    // Mail that arrives from here on stops this slice's step; what came before is taken now.
    if (!stopping_ && interrupt_.stop_requested()) interrupt_ = std::stop_source();
    closing = closing_.get_token();
    interrupted = interrupt_.get_token();
    if (has_mail_) {
      Inbox inbox = std::move(inbox_);
      inbox_ = Inbox{};
      has_mail_ = false;
      weights_wanted = inbox.weights_wanted;
      lock.unlock();
      apply(std::move(inbox), closing);
      changed = true;
    }
  }
  // What the UI handed over shows at once, before a step that may take long (a large model's).
  if (changed) publish(true);
  resume_at_.reset();
  const bool was_training = wants_training();
  const auto start = std::chrono::steady_clock::now();
  const int speed = s.settings.speed;
  if (was_training && (!s.was_training || speed != s.pace_speed)) {
    // Started, resumed or a new pace: the pace and the rate count from now (a pause is not caught up).
    s.pace_start = start;
    s.paced_steps = 0;
    s.pace_speed = speed;
    s.rate_since = start;
    s.rate_steps = 0;
  }
  if (was_training) {
    const int before = steps_done(s.runs);
    long long allowed = std::numeric_limits<long long>::max();
    if (speed > 0) {
      allowed = paced_steps_due(speed, start - s.pace_start) - s.paced_steps;
      if (allowed > speed) {  // more than a second behind (a slow machine): no burst to catch up
        s.pace_start = start;
        s.paced_steps = 0;
        allowed = 1;
      }
    }
    try {
      // Every run one step per round, so they stay in step; at least one round per slice unless
      // the pace says the next is not due yet. A round cut short by new mail (or the close) goes
      // on with the runs it did not step in the next slice.
      while (allowed > 0 && wants_training()) {
        if (!train_round(interrupted)) break;
        --allowed;
        ++s.paced_steps;
        if (std::chrono::steady_clock::now() - start >= budget) break;
      }
    } catch (const std::bad_alloc&) {
      s.error = "out of memory while training: the runs stopped at step " + std::to_string(steps_done(s.runs));
      s.running = false;
    }
    if (speed > 0 && wants_training()) resume_at_ = next_paced_step(speed, s.pace_start, s.paced_steps);
    // Steps per second of wall time while training, over at least half a second of it.
    s.rate_steps += steps_done(s.runs) - before;
    const auto now = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(now - s.rate_since).count();
    if (seconds >= 0.5) {
      s.steps_per_second = static_cast<double>(s.rate_steps) / seconds;
      s.rate_steps = 0;
      s.rate_since = now;
    }
    // At the goal the runs stop (wants_training) but stay "running": a higher goal (a lesson step,
    // the steps slider, loaded weights) trains on without a Train press; Pause is the user's only.
  }
  bool weights = false;
  if (weights_wanted > s.weights_served && s.made && !s.runs.empty()) {
    s.weights_served = weights_wanted;
    try {
      auto bytes = std::make_shared<const std::vector<std::uint8_t>>(s.runs.front().save());
      const std::lock_guard lock(mutex_);
      published_.weights = std::move(bytes);
      published_.weights_request = weights_wanted;
      weights = true;
    } catch (const std::bad_alloc&) {
      s.error = "out of memory while saving the weights";
    }
  }
  s.was_training = wants_training();
  // A slow pace publishes every step: the class watches each one land.
  publish(weights || (was_training && !wants_training()) || (was_training && speed > 0 && speed <= 15));
  return wants_training();
}

}  // namespace smlab::app
