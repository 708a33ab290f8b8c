// The app's names for the one UTF-8 decoder, which lives in core (smlab/utf8.hpp) so that the
// token reader, the JSON checks, the error output and the SVG writer share it.
#pragma once

#include "smlab/utf8.hpp"

namespace smlab::app {

using smlab::first_invalid_utf8;
using smlab::utf8_char_length;

}  // namespace smlab::app
