// Validation, parsing and formatting of Params: the one gate every entry point uses.
#include "smlab/params.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>

namespace smlab {
namespace {

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

ParamError range_error(std::string_view key, std::string_view value, std::string_view allowed) {
  return {std::string(key) + "=" + quoted(value) + " is not allowed: " + std::string(allowed)};
}

constexpr std::array<ParamKey, 16> keys{{
    {"temperature", "softmax temperature T; logits are scores / T", "a number from 0.01 to 100"},
    {"d_k", "key dimension d_k: length of every query and key vector", "an integer from 1 to 4096"},
    {"score_scale", "multiplies every score q·k (or custom score)", "a number from 0.01 to 100"},
    {"seq_len", "sequence length L: number of queries and keys", "an integer from 2 to 4096"},
    {"seed", "seed of the random queries and keys", "an integer from 0 to 9007199254740992"},
    {"scaled", "divide scores by sqrt(d_k)", "true or false"},
    {"row", "which query row the distribution shows", "an integer from 0 to seq_len-1"},
    {"scores", "custom score vector replacing the row (empty = use the row)",
     "up to 4096 comma-separated numbers, each finite or -inf, at least one finite"},
    {"alpha", "alpha of alpha-entmax (1 = softmax, 2 = sparsemax)", "a number from 1 to 2"},
    {"format", "number format of the stability lab", "fp64, fp32, fp16, bf16, fp8-e4m3 or fp8-e5m2"},
    {"gamma", "gamma of cosine attention: scores lie in [-gamma, gamma]", "a number from 0.1 to 100"},
    {"qk_norm", "standard deviation of the entries of Q and K", "a number from 0.1 to 20"},
    {"pe_amplitude", "amplitude of the sinusoidal positional encodings", "a number from 0 to 100"},
    {"heads", "number of attention heads", "an integer from 1 to 16"},
    {"causal", "mask keys after the query", "true or false"},
    {"nudge", "added to the second-largest score (temperature lab)", "a number from -3 to 3"},
}};

const ParamKey* find_key(std::string_view name) {
  for (const ParamKey& key : keys)
    if (key.name == name) return &key;
  return nullptr;
}

std::string key_names() {
  std::string names;
  for (const ParamKey& key : keys) names += (names.empty() ? "" : ", ") + std::string(key.name);
  return names;
}

}  // namespace

std::span<const ParamKey> param_keys() { return keys; }

std::string_view format_name(Format format) { return format_info(format).name; }

std::optional<Format> format_from_name(std::string_view name) {
  for (Format format : all_formats)
    if (format_info(format).name == name) return format;
  return std::nullopt;
}

std::optional<ParamError> validate(const Params& p) {
  using L = ParamLimits;
  auto out_of_range = [](std::string_view key, const std::string& value, std::string_view allowed) {
    return ParamError{std::string(key) + "=" + value + " is out of range: allowed " + std::string(allowed)};
  };
  if (!(p.temperature >= L::temperature_min && p.temperature <= L::temperature_max))
    return out_of_range("temperature", shortest(p.temperature), "0.01 to 100");
  if (p.key_dim < L::key_dim_min || p.key_dim > L::key_dim_max)
    return out_of_range("d_k", std::to_string(p.key_dim), "1 to 4096");
  if (!(p.score_scale >= L::score_scale_min && p.score_scale <= L::score_scale_max))
    return out_of_range("score_scale", shortest(p.score_scale), "0.01 to 100");
  if (p.seq_len < L::seq_len_min || p.seq_len > L::seq_len_max)
    return out_of_range("seq_len", std::to_string(p.seq_len), "2 to 4096");
  if (p.seed > L::seed_max) return out_of_range("seed", std::to_string(p.seed), "0 to 9007199254740992");
  if (p.row < 0 || p.row >= p.seq_len)
    return out_of_range("row", std::to_string(p.row), "0 to seq_len-1 = " + std::to_string(p.seq_len - 1));
  if (!(p.alpha >= L::alpha_min && p.alpha <= L::alpha_max))
    return out_of_range("alpha", shortest(p.alpha), "1 to 2");
  if (!(p.gamma >= L::gamma_min && p.gamma <= L::gamma_max))
    return out_of_range("gamma", shortest(p.gamma), "0.1 to 100");
  if (!(p.qk_norm >= L::qk_norm_min && p.qk_norm <= L::qk_norm_max))
    return out_of_range("qk_norm", shortest(p.qk_norm), "0.1 to 20");
  if (!(p.pe_amplitude >= L::pe_amplitude_min && p.pe_amplitude <= L::pe_amplitude_max))
    return out_of_range("pe_amplitude", shortest(p.pe_amplitude), "0 to 100");
  if (p.heads < L::heads_min || p.heads > L::heads_max)
    return out_of_range("heads", std::to_string(p.heads), "1 to 16");
  if (!(p.nudge >= L::nudge_min && p.nudge <= L::nudge_max))
    return out_of_range("nudge", shortest(p.nudge), "-3 to 3");
  if (!format_from_name(format_name(p.format)))
    return ParamError{"format has an unknown value: allowed fp64, fp32, fp16, bf16, fp8-e4m3, fp8-e5m2"};
  if (p.scores.size() > L::scores_max_count)
    return ParamError{"scores has " + std::to_string(p.scores.size()) + " entries: allowed at most 4096"};
  bool any_finite = false;
  for (std::size_t i = 0; i < p.scores.size(); ++i) {
    const double s = p.scores[i];
    if (std::isnan(s) || s == std::numeric_limits<double>::infinity())
      return ParamError{"scores entry " + std::to_string(i + 1) + " = " + shortest(s) +
                        " is not allowed: each score must be finite or -inf"};
    any_finite = any_finite || std::isfinite(s);
  }
  if (!p.scores.empty() && !any_finite)
    return ParamError{"scores are all -inf: at least one score must be finite"};
  return std::nullopt;
}

std::optional<ParamError> set_param(Params& params, std::string_view key, std::string_view raw_text) {
  const ParamKey* known = find_key(key);
  if (known == nullptr)
    return ParamError{"unknown key '" + quoted(key) + "': allowed keys are " + key_names()};
  const std::string_view text = trim(raw_text);
  Params candidate = params;

  auto number = [&](double& out) -> std::optional<ParamError> {
    const auto value = parse_double(text);
    if (!value) return range_error(key, raw_text, "expected " + std::string(known->allowed));
    if (!std::isfinite(*value)) return range_error(key, raw_text, std::string(known->allowed));
    out = *value;
    return std::nullopt;
  };
  auto integer = [&](long long lo, long long hi, long long& out) -> std::optional<ParamError> {
    long long value = 0;
    std::string_view body = text;
    if (!body.empty() && body.front() == '+') body.remove_prefix(1);
    auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), value);
    if (body.empty() || ec != std::errc{} || end != body.data() + body.size() || value < lo || value > hi)
      return range_error(key, raw_text, std::string(known->allowed));
    out = value;
    return std::nullopt;
  };

  std::optional<ParamError> error;
  long long whole = 0;
  if (key == "temperature") {
    error = number(candidate.temperature);
  } else if (key == "score_scale") {
    error = number(candidate.score_scale);
  } else if (key == "d_k") {
    error = integer(ParamLimits::key_dim_min, ParamLimits::key_dim_max, whole);
    candidate.key_dim = static_cast<int>(whole);
  } else if (key == "seq_len") {
    error = integer(ParamLimits::seq_len_min, ParamLimits::seq_len_max, whole);
    candidate.seq_len = static_cast<int>(whole);
    if (!error && candidate.row >= candidate.seq_len) candidate.row = candidate.seq_len - 1;
  } else if (key == "seed") {
    error = integer(0, static_cast<long long>(ParamLimits::seed_max), whole);
    candidate.seed = static_cast<std::uint64_t>(whole);
  } else if (key == "row") {
    error = integer(0, candidate.seq_len - 1, whole);
    if (error) error = range_error(key, raw_text, "an integer from 0 to seq_len-1 = " + std::to_string(candidate.seq_len - 1));
    candidate.row = static_cast<int>(whole);
  } else if (key == "scaled" || key == "causal") {
    bool& flag = key == "scaled" ? candidate.scaled : candidate.causal;
    const std::string lower = lowercase(text);
    if (lower == "true" || lower == "1" || lower == "on" || lower == "yes") flag = true;
    else if (lower == "false" || lower == "0" || lower == "off" || lower == "no") flag = false;
    else error = range_error(key, raw_text, "true or false");
  } else if (key == "alpha") {
    error = number(candidate.alpha);
  } else if (key == "gamma") {
    error = number(candidate.gamma);
  } else if (key == "qk_norm") {
    error = number(candidate.qk_norm);
  } else if (key == "pe_amplitude") {
    error = number(candidate.pe_amplitude);
  } else if (key == "nudge") {
    error = number(candidate.nudge);
  } else if (key == "heads") {
    error = integer(ParamLimits::heads_min, ParamLimits::heads_max, whole);
    candidate.heads = static_cast<int>(whole);
  } else if (key == "format") {
    const auto format = format_from_name(lowercase(text));
    if (format) candidate.format = *format;
    else error = range_error(key, raw_text, std::string(known->allowed));
  } else if (key == "scores") {
    ScoreParse parsed = parse_scores(text);
    if (parsed.error) error = ParamError{"scores: " + parsed.error->message};
    candidate.scores = std::move(parsed.scores);
  }
  if (error) return error;
  if (auto invalid = validate(candidate)) {
    // A number that only fails the range check is echoed as typed: "1e-400" reads as 0, and
    // "temperature=0 is not allowed" would name a value nobody wrote.
    const bool real_number = key == "temperature" || key == "score_scale" || key == "alpha" || key == "gamma" ||
                             key == "qk_norm" || key == "pe_amplitude" || key == "nudge";
    const std::size_t tail = invalid->message.find(" is out of range");
    if (real_number && tail != std::string::npos && invalid->message.rfind(std::string(key) + "=", 0) == 0)
      invalid->message = std::string(key) + "=" + quoted(trim(raw_text)) + invalid->message.substr(tail);
    return invalid;
  }
  params = std::move(candidate);
  return std::nullopt;
}

