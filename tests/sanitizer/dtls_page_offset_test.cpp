// The sanitized suite's leak check survives a dynamic TLS block that starts 16 bytes into a page.
//
// GCC 12's LeakSanitizer records each dynamic TLS block it sees through __tls_get_addr. For a block
// whose address is 16 bytes past a page boundary it assumes glibc 2.19's layout and reads a
// {size, start} header from the 16 bytes before it; with glibc 2.36 those bytes are AddressSanitizer's
// own chunk header, so "start" is a small number, and the leak check at exit scans from it: "Tracer
// caught signal 11: addr=0x18…" in ScanRangeForPointers, after the test itself passed. Whether a
// block lands there depends only on what was allocated before it, so a rendering test crashed on
// every run on one machine and never on another. The suite runs with intercept_tls_get_addr=0
// (Makefile, SANITIZER_ENV): the blocks are then found the way any heap block is, through glibc's
// dtv, whose pointer is in the thread's control block, inside the static TLS LeakSanitizer scans.
//
// This program puts the block at that offset on purpose and exits; its leak check must finish
// (without the flag it dies as above, exit status 134). The whole sanitized suite runs with the
// flag and reports no leak from it: dynamic TLS blocks are still roots through the dtv.
#include <dlfcn.h>
#include <link.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

constexpr std::uintptr_t kPage = 4096;
constexpr std::uintptr_t kGlibc219HeaderSize = 16;

constexpr int kMaxSpacers = 4096;
void* g_spacers[kMaxSpacers];  // reachable until the leak check, which runs after static destructors

struct TlsSize {
  const char* path;
  std::size_t size = 0;
};

int find_tls_size(dl_phdr_info* info, std::size_t, void* data) {
  auto* wanted = static_cast<TlsSize*>(data);
  if (info->dlpi_name == nullptr || std::strstr(info->dlpi_name, wanted->path) == nullptr) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_TLS) wanted->size = info->dlpi_phdr[i].p_memsz;
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s PATH/libsmlab_dtls_module.so\n", argv[0]);
    return 2;
  }
  void* module = dlopen(argv[1], RTLD_NOW);
  if (module == nullptr) {
    std::fprintf(stderr, "dtls: cannot load %s: %s\n", argv[1], dlerror());
    return 2;
  }
  auto* block_address = reinterpret_cast<char* (*)()>(dlsym(module, "smlab_dtls_block_address"));
  TlsSize tls{"smlab_dtls_module"};
  dl_iterate_phdr(find_tls_size, &tls);
  if (block_address == nullptr || tls.size == 0) {
    std::fprintf(stderr, "dtls: %s has no TLS block or no smlab_dtls_block_address\n", argv[1]);
    return 2;
  }
  // glibc allocates this thread's block with malloc(tls.size) at first use. Blocks of one size come
  // from one run of equal chunks, so allocate that size until the next chunk starts 16 bytes into
  // a page; then the module's block is that chunk.
  const auto address = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p); };
  g_spacers[0] = std::malloc(tls.size);
  for (int count = 1; count < kMaxSpacers; ++count) {
    g_spacers[count] = std::malloc(tls.size);
    const std::uintptr_t last = address(g_spacers[count]), stride = last - address(g_spacers[count - 1]);
    if ((last + stride) % kPage == kGlibc219HeaderSize) break;
  }
  char* block = block_address();
  if (address(block) % kPage != kGlibc219HeaderSize) {
    std::fprintf(stderr,
                 "dtls: could not place the TLS block 16 bytes into a page (it is at %p): the test proves nothing\n",
                 static_cast<void*>(block));
    return 3;
  }
  std::printf("dtls: the module's TLS block is at %p, 16 bytes into a page; the leak check at exit must finish\n",
              static_cast<void*>(block));
  return 0;
}
