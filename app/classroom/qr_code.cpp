// The join address as a QR code (qr_code.hpp), through libqrencode.
#include "classroom/qr_code.hpp"

#include <qrencode.h>

#include <memory>
#include <string>

namespace smlab::classroom {

Result<QrCode> make_qr_code(std::string_view text) {
  const std::string copy(text);  // libqrencode reads a NUL-terminated string
  const std::unique_ptr<QRcode, decltype(&QRcode_free)> encoded(QRcode_encodeString8bit(copy.c_str(), 0, QR_ECLEVEL_M),
                                                                &QRcode_free);
  if (!encoded) return Error::usage("the address '" + copy.substr(0, 80) + "' cannot be made a QR code");
  QrCode code;
  code.size = encoded->width;
  code.dark.resize(static_cast<std::size_t>(code.size) * static_cast<std::size_t>(code.size));
  // Each module is a byte whose lowest bit says dark (libqrencode's documented layout).
  for (std::size_t k = 0; k < code.dark.size(); ++k) code.dark[k] = (encoded->data[k] & 1u) != 0;
  return code;
}

}  // namespace smlab::classroom
