// Validation, parsing and formatting of Params: the one gate every entry point uses.
//
// [SECTION] Index
//   [SECTION] Parsing and quoting text
//   [SECTION] The key table and one key's check
//   [SECTION] Interpolation
//   [SECTION] Key lookup, blending and format names
//   [SECTION] Validation and setting one key
//   [SECTION] get_param, score lists and --set assignments
#include "smlab/params.hpp"

#include "smlab/assignments.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <variant>

namespace smlab {
namespace {

// [SECTION] Parsing and quoting text

// Shortest text that parses back to exactly the same double.
std::string shortest(double value) {
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (std::isnan(value)) return "nan";
  std::array<char, 32> buffer{};
  auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return ec == std::errc{} ? std::string(buffer.data(), end) : std::string("?");
}

// Quotes user text in an error message, cut short so one line stays one line.
std::string quoted(std::string_view text) {
  constexpr std::size_t max_shown = 40;
  std::string shown;
  for (char c : text.substr(0, max_shown)) shown += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
  if (text.size() > max_shown) shown += "... (" + std::to_string(text.size()) + " characters)";
  return shown.empty() ? "\"\"" : shown;
}

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

std::string lowercase(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  return out;
}

// The power of ten of the leading nonzero digit of an unsigned decimal number
// ("123e4" → 6, "0.001" → -3), saturated to ±2^40; tells overflow from underflow.
long long decimal_magnitude(std::string_view number) {
  constexpr long long limit = 1LL << 40;
  const std::size_t exponent_at = number.find_first_of("eE");
  long long exponent = 0;
  if (exponent_at != std::string_view::npos) {
    std::string_view digits = number.substr(exponent_at + 1);
    const bool negative = !digits.empty() && digits.front() == '-';
    if (!digits.empty() && (digits.front() == '-' || digits.front() == '+')) digits.remove_prefix(1);
    const auto parsed = std::from_chars(digits.data(), digits.data() + digits.size(), exponent);
    if (parsed.ec == std::errc::result_out_of_range || exponent > limit) exponent = limit;
    exponent = negative ? -exponent : exponent;
    number = number.substr(0, exponent_at);
  }
  const std::size_t point = number.find('.');
  const long long integer_digits = static_cast<long long>(point == std::string_view::npos ? number.size() : point);
  long long position = 0;  // index of the first nonzero digit among all digits
  for (char c : number) {
    if (c == '.') continue;
    if (c != '0') return integer_digits - position - 1 + exponent;
    ++position;
  }
  return -limit;  // all zeros: no magnitude (from_chars does not report zero as out of range)
}

// Parses a whole token as a double; "inf"/"-inf"/"nan" are recognised so the
// caller can say precisely why they are not allowed.
std::optional<double> parse_double(std::string_view token) {
  const std::string lower = lowercase(token);
  if (lower == "inf" || lower == "+inf" || lower == "infinity") return std::numeric_limits<double>::infinity();
  if (lower == "-inf" || lower == "-infinity") return -std::numeric_limits<double>::infinity();
  if (lower == "nan" || lower == "+nan" || lower == "-nan") return std::numeric_limits<double>::quiet_NaN();
  std::string_view body = token;
  if (!body.empty() && body.front() == '+') body.remove_prefix(1);
  double value = 0.0;
  auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), value);
  if (body.empty() || end != body.data() + body.size()) return std::nullopt;
  if (ec == std::errc::result_out_of_range) {
    // from_chars reports overflow and underflow alike. Overflow reads as ±inf (so
    // "1e999" is called too large); underflow reads as ±0, so "-1e-400" is a tiny
    // number, not a masked key (-inf).
    const bool negative = body.front() == '-';
    if (decimal_magnitude(negative ? body.substr(1) : body) < 0) return negative ? -0.0 : 0.0;
    return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  }
  if (ec != std::errc{}) return std::nullopt;
  return value;
}

Error range_error(std::string_view key, std::string_view value, std::string_view allowed) {
  return Error::usage(std::string(key) + "=" + quoted(value) + " is not allowed: " + std::string(allowed));
}

using L = ParamLimits;
using Scale = KeyScale;

// [SECTION] The key table and one key's check

