// Sessions: Params, view and screenshot folder saved as JSON and loaded back exactly (every value
// travels as get_param's text and comes back through set_param: one validation).
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <map>

#include "i18n/i18n.hpp"
#include "plot/color_scale.hpp"
#include "state/import_files.hpp"
#include "state/pins.hpp"
#include "smlab/error.hpp"
#include "smlab/params.hpp"
#include "smlab/views.hpp"

namespace smlab::app {

// Where a lesson was open: its name and 1-based step. The session file does not know which
// lessons exist; the app checks the name against assets/lessons when it restores one.
struct SessionLesson {
  std::string name;  // 1 to 64 of a-z, 0-9, '-', '_'
  int step = 1;      // 1 to 50
  friend bool operator==(const SessionLesson&, const SessionLesson&) = default;
};

struct Session {
  Params params;
  View view = View::dashboard;
  std::string screenshot_dir;  // empty: the default folder
  // The look, each optional on load (absent: keep what the app has). Checked against the names
  // session_themes / session_colormaps here, so this file needs no GUI code.
  std::optional<std::string> theme;        // "dark", "light" or "projector"
  std::optional<float> font_scale;         // 1 to 3
  std::optional<std::string> colormap;     // "viridis", "cividis", "magma" or "greys"
  std::optional<SessionLesson> lesson;     // "lesson": {"name": …, "step": …}; absent: no lesson open
  std::optional<i18n::Language> language;  // "lang": "en" or "zh-CN"; absent: keep the app's language
  // "color_scales": {"gradients/jacobian": "auto", …}: the heatmaps whose colour scale the user
  // chose (plot::ColorScales); absent: keep the app's choices.
  std::optional<std::map<std::string, plot::ColorScale, std::less<>>> color_scales;
  // "import": {"files": ["qkv.npz", …], "tokens": "tokens.txt"}: the --import specs and tokens file
  // of imported data (kept even when the files are gone, so saving again loses nothing).
  std::vector<std::string> imports;
  std::string import_tokens;
  // On load: one line when the imported files could not be read back ("…: showing random data"),
  // and the reason itself with its kind (Error::file: unreadable; usage: bad content), so a
  // headless run can stop on it (exit 3 or 2) where the window falls back and shows the warning.
  std::string import_warning;
  std::string import_error;
  Error::Kind import_error_kind = Error::Kind::usage;
  // "pins": [{"name": "A", "params": {…}}, …] (state/pins.hpp): at most max_pins; absent: none.
  std::vector<Pin> pins;
  // "class": a class hosted when the session was saved (File → Save session…), as its record's JSON
  // text (classroom/class_host.hpp: ClassHost::record), which reopening it checks field by field;
  // empty: none. The window's autosave keeps none: a class is hosted again only when asked.
  std::string class_record;
  friend bool operator==(const Session&, const Session&) = default;
};

inline constexpr int session_version = 1;
inline constexpr const char* session_themes[] = {"dark", "light", "projector"};
inline constexpr const char* session_colormaps[] = {"viridis", "cividis", "magma", "greys"};
inline constexpr float session_font_scale_min = 1.0f, session_font_scale_max = 3.0f;
// A session is a few kB, a class's answers over a course a few MB at most: refuse anything huge.
inline constexpr std::size_t session_max_bytes = 4 << 20;
inline constexpr int session_max_depth = 8;          // the format nests 2 deep
inline constexpr std::size_t session_max_keys = 64;  // keys in one object; "params" has 16
// The top-level fields a session may hold; any other is an error naming it.
inline constexpr const char* session_fields[] = {"version",      "params",   "view",   "screenshot_dir", "theme",
                                                 "font_scale",   "colormap", "lesson", "lang",           "import",
                                                 "color_scales", "pins",     "class"};

// {"version": 1, "params": {"temperature": "1", ...every key...}, "view": "dashboard",
//  "screenshot_dir": "..."} with two-space indentation. Unknown fields (session_fields) and unknown
// params keys are errors on load; a newer format would carry a new "version".
std::string serialize_session(const Session& session);

// Checks size and nesting before parsing, then the version, then every field; Params keys start
// from the defaults and are applied in param_keys() order (seq_len before row). The error is one
// line naming the field and what is allowed, an Error::usage (bad content, exit 2).
// `load_import` (may be empty: then imported data is remembered but not read) reads the session's
// imported files; Params then start from that data, so its seq_len, row, batch and head apply. If
// the files are gone the session still loads, with random data and import_warning set, and the
// keys that only fit the data (seq_len, d_k, row, batch, head) are left at their defaults.
using ImportLoader = std::function<ImportLoad(std::span<const std::string> specs, const std::string& tokens_file)>;
Result<Session> parse_session(std::string_view json_text, const ImportLoader& load_import = {});

// Reads `path` (at most session_max_bytes) and parses it, reading imported files with
// app::load_import (with `import_options`: progress and cancel); errors start with the path. A file
// that cannot be read is an Error::file (exit 3); a file too large or with bad content an
// Error::usage (exit 2).
Result<Session> load_session(const std::filesystem::path& path, const ImportOptions& import_options = {});

// Writes atomically; with overwrite == false an existing file is an error (Error::file, as every
// failure here).
Result<void> save_session(const std::filesystem::path& path, const Session& session, bool overwrite);

// [SECTION] The window's autosave (config_dir()/session.json)
//
// The rule (README "Sessions"): a plain start (no --set, --preset, --lesson, --load or --view)
// restores the autosave and saves it again on exit. A start with state on the command line leaves
// the autosave alone unless something was changed in the window (the session at exit differs from
// the one at start-up), so `--set seq_len=4096` to show one thing does not replace the session a
// plain start brings back.
[[nodiscard]] bool should_autosave(bool started_plainly, const Session& at_start, const Session& at_exit);

// Where a write to `path` lands: `path` itself, or, when it is a symbolic link (a chain of them
// resolved), its target, which must be a regular file or not exist yet in an existing directory,
// so the link stays a link. The Error::file names the path and what is wrong.
using WriteTarget = Result<std::filesystem::path>;
WriteTarget resolve_write_target(const std::filesystem::path& path);

// Copies the file at `path` (through a link: its content) to "<path>.bad-<UTC time>" beside it
// ("-2", "-3", ... if taken), never replacing anything. For an autosave the app refuses to restore
// (garbage, a newer version), before anything can replace it. Returns the backup's path, or an
// Error::file of one line.
using SessionBackup = Result<std::filesystem::path>;
SessionBackup back_up_session_file(const std::filesystem::path& path, std::chrono::system_clock::time_point now);

// Saves the autosave at exit, written through a symbolic link (resolve_write_target). When
// `back_up_refused` and the file there now is one load_session refuses, it is backed up first
// (back_up_session_file; `backup` receives its path), and nothing is written if that fails. Every
// failure is an Error::file.
Result<void> write_autosave(const std::filesystem::path& path, const Session& session, bool back_up_refused,
                            std::chrono::system_clock::time_point now, std::filesystem::path* backup = nullptr);

// One window per autosave: an exclusive advisory lock (flock) on "<autosave>.lock", held by the
// window that writes the autosave and released when this object goes (or the process ends, crash
// included: the kernel drops it). A second window on the same file — two windows on one home — finds
// it taken, is told so and leaves the file to the first instead of silently overwriting it.
class SessionLock {
 public:
  enum class State {
    held,    // this window writes the autosave
    taken,   // another window holds it: do not write the autosave
    failed,  // no lock could be made (read-only folder, a lock file that is not a regular file, …):
             // the autosave is written as without locks, and `problem` says why
  };
  explicit SessionLock(const std::filesystem::path& autosave);
  ~SessionLock();
  SessionLock(const SessionLock&) = delete;
  SessionLock& operator=(const SessionLock&) = delete;
  State state() const { return state_; }
  // Why not held, one line: "another Softmax Lab window (process 4242) uses …", or the error.
  const std::string& problem() const { return problem_; }

 private:
  int fd_ = -1;
  State state_ = State::failed;
  std::string problem_;
};

// $XDG_CONFIG_HOME/softmax-lab if that is an absolute path, else $HOME/.config/softmax-lab;
// empty if neither can be found. Only computes the path.
std::filesystem::path config_dir();

}  // namespace smlab::app
