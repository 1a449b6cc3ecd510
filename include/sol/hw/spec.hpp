#pragma once
// An accelerator as sol models it: compute peaks with their derivation, the memory hierarchy,
// links, and the architectural limits the occupancy model needs. One row per chip in the
// built-in database; the same structure loads from a user's JSON file (--hw-file) or from a
// profile measured by `sol probe` (--gpu measured).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sol/core/dtype.hpp"

namespace sol::hw {

// Which execution unit does the arithmetic: tensor cores / MXU ("matrix") or CUDA cores / VPU ("vector").
enum class Unit { Matrix, Vector };
std::string unit_name(Unit u);

// A peak rate and where it comes from: units × flops_per_clock_per_unit × clock_hz.
struct Peak {
  double units = 0;                    // e.g. 528 tensor cores, or 132 SMs
  std::string unit_label;              // "tensor cores", "SMs", "MXUs", ...
  double flops_per_clock_per_unit = 0; // dense FLOP (2 per FMA) per clock per unit
  double clock_hz = 0;                 // the clock the vendor's figure is computed at
  double flops_per_s = 0;              // = units × flops_per_clock_per_unit × clock_hz
  std::string source;                  // datasheet / whitepaper the figure is checked against
  std::string note;                    // e.g. "computed at 1830 MHz, not the 1980 MHz boost"
  // "528 tensor cores × 1024 FLOP/clk × 1.830 GHz = 989.4 TFLOP/s"
  std::string derivation() const;
};

// One level of the memory hierarchy, fastest first; the last is device memory (HBM).
struct MemLevel {
  std::string name;            // "registers", "smem/L1", "L2", "HBM" (TPU: "VMEM", "HBM")
  double capacity_bytes = 0;   // whole chip
  double bytes_per_s = 0;      // aggregate bandwidth, read + write counted together
  std::string derivation;      // how the bandwidth figure is obtained
  std::string source;
};

struct Link {
  std::string name;            // "PCIe 5.0 x16", "NVLink 4", "ICI"
  double bytes_per_s = 0;      // per direction unless note says otherwise
  std::string note;
  std::string source;
};

// A fabric a chip's collectives run over: `links` links of `link_bytes_per_s` each way. The
// communication model (sol/model/comm.hpp) reads one by its key. Switched fabrics (NVSwitch,
// PCIe, InfiniBand) join up to `max_ranks` chips all-to-all; ICI joins neighbours in a torus of at
// most `torus_dims` chips per axis.
struct Interconnect {
  std::string key;               // "nvswitch" | "pcie" | "ib" | "ici": the --topology name
  std::string name;              // "NVLink 4 through NVSwitch", "InfiniBand NDR (one NIC per GPU)"
  int links = 0;                 // per chip
  double link_bytes_per_s = 0;   // one link, one direction
  double bytes_per_s = 0;        // = links × link_bytes_per_s: what a chip sends (and receives) at once
  int max_ranks = 0;             // chips the fabric joins; 0: no limit stated
  std::vector<int> torus_dims;   // ICI only: the largest slice, chips per axis (e.g. 16, 16, 16)
  int wrap_multiple = 0;         // ICI only: an axis of a multiple of this many chips closes into a ring
  std::string note;
  std::string source;
  // "18 links × 25 GB/s = 450 GB/s per direction (900 GB/s both ways)"
  std::string derivation() const;
};

// What bounds occupancy on one SM (GPU only; zero on TPUs).
struct SmLimits {
  int warp_size = 32;
  int max_warps_per_sm = 0;
  int max_blocks_per_sm = 0;
  int max_threads_per_block = 0;
  int registers_per_sm = 0;           // 32-bit registers
  int max_registers_per_thread = 0;
  int register_alloc_unit = 0;        // registers are allocated per warp in units of this many
  int shared_bytes_per_sm = 0;        // usable by blocks
  int max_shared_bytes_per_block = 0;
  int shared_alloc_unit = 0;          // bytes
  int reserved_shared_bytes_per_block = 0;  // taken by the system per resident block
  // The shared-memory capacities (bytes) the SM's L1/shared split can be configured to, ascending;
  // the last equals shared_bytes_per_sm. Empty: a single configuration (shared_bytes_per_sm).
  std::vector<int> carveout_steps;
};

struct HwSpec {
  std::string name;           // database key: "h100"
  std::string full_name;      // "NVIDIA H100 SXM5 80 GB"
  std::string vendor;         // "nvidia" | "google"
  std::string arch;           // "hopper", "tpu-v4", ...
  int compute_capability = 0; // 90 for sm_90; 0 for TPUs
  int compute_units = 0;      // SMs, or TensorCores on a TPU
  std::string compute_unit_label;  // "SMs" | "TensorCores"
  int matrix_units = 0;       // tensor cores, or MXUs
  std::string matrix_unit_label;   // "tensor cores" | "MXUs"
  double boost_clock_hz = 0;
  double base_clock_hz = 0;
  std::map<std::string, Peak> matrix_peaks;  // key: dtype_peak_key(); only types the chip has
  std::map<std::string, Peak> vector_peaks;
  double register_bytes_per_unit = 0;  // register file per SM
  double shared_bytes_per_unit = 0;    // L1/shared per SM (VMEM per core on TPU)
  double l2_bytes = 0;
  double hbm_bytes = 0;
  double hbm_bytes_per_s = 0;
  std::string hbm_source;
  std::vector<MemLevel> levels;        // fastest first, HBM last
  Link host_link;
  Link chip_link;
  std::vector<Interconnect> interconnects;  // the fabrics collectives can use; first is the default
  SmLimits limits;
  std::vector<std::string> sources;
  bool measured = false;               // true for a profile written by `sol probe`