// The key table (params.hpp). `allowed` is left empty where it is derived from [min, max].
constexpr std::array<ParamKey, 30> key_rows{{
    {"temperature", "softmax temperature T; logits are scores / T", "", &Params::temperature, L::temperature_min,
     L::temperature_max, Scale::logarithmic},
    {"d_k", "key dimension d_k: length of every query and key vector", "", &Params::key_dim, L::key_dim_min,
     L::key_dim_max, Scale::logarithmic},
    {"score_scale", "multiplies every score q·k (or custom score)", "", &Params::score_scale, L::score_scale_min,
     L::score_scale_max, Scale::logarithmic},
    {"seq_len", "sequence length L: number of queries and keys", "", &Params::seq_len, L::seq_len_min, L::seq_len_max,
     Scale::logarithmic},
    {"seed", "seed of the random queries and keys", "", &Params::seed, 0.0, static_cast<double>(L::seed_max),
     Scale::linear, 0.0, false},
    {"scaled", "divide scores by sqrt(d_k)", "true or false", &Params::scaled},
    {"row", "which query row the distribution shows", "an integer from 0 to seq_len-1", &Params::row, 0.0,
     L::seq_len_max - 1, Scale::linear},
    {"scores", "custom score vector replacing the row (empty = use the row)",
     "up to 4096 comma-separated numbers, each finite or -inf, at least one finite", &Params::scores},
    {"alpha", "alpha of alpha-entmax (1 = softmax, 2 = sparsemax)", "", &Params::alpha, L::alpha_min, L::alpha_max,
     Scale::linear, 0.01},
    {"format", "number format of the stability lab", "fp64, fp32, fp16, bf16, fp8-e4m3 or fp8-e5m2", &Params::format},
    {"gamma", "gamma of cosine attention: scores lie in [-gamma, gamma]", "", &Params::gamma, L::gamma_min,
     L::gamma_max, Scale::logarithmic},
    {"qk_norm", "standard deviation of the entries of Q and K", "", &Params::qk_norm, L::qk_norm_min, L::qk_norm_max,
     Scale::logarithmic},
    {"pe_amplitude", "amplitude of the sinusoidal positional encodings", "", &Params::pe_amplitude, L::pe_amplitude_min,
     L::pe_amplitude_max, Scale::logarithmic, 0.01},
    {"heads", "number of attention heads", "", &Params::heads, L::heads_min, L::heads_max, Scale::linear},
    {"causal", "mask keys after the query", "true or false", &Params::causal},
    {"nudge", "added to the second-largest score (temperature lab)", "", &Params::nudge, L::nudge_min, L::nudge_max,
     Scale::linear, 0.05},
    {"top_k", "tokens kept by top-k sampling (sampling lab)", "", &Params::top_k, L::top_k_min, L::top_k_max,
     Scale::linear},
    {"top_p", "nucleus mass p of top-p sampling (sampling lab)", "", &Params::top_p, L::top_p_min, L::top_p_max,
     Scale::linear, 0.01},
    // Not a nudge/sweep key (scale none): a million draws is no slider to walk notch by notch.
    {"samples", "draws in the sampling histogram (sampling lab)", "", &Params::samples, L::samples_min, L::samples_max,
     Scale::none, 0.0, true, true},
    {"target", "index of the one-hot target in the row (loss lab; clamped to the row)", "", &Params::target,
     L::target_min, L::target_max, Scale::linear},
    {"angle", "direction of q in degrees (geometry lab)", "", &Params::angle, L::angle_min, L::angle_max, Scale::linear,
     1.0},
    {"key_angle", "direction of key 0 in degrees (geometry lab)", "", &Params::key_angle, L::angle_min, L::angle_max,
     Scale::linear, 1.0},
    {"key_norm", "length of key 0 (geometry lab)", "", &Params::key_norm, L::key_norm_min, L::key_norm_max,
     Scale::logarithmic},
    {"epsilon", "epsilon of cosine attention's max(|q|, epsilon) (geometry lab)", "", &Params::epsilon, L::epsilon_min,
     L::epsilon_max, Scale::logarithmic},
    {"init", "weight initialisation: 0 Var(w)=1, 1 Xavier, 2 He, 3 sigma_w=0.01 (init lab)", "", &Params::init,
     L::init_min, L::init_max, Scale::linear},
    {"activation", "activation between layers: 0 linear, 1 tanh, 2 ReLU (init lab)", "", &Params::activation,
     L::activation_min, L::activation_max, Scale::linear},
    {"depth", "number of layers (init lab)", "", &Params::depth, L::depth_min, L::depth_max, Scale::linear},
    {"layer_norm", "LayerNorm after every layer (init lab)", "true or false", &Params::layer_norm},
    {"batch", "which batch of imported data is shown (--import)", "an integer from 0 to B-1 of the imported data",
     &Params::batch, 0.0, L::batch_max},
    {"head", "which head of imported data is shown (--import)", "an integer from 0 to H-1 of the imported data",
     &Params::head, 0.0, L::head_max},
}};

