// The training settings' key table, their one validation, and parsing them from text.
//
// [SECTION] Index
//   [SECTION] Names of the tasks and choices
//   [SECTION] The key table
//   [SECTION] Validation
//   [SECTION] Reading and writing one key
#include "smlab/train/settings.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <variant>

#include "smlab/params.hpp"  // format_name, format_from_name

namespace smlab::train {

// [SECTION] Names of the tasks and choices

std::string_view task_name(Task task) {
  switch (task) {
    case Task::recall: return "recall";
    case Task::copy: return "copy";
    case Task::reverse: return "reverse";
    case Task::maximum: return "maximum";
    case Task::language: return "language";
  }
  return "recall";
}

std::optional<Task> task_from_name(std::string_view name) {
  for (Task task : all_tasks)
    if (task_name(task) == name) return task;
  return std::nullopt;
}

std::string_view task_description(Task task) {
  switch (task) {
    case Task::recall: return "associative recall: pairs (key, value), then a key; answer its value";
    case Task::copy: return "copy: repeat the first half of the sequence in order";
    case Task::reverse: return "reverse: repeat the first half of the sequence backwards";
    case Task::maximum: return "find the maximum: distinct numbers, then a query; answer the largest";
    case Task::language: return "causal character-level language model on the lesson texts (English and Chinese)";
  }
  return "";
}

Settings default_settings(Task task) {
  Settings s;
  s.task = task;
  switch (task) {
    case Task::recall: break;  // Settings{} are recall's
    case Task::copy:
    case Task::reverse:
      s.seq_len = 12;
      s.vocab = 8;
      break;
    case Task::maximum:
      s.seq_len = 9;
      s.vocab = 16;
      break;
    case Task::language:
      s.seq_len = 32;
      s.model_dim = 64;
      s.key_dim = 16;
      s.heads = 4;
      s.layers = 2;
      s.causal = true;
      s.batch = 16;
      break;
  }
  return s;
}

namespace {

std::string_view optimizer_name(Optimizer optimizer) { return optimizer == Optimizer::adam ? "adam" : "sgd"; }
std::string_view variant_name(SoftmaxVariant variant) {
  switch (variant) {
    case SoftmaxVariant::naive: return "naive";
    case SoftmaxVariant::stable: return "stable";
    case SoftmaxVariant::online: return "online";
  }
  return "stable";
}

// Shortest text that reads back as the same double.
std::string shortest(double value) {
  std::array<char, 32> buffer{};
  auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return ec == std::errc{} ? std::string(buffer.data(), end) : std::string("?");
}

// User text in a message, one line and short.
std::string quoted(std::string_view text) {
  constexpr std::size_t max_shown = 40;
  std::string shown;
  for (char c : text.substr(0, max_shown)) shown += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
  if (text.size() > max_shown) shown += "... (" + std::to_string(text.size()) + " characters)";
  return shown.empty() ? "\"\"" : shown;
}

// [SECTION] The key table

// Where a key lives in Settings. The enumerations are read and written by name.
using Member = std::variant<int Settings::*, double Settings::*, bool Settings::*, std::uint64_t Settings::*,
                            Task Settings::*, Format Settings::*, SoftmaxVariant Settings::*, Optimizer Settings::*>;

struct Row {
  SettingKey key;
  Member member;
  double min = 0.0, max = 0.0;
};

using L = Limits;

constexpr std::array<Row, 19> rows{{
    {{"task", "what the model learns", "recall, copy, reverse, maximum or language", Effect::restart}, &Settings::task},
    {{"seq_len", "L: positions per example", "a whole number from 3 to 128", Effect::restart},
     &Settings::seq_len,
     L::seq_len_min,
     L::seq_len_max},
    {{"vocab", "symbols of the synthetic tasks", "a whole number from 2 to 256", Effect::restart},
     &Settings::vocab,
     L::vocab_min,
     L::vocab_max},
    {{"d_model", "D: width of the embeddings and the residual stream", "a whole number from 2 to 256", Effect::restart},
     &Settings::model_dim,
     L::model_dim_min,
     L::model_dim_max},
    {{"d_k", "d_k: width of each head's queries and keys", "a whole number from 1 to 512", Effect::reshape},
     &Settings::key_dim,
     L::key_dim_min,
     L::key_dim_max},
    {{"heads", "attention heads per layer", "a whole number from 1 to 8", Effect::restart},
     &Settings::heads,
     L::heads_min,
     L::heads_max},
    {{"layers", "attention layers", "1 or 2", Effect::restart}, &Settings::layers, L::layers_min, L::layers_max},
    {{"residual", "add each layer's output to its input", "true or false", Effect::live}, &Settings::residual},
    {{"positions", "add sinusoidal position encodings", "true or false", Effect::live}, &Settings::positions},
    {{"causal", "mask keys after the query (copy, reverse and language always do)", "true or false", Effect::live},
     &Settings::causal},
    {{"scaled", "divide q·k by sqrt(d_k)", "true or false", Effect::live}, &Settings::scaled},
    {{"temperature", "T: the softmax's logits are scores / T", "a number from 0.01 to 100", Effect::live},
     &Settings::temperature,
     L::temperature_min,
     L::temperature_max},
    {{"precision", "the softmax's arithmetic, every operation rounded", "fp64, fp32, fp16 or bf16", Effect::live},
     &Settings::precision},
    {{"softmax", "naive (no max subtracted) or stable softmax", "naive or stable", Effect::live}, &Settings::softmax},
    {{"optimizer", "Adam or plain SGD (switching clears Adam's moments)", "adam or sgd", Effect::live},
     &Settings::optimizer},
    {{"learning_rate", "Adam's alpha or SGD's step", "a number from 1e-06 to 10", Effect::live},
     &Settings::learning_rate,
     L::learning_rate_min,
     L::learning_rate_max},
    {{"init_scale", "std of W_Q and W_K entries times sqrt(d_model)", "a number from 0.01 to 100", Effect::rescale},
     &Settings::init_scale,
     L::init_scale_min,
     L::init_scale_max},
    {{"batch", "examples per step", "a whole number from 1 to 256", Effect::live},
     &Settings::batch,
     L::batch_min,
     L::batch_max},
    {{"seed", "seed of the weights, the data and the probe", "a whole number from 0 to 9007199254740992",
      Effect::restart},
     &Settings::seed,
     0.0,
     static_cast<double>(L::seed_max)},
}};

constexpr std::array<SettingKey, rows.size()> make_keys() {
  std::array<SettingKey, rows.size()> keys{};
  for (std::size_t i = 0; i < rows.size(); ++i) keys[i] = rows[i].key;
  return keys;
}
constexpr std::array<SettingKey, rows.size()> keys = make_keys();

const Row* find_row(std::string_view name) {
  for (const Row& row : rows)
    if (row.key.name == name) return &row;
  return nullptr;
}

// The value of a row as text (what get_setting returns).
std::string value_text(const Settings& s, const Row& row) {
  return std::visit(
      [&](auto member) -> std::string {
        using Value = std::remove_cvref_t<decltype(s.*member)>;
        const Value& value = s.*member;
        if constexpr (std::is_same_v<Value, int> || std::is_same_v<Value, std::uint64_t>)
          return std::to_string(value);
        else if constexpr (std::is_same_v<Value, double>)
          return shortest(value);
        else if constexpr (std::is_same_v<Value, bool>)
          return value ? "true" : "false";
        else if constexpr (std::is_same_v<Value, Task>)
          return std::string(task_name(value));
        else if constexpr (std::is_same_v<Value, Format>)
          return std::string(format_name(value));
        else if constexpr (std::is_same_v<Value, SoftmaxVariant>)
          return std::string(variant_name(value));
        else
          return std::string(optimizer_name(value));
      },
      row.member);
}

Error out_of_range(const Row& row, const std::string& value) {
  return Error::usage(std::string(row.key.name) + "=" + value + " is out of range: allowed " +
                      std::string(row.key.allowed));
}

}  // namespace

std::span<const SettingKey> setting_keys() { return keys; }

const SettingKey* find_setting_key(std::string_view name) {
  const Row* row = find_row(name);
  return row == nullptr ? nullptr : &keys[static_cast<std::size_t>(row - rows.data())];
}

// [SECTION] Validation

Result<void> validate(const Settings& s) {
  for (const Row& row : rows) {
    if (const auto* whole = std::get_if<int Settings::*>(&row.member)) {
      const int value = s.**whole;
      if (value < row.min || value > row.max) return out_of_range(row, std::to_string(value));
    } else if (const auto* real = std::get_if<double Settings::*>(&row.member)) {
      const double value = s.**real;
      if (!(value >= row.min && value <= row.max)) return out_of_range(row, shortest(value));
    } else if (const auto* seed = std::get_if<std::uint64_t Settings::*>(&row.member)) {
      if (s.**seed > Limits::seed_max) return out_of_range(row, std::to_string(s.**seed));
    }
  }
  if (s.precision != Format::fp64 && s.precision != Format::fp32 && s.precision != Format::fp16 &&
      s.precision != Format::bf16)
    return out_of_range(*find_row("precision"), std::string(format_name(s.precision)));
  if (s.softmax == SoftmaxVariant::online)
    return out_of_range(*find_row("softmax"), std::string(variant_name(s.softmax)));
  // recall's keys and maximum's numbers are distinct symbols: L − 1 of them must exist.
  if ((s.task == Task::recall || s.task == Task::maximum) && s.vocab < s.seq_len - 1)
    return Error::usage("vocab=" + std::to_string(s.vocab) + " is too small for seq_len=" + std::to_string(s.seq_len) +
                        " in task " + std::string(task_name(s.task)) +
                        ": allowed vocab from seq_len-1 = " + std::to_string(s.seq_len - 1) + " to 256");
  return {};
}

// [SECTION] Reading and writing one key

Result<void> set_setting_unchecked(Settings& settings, std::string_view name, std::string_view text) {
  const Row* row = find_row(name);
  if (row == nullptr) {
    std::string names;
    for (const Row& r : rows) names += (names.empty() ? "" : ", ") + std::string(r.key.name);
    return Error::usage("unknown training setting '" + quoted(name) + "': allowed " + names);
  }
  const auto refuse = [&] {
    return Error::usage(std::string(name) + "=" + quoted(text) + " is not allowed: " + std::string(row->key.allowed));
  };
  Settings candidate = settings;
  const auto whole_number = [&](long long& out) {
    std::string_view body = text;
    if (!body.empty() && body.front() == '+') body.remove_prefix(1);
    auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), out);
    return !body.empty() && ec == std::errc{} && end == body.data() + body.size() && out >= row->min && out <= row->max;
  };
  bool parsed = false;
  if (const auto* whole = std::get_if<int Settings::*>(&row->member)) {
    long long value = 0;
    if ((parsed = whole_number(value))) candidate.** whole = static_cast<int>(value);
  } else if (const auto* seed = std::get_if<std::uint64_t Settings::*>(&row->member)) {
    long long value = 0;
    if ((parsed = whole_number(value))) candidate.** seed = static_cast<std::uint64_t>(value);
  } else if (const auto* real = std::get_if<double Settings::*>(&row->member)) {
    std::string_view body = text;
    if (!body.empty() && body.front() == '+') body.remove_prefix(1);
    double value = 0.0;
    auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), value);
    parsed = !body.empty() && ec == std::errc{} && end == body.data() + body.size() && std::isfinite(value) &&
             value >= row->min && value <= row->max;
    if (parsed) candidate.** real = value;
  } else if (const auto* flag = std::get_if<bool Settings::*>(&row->member)) {
    if (text == "true" || text == "1" || text == "on" || text == "yes") candidate.** flag = parsed = true;
    if (text == "false" || text == "0" || text == "off" || text == "no") {
      candidate.** flag = false;
      parsed = true;
    }
  } else if (const auto* task = std::get_if<Task Settings::*>(&row->member)) {
    if (const auto value = task_from_name(text)) candidate.** task = *value, parsed = true;
  } else if (const auto* format = std::get_if<Format Settings::*>(&row->member)) {
    const auto value = format_from_name(text);
    if (value && (*value == Format::fp64 || *value == Format::fp32 || *value == Format::fp16 || *value == Format::bf16))
      candidate.** format = *value, parsed = true;
  } else if (const auto* variant = std::get_if<SoftmaxVariant Settings::*>(&row->member)) {
    if (text == "naive") candidate.** variant = SoftmaxVariant::naive, parsed = true;
    if (text == "stable") candidate.** variant = SoftmaxVariant::stable, parsed = true;
  } else if (const auto* optimizer = std::get_if<Optimizer Settings::*>(&row->member)) {
    if (text == "adam") candidate.** optimizer = Optimizer::adam, parsed = true;
    if (text == "sgd") candidate.** optimizer = Optimizer::sgd, parsed = true;
  }
  if (!parsed) return refuse();
  settings = candidate;
  return {};
}

Result<void> set_setting(Settings& settings, std::string_view name, std::string_view text) {
  Settings candidate = settings;
  if (Result<void> set = set_setting_unchecked(candidate, name, text); !set.ok()) return set;
  // A longer sequence (or a task that needs distinct symbols) raises the symbol count with it,
  // as Params' seq_len moves its row: the vocabulary follows the sequence, never the reverse.
  if ((name == "seq_len" || name == "task") && (candidate.task == Task::recall || candidate.task == Task::maximum))
    candidate.vocab = std::max(candidate.vocab, candidate.seq_len - 1);
  if (Result<void> invalid = validate(candidate); !invalid.ok()) return invalid;
  settings = candidate;
  return {};
}

std::optional<std::string> get_setting(const Settings& settings, std::string_view name) {
  const Row* row = find_row(name);
  if (row == nullptr) return std::nullopt;
  return value_text(settings, *row);
}

}  // namespace smlab::train
