// Included first in every web-build file (-include): the C++20 library pieces the project uses that
// emscripten 3.1.6's libc++ lacks — std::bit_cast, floating-point std::to_chars/std::from_chars
// (declared deleted there), std::stop_token/std::stop_source and std::jthread (the web build starts
// no threads: a jthread here is a std::thread that is also handed a stop token). Not for native code.
#pragma once
#if defined(__EMSCRIPTEN__) && defined(__cplusplus)

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <type_traits>
#include <utility>
#include <bit>

namespace std {

// clang-format 14 misplaces requires-clauses (it joins them to the declaration that follows).
// clang-format off

#if !defined(__cpp_lib_bit_cast)
template <class To, class From>
  requires(sizeof(To) == sizeof(From) && is_trivially_copyable_v<To> && is_trivially_copyable_v<From>)
constexpr To bit_cast(const From& from) noexcept {
  return __builtin_bit_cast(To, from);
}
#endif

// ─── to_chars / from_chars for floating point (renamed by the macros at the end) ─────────────
template <class T>
  requires is_integral_v<T>
to_chars_result smlab_web_to_chars(char* first, char* last, T value, int base = 10) {
  return to_chars(first, last, value, base);
}
template <class T>
  requires is_integral_v<T>
from_chars_result smlab_web_from_chars(const char* first, const char* last, T& value, int base = 10) {
  return from_chars(first, last, value, base);
}
// std::to_chars(first, last, value)'s text: the fewest significant digits that read back as the
// same value, written in fixed or scientific notation, whichever is shorter (fixed on a tie), as
// the standard says and libstdc++ does (so "100", not "1e+02"; "1e-05", not "0.00001").
template <class F>
  requires is_floating_point_v<F>
to_chars_result smlab_web_to_chars(char* first, char* last, F value) {
  char sci[64];
  if (value != value || value - value != value - value) {  // NaN or ±inf: printf's words
    const int length = snprintf(sci, sizeof sci, "%g", static_cast<double>(value));
    if (length < 0 || length > last - first) return {last, errc::value_too_large};
    memcpy(first, sci, static_cast<size_t>(length));
    return {first + length, errc{}};
  }
  for (int precision = 1; precision <= 17; ++precision) {
    snprintf(sci, sizeof sci, "%.*e", precision - 1, static_cast<double>(value));
    if (static_cast<F>(strtod(sci, nullptr)) == value) break;
  }
  // sci is [-]d[.ddd]e±XX: its digits and decimal exponent.
  string text(sci), sign, digits;
  size_t at = 0;
  if (text[0] == '-') {
    sign = "-";
    at = 1;
  }
  const size_t e = text.find('e');
  for (size_t i = at; i < e; ++i)
    if (text[i] != '.') digits += text[i];
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  const int exponent = atoi(text.c_str() + e + 1);
  string fixed;
  if (digits == "0") {
    fixed = "0";
  } else if (exponent >= 0) {
    const size_t whole = static_cast<size_t>(exponent) + 1;
    fixed = digits.size() <= whole ? digits + string(whole - digits.size(), '0')
                                   : digits.substr(0, whole) + "." + digits.substr(whole);
  } else {
    fixed = "0." + string(static_cast<size_t>(-exponent - 1), '0') + digits;
  }
  char exponent_text[16];
  snprintf(exponent_text, sizeof exponent_text, "e%c%02d", exponent < 0 ? '-' : '+', exponent < 0 ? -exponent : exponent);
  const string scientific = digits.substr(0, 1) + (digits.size() > 1 ? "." + digits.substr(1) : "") + exponent_text;
  const string chosen = sign + (digits == "0" || fixed.size() <= scientific.size() ? fixed : scientific);
  if (chosen.size() > static_cast<size_t>(last - first)) return {last, errc::value_too_large};
  memcpy(first, chosen.data(), chosen.size());
  return {first + chosen.size(), errc{}};
}
template <class F>
  requires is_floating_point_v<F>
from_chars_result smlab_web_from_chars(const char* first, const char* last, F& value) {
  // from_chars takes no leading space or '+', and no hex prefix in the general format.
  if (first == last || *first == ' ' || *first == '\t' || *first == '\n' || *first == '\r' || *first == '+')
    return {first, errc::invalid_argument};
  string text(first, last);
  if (const size_t x = text.find_first_of("xX"); x != string::npos) text.resize(x);
  char* end = nullptr;
  errno = 0;
  const double parsed = strtod(text.c_str(), &end);
  if (end == text.c_str()) return {first, errc::invalid_argument};
  const char* stop = first + (end - text.c_str());
  if (errno == ERANGE) return {stop, errc::result_out_of_range};
  value = static_cast<F>(parsed);
  return {stop, errc{}};
}

// ─── stop_token, stop_source, jthread ───────────────────────────────────────────────────────
struct nostopstate_t {
  explicit nostopstate_t() = default;
};
inline constexpr nostopstate_t nostopstate{};

class stop_token {
 public:
  stop_token() noexcept = default;
  bool stop_requested() const noexcept { return state_ && state_->load(); }
  bool stop_possible() const noexcept { return state_ != nullptr; }

 private:
  friend class stop_source;
  explicit stop_token(shared_ptr<atomic<bool>> state) : state_(std::move(state)) {}
  shared_ptr<atomic<bool>> state_;
};

class stop_source {
 public:
  stop_source() : state_(make_shared<atomic<bool>>(false)) {}
  explicit stop_source(nostopstate_t) noexcept {}
  stop_token get_token() const noexcept { return stop_token(state_); }
  bool request_stop() noexcept { return state_ && !state_->exchange(true); }
  bool stop_requested() const noexcept { return state_ && state_->load(); }
  bool stop_possible() const noexcept { return state_ != nullptr; }

 private:
  shared_ptr<atomic<bool>> state_;
};

class jthread {
 public:
  jthread() noexcept : source_(nostopstate) {}
  template <class F, class... Args>
    requires(!is_same_v<remove_cvref_t<F>, jthread>)
  explicit jthread(F&& f, Args&&... args) {
    if constexpr (is_invocable_v<decay_t<F>, stop_token, decay_t<Args>...>)
      thread_ = thread(std::forward<F>(f), source_.get_token(), std::forward<Args>(args)...);
    else
      thread_ = thread(std::forward<F>(f), std::forward<Args>(args)...);
  }
  jthread(jthread&&) noexcept = default;
  jthread& operator=(jthread&& other) noexcept {
    if (thread_.joinable()) {
      request_stop();
      thread_.join();
    }
    thread_ = std::move(other.thread_);
    source_ = std::move(other.source_);
    return *this;
  }
  ~jthread() {
    if (thread_.joinable()) {
      request_stop();
      thread_.join();
    }
  }
  bool joinable() const noexcept { return thread_.joinable(); }
  void join() { thread_.join(); }
  bool request_stop() noexcept { return source_.request_stop(); }
  stop_token get_stop_token() const noexcept { return source_.get_token(); }
  thread::native_handle_type native_handle() { return thread_.native_handle(); }

 private:
  stop_source source_;
  thread thread_;
};

// clang-format on
}  // namespace std

#define to_chars smlab_web_to_chars
#define from_chars smlab_web_from_chars

#endif
