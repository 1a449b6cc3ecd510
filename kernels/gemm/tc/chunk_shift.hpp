#pragma once
// Sixteen bytes starting `off` bytes into the 32 bytes lo:hi — how the packer (pack.cu) builds a
// chunk of an unaligned row from the two aligned 16-byte loads that hold it. Host and device
// (the host tests check it against byte copies).
#include <cstdint>

#ifdef __CUDACC__
#define SOL_HOST_DEVICE __host__ __device__
#else
#define SOL_HOST_DEVICE
#endif

namespace sol::kernels::gemm::tc {

struct Chunk16 {
  uint32_t w[4];  // little-endian words: byte i of the chunk is byte i % 4 of w[i / 4]
};

// Bytes [off, off + 16) of lo:hi, 0 ≤ off < 16. The five words the result spans are picked by
// selects, not by indexing a register array (which would go to local memory); each output word is
// a funnel shift of two of them.
SOL_HOST_DEVICE inline Chunk16 chunk_at(const Chunk16& lo, const Chunk16& hi, int off) {
  const int q = off / 4, bits = 8 * (off % 4);
  const uint32_t w0 = q == 0 ? lo.w[0] : q == 1 ? lo.w[1] : q == 2 ? lo.w[2] : lo.w[3];
  const uint32_t w1 = q == 0 ? lo.w[1] : q == 1 ? lo.w[2] : q == 2 ? lo.w[3] : hi.w[0];
  const uint32_t w2 = q == 0 ? lo.w[2] : q == 1 ? lo.w[3] : q == 2 ? hi.w[0] : hi.w[1];
  const uint32_t w3 = q == 0 ? lo.w[3] : q == 1 ? hi.w[0] : q == 2 ? hi.w[1] : hi.w[2];
  const uint32_t w4 = q == 0 ? hi.w[0] : q == 1 ? hi.w[1] : q == 2 ? hi.w[2] : hi.w[3];
  const auto shift = [bits](uint32_t a, uint32_t b) { return uint32_t(((uint64_t(b) << 32) | a) >> bits); };
  return {{shift(w0, w1), shift(w1, w2), shift(w2, w3), shift(w3, w4)}};
}

}  // namespace sol::kernels::gemm::tc

#undef SOL_HOST_DEVICE
