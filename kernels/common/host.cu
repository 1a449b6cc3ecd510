// Host-side pieces of kernels/common: allocation with clear errors, rotation count, decoders,
// and the parallel comparison.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <mutex>
#include <sstream>
#include <thread>
#include <unordered_map>

#include "kernels/common/buffer.cuh"
#include "kernels/common/compare.cuh"
#include "kernels/common/random.cuh"

namespace sol::kernels {

namespace {
std::string gib(double bytes) {
  std::ostringstream s;
  s.precision(3);
  s << bytes / double(1ull << 30) << " GiB";
  return s.str();
}
}  // namespace

namespace {
// Allocation bookkeeping for the memory probe (sizes by pointer; cudaFree does not say).
struct Tracker {
  std::mutex mutex;
  std::unordered_map<void*, int64_t> sizes;
  AllocStats stats;
};
Tracker& tracker() {
  static Tracker t;
  return t;
}
}  // namespace

AllocStats alloc_stats() {
  std::lock_guard<std::mutex> lock(tracker().mutex);
  return tracker().stats;
}

void reset_alloc_peak() {
  std::lock_guard<std::mutex> lock(tracker().mutex);
  tracker().stats.peak = tracker().stats.live;
}

void* device_alloc(int64_t bytes) {
  void* p = nullptr;
  if (bytes <= 0) return p;
  const cudaError_t err = cudaMalloc(&p, size_t(bytes));
  if (err == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();  // not sticky: clear it so that the next launch check does not report it
    size_t free_b = 0, total_b = 0;
    SOL_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    bad_input("the shape needs " + gib(double(bytes)) + " more device memory, " + gib(double(free_b)) + " of " +
                  gib(double(total_b)) + " is free",
              "choose a smaller shape");
  }
  SOL_CUDA_CHECK(err);
  std::lock_guard<std::mutex> lock(tracker().mutex);
  Tracker& t = tracker();
  t.sizes[p] = bytes;
  t.stats.live += bytes;
  t.stats.peak = std::max(t.stats.peak, t.stats.live);
  return p;
}

void device_free(void* p) {
  if (!p) return;
  {
    std::lock_guard<std::mutex> lock(tracker().mutex);
    Tracker& t = tracker();
    if (auto it = t.sizes.find(p); it != t.sizes.end()) {
      t.stats.live -= it->second;
      t.sizes.erase(it);
    }
  }
  SOL_CUDA_CHECK(cudaFree(p));
}

int rotating_sets(double bytes_per_set, const CaseOptions& o) {
  constexpr double kRotateBytes = 256.0 * (1 << 20);
  constexpr int kMaxSets = 16;
  if (o.single_set) return 1;
  if (!(bytes_per_set > 0)) return kMaxSets;
  const double need = std::floor(kRotateBytes / bytes_per_set) + 1;  // strictly more than 256 MiB
  return int(std::min<double>(need, kMaxSets));
}

double decode_f32(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

double decode_bf16(uint16_t bits) { return decode_f32(uint32_t(bits) << 16); }

double decode_e4m3(uint8_t bits) {
  const int sign = bits >> 7, exp = (bits >> 3) & 15, mant = bits & 7;
  if (exp == 15 && mant == 7) return std::nan("");
  const double mag = exp == 0 ? std::ldexp(mant / 8.0, -6) : std::ldexp(1.0 + mant / 8.0, exp - 7);
  return sign ? -mag : mag;
}

void ComparePart::add(int64_t i, const Sample& s) {
  if (s.unwritten) {
    if (unwritten++ == 0) first_unwritten = i;
    return;
  }
  if (!std::isfinite(s.got)) {
    if (nonfinite++ == 0) first_nonfinite = i;
    return;
  }
  const double e = s.got - s.ref;
  err2 += e * e;
  ref2 += s.ref * s.ref;
  if (std::fabs(e) > worst_err) {
    worst_err = std::fabs(e);
    worst_got = s.got;
    worst_ref = s.ref;
    worst_at = i;
  }
}

int host_chunks(int64_t n) {
  constexpr int64_t kMinPerChunk = 1 << 16;  // below this, threads cost more than they save
  const int64_t cores = std::max(1u, std::thread::hardware_concurrency());
  return int(std::clamp<int64_t>(n / kMinPerChunk, 1, cores));
}

int parallel_chunks(int64_t n, const std::function<void(int64_t, int64_t, int)>& body, int max_chunks) {
  const int chunks = std::max(1, max_chunks);
  const int64_t per = n / chunks + (n % chunks != 0);
  if (chunks == 1) {
    body(0, n, 0);
    return 1;
  }
  std::vector<std::thread> pool;
  pool.reserve(size_t(chunks));
  for (int c = 0; c < chunks; ++c) {
    const int64_t b = std::min(n, int64_t(c) * per), e = std::min(n, b + per);
    pool.emplace_back(body, b, e, c);
  }
  for (auto& t : pool) t.join();
  return chunks;
}

CheckResult summarize(const std::vector<ComparePart>& parts, double tol) {
  ComparePart all;
  for (const auto& p : parts) {
    all.err2 += p.err2;
    all.ref2 += p.ref2;
    if (p.unwritten && all.first_unwritten < 0) all.first_unwritten = p.first_unwritten;
    if (p.nonfinite && all.first_nonfinite < 0) all.first_nonfinite = p.first_nonfinite;
    all.unwritten += p.unwritten;
    all.nonfinite += p.nonfinite;
    if (p.worst_err > all.worst_err) {
      all.worst_err = p.worst_err;
      all.worst_got = p.worst_got;
      all.worst_ref = p.worst_ref;
      all.worst_at = p.worst_at;
    }
  }
  CheckResult r;
  // An all-zero reference (e.g. ReLU of one negative element) has no scale: the error is absolute.
  r.rel_l2 = all.ref2 > 0 ? std::sqrt(all.err2 / all.ref2) : std::sqrt(all.err2);
  r.unwritten = all.unwritten;
  r.nonfinite = all.nonfinite;
  r.ok = r.unwritten == 0 && r.nonfinite == 0 && r.rel_l2 <= tol;
  std::ostringstream d;
  d.precision(9);
  if (r.unwritten) d << r.unwritten << " element(s) unwritten, first at [" << all.first_unwritten << "]; ";
  if (r.nonfinite) d << r.nonfinite << " non-finite output(s), first at [" << all.first_nonfinite << "]; ";
  if (r.rel_l2 > tol)
    d << "rel_l2 " << r.rel_l2 << " > " << tol << ", worst at [" << all.worst_at << "]: got " << all.worst_got
      << ", expected " << all.worst_ref;
  if (!r.ok) r.detail = d.str();
  return r;
}

}  // namespace sol::kernels

// ---- kernels/common/launch.cuh ----------------------------------------------------------------
#include <array>
#include <map>

#include "kernels/common/launch.cuh"

namespace sol::kernels {

int sm_count() {
  static std::atomic<int> counts[64] = {};
  int dev = 0, n = 0;
  SOL_CUDA_CHECK(cudaGetDevice(&dev));
  if (dev >= 0 && dev < 64)
    if (const int known = counts[dev].load(std::memory_order_relaxed)) return known;
  SOL_CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev));
  if (dev >= 0 && dev < 64) counts[dev].store(n, std::memory_order_relaxed);
  return n;
}