std::string integer_text(double value) { return std::to_string(static_cast<long long>(value)); }

// "0.01 to 100", "1 to 4096": a fixed range as validate() names it.
std::string range_text(const ParamKey& key) {
  return key.is_real() ? shortest(key.min) + " to " + shortest(key.max)
                       : integer_text(key.min) + " to " + integer_text(key.max);
}

struct KeyTable {
  std::array<std::string, key_rows.size()> allowed;
  std::vector<ParamKey> keys{key_rows.begin(), key_rows.end()};
  KeyTable() {
    for (std::size_t i = 0; i < key_rows.size(); ++i) {
      if (!keys[i].allowed.empty()) continue;
      allowed[i] = (keys[i].is_real() ? "a number from " : "an integer from ") + range_text(keys[i]);
      keys[i].allowed = allowed[i];
    }
    // The training lab's keys after Params' own (smlab/labs/training.hpp): numbers are sliders;
    // none blends in a lesson (a running training takes a new value at once, not 30 in a glide).
    for (const TrainingKey& key : training_keys()) {
      const bool number = key.kind == TrainingKeyKind::integer || key.kind == TrainingKeyKind::real;
      const Scale scale = !number || !key.slider ? Scale::none : key.logarithmic ? Scale::logarithmic : Scale::linear;
      keys.push_back(
          {key.name, key.description, key.allowed, TrainingMember{&key}, key.min, key.max, scale, 0.0, false});
    }
  }
};

const KeyTable& key_table() {
  static const KeyTable table;  // built once, never changed
  return table;
}

// What an unknown key may be instead, short enough for one line (all 55 names were 630 bytes): a
// name that starts like the training lab's keys gets theirs, without the common prefix; any other
// gets Params' own keys (with "train_*" after them the line grew past 300 bytes).
std::string key_names(std::string_view unknown) {
  const bool training = unknown.rfind("train", 0) == 0;
  std::string names;
  for (const ParamKey& key : key_table().keys)
    if (std::holds_alternative<TrainingMember>(key.member) == training)
      names += (names.empty() ? "" : ", ") + std::string(training ? key.name.substr(6) : key.name);
  return training ? "train_ and one of " + names : names;
}

