// The Trainer's work, run by its worker thread (trainer.cpp) or between the web page's frames
// (app/web/trainer_web.cpp): the mailbox the UI writes, applying it to the runs, one slice of
// training, and publishing the lab's picture.
//
// [SECTION] Index
//   [SECTION] The UI's side: mailbox and the published picture
//   [SECTION] Applying what the UI handed over
//   [SECTION] One slice of work
#include <algorithm>
#include <new>

#include "state/trainer.hpp"

namespace smlab::app {
namespace {

// The runs of `a` and `b` are the same trainings (their goal, sentence or position may differ).
bool same_runs(const TrainingSettings& a, const TrainingSettings& b) {
  return a.run == b.run && a.compare == b.compare && a.seeds == b.seeds && a.corpus == b.corpus;
}

// The step every run has reached: the last run's (during a round the runs before it may be one
// step ahead, Runs::round_next).
int steps_done(const std::vector<train::Run>& runs) { return runs.empty() ? 0 : runs.back().steps_done(); }

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
  wake_.notify_all();
}

void Trainer::command(Command command) {
  const std::lock_guard lock(mutex_);
  inbox_.commands.push_back(command);
  has_mail_ = true;
  interrupt_.request_stop();
  wake_.notify_all();
}

void Trainer::adopt(train::Run run, const TrainingSettings& settings) {
  const std::lock_guard lock(mutex_);
  inbox_.adopted = std::move(run);
  inbox_.settings = settings;
  has_mail_ = true;
  interrupt_.request_stop();
  wake_.notify_all();
}

std::uint64_t Trainer::request_weights() {
  const std::lock_guard lock(mutex_);
  inbox_.weights_wanted = ++next_weights_request_;
  has_mail_ = true;
  interrupt_.request_stop();
  wake_.notify_all();
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
  s.round_next = 0;
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
  for (; s.round_next < s.runs.size(); ++s.round_next)
    if (s.runs[s.round_next].step(1, stop) == 0) return false;
  s.round_next = 0;
  return true;
}

void Trainer::apply(Inbox inbox, const std::stop_token& closing) {
  Runs& s = state_;
  if (inbox.adopted) {
    s.settings = *inbox.settings;
    s.runs.clear();
    s.runs.push_back(std::move(*inbox.adopted));
    s.runs.front().set_max_threads(1);
    s.round_next = 0;
    s.made = true;
    s.fresh = false;  // trained elsewhere: not a fresh training of these settings
    s.error.clear();
  } else if (inbox.settings) {
    const TrainingSettings& next = *inbox.settings;
    if (!s.made) {
      s.settings = next;
      make_runs();
    } else if (inbox.restart && !(s.fresh && same_runs(s.settings, next) && steps_done(s.runs) <= next.steps)) {
      // A lesson step: its numbers are those of a fresh training to its step count.
      s.settings = next;
      make_runs();
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
  if (s.round_next != 0) return;  // the runs are not in step: the picture waits for the round's end
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
  const bool was_training = wants_training();
  if (was_training) {
    const auto start = std::chrono::steady_clock::now();
    const int before = steps_done(s.runs);
    try {
      // Every run one step per round, so they stay in step; at least one round per slice. A round
      // cut short by new mail (or the close) goes on from its next run in the next slice.
      while (train_round(interrupted) && wants_training() && std::chrono::steady_clock::now() - start < budget) {
      }
    } catch (const std::bad_alloc&) {
      s.error = "out of memory while training: the runs stopped at step " + std::to_string(steps_done(s.runs));
      s.running = false;
    }
    // Steps per second of training time, over at least half a second of it.
    s.rate_steps += steps_done(s.runs) - before;
    s.rate_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (s.rate_seconds >= 0.5) {
      s.steps_per_second = static_cast<double>(s.rate_steps) / s.rate_seconds;
      s.rate_steps = 0;
      s.rate_seconds = 0.0;
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
  publish(weights || (was_training && !wants_training()));
  return wants_training();
}

}  // namespace smlab::app
