// Reading the numbers of a lesson text: digits, a decimal part, an exponent in e-notation or as a
// superscript power of ten, and a sign written as '-' or U+2212.
#include "lessons/quoted_numbers.hpp"

#include <cmath>
#include <cstdlib>
#include <optional>

namespace smlab::app {
namespace {

constexpr std::string_view minus_sign = "\xE2\x88\x92";  // U+2212, as the lessons write a minus

bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::size_t digits_from(std::string_view text, std::size_t at) {
  while (at < text.size() && is_digit(text[at])) ++at;
  return at;
}

// The superscript digit at text[at] (¹ ² ³ are two bytes, ⁰ ⁴ … ⁹ three) and its length, or none.
std::optional<std::pair<int, std::size_t>> superscript_digit(std::string_view text, std::size_t at) {
  const std::string_view rest = text.substr(at);
  if (rest.substr(0, 2) == "\xC2\xB9") return std::pair{1, std::size_t{2}};
  if (rest.substr(0, 2) == "\xC2\xB2") return std::pair{2, std::size_t{2}};
  if (rest.substr(0, 2) == "\xC2\xB3") return std::pair{3, std::size_t{2}};
  if (rest.size() >= 3 && rest.substr(0, 2) == "\xE2\x81") {
    const auto last = static_cast<unsigned char>(rest[2]);
    if (last == 0xB0) return std::pair{0, std::size_t{3}};
    if (last >= 0xB4 && last <= 0xB9) return std::pair{last - 0xB0, std::size_t{3}};
  }
  return std::nullopt;
}

// An exponent after the mantissa ending at `end`: "e-4", "e−4", "·10³⁸", "×10⁻²²". Moves `end` past it.
std::optional<int> exponent_at(std::string_view text, std::size_t& end) {
  if (end + 1 < text.size() && (text[end] == 'e' || text[end] == 'E')) {
    std::size_t at = end + 1;
    int sign = 1;
    if (text[at] == '-' || text[at] == '+') {
      sign = text[at] == '-' ? -1 : 1;
      ++at;
    } else if (text.substr(at, minus_sign.size()) == minus_sign) {
      sign = -1;
      at += minus_sign.size();
    }
    const std::size_t digits_end = digits_from(text, at);
    if (digits_end == at || (digits_end < text.size() && is_word_char(text[digits_end]))) return std::nullopt;
    end = digits_end;
    return sign * std::atoi(std::string(text.substr(at, digits_end - at)).c_str());
  }
  for (const std::string_view times : {std::string_view("\xC2\xB7"
                                                        "10"),
                                       std::string_view("\xC3\x97"
                                                        "10")}) {
    if (text.substr(end, times.size()) != times) continue;
    std::size_t at = end + times.size();
    int sign = 1, power = 0;
    if (text.substr(at, 3) == "\xE2\x81\xBB") {  // ⁻
      sign = -1;
      at += 3;
    }
    const std::size_t first = at;
    while (const auto digit = superscript_digit(text, at)) {
      power = 10 * power + digit->first;
      at += digit->second;
    }
    if (at == first) return std::nullopt;
    end = at;
    return sign * power;
  }
  return std::nullopt;
}

}  // namespace

std::vector<QuotedNumber> quoted_numbers(std::string_view text) {
  std::vector<QuotedNumber> found;
  std::size_t k = 0;
  while (k < text.size()) {
    // A number starts at a digit that does not continue a word or a number ("fp16", ".5").
    if (!is_digit(text[k]) || (k > 0 && (is_word_char(text[k - 1]) || text[k - 1] == '.'))) {
      ++k;
      continue;
    }
    std::size_t start = k;
    bool negative = false;
    if (k >= 1 && text[k - 1] == '-' && (k < 2 || !is_word_char(text[k - 2]))) {
      negative = true;
      start = k - 1;
    } else if (k >= minus_sign.size() && text.substr(k - minus_sign.size(), minus_sign.size()) == minus_sign) {
      negative = true;
      start = k - minus_sign.size();
    }
    std::size_t end = digits_from(text, k);
    int decimals = 0;
    bool measured = false;
    if (end + 1 < text.size() && text[end] == '.' && is_digit(text[end + 1])) {
      const std::size_t decimals_end = digits_from(text, end + 1);
      decimals = static_cast<int>(decimals_end - end - 1);
      end = decimals_end;
      measured = true;
    }
    const double mantissa = std::strtod(std::string(text.substr(k, end - k)).c_str(), nullptr);
    const std::optional<int> exponent = exponent_at(text, end);
    measured = measured || exponent.has_value();
    if (end < text.size() && is_word_char(text[end])) {  // a name: "10x", "e4m3" read as "4" …
      k = end;
      continue;
    }
    const double magnitude = mantissa * std::pow(10.0, exponent.value_or(0));
    // Half a unit of the last digit, and a hair more: the decimal text of a binary value rounds both ways.
    const double tolerance = 0.5 * std::pow(10.0, exponent.value_or(0) - decimals) * (1.0 + 1e-9);
    found.push_back(
        {std::string(text.substr(start, end - start)), negative ? -magnitude : magnitude, tolerance, measured});
    k = end;
  }
  return found;
}

}  // namespace smlab::app