// The first problem of one key in `p`, in the words validate() uses.
Result<void> check_key(const Params& p, const ParamKey& key) {
  auto out_of_range = [&](const std::string& value, std::string_view allowed) {
    return Error::usage(std::string(key.name) + "=" + value + " is out of range: allowed " + std::string(allowed));
  };
  const ImportedAttention* data = p.imported.get();
  if (const auto* real = std::get_if<double Params::*>(&key.member)) {
    const double value = p.**real;
    if (!(value >= key.min && value <= key.max)) return out_of_range(shortest(value), range_text(key));
  } else if (const auto* whole = std::get_if<int Params::*>(&key.member)) {
    const int value = p.**whole;
    const std::string text = std::to_string(value);
    if (key.name == "row") {
      if (value < 0 || value >= p.seq_len)
        return out_of_range(text, "0 to seq_len-1 = " + std::to_string(p.seq_len - 1));
    } else if (key.name == "seq_len" && data != nullptr) {
      if (value != data->length)
        return out_of_range(text, std::to_string(data->length) + " (the L of the imported data)");
    } else if ((key.name == "batch" || key.name == "head") && data != nullptr) {
      const bool batch = key.name == "batch";
      const int count = batch ? data->batches : data->heads;
      if (value < 0 || value >= count)
        return out_of_range(text, "0 to " + std::to_string(count - 1) +
                                      (batch ? " (the imported data's batches)" : " (the imported data's heads)"));
    } else if (value < key.min || value > key.max) {
      return out_of_range(text, range_text(key));
    }
    if (key.name == "d_k" && data != nullptr && data->key_dim > 0 && value != data->key_dim)
      return out_of_range(text, std::to_string(data->key_dim) + " (the d of the imported Q and K)");
  } else if (const auto* seed = std::get_if<std::uint64_t Params::*>(&key.member)) {
    if (p.**seed > static_cast<std::uint64_t>(key.max)) return out_of_range(std::to_string(p.**seed), range_text(key));
  } else if (const auto* format = std::get_if<Format Params::*>(&key.member)) {
    if (!format_from_name(format_name(p.**format)))
      return Error::usage(std::string(key.name) +
                          " has an unknown value: allowed fp64, fp32, fp16, bf16, fp8-e4m3, fp8-e5m2");
  } else if (const auto* scores = std::get_if<std::vector<double> Params::*>(&key.member)) {
    const std::vector<double>& values = p.**scores;
    if (values.size() > L::scores_max_count)
      return Error::usage("scores has " + std::to_string(values.size()) + " entries: allowed at most 4096");
    bool any_finite = false;
    for (std::size_t i = 0; i < values.size(); ++i) {
      const double s = values[i];
      if (std::isnan(s) || s == std::numeric_limits<double>::infinity())
        return Error::usage("scores entry " + std::to_string(i + 1) + " = " + shortest(s) +
                            " is not allowed: each score must be finite or -inf");
      any_finite = any_finite || std::isfinite(s);
    }
    if (!values.empty() && !any_finite) return Error::usage("scores are all -inf: at least one score must be finite");
  }
  // Training keys: checked together by validate(TrainingSettings), once, in validate(Params).
  return {};
}

// [SECTION] Interpolation

// Log-space interpolation between two positive values, kept inside [min(a, b), max(a, b)] so
// rounding in exp/log cannot step outside the valid range.
double log_lerp(double a, double b, double t) {
  const double value = std::exp(std::log(a) + (std::log(b) - std::log(a)) * t);
  return std::clamp(value, std::min(a, b), std::max(a, b));
}

double lerp(double a, double b, double t) { return std::clamp(a + (b - a) * t, std::min(a, b), std::max(a, b)); }

int round_between(double value, int a, int b) {
  return std::clamp(static_cast<int>(std::lround(value)), std::min(a, b), std::max(a, b));
}

}  // namespace

// [SECTION] Key lookup, blending and format names

std::span<const ParamKey> param_keys() { return key_table().keys; }

const ParamKey* find_param_key(std::string_view name) {
  for (const ParamKey& key : key_table().keys)
    if (key.name == name) return &key;
  return nullptr;
}

std::optional<double> numeric_param(const Params& params, const ParamKey& key) {
  if (const auto* real = std::get_if<double Params::*>(&key.member)) return params.**real;
  if (const auto* whole = std::get_if<int Params::*>(&key.member)) return params.**whole;
  if (const auto* seed = std::get_if<std::uint64_t Params::*>(&key.member)) return static_cast<double>(params.**seed);
  if (key.is_real() || key.is_integer()) {  // a training number: its text, as get_param prints it
    const std::optional<std::string> text = get_training_key(params.training, key.name);
    double value = 0.0;
    if (text && std::from_chars(text->data(), text->data() + text->size(), value).ec == std::errc{}) return value;
  }
  return std::nullopt;
}

Params blend_params(const Params& from, const Params& to, double t) {
  Params mid = to;  // what does not blend (seed, flags, scores, format, batch, head) is at once `to`'s
  for (const ParamKey& key : key_table().keys) {
    if (key.scale == KeyScale::none || !key.blends) continue;
    const bool logarithmic = key.scale == KeyScale::logarithmic && key.min > 0.0;
    auto blend = [&](double a, double b) { return logarithmic ? log_lerp(a, b, t) : lerp(a, b, t); };
    if (const auto* real = std::get_if<double Params::*>(&key.member)) {
      mid.** real = blend(from.**real, to.**real);
    } else if (const auto* whole = std::get_if<int Params::*>(&key.member)) {
      int& value = mid.**whole;
      value = round_between(blend(from.**whole, to.**whole), from.**whole, to.**whole);
      if (key.name == "row") value = std::min(value, mid.seq_len - 1);  // seq_len comes first in the table
    }
  }
  return mid;
}

