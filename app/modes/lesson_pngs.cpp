// --export-lesson NAME DIR: every step of a lesson as a PNG, rendered offscreen like --screenshot;
// all or none.
#include <cstdio>
#include <filesystem>
#include <vector>

#include "files/atomic_file.hpp"
#include "files/printable.hpp"
#include "export/png.hpp"
#include "lesson_player/lesson_player.hpp"
#include "modes/modes.hpp"

namespace smlab::app {

Result<void> run_lesson_pngs(const Options& o, AppOptions options) {
  namespace fs = std::filesystem;
  const LessonList& lessons = options.lessons;
  const std::string& name = o.export_lesson[0];
  const Result<std::size_t> index = exported_lesson(lessons, name, "--export-lesson");
  if (!index) return index.error();
  const Lesson& lesson = lessons.lessons[*index];
  const fs::path dir(o.export_lesson[1]);
  // The folder is made when the pictures are ready, so a refused export leaves no folder either.
  if (Result<void> usable = files::check_directory(dir); !usable) return usable;
  files::FileBatch ahead(o.overwrite, files::FileBatch::Mode::check_only);
  std::vector<fs::path> targets;
  for (std::size_t step = 0; step < lesson.steps.size(); ++step) {
    char file_name[96];
    std::snprintf(file_name, sizeof file_name, "%s-%02zu.png", lesson.name.c_str(), step + 1);
    targets.push_back(dir / file_name);
    // Refuse before rendering anything, so a refused export writes no file at all.
    if (Result<void> checked = ahead.check(targets.back()); !checked) return checked;
  }
  auto created = create_offscreen(o.size);
  if (!created) return created.error();
  options.params = lesson.steps.front().params;
  options.view = lesson.steps.front().view;
  options.lesson = LessonPosition{*index, 0};
  App app(**created, options);
  if (!app.font_warning().empty()) warn(app.font_warning());
  files::FileBatch batch(o.overwrite);
  if (Result<void> made = batch.make_directory(dir); !made) return made;
  for (std::size_t step = 0; step < lesson.steps.size(); ++step) {
    open_lesson_step(app.ui(), *index, step, false);
    app.evaluator().set_refine_limit(headless_refine_trials(lesson.steps[step].params.seq_len));
    app.wait_for_snapshot();
    for (int frame = 0; frame < 3; ++frame) app.frame();  // as --screenshot: the third frame is saved
    const std::vector<std::uint8_t> png = exporting::encode_png((*created)->capture());
    if (png.empty()) return Error::file("cannot write '" + targets[step].string() + "': PNG encoding failed");
    if (Result<void> staged = batch.stage(targets[step], png); !staged) return staged;
  }
  if (Result<void> committed = batch.commit(); !committed) return committed;
  for (const fs::path& target : targets) std::printf("%s\n", escaped_path(target.native()).c_str());
  return {};
}

}  // namespace smlab::app
