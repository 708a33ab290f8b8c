// The one error type of Softmax Lab: a kind (which decides the exit code, in exit_code() only)
// and one line of text naming the value and what is allowed. Result<T> is a value or an Error.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace smlab {

struct Error {
  // usage: bad command line or bad file content (exit 2); file: a file or folder cannot be read or
  // written (exit 3); no_graphics: no window or offscreen context (exit 4).
  enum class Kind { usage, file, no_graphics };
  Kind kind = Kind::usage;
  std::string message;

  static Error usage(std::string message) { return {Kind::usage, std::move(message)}; }
  static Error file(std::string message) { return {Kind::file, std::move(message)}; }
  static Error no_graphics(std::string message) { return {Kind::no_graphics, std::move(message)}; }
};

// docs/ARCHITECTURE.md, "Errors": 0 ok, 2 bad usage or input, 3 file error, 4 no graphics context.
inline constexpr int exit_ok = 0;
constexpr int exit_code(Error::Kind kind) {
  switch (kind) {
    case Error::Kind::usage: return 2;
    case Error::Kind::file: return 3;
    case Error::Kind::no_graphics: return 4;
  }
  return 2;
}

// A value or the Error that stopped it. Result<void> is success or an Error.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::in_place_index<0>, std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : state_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(state_); }
  const T& value() const { return std::get<0>(state_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(state_); }

 private:
  std::variant<T, Error> state_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Error& error() const { return *error_; }

 private:
  std::optional<Error> error_;
};

}  // namespace smlab