std::string_view format_name(Format format) { return format_info(format).name; }

std::optional<Format> format_from_name(std::string_view name) {
  for (Format format : all_formats)
    if (format_info(format).name == name) return format;
  return std::nullopt;
}

// [SECTION] Validation and setting one key

Result<void> validate(const Params& p) {
  for (const ParamKey& key : key_table().keys)
    if (Result<void> checked = check_key(p, key); !checked.ok()) return checked;
  return validate(p.training);
}

Result<void> set_param(Params& params, std::string_view key, std::string_view raw_text) {
  const ParamKey* known = find_param_key(key);
  if (known == nullptr) return Error::usage("unknown key '" + quoted(key) + "': allowed keys are " + key_names(key));
  const std::string_view text = trim(raw_text);
  Params candidate = params;

  auto number = [&](double& out) -> Result<void> {
    const auto value = parse_double(text);
    if (!value) return range_error(key, raw_text, "expected " + std::string(known->allowed));
    if (!std::isfinite(*value)) return range_error(key, raw_text, std::string(known->allowed));
    out = *value;
    return {};
  };
  auto integer = [&](long long lo, long long hi, long long& out) -> Result<void> {
    long long value = 0;
    std::string_view body = text;
    if (!body.empty() && body.front() == '+') body.remove_prefix(1);
    auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), value);
    if (body.empty() || ec != std::errc{} || end != body.data() + body.size() || value < lo || value > hi)
      return range_error(key, raw_text, std::string(known->allowed));
    out = value;
    return {};
  };

  Result<void> error;
  long long whole = 0;
  const ImportedAttention* data = candidate.imported.get();
  if (const auto* real = std::get_if<double Params::*>(&known->member)) {
    error = number(candidate.**real);
  } else if (const auto* seed = std::get_if<std::uint64_t Params::*>(&known->member)) {
    error = integer(static_cast<long long>(known->min), static_cast<long long>(known->max), whole);
    candidate.** seed = static_cast<std::uint64_t>(whole);
  } else if (const auto* flag = std::get_if<bool Params::*>(&known->member)) {
    const std::string lower = lowercase(text);
    if (lower == "true" || lower == "1" || lower == "on" || lower == "yes")
      candidate.** flag = true;
    else if (lower == "false" || lower == "0" || lower == "off" || lower == "no")
      candidate.** flag = false;
    else
      error = range_error(key, raw_text, "true or false");
  } else if (const auto* format_member = std::get_if<Format Params::*>(&known->member)) {
    const auto format = format_from_name(lowercase(text));
    if (format)
      candidate.** format_member = *format;
    else
      error = range_error(key, raw_text, std::string(known->allowed));
  } else if (std::holds_alternative<TrainingMember>(known->member)) {
    // The sentence keeps its spaces; every other training value is read trimmed.
    error = set_training_key(candidate.training, key, key == "train_sentence" ? raw_text : text);
  } else if (const auto* scores = std::get_if<std::vector<double> Params::*>(&known->member)) {
    Result<std::vector<double>> parsed = parse_scores(text);
    if (parsed.ok())
      candidate.** scores = std::move(*parsed);
    else
      error = Error::usage("scores: " + parsed.error().message);
  } else if (const auto* member = std::get_if<int Params::*>(&known->member)) {
    // Integers whose range depends on other keys or on imported data, then the fixed ranges.
    int& target = candidate.**member;
    if (key == "batch" || key == "head") {
      const int count = data == nullptr ? 65536 : key == "batch" ? data->batches : data->heads;
      error = integer(0, count - 1, whole);
      if (!error.ok())
        error = range_error(key, raw_text,
                            "an integer from 0 to " + std::to_string(count - 1) +
                                (data == nullptr ? "" : " (the imported data has " + std::to_string(count) + ")"));
    } else if (key == "seq_len" && data != nullptr) {
      error = integer(data->length, data->length, whole);
      if (!error.ok())
        error = range_error(key, raw_text, std::to_string(data->length) + " (fixed by the imported data)");
    } else if (key == "row") {
      error = integer(0, candidate.seq_len - 1, whole);
      if (!error.ok())
        error = range_error(key, raw_text, "an integer from 0 to seq_len-1 = " + std::to_string(candidate.seq_len - 1));
    } else {
      error = integer(static_cast<long long>(known->min), static_cast<long long>(known->max), whole);
    }
    target = static_cast<int>(whole);
    // The row is a position inside the sequence: a shorter sequence moves it, not an error.
    if (error.ok() && key == "seq_len" && candidate.row >= candidate.seq_len) candidate.row = candidate.seq_len - 1;
  }
  if (!error.ok()) return error;
  if (Result<void> invalid = validate(candidate); !invalid.ok()) {
    // A number that only fails the range check is echoed as typed: "1e-400" reads as 0, and
    // "temperature=0 is not allowed" would name a value nobody wrote.
    const std::string& message = invalid.error().message;
    const std::size_t tail = message.find(" is out of range");
    if (known->is_real() && tail != std::string::npos && message.rfind(std::string(key) + "=", 0) == 0)
      return Error::usage(std::string(key) + "=" + quoted(trim(raw_text)) + message.substr(tail));
    return invalid;
  }
  params = std::move(candidate);
  return {};
}

