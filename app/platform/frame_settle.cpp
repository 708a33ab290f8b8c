// The draw-data digest that tells a settled frame from one that still changes.
#include "platform/frame_settle.hpp"

#include <imgui.h>

#include <cstring>

namespace smlab::platform {
namespace {

// 64-bit multiply-xorshift mixing, one word at a time: a few GB/s, so a frame of 100 000 vertices
// (2 MB) costs well under a millisecond. Not cryptographic; equal input gives equal output.
class Digest {
 public:
  void add(std::uint64_t word) {
    state_ ^= word + 0x9E3779B97F4A7C15ull + (state_ << 6) + (state_ >> 2);
    state_ *= 0xBF58476D1CE4E5B9ull;
    state_ ^= state_ >> 31;
  }
  void add_bytes(const void* data, std::size_t size) {
    const auto* bytes = static_cast<const unsigned char*>(data);
    std::size_t offset = 0;
    for (; offset + 8 <= size; offset += 8) {
      std::uint64_t word = 0;
      std::memcpy(&word, bytes + offset, 8);
      add(word);
    }
    std::uint64_t tail = 0;
    if (size > offset) std::memcpy(&tail, bytes + offset, size - offset);
    add(tail ^ (static_cast<std::uint64_t>(size) << 56));
  }
  void add_float(float value) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    add(bits);
  }
  std::uint64_t value() const { return state_; }

 private:
  std::uint64_t state_ = 0x243F6A8885A308D3ull;
};

}  // namespace

std::uint64_t draw_data_fingerprint(const ImDrawData& draw_data) {
  Digest digest;
  digest.add(static_cast<std::uint64_t>(draw_data.CmdListsCount));
  digest.add_float(draw_data.DisplaySize.x);
  digest.add_float(draw_data.DisplaySize.y);
  for (int list = 0; list < draw_data.CmdListsCount; ++list) {
    const ImDrawList& commands = *draw_data.CmdLists[list];
    digest.add_bytes(commands.VtxBuffer.Data, static_cast<std::size_t>(commands.VtxBuffer.Size) * sizeof(ImDrawVert));
    digest.add_bytes(commands.IdxBuffer.Data, static_cast<std::size_t>(commands.IdxBuffer.Size) * sizeof(ImDrawIdx));
    for (const ImDrawCmd& command : commands.CmdBuffer) {
      digest.add(static_cast<std::uint64_t>(command.ElemCount) << 32 | command.IdxOffset);
      digest.add(command.VtxOffset);
      digest.add(reinterpret_cast<std::uintptr_t>(command.TextureId));
      digest.add_float(command.ClipRect.x);
      digest.add_float(command.ClipRect.y);
      digest.add_float(command.ClipRect.z);
      digest.add_float(command.ClipRect.w);
    }
  }
  return digest.value();
}

}  // namespace smlab::platform