void opt_in_dynamic_smem(const void* func, int64_t bytes, bool max_carveout, bool nonportable_cluster) {
  if (!func) failure("opt_in_dynamic_smem: no kernel function");
  int device = 0;
  SOL_CUDA_CHECK(cudaGetDevice(&device));
  // What each (function, device) is opted in for; attributes are per function and context. A
  // thread remembers its last few answers, so that a launch takes no lock once its kernel is set up.
  struct Opted {
    int64_t bytes = 0;
    bool carveout = false, nonportable = false;
    bool covers(int64_t b, bool c, bool n) const { return bytes >= b && bytes > 0 && (carveout || !c) && (nonportable || !n); }
  };
  struct Seen {
    const void* func = nullptr;
    int device = -1;
    Opted opted;
  };
  thread_local std::array<Seen, 8> seen;
  thread_local size_t next = 0;
  for (const Seen& e : seen)
    if (e.func == func && e.device == device && e.opted.covers(bytes, max_carveout, nonportable_cluster)) return;
  static std::mutex mutex;
  static std::map<std::pair<const void*, int>, Opted> opted;
  std::lock_guard<std::mutex> lock(mutex);
  Opted& have = opted[{func, device}];
  const auto remember = [&] {
    seen[next] = {func, device, have};
    next = (next + 1) % seen.size();
  };
  if (have.covers(bytes, max_carveout, nonportable_cluster)) return remember();
  if (bytes > std::numeric_limits<int>::max())
    bad_input(std::to_string(bytes) + " bytes of dynamic shared memory do not fit an int", "lower the tile's shared memory");
  SOL_CUDA_CHECK(cudaFuncSetAttribute(func, cudaFuncAttributeMaxDynamicSharedMemorySize, int(std::max(bytes, have.bytes))));
  if (max_carveout)
    SOL_CUDA_CHECK(cudaFuncSetAttribute(func, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
  if (nonportable_cluster) SOL_CUDA_CHECK(cudaFuncSetAttribute(func, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  have.bytes = std::max<int64_t>({bytes, have.bytes, 1});
  have.carveout = have.carveout || max_carveout;
  have.nonportable = have.nonportable || nonportable_cluster;
  remember();
}

}  // namespace sol::kernels