Result<void> attach_import(Params& params, std::shared_ptr<const ImportedAttention> data) {
  Params candidate = params;
  if (data != nullptr) {
    candidate.seq_len = data->length;
    if (data->key_dim > 0) candidate.key_dim = data->key_dim;
    candidate.batch = std::clamp(candidate.batch, 0, data->batches - 1);
    candidate.head = std::clamp(candidate.head, 0, data->heads - 1);
  } else {
    candidate.seq_len = std::clamp(candidate.seq_len, ParamLimits::seq_len_min, ParamLimits::seq_len_max);
  }
  candidate.row = std::clamp(candidate.row, 0, candidate.seq_len - 1);
  candidate.imported = std::move(data);
  if (Result<void> invalid = validate(candidate); !invalid.ok()) return invalid;
  params = std::move(candidate);
  return {};
}

// [SECTION] get_param, score lists and --set assignments

std::optional<std::string> get_param(const Params& p, std::string_view name) {
  const ParamKey* key = find_param_key(name);
  if (key == nullptr) return std::nullopt;
  if (const auto* real = std::get_if<double Params::*>(&key->member)) return shortest(p.**real);
  if (const auto* whole = std::get_if<int Params::*>(&key->member)) return std::to_string(p.**whole);
  if (const auto* seed = std::get_if<std::uint64_t Params::*>(&key->member)) return std::to_string(p.**seed);
  if (const auto* flag = std::get_if<bool Params::*>(&key->member)) return std::string(p.**flag ? "true" : "false");
  if (const auto* format = std::get_if<Format Params::*>(&key->member)) return std::string(format_name(p.**format));
  if (std::holds_alternative<TrainingMember>(key->member)) return get_training_key(p.training, name);
  return format_scores(p.**std::get_if<std::vector<double> Params::*>(&key->member));
}

Result<std::vector<double>> parse_scores(std::string_view text) {
  std::vector<double> scores;
  constexpr std::string_view blank = " \t\r\n[]";
  // Nothing but spaces and brackets: no custom vector ("use the row").
  if (text.find_first_not_of(blank) == std::string_view::npos) return scores;
  auto fail = [](std::string message) { return Error::usage(std::move(message)); };
  std::size_t index = 0;
  std::size_t position = 0;
  // Entries are separated by commas or semicolons (spaces also separate numbers inside one); an
  // empty entry ("1,,2", ",,,", "1, 2,") is a mistake, not a number to skip.
  while (true) {
    const std::size_t separator = text.find_first_of(",;", position);
    const std::string_view entry =
        text.substr(position, separator == std::string_view::npos ? std::string_view::npos : separator - position);
    if (entry.find_first_not_of(blank) == std::string_view::npos)
      return fail("entry " + std::to_string(index + 1) +
                  " is empty: expected numbers separated by commas, e.g. 1, 2, 3");
    std::size_t at = 0;
    while (at < entry.size()) {
      const std::size_t start = entry.find_first_not_of(blank, at);
      if (start == std::string_view::npos) break;
      std::size_t end = entry.find_first_of(blank, start);
      if (end == std::string_view::npos) end = entry.size();
      const std::string_view token = entry.substr(start, end - start);
      at = end;
      ++index;
      if (index > ParamLimits::scores_max_count) return fail("more than 4096 numbers: allowed at most 4096");
      const auto value = parse_double(token);
      if (!value)
        return fail("entry " + std::to_string(index) + " '" + quoted(token) +
                    "' is not a number: expected numbers separated by commas, e.g. 1, 2, 3");
      if (std::isnan(*value) || *value == std::numeric_limits<double>::infinity())
        return fail("entry " + std::to_string(index) + " '" + quoted(token) +
                    "' is not allowed: each score must be finite or -inf");
      scores.push_back(*value);
    }
    if (separator == std::string_view::npos) break;
    position = separator + 1;
  }
  return scores;
}

