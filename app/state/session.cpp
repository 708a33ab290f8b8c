// Sessions as JSON: serialising every Params key as text, and loading with every value checked.
//
// [SECTION] Index
//   [SECTION] Small helpers: errors, the lesson field
//   [SECTION] Writing: serialize_session
//   [SECTION] Reading: parse_session, every field checked
//   [SECTION] Session files: load_session, save_session
//   [SECTION] Autosave: when, where links lead, backing up a bad file, the write
//   [SECTION] One window per autosave: the lock
//   [SECTION] The config folder
#include "state/session.hpp"
#include "files/json_parse.hpp"
#include "files/text_file.hpp"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <span>
#include <vector>

#include "files/atomic_file.hpp"
#include "smlab/assignments.hpp"

namespace smlab::app {
namespace {

// [SECTION] Small helpers: errors, the lesson field

using OrderedJson = nlohmann::ordered_json;

// Bad content: a usage error (exit 2). A file that cannot be read is Error::file (load_session).
Error failure(std::string message) { return Error::usage(std::move(message)); }

std::string type_name(const OrderedJson& value) { return value.type_name(); }

// "lesson": {"name": "why-softmax", "step": 3}; both fields required, nothing else.
Result<void> parse_session_lesson(const OrderedJson& value, std::optional<SessionLesson>& out) {
  const std::string allowed = ": allowed {\"name\": a lesson name, \"step\": 1 to 50}";
  if (!value.is_object())
    return Error::usage("session field 'lesson' must be an object, not " + type_name(value) + allowed);
  for (const auto& [key, item] : value.items())
    if (key != "name" && key != "step")
      return Error::usage("session field 'lesson." + shown_text(key) + "' is not a field" + allowed);
  SessionLesson lesson;
  const bool name_ok = value.contains("name") && value["name"].is_string() &&
                       !value["name"].get<std::string>().empty() && value["name"].get<std::string>().size() <= 64;
  if (name_ok) lesson.name = value["name"].get<std::string>();
  for (char c : lesson.name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_'))
      return Error::usage("session field 'lesson.name' is not a lesson name: allowed 1 to 64 of a-z, 0-9, '-', '_'");
  if (!name_ok)
    return Error::usage(
        "session field 'lesson.name' is missing or not a lesson name: allowed 1 to 64 of a-z, 0-9, '-', '_'");
  const OrderedJson* step = value.contains("step") ? &value["step"] : nullptr;
  if (step == nullptr || !step->is_number_integer() || step->get<long long>() < 1 || step->get<long long>() > 50)
    return Error::usage("session field 'lesson.step' is " +
                        (step == nullptr ? std::string("missing") : shown_text(step->dump())) +
                        ": allowed an integer from 1 to 50");
  lesson.step = static_cast<int>(step->get<long long>());
  out = std::move(lesson);
  return {};
}

}  // namespace

// [SECTION] Writing: serialize_session

std::string serialize_session(const Session& session) {
  OrderedJson document;
  document["version"] = session_version;
  OrderedJson params = OrderedJson::object();
  for (const ParamKey& key : param_keys())
    params[std::string(key.name)] = get_param(session.params, key.name).value_or("");
  document["params"] = std::move(params);
  document["view"] = std::string(view_info(session.view).name);
  document["screenshot_dir"] = session.screenshot_dir;
  if (session.theme) document["theme"] = *session.theme;
  if (session.font_scale) document["font_scale"] = *session.font_scale;
  if (session.colormap) document["colormap"] = *session.colormap;
  if (session.lesson) document["lesson"] = {{"name", session.lesson->name}, {"step", session.lesson->step}};
  if (session.language) document["lang"] = i18n::language_code(*session.language);
  if (session.color_scales) {
    OrderedJson scales = OrderedJson::object();
    for (const auto& [key, scale] : *session.color_scales) scales[key] = plot::name(scale);
    document["color_scales"] = std::move(scales);
  }
  if (!session.imports.empty()) {
    document["import"] = {{"files", session.imports}};
    if (!session.import_tokens.empty()) document["import"]["tokens"] = session.import_tokens;
  }
  if (!session.pins.empty()) document["pins"] = pins_to_json(session.pins);
  if (!session.class_record.empty()) {
    OrderedJson record = OrderedJson::parse(session.class_record, nullptr, false);
    if (record.is_object()) document["class"] = std::move(record);
  }
  return document.dump(2) + "\n";
}

// [SECTION] Reading: parse_session, every field checked

Result<Session> parse_session(std::string_view json_text, const ImportLoader& load_import) {
  Result<OrderedJson> parsed =
      parse_json<OrderedJson>(json_text, "session", {session_max_bytes, session_max_depth, session_max_keys});
  if (!parsed) return parsed.error();
  OrderedJson& document = *parsed;  // not const, as before: operator[] reads below
  if (!document.is_object()) return failure("session must be a JSON object, not " + type_name(document));
  // Every field is known: a misspelt "temprature" or a field of another program is refused, not ignored.
  for (const auto& [field, value] : document.items()) {
    const bool known =
        std::find(std::begin(session_fields), std::end(session_fields), field) != std::end(session_fields);
    if (!known) {
      std::string allowed;
      for (const char* name : session_fields) allowed += (allowed.empty() ? "" : ", ") + std::string(name);
      return failure("session field '" + shown_text(field) + "' is not a field: allowed " + allowed);
    }
  }
  if (!document.contains("version") || !document["version"].is_number_integer())
    return failure("session field 'version' is missing or not an integer: allowed 1");
  if (document["version"].get<long long>() != session_version)
    return failure("session field 'version' is " + document["version"].dump() + ": allowed 1");

  Session session;
  bool data_attached = false;
  if (document.contains("import")) {
    const OrderedJson& value = document["import"];
    const std::string allowed = ": allowed {\"files\": [1 to 8 paths], \"tokens\": a path}";
    if (!value.is_object())
      return failure("session field 'import' must be an object, not " + type_name(value) + allowed);
    for (const auto& [key, item] : value.items())
      if (key != "files" && key != "tokens")
        return failure("session field 'import." + shown_text(key) + "' is not a field" + allowed);
    auto usable = [](const OrderedJson& path) {
      return path.is_string() && !path.get<std::string>().empty() && path.get<std::string>().size() <= 4096 &&
             path.get<std::string>().find('\0') == std::string::npos;
    };
    const OrderedJson* files = value.contains("files") ? &value["files"] : nullptr;
    if (files == nullptr || !files->is_array() || files->empty() || files->size() > 8)
      return failure("session field 'import.files' is missing or not a list of 1 to 8 paths" + allowed);
    for (const OrderedJson& file : *files) {
      if (!usable(file))
        return failure("session field 'import.files' holds something that is not a usable path" + allowed);
      session.imports.push_back(file.get<std::string>());
    }
    if (value.contains("tokens")) {
      if (!usable(value["tokens"])) return failure("session field 'import.tokens' is not a usable path" + allowed);
      session.import_tokens = value["tokens"].get<std::string>();
    }
    if (load_import) {
      const ImportLoad loaded = load_import(session.imports, session.import_tokens);
      const Result<void> attached = loaded ? attach_import(session.params, *loaded) : Result<void>(loaded.error());
      if (attached) {
        data_attached = true;
      } else {
        session.import_error = attached.error().message;
        session.import_error_kind = attached.error().kind;
        session.import_warning =
            "the session's imported data could not be read back (" + session.import_error + "): showing random data";
      }
    }
  }
  if (document.contains("params")) {
    const OrderedJson& params = document["params"];
    if (!params.is_object()) return failure("session field 'params' must be an object, not " + type_name(params));
    for (const auto& [key, value] : params.items())
      if (!get_param(session.params, key))
        return failure("session field 'params." + shown_text(key) + "' is not a key");
    std::vector<KeyValue> values;
    for (const ParamKey& key : param_keys()) {
      const std::string name(key.name);
      if (!params.contains(name)) continue;
      const OrderedJson& value = params[name];
      std::string text;
      if (value.is_string())
        text = value.get<std::string>();
      else if (value.is_boolean() || value.is_number())
        text = value.dump();
      else
        return failure("session field 'params." + name + "' must be a string, not " + type_name(value));
      values.push_back({name, std::move(text)});
    }
    // Keys that describe imported data that is not there (gone, or not read) keep their defaults.
    const bool data_missing = !session.imports.empty() && !data_attached;
    const auto fits_data_only = [&](std::string_view name) {
      return data_missing && (name == "seq_len" || name == "d_k" || name == "row" || name == "batch" || name == "head");
    };
    // As one set: keys that depend on each other are checked on the whole (smlab/assignments.hpp).
    if (const std::optional<RefusedKey> refused = apply_key_values(session.params, values, fits_data_only))
      return failure("session field 'params." + refused->key + "': " + refused->error.message);
  }
  if (document.contains("view")) {
    const OrderedJson& value = document["view"];
    const auto view = value.is_string() ? view_from_name(value.get<std::string>()) : std::nullopt;
    if (!view) {
      std::string names;
      for (const ViewInfo& info : all_views()) names += (names.empty() ? "" : ", ") + std::string(info.name);
      return failure("session field 'view' is not a view: allowed " + names);
    }
    session.view = *view;
  }
  if (document.contains("screenshot_dir")) {
    const OrderedJson& value = document["screenshot_dir"];
    if (!value.is_string()) return failure("session field 'screenshot_dir' must be a string, not " + type_name(value));
    session.screenshot_dir = value.get<std::string>();
    if (session.screenshot_dir.size() > 4096 || session.screenshot_dir.find('\0') != std::string::npos)
      return failure("session field 'screenshot_dir' is not a usable path");
  }
  // The look: optional, each a name from a short list (or a number in range).
  const auto one_of = [&](const char* field, std::span<const char* const> names,
                          std::optional<std::string>& out) -> Result<void> {
    if (!document.contains(field)) return {};
    const OrderedJson& value = document[field];
    std::string allowed;
    for (const char* name : names) allowed += (allowed.empty() ? "" : ", ") + std::string(name);
    if (value.is_string())
      for (const char* name : names)
        if (value.get<std::string>() == name) {
          out = name;
          return {};
        }
    return failure(std::string("session field '") + field + "' is not allowed: " + allowed);
  };
  if (Result<void> read = one_of("theme", session_themes, session.theme); !read) return read.error();
  if (Result<void> read = one_of("colormap", session_colormaps, session.colormap); !read) return read.error();
  if (document.contains("font_scale")) {
    const OrderedJson& value = document["font_scale"];
    const double scale = value.is_number() ? value.get<double>() : -1.0;
    if (!(scale >= session_font_scale_min && scale <= session_font_scale_max))
      return failure("session field 'font_scale' is " + shown_text(value.dump()) + ": allowed a number from 1 to 3");
    session.font_scale = static_cast<float>(scale);
  }
  if (document.contains("lesson")) {
    if (Result<void> read = parse_session_lesson(document["lesson"], session.lesson); !read) return read.error();
  }
  if (document.contains("lang")) {
    const OrderedJson& value = document["lang"];
    const auto language = value.is_string() ? i18n::parse_language(value.get<std::string>()) : std::nullopt;
    if (!language) return failure("session field 'lang' is not allowed: " + i18n::language_codes());
    session.language = language;
  }
  if (document.contains("color_scales")) {
    const OrderedJson& value = document["color_scales"];
    if (!value.is_object())
      return failure("session field 'color_scales' is not an object of heatmap names and \"fixed\" or \"auto\"");
    if (value.size() > plot::color_scale_max_entries)
      return failure("session field 'color_scales' has " + std::to_string(value.size()) + " entries: allowed at most " +
                     std::to_string(plot::color_scale_max_entries));
    std::map<std::string, plot::ColorScale, std::less<>> scales;
    for (const auto& [key, scale] : value.items()) {
      if (!plot::valid_color_scale_key(key))
        return failure("session field 'color_scales' has the heatmap name '" + shown_text(key) +
                       "': allowed 1 to 64 of a-z, 0-9, '_', '-', '/'");
      const auto parsed = scale.is_string() ? plot::color_scale_from_name(scale.get<std::string>()) : std::nullopt;
      if (!parsed)
        return failure("session field 'color_scales' gives '" + shown_text(key) + "' the value " +
                       shown_text(scale.dump()) + ": allowed \"fixed\" or \"auto\"");
      scales[key] = *parsed;
    }
    session.color_scales = std::move(scales);
  }
  if (document.contains("pins")) {
    // After "params" and "import": a pin starts from the session's Params (its imported data).
    if (Result<void> read = pins_from_json(document["pins"], session.params, session.pins); !read) return read.error();
  }
  if (document.contains("class")) {
    // Kept as it is: reopening the class checks every field (ClassHost::reopen).
    if (!document["class"].is_object())
      return failure("session field 'class' must be an object (a class saved while hosting), not " +
                     type_name(document["class"]));
    session.class_record = document["class"].dump();
  }
  return session;
}

// [SECTION] Session files: load_session, save_session

Result<Session> load_session(const std::filesystem::path& path, const ImportOptions& import_options) {
  const std::string shown = "'" + path.string() + "'";
  const TextFile file = read_text_file(path, session_max_bytes);
  if (file.status == TextFile::Status::unreadable) return Error::file(cannot_read("session " + shown, file));
  if (file.status == TextFile::Status::too_large) return failure("session " + shown + " is larger than 1 MB");
  Result<Session> load =
      parse_session(file.text, [&](std::span<const std::string> specs, const std::string& tokens_file) {
        return app::load_import(specs, tokens_file, import_options);
      });
  if (!load) return Error{load.error().kind, shown + ": " + load.error().message};
  return load;
}

Result<void> save_session(const std::filesystem::path& path, const Session& session, bool overwrite) {
  return files::write_file_atomically(path, serialize_session(session), overwrite);
}

// [SECTION] Autosave: when, where links lead, backing up a bad file, the write

bool should_autosave(bool started_plainly, const Session& at_start, const Session& at_exit) {
  return started_plainly || at_start != at_exit;
}

WriteTarget resolve_write_target(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  const auto failure = [](std::string message) -> WriteTarget { return Error::file(std::move(message)); };
  fs::path current = path;
  std::error_code error;
  for (int hops = 0;; ++hops) {
    const fs::file_status status = fs::symlink_status(current, error);
    if (error && error != std::errc::no_such_file_or_directory)
      return failure("cannot write '" + current.string() + "': " + error.message());
    if (!fs::is_symlink(status)) break;
    if (hops == 40) return failure("cannot write '" + path.string() + "': too many levels of symbolic links");
    const fs::path target = fs::read_symlink(current, error);
    if (error) return failure("cannot read the link '" + current.string() + "': " + error.message());
    current = target.is_absolute() ? target : current.parent_path() / target;
  }
  const fs::file_status status = fs::status(current, error);
  if (fs::exists(status) && !fs::is_regular_file(status))
    return failure("'" + path.string() + "' leads to '" + current.string() + "', which is not a regular file");
  if (!fs::exists(status) && !fs::is_directory(current.parent_path().empty() ? "." : current.parent_path(), error))
    return failure("cannot write '" + current.string() + "': its folder does not exist");
  return current;
}

SessionBackup back_up_session_file(const std::filesystem::path& path, std::chrono::system_clock::time_point now) {
  namespace fs = std::filesystem;
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &utc);
  std::error_code error;
  fs::path stem = path;
  stem += ".bad-" + std::string(stamp);
  for (int copy = 1; copy <= files::max_numbered_copies; ++copy) {
    const fs::path backup = files::numbered_path(stem, copy);
    // copy_file follows a link to its content and, without overwrite options, never replaces.
    if (fs::copy_file(path, backup, fs::copy_options::none, error)) return backup;
    if (error != std::errc::file_exists)
      return Error::file("cannot back up '" + path.string() + "' as '" + backup.string() + "': " + error.message());
  }
  return Error::file("cannot back up '" + path.string() + "': " + std::to_string(files::max_numbered_copies) +
                     " backups of this second exist");
}

Result<void> write_autosave(const std::filesystem::path& path, const Session& session, bool back_up_refused,
                            std::chrono::system_clock::time_point now, std::filesystem::path* backup) {
  const WriteTarget target = resolve_write_target(path);
  if (!target.ok()) return target.error();
  std::error_code error;
  if (back_up_refused && std::filesystem::exists(*target, error) && !load_session(*target).ok()) {
    const SessionBackup made = back_up_session_file(path, now);
    if (!made.ok()) return Error::file(made.error().message + "; the session was not saved, so nothing is lost");
    if (backup != nullptr) *backup = *made;
  }
  return save_session(*target, session, true);
}

// [SECTION] One window per autosave: the lock

SessionLock::SessionLock(const std::filesystem::path& autosave) {
  const std::filesystem::path path = autosave.string() + ".lock";
  // O_NOFOLLOW: a link planted there is not followed (nothing but a regular file of ours is locked
  // or created); no O_TRUNC: the holder's process number stays readable until we hold the lock.
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    problem_ = "cannot open the lock file '" + path.string() + "': " + std::strerror(errno);
    return;
  }
  struct stat status {};
  if (::fstat(fd_, &status) != 0 || !S_ISREG(status.st_mode)) {
    problem_ = "the lock file '" + path.string() + "' is not a regular file";
    ::close(fd_);
    fd_ = -1;
    return;
  }
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    if (error != EWOULDBLOCK) {
      problem_ = "cannot lock '" + path.string() + "': " + std::strerror(error);
      ::close(fd_);
      fd_ = -1;
      return;
    }
    char holder[32] = {};
    const ssize_t read = ::pread(fd_, holder, sizeof holder - 1, 0);
    const std::string pid = read > 0 ? std::string(holder, static_cast<std::size_t>(read)) : std::string();
    const bool digits = !pid.empty() && pid.find_first_not_of("0123456789") == std::string::npos;
    problem_ = "another Softmax Lab window" + (digits ? " (process " + pid + ")" : std::string()) + " uses '" +
               autosave.string() + "'";
    state_ = State::taken;
    ::close(fd_);
    fd_ = -1;
    return;
  }
  state_ = State::held;
  const std::string pid = std::to_string(::getpid());
  // Who holds it, for the second window's message; a failed write only loses that detail.
  if (::ftruncate(fd_, 0) == 0 && ::pwrite(fd_, pid.data(), pid.size(), 0) < 0) {
  }
}

SessionLock::~SessionLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock
}

// [SECTION] The config folder

std::filesystem::path config_dir() {
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg != nullptr && xdg[0] == '/')
    return std::filesystem::path(xdg) / "softmax-lab";
  if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/')
    return std::filesystem::path(home) / ".config" / "softmax-lab";
  return {};
}

}  // namespace smlab::app