std::optional<std::string> get_param(const Params& p, std::string_view key) {
  if (key == "temperature") return shortest(p.temperature);
  if (key == "d_k") return std::to_string(p.key_dim);
  if (key == "score_scale") return shortest(p.score_scale);
  if (key == "seq_len") return std::to_string(p.seq_len);
  if (key == "seed") return std::to_string(p.seed);
  if (key == "scaled") return std::string(p.scaled ? "true" : "false");
  if (key == "row") return std::to_string(p.row);
  if (key == "scores") return format_scores(p.scores);
  if (key == "alpha") return shortest(p.alpha);
  if (key == "format") return std::string(format_name(p.format));
  if (key == "gamma") return shortest(p.gamma);
  if (key == "qk_norm") return shortest(p.qk_norm);
  if (key == "pe_amplitude") return shortest(p.pe_amplitude);
  if (key == "heads") return std::to_string(p.heads);
  if (key == "causal") return std::string(p.causal ? "true" : "false");
  if (key == "nudge") return shortest(p.nudge);
  return std::nullopt;
}

ScoreParse parse_scores(std::string_view text) {
  ScoreParse result;
  constexpr std::string_view blank = " \t\r\n[]";
  // Nothing but spaces and brackets: no custom vector ("use the row").
  if (text.find_first_not_of(blank) == std::string_view::npos) return result;
  auto fail = [&](std::string message) {
    result.error = ParamError{std::move(message)};
    result.scores.clear();
    return result;
  };
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
      result.scores.push_back(*value);
    }
    if (separator == std::string_view::npos) break;
    position = separator + 1;
  }
  return result;
}

std::string format_scores(std::span<const double> scores) {
  std::string text;
  for (double s : scores) text += (text.empty() ? "" : ", ") + shortest(s);
  return text;
}

}  // namespace smlab