std::string format_scores(std::span<const double> scores) {
  std::string text;
  for (double s : scores) text += (text.empty() ? "" : ", ") + shortest(s);
  return text;
}

std::optional<RefusedKey> apply_key_values(Params& params, std::span<const KeyValue> values,
                                           const std::function<bool(std::string_view key)>& skip_if_refused) {
  const auto key_rank = [](std::string_view key) {
    const auto keys = param_keys();
    for (std::size_t rank = 0; rank < keys.size(); ++rank)
      if (keys[rank].name == key) return rank;
    return keys.size();
  };
  // A repeated key counts once, with its last value (an earlier one is not applied at all).
  std::vector<const KeyValue*> pending;
  for (std::size_t i = 0; i < values.size(); ++i)
    if (std::none_of(values.begin() + static_cast<std::ptrdiff_t>(i) + 1, values.end(),
                     [&](const KeyValue& later) { return later.key == values[i].key; }))
      pending.push_back(&values[i]);
  std::stable_sort(pending.begin(), pending.end(),
                   [&](const KeyValue* a, const KeyValue* b) { return key_rank(a->key) < key_rank(b->key); });
  // Each key's text as it stood right after its value was applied.
  std::vector<std::pair<const KeyValue*, std::optional<std::string>>> applied;
  const auto remember = [&](const KeyValue* value) { applied.emplace_back(value, get_param(params, value->key)); };
  // Round after round, each refused value tried again once the others are in; done when a round
  // takes none of them.
  while (!pending.empty()) {
    std::vector<const KeyValue*> refused;
    std::optional<RefusedKey> first;
    for (const KeyValue* value : pending) {
      if (Result<void> set = set_param(params, value->key, value->value); set.ok()) {
        remember(value);
      } else {
        refused.push_back(value);
        if (!first && !(skip_if_refused && skip_if_refused(value->key))) first = RefusedKey{value->key, set.error()};
      }
    }
    if (refused.size() == pending.size()) {
      if (first) return first;
      break;  // only keys that may stay as they were
    }
    pending = std::move(refused);
  }
  // A typed value must be the one the set holds: when a later key moved it, setting it again on the
  // whole set says why it cannot be (or puts it back when it can).
  for (const auto& [value, text] : applied) {
    if (get_param(params, value->key) == text) continue;
    if (Result<void> again = set_param(params, value->key, value->value); !again.ok())
      return RefusedKey{value->key, again.error()};
  }
  for (const auto& [value, text] : applied)
    if (get_param(params, value->key) != text)
      return RefusedKey{value->key, Error::usage(value->key + "=" + value->value.substr(0, 40) +
                                                 " cannot be kept together with the other keys given")};
  return std::nullopt;
}

Result<void> apply_assignments(Params& params, const std::vector<std::string>& assignments) {
  std::vector<KeyValue> values;
  for (const std::string& assignment : assignments) {
    const auto equals = assignment.find('=');
    if (equals == std::string::npos)
      return Error::usage("--set '" + assignment.substr(0, 60) + "' is not KEY=VALUE, e.g. --set temperature=0.5");
    values.push_back({assignment.substr(0, equals), assignment.substr(equals + 1)});
  }
  if (std::optional<RefusedKey> refused = apply_key_values(params, values)) return std::move(refused->error);
  return {};
}

}  // namespace smlab
