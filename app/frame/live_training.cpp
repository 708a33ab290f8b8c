// The training lab's live side (live_training.hpp).
#include "live_training.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <utility>

#include "app.hpp"
#include "i18n/i18n.hpp"
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

// The lab's run buttons (Commands) and what each asks of the Trainer.
constexpr std::pair<Command, Trainer::Command> run_buttons[] = {{Command::training_train, Trainer::Command::train},
                                                                {Command::training_pause, Trainer::Command::pause},
                                                                {Command::training_step, Trainer::Command::step},
                                                                {Command::training_reset, Trainer::Command::reset}};

}  // namespace

void LiveTraining::start(const AppOptions& options, UiState& ui) {
  corpus_ = options.params.training.corpus != nullptr ? options.params.training.corpus : lesson_corpus(ui.lessons);
  attach_corpus(ui.params, corpus_);
  // The page offers what is written into its downloads folder as downloads (web_main.cpp).
  const auto file = [&](const char* name) {
    return options.files_by_host ? (std::filesystem::path(options.screenshot_dir) / name).string() : home_file(name);
  };
  ui.training.weights_path = file("softmax-lab-weights.smlab");
  ui.training.npz_path = file("softmax-lab-sentence.npz");
  ui.training.files_by_host = options.files_by_host;
  if (options.training_shown != nullptr) {
    frozen_ = options.training_shown;
    frozen_settings_ = ui.params.training;
  }
  if (options.live_training) {
    trainer_ = std::make_unique<Trainer>();
    trainer_->set_wake_callback(&platform::Window::wake);
    if (options.train_at_start) trainer_->command(Trainer::Command::train);
  }
  ui.training.live = trainer_ != nullptr;
}

std::shared_ptr<const TrainingLab> LiveTraining::picture(const TrainingSettings& settings) const {
  if (trainer_ != nullptr) return trainer_->latest().lab;
  if (frozen_ != nullptr && settings == frozen_settings_) return frozen_;
  return nullptr;
}

View LiveTraining::evaluated_view(View view, const TrainingSettings& settings) const {
  // The live or frozen picture is the lab's: the evaluator need not train it again.
  const bool drawn_here = trainer_ != nullptr || (frozen_ != nullptr && settings == frozen_settings_);
  return view == View::training && drawn_here ? View::dashboard : view;
}

void LiveTraining::sync(UiState& ui, const Report& report) {
  attach_corpus(ui.params, corpus_);  // Params made from keys (a session, a lesson step) get the corpus
  CommandQueue& commands = ui.interaction.commands;
  if (trainer_ == nullptr) {
    // No live runs (an export's or a headless render's App): the buttons, disabled, asked nothing.
    for (const auto& button : run_buttons) commands.take(button.first);
    commands.take(Command::save_weights);
    commands.take(Command::load_weights);
    return;
  }
  TrainingUi& t = ui.training;
  // A lesson step that shows the lab starts its runs over (unless they already are a fresh
  // training of its settings): its numbers are a fresh training's, as its claims were checked.
  std::optional<std::pair<std::size_t, std::size_t>> step;
  if (ui.lesson.open) step = std::make_pair(ui.lesson.open->lesson, ui.lesson.open->step);
  const LessonStep* lesson_step = current_step(ui);
  const bool restart = step != lesson_step_ && lesson_step != nullptr && lesson_step->view == View::training;
  lesson_step_ = step;
  trainer_->update(ui.params.training, ui.view == View::training, restart);
  for (const auto& [asked, command] : run_buttons)
    if (commands.take(asked)) trainer_->command(command);
  const Trainer::Published published = trainer_->latest();
  t.running = published.running;
  t.steps_per_second = published.steps_per_second;
  t.error = published.error;
  if (published.lab != nullptr) {
    t.steps_done = published.lab->steps_done;
    t.goal = published.lab->goal;
  }
  weights_files(ui, published, report);
}

bool LiveTraining::compose(const UiState& ui, std::shared_ptr<const Snapshot>& snapshot) {
  if (ui.view != View::training || snapshot == nullptr) return false;
  const std::shared_ptr<const TrainingLab> lab = picture(ui.params.training);
  if (lab == nullptr) return false;  // the evaluator's lab at train_steps is in the Snapshot already
  bool renewed = false;
  if (composed_ == nullptr || composed_from_ != snapshot || composed_lab_ != lab) {
    auto composed = std::make_shared<Snapshot>(*snapshot);
    composed->params.training = ui.params.training;
    composed->labs.set(View::training, *lab);
    composed_ = std::move(composed);
    composed_from_ = snapshot;
    composed_lab_ = lab;
    renewed = true;
  }
  snapshot = composed_;
  return renewed;
}

void LiveTraining::weights_files(UiState& ui, const Trainer::Published& published, const Report& report) {
  TrainingUi& t = ui.training;
  const auto done = [&](const std::string& text, bool error) {
    t.message = text;
    t.message_is_error = error;
    report(text, error);
  };
  if (ui.interaction.commands.take(Command::save_weights)) {
    weights_request_ = trainer_->request_weights();
    weights_path_ = t.weights_path;
  }
  if (weights_request_ != 0 && published.weights_request == weights_request_ && published.weights != nullptr) {
    weights_request_ = 0;
    const Result<void> written = files::write_file_atomically(weights_path_, *published.weights, t.overwrite);
    if (written.ok())
      done(i18n::format("lab.training.saved_weights", {weights_path_}), false);
    else
      done(written.error().message, true);
  }
  if (ui.interaction.commands.take(Command::load_weights)) {
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
        Params next = ui.params;
        next.training.run = run->settings();
        next.training.compare.clear();
        next.training.seeds = 1;
        next.training.steps = std::max(next.training.steps, run->steps_done());
        if (const Result<void> valid = validate(next); !valid.ok()) {
          done(t.weights_path + ": " + valid.error().message, true);
        } else {
          trainer_->adopt(std::move(*run), next.training);
          apply_params(ui, next);
          done(i18n::format("lab.training.loaded_weights", {t.weights_path, std::to_string(next.training.steps)}),
               false);
        }
      }
    }
  }
}

void LiveTraining::export_npz(UiState& ui, const Snapshot* shown, const Report& report) {
  TrainingUi& t = ui.training;
  if (!ui.interaction.commands.take(Command::export_npz)) return;
  const TrainingLab* lab = shown != nullptr ? shown->lab<TrainingLab>() : nullptr;
  if (lab == nullptr || lab->sentence.attention == nullptr) return;
  // As the headless export: a file --import would refuse is not written (training_export.hpp).
  if (const Result<void> readable = exporting::importable(*lab->sentence.attention); !readable) {
    t.message = t.npz_path + " is not written: " + readable.error().message;
    t.message_is_error = true;
    report(t.message, true);
    return;
  }
  const std::vector<std::uint8_t> bytes = train::attention_npz(*lab->sentence.attention);
  const Result<void> written = files::write_file_atomically(t.npz_path, bytes, t.overwrite);
  t.message = written.ok() ? i18n::format("lab.training.exported_npz", {t.npz_path}) : written.error().message;
  t.message_is_error = !written.ok();
  report(t.message, t.message_is_error);
}

}  // namespace smlab::app
