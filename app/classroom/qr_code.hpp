// The join address as a QR code (libqrencode): a square of dark and light modules that the class
// window draws large enough to scan from the back row (class_window.cpp).
#pragma once

#include <string_view>
#include <vector>

#include "smlab/error.hpp"

namespace smlab::classroom {

struct QrCode {
  int size = 0;            // modules per side (21 for version 1, 4 more per version)
  std::vector<bool> dark;  // size × size, row-major
  bool at(int row, int column) const { return dark[static_cast<std::size_t>(row * size + column)]; }
};

// `text` (an address, 8-bit mode) at error correction level M (15 % of the modules may be lost:
// a projector's glare), or an Error::usage when it cannot be encoded.
Result<QrCode> make_qr_code(std::string_view text);

}  // namespace smlab::classroom
