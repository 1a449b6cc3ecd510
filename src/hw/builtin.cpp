// The built-in hardware database. Every peak is written as units × FLOP per clock per unit ×
// the clock the vendor computes it at, and the product is the peak; the datasheet figure it
// reproduces is named in the note. [derived] marks our arithmetic on cited numbers,
// [unverified] a figure from secondary sources or memory that no stored source confirms.
// Capacities are binary where the hardware is: registers (65536 × 4 B per SM), shared memory and
// L2 (the CUDA guide's and whitepapers' "KB"/"MB" are KiB and MiB: an H100 reports 50 MiB of L2),
// and HBM, whose stacks come in GiB: the vendor's "N GB" is N GiB, and the driver reports a little
// less than that as usable (an H200, "141 GB", reports 150.1e9 B = 139.8 GiB). Each source text
// says so where it quotes "GB".
#include <cmath>
#include <string>

#include "sol/core/format.hpp"
#include "sol/hw/spec.hpp"

namespace sol::hw {
namespace {

constexpr double kGHz = 1e9;
constexpr double kKiB = 1024.0, kMiB = kKiB * 1024.0, kGiB = kMiB * 1024.0;
constexpr double kGB = 1e9;

// Sources, named once.
const std::string kA100Paper = "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020), tables 1 and 3";
const std::string kA100Sheet = "NVIDIA A100 datasheet (SXM4 40 GB / 80 GB)";
const std::string kH100Paper = "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022), table 2";
const std::string kH100Sheet = "NVIDIA H100 datasheet (SXM5)";
const std::string kH200Sheet = "NVIDIA H200 datasheet (SXM)";
const std::string kB200Sheet = "NVIDIA HGX B200 datasheet";
const std::string kStas =
    "stas00/ml-engineering: compute/accelerator/README.md (TFLOPS table; peak = clock × FLOP/clk/unit × units)";
const std::string kAoQuery = "pytorch/ao PR #4002 (B200 device query: 148 SMs, 126.5 MB L2, 7680-bit bus)";
const std::string kBwTuning = "NVIDIA Blackwell tuning guide (228 KB shared memory per SM, 227 KB per block)";
const std::string kGpuBenchesL2 = "te42kyfo/gpu-benches: gpu-l2-cache/";
const std::string kCudaGuide = "CUDA C++ Programming Guide, 'Technical Specifications per Compute Capability'";
const std::string kScalingBook = "jax-ml/scaling-book: tpus.md (chip table, ICI table, VPU appendix)";
const std::string kPallasInfo =
    "JAX Pallas TPU hardware reference (pltpu.get_tpu_info; docs.jax.dev/en/latest/pallas/tpu/hardware.html)";

Peak peak(double units, const std::string& label, double flops_per_clock, double clock_hz, const std::string& source,
          const std::string& note) {
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

// Interconnects. A fabric's figure is stated once, here; the chip's chip_link and host_link are
// derived from it.
const std::string kHgxH100 =
    "NVIDIA H100 whitepaper: fourth-generation NVLink, 18 links per GPU, 900 GB/s total; HGX H100 8-GPU joins "
    "8 GPUs through 4 third-generation NVSwitch chips, every GPU at full NVLink bandwidth to every other";
const std::string kHgxA100 = "NVIDIA A100 whitepaper: third-generation NVLink, 12 links per GPU, 600 GB/s total; "
                             "HGX A100 8-GPU joins 8 GPUs through 6 NVSwitch chips";
const std::string kHgxB200 = "NVIDIA HGX B200 datasheet: fifth-generation NVLink, 1.8 TB/s per GPU; 8 GPUs through NVSwitch";
const std::string kPcieSpec = "PCI-SIG PCIe 4.0 / 5.0: 16 / 32 GT/s per lane with 128b/130b coding";
const std::string kDgxNics = "NVIDIA DGX A100 / H100 user guides: one ConnectX NIC per GPU (8 per node), "
                             "HDR 200 Gb/s on A100, NDR 400 Gb/s on H100";

Interconnect fabric(const std::string& key, const std::string& name, int links, double link_bytes_per_s,
                    int max_ranks, const std::string& note, const std::string& source) {
  Interconnect ic;
  ic.key = key;
  ic.name = name;
  ic.links = links;
  ic.link_bytes_per_s = link_bytes_per_s;
  ic.bytes_per_s = links * link_bytes_per_s;
  ic.max_ranks = max_ranks;
  ic.note = note;
  ic.source = source;
  return ic;
}

Link link_of(const Interconnect& ic, const std::string& name) {
  return {name, ic.bytes_per_s, "per direction; " + si(2 * ic.bytes_per_s, "B/s") + " both ways (see interconnects)",
          ic.source};
}

// An NVIDIA HGX row's fabrics: NVLink through NVSwitch (8 GPUs), PCIe ×16 to the host, one
// InfiniBand NIC per GPU between nodes. chip_link and host_link follow from the first two.
void nvidia_fabrics(HwSpec& s, const std::string& nvlink, int nvlinks, double nvlink_each, const std::string& nvsource,
                    const std::string& pcie, double pcie_lane, const std::string& ib, double ib_bytes_per_s) {
  s.interconnects = {
      fabric("nvswitch", nvlink + " through NVSwitch", nvlinks, nvlink_each, 8,
             "8 GPUs of an HGX board, all-to-all at full per-GPU bandwidth", nvsource),
      fabric("pcie", pcie + " x16", 16, pcie_lane, 0,
             "one GPU's host slot; GPUs talking over PCIe share the switch or the CPU's root complex",
             kPcieSpec + "; " + s.sources.front()),
      fabric("ib", ib + " (one NIC per GPU)", 1, ib_bytes_per_s, 0, "between nodes, one GPU per NIC", kDgxNics),
  };
  s.chip_link = link_of(s.interconnects[0], nvlink);
  s.host_link = link_of(s.interconnects[1], pcie + " x16");
}

MemLevel level(const std::string& name, double capacity, double bytes_per_s, const std::string& derivation,
               const std::string& source) {
  return {name, capacity, bytes_per_s, derivation, source};
}

const std::string kCarveoutSteps =
    "carve-out steps: the CUDA 13 toolkit's cuda_occupancy.h (cudaOccAlignUpShmemSizeVoltaPlus: 0, 8, 16, 32, 64, "
    "100, 132, 164 KB for sm_80; up to 196 and 228 KB for sm_90 and sm_100); NVIDIA Ampere tuning guide (\"A100 "
    "supports shared memory capacity of 0, 8, 16, 32, 64, 100, 132 or 164 KB per SM\")";

// Occupancy limits of sm_80, sm_90 and sm_100; they differ only in shared memory. The carve-out
// steps are every shared capacity up to the SM's maximum: 0, 8, 16, 32, 64, 100, 132, 164, 196, 228 KiB.
SmLimits nvidia_limits(int shared_per_sm, int shared_per_block) {
  SmLimits l;
  l.warp_size = 32;
  l.max_warps_per_sm = 64;
  l.max_blocks_per_sm = 32;
  l.max_threads_per_block = 1024;
  l.registers_per_sm = 65536;
  l.max_registers_per_thread = 255;
  l.register_alloc_unit = 256;  // per warp
  l.shared_bytes_per_sm = shared_per_sm;
  l.max_shared_bytes_per_block = shared_per_block;
  l.shared_alloc_unit = 128;
  l.reserved_shared_bytes_per_block = 1024;
  for (int kib : {0, 8, 16, 32, 64, 100, 132, 164, 196, 228})
    if (kib * 1024 <= shared_per_sm) l.carveout_steps.push_back(kib * 1024);
  return l;
}

// The fields every NVIDIA row sets the same way.
HwSpec nvidia(const char* name, const char* full_name, const char* arch, int cc, int sms, double boost_hz,
              double base_hz) {
  HwSpec s;
  s.name = name;
  s.full_name = full_name;
  s.vendor = "nvidia";
  s.arch = arch;
  s.compute_capability = cc;
  s.compute_units = sms;
  s.compute_unit_label = "SMs";
  s.matrix_units = 4 * sms;  // one tensor core per SM sub-partition since Volta
  s.matrix_unit_label = "tensor cores";
  s.boost_clock_hz = boost_hz;
  s.base_clock_hz = base_hz;
  return s;
}

// Registers, smem/L1 and L2 of an NVIDIA GPU, then HBM.
// Registers: the operand traffic that keeps every FP32 lane busy with one FMA per clock
// (3 reads + 1 write of 4 B); smem: 32 banks × 4 B per clock per SM.
void gpu_levels(HwSpec& s, int fp32_lanes_per_sm, double l2_bytes_per_s, const std::string& l2_derivation,
                const std::string& l2_source) {
  const double sms = s.compute_units, clk = s.boost_clock_hz;
  const std::string per_sm = std::to_string(s.compute_units) + " SMs × ";
  const std::string at_boost = " × " + si(clk, "Hz") + " boost";
  s.levels.push_back(level("registers", sms * s.register_bytes_per_unit, sms * fp32_lanes_per_sm * 16 * clk,
                           per_sm + std::to_string(fp32_lanes_per_sm) +
                               " FP32 lanes × 16 B (3 operand reads + 1 write of 4 B per FMA)" + at_boost + " [derived]",
                           "FP32 lanes per SM: " + s.sources.front()));
  s.levels.push_back(level("smem/L1", sms * s.shared_bytes_per_unit, sms * 128 * clk,
                           per_sm + "128 B/clk (32 banks × 4 B)" + at_boost + " [derived]", "32 banks of 4 B: " + kCudaGuide));
  s.levels.push_back(level("L2", s.l2_bytes, l2_bytes_per_s, l2_derivation, l2_source));
  s.levels.push_back(level("HBM", s.hbm_bytes, s.hbm_bytes_per_s, "datasheet figure", s.hbm_source));
}

HwSpec a100_40gb() {
  HwSpec s = nvidia("a100", "NVIDIA A100 SXM4 40 GB", "ampere", 80, 108, 1.410 * kGHz, 1.095 * kGHz);
  s.sources = {kA100Paper, kA100Sheet, kStas, kCarveoutSteps};
  const double clk = s.boost_clock_hz;  // A100 computes every peak at its 1410 MHz boost clock
  const std::string tc = "tensor cores";
  s.matrix_peaks["fp64"] = peak(432, tc, 32, clk, kA100Sheet, "datasheet: 19.5 TFLOP/s FP64 Tensor Core");
  s.matrix_peaks["tf32"] = peak(432, tc, 256, clk, kA100Sheet, "datasheet: 156 TFLOP/s dense");
  s.matrix_peaks["bf16"] = peak(432, tc, 512, clk, kStas, "datasheet: 312 TFLOP/s dense; 256 FMA/clk per tensor core");
  s.matrix_peaks["fp16"] = peak(432, tc, 512, clk, kA100Sheet, "datasheet: 312 TFLOP/s dense");
  s.matrix_peaks["int8"] = peak(432, tc, 1024, clk, kA100Sheet, "datasheet: 624 TOPS dense (integer ops)");
  s.vector_peaks["fp64"] = peak(108, "SMs", 64, clk, kA100Sheet, "32 FP64 lanes × 2 per SM; datasheet: 9.7 TFLOP/s");
  s.vector_peaks["fp32"] = peak(108, "SMs", 128, clk, kA100Sheet, "64 FP32 lanes × 2 per SM; datasheet: 19.5 TFLOP/s");
  s.vector_peaks["fp16"] = peak(108, "SMs", 512, clk, kA100Paper, "packed half2 FMA; whitepaper: 78 TFLOP/s non-tensor");
  s.vector_peaks["bf16"] = peak(108, "SMs", 256, clk, kA100Paper, "whitepaper: 39 TFLOP/s non-tensor");
  s.register_bytes_per_unit = 256 * kKiB;
  s.shared_bytes_per_unit = 192 * kKiB;  // L1 and shared memory together; up to 164 KiB of it shared
  s.l2_bytes = 40 * kMiB;
  s.hbm_bytes = 40 * kGiB;
  s.hbm_bytes_per_s = 1555 * kGB;
  s.hbm_source = kA100Sheet + ": 40 GB (GiB) HBM2 at 1555 GB/s";
  gpu_levels(s, 64, 5400 * kGB,
             "measured: reads from 2–25 MB working sets plateau at 5.3–5.5 TB/s on an A100 80 GB "
             "(the same chip and L2 as the 40 GB part)",
             kGpuBenchesL2 + "a100_80.txt");
  // PCIe 4.0: 16 GT/s × 128/130 = 1.97 GB/s per lane; NVIDIA quotes 2 GB/s (64 GB/s both ways at ×16).
  nvidia_fabrics(s, "NVLink 3", 12, 25 * kGB, kHgxA100, "PCIe 4.0", 2 * kGB, "InfiniBand HDR", 25 * kGB);
  s.limits = nvidia_limits(164 * 1024, 163 * 1024);
  return s;
}

HwSpec a100_80gb() {
  HwSpec s = a100_40gb();
  s.name = "a100-80gb";
  s.full_name = "NVIDIA A100 SXM4 80 GB";
  s.hbm_bytes = 80 * kGiB;
  s.hbm_bytes_per_s = 2039 * kGB;
  s.hbm_source = kA100Sheet + ": 80 GB (GiB) HBM2e at 2039 GB/s; " + kStas;
  s.levels.back() = level("HBM", s.hbm_bytes, s.hbm_bytes_per_s, "datasheet figure", s.hbm_source);
  return s;
}

HwSpec h100() {
  HwSpec s = nvidia("h100", "NVIDIA H100 SXM5 80 GB", "hopper", 90, 132, 1.980 * kGHz, 1.590 * kGHz);
  s.sources = {kH100Paper, kH100Sheet, kStas, kCarveoutSteps};
  // NVIDIA computes the 16-bit, TF32 and 8-bit tensor peaks at 1830 MHz, not the 1980 MHz
  // maximum boost; multiplying by 1980 MHz gives 1070 TFLOP/s bf16 (pytorch/pytorch#172523).
  // FP64 and the vector peaks do use 1980 MHz.
  const double tc_clk = 1.830 * kGHz, clk = s.boost_clock_hz;
  const std::string tc = "tensor cores", at1830 = "; computed at 1830 MHz, not the 1980 MHz boost (which gives ";
  s.matrix_peaks["fp64"] = peak(528, tc, 64, clk, kH100Sheet, "datasheet: 67 TFLOP/s FP64 Tensor Core, at the 1980 MHz boost");
  s.matrix_peaks["tf32"] = peak(528, tc, 512, tc_clk, kStas, "datasheet: 494.7 TFLOP/s dense" + at1830 + "535)");
  s.matrix_peaks["bf16"] = peak(528, tc, 1024, tc_clk, kStas, "datasheet: 989 TFLOP/s dense" + at1830 + "1070)");
  s.matrix_peaks["fp16"] = peak(528, tc, 1024, tc_clk, kStas, "datasheet: 989 TFLOP/s dense" + at1830 + "1070)");
  s.matrix_peaks["fp8"] = peak(528, tc, 2048, tc_clk, kStas, "datasheet: 1979 TFLOP/s dense" + at1830 + "2141)");
  s.matrix_peaks["int8"] = peak(528, tc, 2048, tc_clk, kH100Sheet, "datasheet: 1979 TOPS dense (integer ops)");
  s.vector_peaks["fp64"] = peak(132, "SMs", 128, clk, kH100Sheet, "64 FP64 lanes × 2 per SM; datasheet: 34 TFLOP/s");
  s.vector_peaks["fp32"] = peak(132, "SMs", 256, clk, kStas, "128 FP32 lanes × 2 per SM; datasheet: 67 TFLOP/s");
  s.vector_peaks["fp16"] = peak(132, "SMs", 512, clk, kH100Paper, "packed half2 FMA; whitepaper: 133.8 TFLOP/s non-tensor");
  s.vector_peaks["bf16"] = peak(132, "SMs", 512, clk, kH100Paper, "packed bf162 FMA; whitepaper: 133.8 TFLOP/s non-tensor");
  s.register_bytes_per_unit = 256 * kKiB;
  s.shared_bytes_per_unit = 256 * kKiB;  // L1 and shared memory together; up to 228 KiB of it shared
  s.l2_bytes = 50 * kMiB;
  s.hbm_bytes = 80 * kGiB;
  s.hbm_bytes_per_s = 3350 * kGB;
  s.hbm_source = kH100Sheet + ": 80 GB (GiB) HBM3 at 3.35 TB/s; " + kStas;
  gpu_levels(s, 128, 9800 * kGB,
             "measured: reads from 5–40 MB working sets plateau at 9.7–10.3 TB/s on an H200, which has the "
             "same GH100 die, SM count, clocks and 50 MB L2 as the H100 SXM",
             kGpuBenchesL2 + "h200.txt");
  // PCIe 5.0: 32 GT/s × 128/130 = 3.94 GB/s per lane; NVIDIA quotes 4 GB/s (128 GB/s both ways at ×16).
  // InfiniBand NDR: 400 Gb/s = 50 GB/s per direction per NIC.
  nvidia_fabrics(s, "NVLink 4", 18, 25 * kGB, kHgxH100, "PCIe 5.0", 4 * kGB, "InfiniBand NDR", 50 * kGB);
  s.limits = nvidia_limits(228 * 1024, 227 * 1024);
  return s;
}

// H200: the H100's GH100 die and clocks with 141 GB of HBM3e at 4.8 TB/s.
HwSpec h200() {
  HwSpec s = h100();
  s.name = "h200";
  s.full_name = "NVIDIA H200 SXM 141 GB";
  s.sources = {kH200Sheet, kH100Paper, kStas, kCarveoutSteps};
  s.hbm_bytes = 141 * kGiB;
  s.hbm_bytes_per_s = 4800 * kGB;
  s.hbm_source = kH200Sheet + ": 141 GB (GiB; the driver reports 139.8 GiB usable) HBM3e at 4.8 TB/s; " + kStas +
                 " (\"H200 is the same as H100 but ...\")";
  s.levels.back() = level("HBM", s.hbm_bytes, s.hbm_bytes_per_s, "datasheet figure; gpu-benches measures 3.89 TB/s reads",
                          s.hbm_source);
  // The H200 datasheet states no L2 size; the driver reports 60 MiB (cudaDeviceProp::l2CacheSize =
  // 62914560 B in every bench/results/h200 file), not the H100 SXM's 50 MiB.
  s.l2_bytes = 60 * kMiB;
  s.levels[2].capacity_bytes = s.l2_bytes;
  s.levels[2].derivation = "measured: reads from 5–40 MB working sets plateau at 9.7–10.3 TB/s";
  s.levels[2].source += "; capacity: cudaDeviceProp::l2CacheSize on an H200 (62914560 B)";
  return s;
}

// B200: two dies, 148 SMs. NVIDIA does not state the clocks behind its peaks; the tensor
// peaks imply 1.855 GHz at 2048 dense bf16 FLOP/clk per tensor core (twice Hopper's).
HwSpec b200() {
  HwSpec s = nvidia("b200", "NVIDIA B200 SXM 180 GB", "blackwell", 100, 148, 1.965 * kGHz, 0);
  s.sources = {kB200Sheet, kStas, kAoQuery, kBwTuning, kCarveoutSteps};
  const double tc_clk = 1.855 * kGHz, clk = s.boost_clock_hz;
  const std::string tc = "tensor cores",
                    implied = "; 1.855 GHz is the clock the 2250 TFLOP/s bf16 figure implies at 2048 FLOP/clk [derived]";
  s.matrix_peaks["fp64"] = peak(592, tc, 32, clk, kB200Sheet,
                                "datasheet: 37 TFLOP/s FP64 Tensor Core (40 in early revisions) [unverified]");
  s.matrix_peaks["tf32"] = peak(592, tc, 1024, tc_clk, kStas, "table: 1125 TFLOP/s dense" + implied);
  s.matrix_peaks["bf16"] = peak(592, tc, 2048, tc_clk, kStas, "table: 2250 TFLOP/s dense" + implied);
  s.matrix_peaks["fp16"] = peak(592, tc, 2048, tc_clk, kStas, "table: 2250 TFLOP/s dense" + implied);
  s.matrix_peaks["fp8"] = peak(592, tc, 4096, tc_clk, kStas, "table: 4500 TFLOP/s dense" + implied);
  s.matrix_peaks["int8"] = peak(592, tc, 4096, tc_clk, kStas, "table: 4500 TOPS dense (integer ops)" + implied);
  const std::string boost = "; at the 1965 MHz boost clock [unverified]";
  s.vector_peaks["fp64"] = peak(148, "SMs", 128, clk, kB200Sheet, "64 FP64 lanes × 2 per SM" + boost);
  s.vector_peaks["fp32"] = peak(148, "SMs", 256, clk, kB200Sheet,
                                "128 FP32 lanes × 2 per SM" + boost + "; some tables state 80 TFLOP/s");
  s.vector_peaks["fp16"] = peak(148, "SMs", 512, clk, kH100Paper, "packed half2 FMA, Hopper's per-SM rate assumed" + boost);
  s.vector_peaks["bf16"] = peak(148, "SMs", 512, clk, kH100Paper, "packed bf162 FMA, Hopper's per-SM rate assumed" + boost);
  s.register_bytes_per_unit = 256 * kKiB;
  s.shared_bytes_per_unit = 256 * kKiB;
  s.l2_bytes = 126.5 * kMiB;
  s.hbm_bytes = 180 * kGiB;
  s.hbm_bytes_per_s = 8000 * kGB;
  s.hbm_source = kB200Sheet + ": 180 GB (GiB) HBM3e at 8 TB/s; the driver's 7680-bit bus × 7.992 Gbit/s gives 7.67 TB/s (" +
                 kAoQuery + ")";
  gpu_levels(s, 128, 9800 * kGB * 148 / 132,
             "no published measurement found: the H200's measured 9.8 TB/s scaled by SM count (148/132) [unverified]",
             kGpuBenchesL2 + "h200.txt");
  nvidia_fabrics(s, "NVLink 5", 18, 50 * kGB, kHgxB200, "PCIe 5.0", 4 * kGB, "InfiniBand NDR [unverified]", 50 * kGB);
  s.limits = nvidia_limits(228 * 1024, 227 * 1024);
  return s;
}

// A TPU chip: TensorCores, each with 4 MXUs (128×128 systolic arrays, 2 FLOP per cell per
// clock), a VPU, and VMEM as the on-chip level the kernels stage tiles in. No SMs, so the
// occupancy limits are zero.
struct TpuRow {
  const char* name;
  const char* full_name;
  int tensor_cores;
  double clock_hz;
  std::string clock_note;
  int int8_factor;             // int8 MXU rate over bf16
  double vmem_per_core;        // bytes
  double hbm_gib;
  double hbm_bytes_per_s;
  std::string hbm_note;
  int vpu_flops_per_clock;     // per TensorCore
  int ici_links;
  double ici_link_bytes_per_s; // one way
  double pcie_bytes_per_s;     // one way
  std::vector<int> torus_dims; // the largest slice, chips per axis
  int wrap_multiple;           // an axis of a multiple of this many chips has wraparound links
  std::string torus_note;
  std::string peak_note;       // the published bf16 / int8 figures
};

HwSpec tpu(const TpuRow& r) {
  HwSpec s;
  s.name = r.name;
  s.full_name = r.full_name;
  s.vendor = "google";
  s.arch = std::string("tpu-") + (r.name + 4);
  s.compute_units = r.tensor_cores;
  s.compute_unit_label = "TensorCores";
  s.matrix_units = 4 * r.tensor_cores;
  s.matrix_unit_label = "MXUs";
  s.boost_clock_hz = r.clock_hz;
  s.base_clock_hz = r.clock_hz;
  s.sources = {kScalingBook, kPallasInfo, kStas};
  const double mxu_flops = 128 * 128 * 2;  // one multiply-add per systolic cell per clock
  s.matrix_peaks["bf16"] = peak(s.matrix_units, "MXUs", mxu_flops, r.clock_hz, kScalingBook, r.peak_note + "; " + r.clock_note);
  s.matrix_peaks["int8"] = peak(s.matrix_units, "MXUs", mxu_flops * r.int8_factor, r.clock_hz, kScalingBook,
                                r.int8_factor == 2 ? "int8 runs at twice the bf16 rate (integer ops)"
                                                   : "int8 runs at the bf16 rate (integer ops)");
  s.vector_peaks["fp32"] =
      peak(r.tensor_cores, "TensorCores", r.vpu_flops_per_clock, r.clock_hz, kScalingBook,
           "VPU of 8 sublanes × 128 lanes × " + std::to_string(r.vpu_flops_per_clock / 1024) +
               " f32 ALUs, one op each per clock; no FMA counted [derived, unverified]");
  s.register_bytes_per_unit = 32 * 8 * 128 * 4;  // 32 VREGs of 8 × 128 × 4 B
  s.shared_bytes_per_unit = r.vmem_per_core;
  s.hbm_bytes = r.hbm_gib * kGiB;
  s.hbm_bytes_per_s = r.hbm_bytes_per_s;
  s.hbm_source = kScalingBook + "; " + r.hbm_note;
  s.levels.push_back(level("VMEM", r.tensor_cores * r.vmem_per_core, 22 * r.hbm_bytes_per_s,
                           "22 × HBM bandwidth: the scaling book's VMEM↔MXU figure, stated for v5e [derived]",
                           "capacity: " + kPallasInfo + "; bandwidth: " + kScalingBook));
  s.levels.push_back(level("HBM", s.hbm_bytes, s.hbm_bytes_per_s, "published figure", s.hbm_source));
  s.host_link = {"PCIe", r.pcie_bytes_per_s, "per direction, per chip", kScalingBook};
  Interconnect ici = fabric("ici", "ICI", r.ici_links, r.ici_link_bytes_per_s, 0,
                            std::string(r.ici_links == 6 ? "3D torus" : "2D torus") + ": " + r.torus_note, kScalingBook);
  ici.torus_dims = r.torus_dims;
  ici.wrap_multiple = r.wrap_multiple;
  s.interconnects = {ici};
  s.chip_link = link_of(ici, "ICI");
  s.limits = SmLimits{};
  s.limits.warp_size = 0;
  return s;
}

HwSpec tpu_v4() {
  return tpu({"tpu-v4", "Google TPU v4", 2, 1.05 * kGHz, "1050 MHz: TPU v4 paper (Jouppi et al., ISCA 2023) [unverified]", 1,
              16 * kMiB, 32, 1.2e12, "32 GB at 1.2 TB/s (Pallas lists 1.23e12)", 2048, 6, 4.5e10, 1.6e10,
              {16, 16, 16}, 4, "up to 4096 chips (16×16×16), wraparound on every axis of a multiple of 4 chips",
              "published: 275 TFLOP/s bf16 and 275 TOPS int8 per chip"});
}

HwSpec tpu_v5e() {
  return tpu({"tpu-v5e", "Google TPU v5e", 1, 1.5 * kGHz, "1.5 GHz: scaling book", 2, 128 * kMiB, 16, 8.1e11,
              "16 GB at 8.1e11 B/s (Pallas lists 8.2e11)", 4096, 4, 5e10, 1.5e10,
              {16, 16}, 16, "up to 256 chips (16×16), wraparound only on an axis of 16 chips", "published: 197 TFLOP/s bf16 and 394 TOPS int8 per chip"});
}

HwSpec tpu_v5p() {
  return tpu({"tpu-v5p", "Google TPU v5p", 2, 1.75 * kGHz,
              "1.75 GHz is the clock 459 TFLOP/s implies over 8 MXUs [derived]", 2, 64 * kMiB, 96, 2.8e12,
              "96 GB at 2.8e12 B/s (the book's text says 2.5e12 once; Pallas lists 2.46e12)", 4096, 6, 1e11, 1.5e10,
              {16, 20, 28}, 4, "up to 8960 chips (16×20×28), wraparound on every axis of a multiple of 4 chips",
              "published: 459 TFLOP/s bf16 and 918 TOPS int8 per chip"});
}

}  // namespace

const std::vector<HwSpec>& builtin() {
  static const std::vector<HwSpec> rows = {a100_40gb(), a100_80gb(), h100(),   h200(),
                                           b200(),      tpu_v4(),    tpu_v5e(), tpu_v5p()};
  return rows;
}

const HwSpec* match_builtin(int compute_capability, int sms, double memory_bytes, int* candidates) {
  constexpr double kMemoryTolerance = 0.20;
  const HwSpec* best = nullptr;
  double best_diff = 0;
  int same = 0;
  for (const HwSpec& row : builtin()) {
    if (row.compute_capability != compute_capability || row.compute_units != sms || row.hbm_bytes <= 0) continue;
    ++same;
    const double diff = std::fabs(memory_bytes - row.hbm_bytes) / row.hbm_bytes;
    if (!best || diff < best_diff) best = &row, best_diff = diff;
  }
  if (candidates) *candidates = same;
  return best && best_diff <= kMemoryTolerance ? best : nullptr;
}

}  // namespace sol::hw
