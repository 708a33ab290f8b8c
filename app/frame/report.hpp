// How the parts an App holds tell the user something: the App's report(), a status line that is
// also a toast, passed to them as a callback.
#pragma once

#include <functional>
#include <string>

namespace smlab::app {

using Report = std::function<void(const std::string& text, bool is_error)>;

}  // namespace smlab::app
