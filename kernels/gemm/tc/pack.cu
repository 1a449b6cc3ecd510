// The operand packer of kernels/gemm/tc/pack.cuh.
#include <algorithm>
#include <cstdint>

#include "kernels/common/check.cuh"
#include "kernels/gemm/tc/chunk_shift.hpp"
#include "kernels/gemm/tc/pack.cuh"

namespace sol::kernels::gemm::tc {

namespace {

// Operand z of the launch (A, then B when both need it), one 16-byte chunk of a packed row per
// thread, written with one 16-byte store. The source row is not 16-byte aligned, but all its
// chunks are the same `off` bytes past an aligned one: a chunk is the two aligned 16-byte loads
// that hold it, shifted down by off bytes (chunk_at, chunk_shift.hpp), where both lie inside the
// row. A warp's loads cover 512 contiguous bytes, and the second load of each lane is the first
// of its neighbour's (an L1 hit). Element by element loads cost a load instruction per 2 bytes
// and ran at ~55 % of the copy bandwidth (H100, 4096² operands with a 4100-element pitch). Chunks
// that reach the row's end are read element by element, columns past `cols` as zeros (no rung
// reads them: they lie past k), so no load leaves the row but to the bytes just before it, inside
// the same allocation.
template <class E>
struct PackJob {
  const E* gSrc;
  int64_t src_pitch;
  E* gDst;
  int64_t dst_pitch, rows, cols;
};

template <class E>
__global__ void pack_kernel(PackJob<E> a, PackJob<E> b) {
  const PackJob<E> job = blockIdx.z == 0 ? a : b;
  constexpr int kPerChunk = 16 / sizeof(E);
  const int64_t chunks = job.dst_pitch / kPerChunk;
  for (int64_t r = blockIdx.y; r < job.rows; r += gridDim.y) {
    const E* src = job.gSrc + r * job.src_pitch;
    const uintptr_t row_at = reinterpret_cast<uintptr_t>(src), row_end = row_at + uintptr_t(job.cols) * sizeof(E);
    const int off = int(row_at % 16);
    const uint4* gAligned = reinterpret_cast<const uint4*>(row_at - uintptr_t(off));
    const uintptr_t span = off ? 32 : 16;  // the aligned bytes one chunk reads
    for (int64_t ch = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; ch < chunks; ch += int64_t(gridDim.x) * blockDim.x) {
      union {
        uint4 v;
        E e[kPerChunk];
      } rChunk;
      if (row_at - uintptr_t(off) + uintptr_t(16 * ch) + span <= row_end) {
        const uint4 lo = __ldg(gAligned + ch);
        if (off) {
          const uint4 hi = __ldg(gAligned + ch + 1);
          const Chunk16 c = chunk_at({{lo.x, lo.y, lo.z, lo.w}}, {{hi.x, hi.y, hi.z, hi.w}}, off);
          rChunk.v = make_uint4(c.w[0], c.w[1], c.w[2], c.w[3]);
        } else {
          rChunk.v = lo;
        }
      } else {
#pragma unroll
        for (int i = 0; i < kPerChunk; ++i) {
          const int64_t c = ch * kPerChunk + i;
          rChunk.e[i] = c < job.cols ? src[c] : E(0);
        }
      }
      reinterpret_cast<uint4*>(job.gDst + r * job.dst_pitch)[ch] = rChunk.v;
    }
  }
}

template <class E>
void launch_pack(const PackJob<E>& a, const PackJob<E>& b, cudaStream_t stream) {
  const int64_t rows = std::max(a.rows, b.rows);
  const int64_t chunks = std::max(a.dst_pitch, b.dst_pitch) * int64_t(sizeof(E)) / 16;
  const int threads = 128;
  const dim3 grid(unsigned(std::min<int64_t>((chunks + threads - 1) / threads, 16)),
                  unsigned(std::min<int64_t>((rows + 3) / 4, 16384)), b.rows > 0 ? 2u : 1u);
  pack_kernel<<<grid, threads, 0, stream>>>(a, b);
  SOL_LAUNCH_CHECK();
}

bool in_place(const void* p, int64_t pitch_bytes, int align_bytes) {
  return reinterpret_cast<uintptr_t>(p) % align_bytes == 0 && pitch_bytes % align_bytes == 0;
}

template <class E>
Problem pack(const Problem& p, Workspace& ws, int align_bytes, cudaStream_t stream) {
  const int64_t eb = int64_t(sizeof(E));
  const bool pack_a = !in_place(p.A, p.lda * eb, align_bytes), pack_b = !in_place(p.B, p.ldb * eb, align_bytes);
  if (!pack_a && !pack_b) return p;
  const int64_t align = align_bytes / eb;
  const int64_t k_pitch = (p.k + align - 1) / align * align;
  const int64_t a_bytes = pack_a ? (p.m * k_pitch * eb + 255) / 256 * 256 : 0;  // B's copy starts 256-aligned
  const int64_t b_bytes = pack_b ? p.n * k_pitch * eb : 0;
  auto* w = static_cast<E*>(ws.reserve(size_t(a_bytes + b_bytes)));
  Problem q = p;
  PackJob<E> jobs[2] = {};
  int count = 0;
  if (pack_a) {
    jobs[count++] = {static_cast<const E*>(p.A), p.lda, w, k_pitch, p.m, p.k};
    q.A = w;
    q.lda = k_pitch;
  }
  if (pack_b) {
    E* dst = w + a_bytes / eb;
    jobs[count++] = {static_cast<const E*>(p.B), p.ldb, dst, k_pitch, p.n, p.k};
    q.B = dst;
    q.ldb = k_pitch;
  }
  launch_pack(jobs[0], jobs[1], stream);
  return q;
}

}  // namespace

Problem pack_operands(const Problem& p, Workspace& ws, int align_bytes, cudaStream_t stream) {
  if (align_bytes < 16 || align_bytes % 16 != 0) failure("pack_operands: alignment must be a multiple of 16 bytes");
  return in_bytes(p.in) == 2 ? pack<uint16_t>(p, ws, align_bytes, stream) : pack<uint8_t>(p, ws, align_bytes, stream);
}

}  // namespace sol::kernels::gemm::tc
