// The App's side of the training lab: where its picture comes from (the live Trainer,
// a frozen picture handed to an offscreen copy, or the evaluator's lab at train_steps), the
// Trainer's inbox each frame (settings, buttons, lesson steps), and the lab's files: weights saved
// and loaded, a sentence's .npz.
#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "app.hpp"
#include "files/atomic_file.hpp"
#include "files/text_file.hpp"
#include "lessons/lesson_corpus.hpp"
#include "lesson_player/lesson_player.hpp"
#include "platform/window.hpp"
#include "export/training_export.hpp"

namespace smlab::app {
namespace {

// A weights file of the largest model (D 256, d_k 512, 8 heads, 2 layers) is ~40 MB.
constexpr std::uintmax_t weights_max_bytes = 256u << 20;

std::string home_file(const char* name) {
  const char* home = std::getenv("HOME");
  return (std::filesystem::path(home != nullptr ? home : ".") / name).string();
}

Trainer::Command trainer_command(TrainingUi::Command command) {
  switch (command) {
    case TrainingUi::Command::train: return Trainer::Command::train;
    case TrainingUi::Command::pause: return Trainer::Command::pause;
    case TrainingUi::Command::step: return Trainer::Command::step;
    case TrainingUi::Command::reset: return Trainer::Command::reset;
  }
  return Trainer::Command::pause;
}

}  // namespace

void App::start_training(const AppOptions& options) {
  corpus_ = options.params.training.corpus != nullptr ? options.params.training.corpus : lesson_corpus(ui_.lessons);
  attach_corpus(ui_.params, corpus_);
  // The page offers what is written into its downloads folder as downloads (web_main.cpp).
  const auto file = [&](const char* name) {
    return options.files_by_host ? (std::filesystem::path(options.screenshot_dir) / name).string() : home_file(name);
  };
  ui_.training.weights_path = file("softmax-lab-weights.smlab");
  ui_.training.npz_path = file("softmax-lab-sentence.npz");
  ui_.training.files_by_host = options.files_by_host;
  if (options.training_shown != nullptr) {
    frozen_training_ = options.training_shown;
    frozen_settings_ = ui_.params.training;
  }
  if (options.live_training) {
    trainer_ = std::make_unique<Trainer>();
    trainer_->set_wake_callback(&platform::Window::wake);
    if (options.train_at_start) trainer_->command(Trainer::Command::train);
  }
  ui_.training.live = trainer_ != nullptr;
}

std::shared_ptr<const TrainingLab> App::training_picture() const {
  if (trainer_ != nullptr) return trainer_->latest().lab;
  if (frozen_training_ != nullptr && ui_.params.training == frozen_settings_) return frozen_training_;
  return nullptr;
}

View App::evaluated_view(View view) const {
  // The live or frozen picture is the lab's: the evaluator need not train it again.
  const bool drawn_here =
      trainer_ != nullptr || (frozen_training_ != nullptr && ui_.params.training == frozen_settings_);
  return view == View::training && drawn_here ? View::dashboard : view;
}

void App::sync_training() {
  attach_corpus(ui_.params, corpus_);  // Params made from keys (a session, a lesson step) get the corpus
  if (trainer_ == nullptr) return;
  TrainingUi& t = ui_.training;
  // A lesson step that shows the lab starts its runs over (unless they already are a fresh
  // training of its settings): its numbers are a fresh training's, as its claims were checked.
  std::optional<std::pair<std::size_t, std::size_t>> step;
  if (ui_.lesson.open) step = std::make_pair(ui_.lesson.open->lesson, ui_.lesson.open->step);
  const LessonStep* lesson_step = current_step(ui_);
  const bool restart = step != trained_lesson_step_ && lesson_step != nullptr && lesson_step->view == View::training;
  trained_lesson_step_ = step;
  trainer_->update(ui_.params.training, ui_.view == View::training, restart);
  for (const TrainingUi::Command command : t.commands) trainer_->command(trainer_command(command));
  t.commands.clear();
  const Trainer::Published published = trainer_->latest();
  t.running = published.running;
  t.steps_per_second = published.steps_per_second;
  t.error = published.error;
  if (published.lab != nullptr) {
    t.steps_done = published.lab->steps_done;
    t.goal = published.lab->goal;
  }
  training_files(published);
}

void App::compose_training() {
  if (ui_.view != View::training || latest_.snapshot == nullptr) return;
  const std::shared_ptr<const TrainingLab> lab = training_picture();
  if (lab == nullptr) return;  // the evaluator's lab at train_steps is in the Snapshot already
  if (composed_ == nullptr || composed_from_ != latest_.snapshot || composed_lab_ != lab) {
    auto snapshot = std::make_shared<Snapshot>(*latest_.snapshot);
    snapshot->params.training = ui_.params.training;
    snapshot->labs.set(View::training, *lab);
    composed_ = std::move(snapshot);
    composed_from_ = latest_.snapshot;
    composed_lab_ = lab;
    lab_textures_.new_snapshot();  // the maps of the new picture
  }
  latest_.snapshot = composed_;
}

void App::training_files(const Trainer::Published& published) {
  TrainingUi& t = ui_.training;
  const auto done = [&](const std::string& text, bool error) {
    t.message = text;
    t.message_is_error = error;
    report(text, error);
  };
  if (t.save_weights) {
    t.save_weights = false;
    weights_request_ = trainer_->request_weights();
    weights_path_ = t.weights_path;
  }
  if (weights_request_ != 0 && published.weights_request == weights_request_ && published.weights != nullptr) {
    weights_request_ = 0;
    const Result<void> written = exporting::write_file_atomically(weights_path_, *published.weights, t.overwrite);
    if (written.ok())
      done(i18n::format("lab.training.saved_weights", {weights_path_}), false);
    else
      done(written.error().message, true);
  }
  if (t.load_weights) {
    t.load_weights = false;
    const TextFile file = read_text_file(t.weights_path, weights_max_bytes);
    if (file.status != TextFile::Status::ok) {
      done(file.status == TextFile::Status::too_large
               ? t.weights_path + ": larger than " + std::to_string(weights_max_bytes >> 20) + " MB, not a weights file"
               : cannot_read(t.weights_path, file),
           true);
    } else {
      const auto* bytes = reinterpret_cast<const std::uint8_t*>(file.text.data());
      Result<train::Run> run = train::Run::load({bytes, file.text.size()}, t.weights_path, corpus_);
      if (!run.ok()) {
        done(run.error().message, true);
      } else {
        Params next = ui_.params;
        next.training.run = run->settings();
        next.training.compare.clear();
        next.training.seeds = 1;
        next.training.steps = std::max(next.training.steps, run->steps_done());
        if (const Result<void> valid = validate(next); !valid.ok()) {
          done(t.weights_path + ": " + valid.error().message, true);
        } else {
          trainer_->adopt(std::move(*run), next.training);
          apply_params(ui_, next);
          done(i18n::format("lab.training.loaded_weights", {t.weights_path, std::to_string(next.training.steps)}),
               false);
        }
      }
    }
  }
}

void App::export_training_npz() {
  TrainingUi& t = ui_.training;
  if (!t.export_npz) return;
  t.export_npz = false;
  const TrainingLab* lab = latest_.snapshot != nullptr ? latest_.snapshot->lab<TrainingLab>() : nullptr;
  if (lab == nullptr || lab->sentence.attention == nullptr) return;
  // As the headless export: a file --import would refuse is not written (training_export.hpp).
  if (const Result<void> readable = exporting::importable(*lab->sentence.attention); !readable) {
    t.message = t.npz_path + " is not written: " + readable.error().message;
    t.message_is_error = true;
    report(t.message, true);
    return;
  }
  const std::vector<std::uint8_t> bytes = train::attention_npz(*lab->sentence.attention);
  const Result<void> written = exporting::write_file_atomically(t.npz_path, bytes, t.overwrite);
  t.message = written.ok() ? i18n::format("lab.training.exported_npz", {t.npz_path}) : written.error().message;
  t.message_is_error = !written.ok();
  report(t.message, t.message_is_error);
}

}  // namespace smlab::app
