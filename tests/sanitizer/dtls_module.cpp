// A module with its own thread_local block, loaded with dlopen by dtls_page_offset_test.cpp: its
// block for the loading thread is allocated with malloc on first use (glibc's dynamic TLS), as
// Mesa's and LLVM's are in every rendering test.
extern "C" {
// 100 bytes: AddressSanitizer hands out blocks of this size 176 bytes apart, so some start 16
// bytes into a page (blocks of 200 bytes all start at multiples of 64).
thread_local char smlab_dtls_block[100];

char* smlab_dtls_block_address() {
  smlab_dtls_block[0] = 1;  // first use: glibc allocates this thread's block now
  return smlab_dtls_block;
}
}
