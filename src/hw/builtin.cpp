// The built-in hardware database. Every peak is written as units × FLOP per clock per unit ×
// the clock the vendor computes it at, and the product is the peak: the datasheet figure it
// reproduces is named in the source or the note. Figures marked [derived] are our arithmetic
// on cited numbers; [unverified] ones come from secondary sources only.
#include <string>

#include "sol/hw/spec.hpp"

namespace sol::hw {
namespace {

constexpr double kGHz = 1e9;
constexpr double kKiB = 1024.0, kMiB = 1024.0 * 1024.0;
constexpr double kGB = 1e9;

// Sources cited below, named once.
const char* const kA100Paper =
    "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020), Table 1 / Table 3";
const char* const kA100Sheet = "NVIDIA A100 datasheet (SXM4 40 GB / 80 GB)";
const char* const kH100Paper = "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022), Table 2";
const char* const kH100Sheet = "NVIDIA H100 datasheet (SXM5)";
const char* const kStas =
    "stas00/ml-engineering:compute/accelerator/README.md (TFLOPS table and the clock × FMA/clk × 2 × #TC "
    "derivation)";
const char* const kCudaGuide = "CUDA C++ Programming Guide, table 'Technical Specifications per Compute Capability'";

Peak peak(double units, const char* label, double flops_per_clock, double clock_hz, const std::string& source,
          const std::string& note = "") {
  Peak p;
  p.units = units;
  p.unit_label = label;
  p.flops_per_clock_per_unit = flops_per_clock;
  p.clock_hz = clock_hz;
  p.flops_per_s = units * flops_per_clock * clock_hz;
  p.source = source;
  p.note = note;
  return p;
}

MemLevel level(const char* name, double capacity, double bytes_per_s, std::string derivation, std::string source) {
  return {name, capacity, bytes_per_s, std::move(derivation), std::move(source)};
}

// Occupancy limits shared by sm_80, sm_90 and sm_100 (they differ only in shared memory).
SmLimits nvidia_limits(int shared_per_sm, int shared_per_block) {
  SmLimits l;
  l.warp_size = 32;
  l.max_warps_per_sm = 64;
  l.max_blocks_per_sm = 32;
  l.max_threads_per_block = 1024;
  l.registers_per_sm = 65536;
  l.max_registers_per_thread = 255;
  l.register_alloc_unit = 256;
  l.shared_bytes_per_sm = shared_per_sm;
  l.max_shared_bytes_per_block = shared_per_block;
  l.shared_alloc_unit = 128;
  l.reserved_shared_bytes_per_block = 1024;
  return l;
}

// Register, shared-memory and L2 levels of an NVIDIA GPU; HBM is appended by the caller.
// Registers: the operand traffic that keeps every FP32 lane busy with one FMA per clock
// (3 reads × 4 B), our lower bound on what the register file delivers.
void gpu_levels(HwSpec& s, int fp32_lanes_per_sm, double l2_bytes_per_s, const std::string& l2_derivation,
                const std::string& l2_source) {
  const double sms = s.compute_units, clk = s.boost_clock_hz;
  s.levels.push_back(level("registers", sms * s.register_bytes_per_unit, sms * fp32_lanes_per_sm * 12 * clk,
                           std::to_string(s.compute_units) + " SMs × " + std::to_string(fp32_lanes_per_sm) +
                               " lanes × 12 B (3 FP32 operands per FMA) × boost clock [derived]",
                           "lane count: " + s.sources.front()));
  s.levels.push_back(level("smem/L1", sms * s.shared_bytes_per_unit, sms * 128 * clk,
                           std::to_string(s.compute_units) + " SMs × 128 B/clk (32 banks × 4 B) × boost clock [derived]",
                           "32 banks × 4 B per clock: " + std::string(kCudaGuide)));
  s.levels.push_back(level("L2", s.l2_bytes, l2_bytes_per_s, l2_derivation, l2_source));
}

void add_hbm(HwSpec& s, std::string derivation) {
  s.levels.push_back(level("HBM", s.hbm_bytes, s.hbm_bytes_per_s, std::move(derivation), s.hbm_source));
}

HwSpec a100_40gb() {
  HwSpec s;
  s.name = "a100";
  s.full_name = "NVIDIA A100 SXM4 40 GB";
  s.vendor = "nvidia";
  s.arch = "ampere";
  s.compute_capability = 80;
  s.compute_units = 108;
  s.compute_unit_label = "SMs";
  s.matrix_units = 432;
  s.matrix_unit_label = "tensor cores";
  s.boost_clock_hz = 1.410 * kGHz;
  s.base_clock_hz = 1.095 * kGHz;
  s.sources = {kA100Paper, kA100Sheet, kStas};
  const double clk = s.boost_clock_hz;
  const std::string tc_note = "A100's tensor-core peaks use the 1410 MHz boost clock";
  s.matrix_peaks["fp64"] = peak(432, "tensor cores", 32, clk, kA100Paper, "datasheet: 19.5 TFLOP/s FP64 Tensor Core");
  s.matrix_peaks["tf32"] = peak(432, "tensor cores", 256, clk, kA100Paper, "datasheet: 156 TFLOP/s dense; " + tc_note);
  s.matrix_peaks["bf16"] = peak(432, "tensor cores", 512, clk, kA100Paper, "datasheet: 312 TFLOP/s dense; " + tc_note);
  s.matrix_peaks["fp16"] = peak(432, "tensor cores", 512, clk, kA100Paper, "datasheet: 312 TFLOP/s dense; " + tc_note);
  s.matrix_peaks["int8"] = peak(432, "tensor cores", 1024, clk, kA100Paper, "datasheet: 624 TOPS dense (integer ops)");
  s.vector_peaks["fp64"] = peak(108, "SMs", 64, clk, kA100Paper, "32 FP64 lanes × 2 per SM; datasheet: 9.7 TFLOP/s");
  s.vector_peaks["fp32"] = peak(108, "SMs", 128, clk, kA100Paper, "64 FP32 lanes × 2 per SM; datasheet: 19.5 TFLOP/s");
  s.vector_peaks["fp16"] = peak(108, "SMs", 512, clk, kA100Paper, "packed half2 FMA; whitepaper: 78 TFLOP/s non-tensor FP16");
  s.vector_peaks["bf16"] = peak(108, "SMs", 256, clk, kA100Paper, "whitepaper: 39 TFLOP/s non-tensor BF16");
  s.register_bytes_per_unit = 256 * kKiB;
  s.shared_bytes_per_unit = 192 * kKiB;  // combined L1/shared; up to 164 KiB of it as shared memory
  s.l2_bytes = 40 * kMiB;
  s.hbm_bytes = 40 * kGB;
  s.hbm_bytes_per_s = 1555 * kGB;
  s.hbm_source = std::string(kA100Sheet) + ": 40 GB HBM2, 1555 GB/s (5 stacks × 1024 bit × 2.43 Gbit/s)";
  gpu_levels(s, 64, 5120 * clk,
             "5120 B/clk (whitepaper: 2.3× V100's L2 read bandwidth) × 1410 MHz; a datasheet-style peak, "
             "measured L2 reads reach less",
             kA100Paper);
  add_hbm(s, "datasheet figure");
  s.host_link = {"PCIe 4.0 x16", 32 * kGB, "per direction (64 GB/s both ways)", kA100Sheet};
  s.chip_link = {"NVLink 3", 300 * kGB, "per direction: 12 links × 25 GB/s; NVIDIA quotes 600 GB/s both ways",
                 kA100Sheet};
  s.limits = nvidia_limits(164 * 1024, 163 * 1024);
  return s;
}

HwSpec a100_80gb() {
  HwSpec s = a100_40gb();
  s.name = "a100-80gb";
  s.full_name = "NVIDIA A100 SXM4 80 GB";
  s.hbm_bytes = 80 * kGB;
  s.hbm_bytes_per_s = 2039 * kGB;
  s.hbm_source = std::string(kA100Sheet) + ": 80 GB HBM2e, 2039 GB/s; " + kStas;
  s.levels.back() = level("HBM", s.hbm_bytes, s.hbm_bytes_per_s, "datasheet figure", s.hbm_source);
  return s;
}

HwSpec h100() {
  HwSpec s;
  s.name = "h100";
  s.full_name = "NVIDIA H100 SXM5 80 GB";
  s.vendor = "nvidia";
  s.arch = "hopper";
  s.compute_capability = 90;
  s.compute_units = 132;
  s.compute_unit_label = "SMs";
  s.matrix_units = 528;
  s.matrix_unit_label = "tensor cores";
  s.boost_clock_hz = 1.980 * kGHz;
  s.base_clock_hz = 1.590 * kGHz;
  s.sources = {kH100Paper, kH100Sheet, kStas};
  // NVIDIA computes the 16-bit, TF32 and 8-bit tensor peaks at 1830 MHz (the boost clock under a
  // full tensor load), not the 1980 MHz maximum boost: 1980 MHz would give 1070 TFLOP/s bf16.
  const double tc_clk = 1.830 * kGHz, clk = s.boost_clock_hz;
  const std::string at1830 = "computed at 1830 MHz, not the 1980 MHz boost (which would give ";
  s.matrix_peaks["fp64"] = peak(528, "tensor cores", 64, clk, kH100Sheet, "datasheet: 67 TFLOP/s FP64 Tensor Core");
  s.matrix_peaks["tf32"] = peak(528, "tensor cores", 512, tc_clk, kStas, "datasheet: 494.7 TFLOP/s dense; " + at1830 + "535)");
  s.matrix_peaks["bf16"] = peak(528, "tensor cores", 1024, tc_clk, kStas, "datasheet: 989 TFLOP/s dense; " + at1830 + "1070)");
  s.matrix_peaks["fp16"] = peak(528, "tensor cores", 1024, tc_clk, kStas, "datasheet: 989 TFLOP/s dense; " + at1830 + "1070)");
  s.matrix_peaks["fp8"] = peak(528, "tensor cores", 2048, tc_clk, kStas, "datasheet: 1979 TFLOP/s dense; " + at1830 + "2141)");
  s.matrix_peaks["int8"] = peak(528, "tensor cores", 2048, tc_clk, kH100Sheet, "datasheet: 1979 TOPS dense (integer ops)");
  s.vector_peaks["fp64"] = peak(132, "SMs", 128, clk, kH100Sheet, "64 FP64 lanes × 2 per SM; datasheet: 34 TFLOP/s");
  s.vector_peaks["fp32"] = peak(132, "SMs", 256, clk, kStas, "128 FP32 lanes × 2 per SM; datasheet: 67 TFLOP/s");
  s.vector_peaks["fp16"] = peak(132, "SMs", 512, clk, kH100Paper, "packed half2 FMA; whitepaper: 133.8 TFLOP/s non-tensor");
  s.vector_peaks["bf16"] = peak(132, "SMs", 512, clk, kH100Paper, "packed bf162 FMA; whitepaper: 133.8 TFLOP/s non-tensor");
  s.register_bytes_per_unit = 256 * kKiB;
  s.shared_bytes_per_unit = 256 * kKiB;  // combined L1/shared; up to 228 KiB of it as shared memory
  s.l2_bytes = 50 * kMiB;
  s.hbm_bytes = 80 * kGB;
  s.hbm_bytes_per_s = 3350 * kGB;
  s.hbm_source = std::string(kH100Sheet) + ": 80 GB HBM3, 3.35 TB/s; " + kStas;
  gpu_levels(s, 128, 5500 * kGB * 2,
             "about 5.5 TB/s per L2 partition × 2 partitions, as measured reads with a working set under 40 MB "
             "reach [unverified]",
             "te42kyfo/gpu-benches: gpu-l2-cache (H100 / H200 runs); H200 measured 9.7–10.2 TB/s");
  add_hbm(s, "datasheet figure");
  s.host_link = {"PCIe 5.0 x16", 64 * kGB, "per direction (128 GB/s both ways)", kH100Sheet};
  s.chip_link = {"NVLink 4", 450 * kGB, "per direction: 18 links × 25 GB/s; NVIDIA quotes 900 GB/s both ways",
                 kH100Sheet};
  s.limits = nvidia_limits(228 * 1024, 227 * 1024);
  return s;
}

}  // namespace

const std::vector<HwSpec>& builtin() {
  static const std::vector<HwSpec> rows = {a100_40gb(), a100_80gb(), h100()};
  return rows;
}

}  // namespace sol::hw