  // The peak for a dtype on a unit; throws sol::Error (BadInput) if the chip lacks it,
  // naming the types it has.
  const Peak& peak(DType t, Unit u) const;
  bool has(DType t, Unit u) const;
  // Ridge point (FLOP/byte) for a dtype on a unit against HBM bandwidth.
  double ridge(DType t, Unit u) const;
  // The interconnect with this key; throws sol::Error (BadInput) naming the keys the chip has.
  const Interconnect& interconnect(const std::string& key) const;
};

// The built-in database, in a fixed order.
const std::vector<HwSpec>& builtin();
// The built-in row of a GPU with this compute capability, SM count and memory size: the rows with
// the same compute capability and SM count, the closest in memory if within 20 % of it, else
// nullptr. `candidates` (optional) gets how many rows share the compute capability and SM count.
const HwSpec* match_builtin(int compute_capability, int sms, double memory_bytes, int* candidates = nullptr);
// Every findable row except "measured": the built-ins, then the rows loaded from files, in load order.
std::vector<const HwSpec*> all_specs();
// Looks a name up (case-insensitive) among the built-ins, the extra specs loaded from files, and
// "measured" (the profile `sol probe` saved). Throws sol::Error (BadInput) listing the valid names.
const HwSpec& find(const std::string& name);
// Loads a JSON file holding one spec object, or an array of them, validates it, and makes its
// rows findable by name. Throws sol::Error (BadInput) naming the file, the field and the problem.
std::vector<HwSpec> load_file(const std::string& path);
// Where `sol probe` writes the measured profile, and where find("measured") reads it from:
// $SOL_PROFILE if set, else ~/.cache/sol/measured.json.
std::string measured_profile_path();
// Validates a spec; throws sol::Error (BadInput) on missing or impossible fields.
void validate(const HwSpec& s, const std::string& origin);

// JSON form (the --hw-file format). Declared here with std::string to keep JSON types out of headers.
std::string to_json(const HwSpec& s, int indent = 2);
HwSpec from_json_text(const std::string& text, const std::string& origin);

}  // namespace sol::hw
