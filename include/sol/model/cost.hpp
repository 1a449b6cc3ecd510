#pragma once
// Cost models: how many FLOPs an operation does and how many bytes it moves through device
// memory (bytes moved = bytes read + bytes written). The same descriptors feed the roofline
// model and the kernels' registry entries, so every measured point has its own floor.
// Conventions (DESIGN.md): matmul FLOPs = 2·M·N·K; attention forward = 4·B·H·N²·d, halved when
// causal; backward = 2.5 × forward.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sol/core/dtype.hpp"
#include "sol/core/shape.hpp"
#include "sol/hw/spec.hpp"
#include "sol/model/occupancy.hpp"

namespace sol::model {

// Bytes through one named memory level, for the hierarchical roofline ("L2", "smem/L1").
struct LevelTraffic {
  std::string level;
  double bytes = 0;
};

// How a kernel runs, as far as its time depends on more than its FLOPs and bytes: what its lesson
// is about (passes and launches, sectors its access pattern moves, bank-conflict wavefronts,
// divergent lanes' issue slots, the matrix instruction it feeds). A variant declares it with its
// cost (kernels/*/spec.cpp); sol/predict.hpp turns it into time. A zero counts nothing extra.
enum class MatrixInstruction { None, MmaSync, Wgmma };

// One launch whose threads wait on their own loads: Little's law caps its read rate at the bytes of
// loads the GPU holds in flight ÷ the memory's latency (sol/predict.hpp, stream_seconds). The
// blocks resident at once come from the grid and the occupancy of `block`; each of their threads
// keeps `loads_in_flight` loads of `load_bytes` outstanding.
struct LoadStream {
  double read_bytes = 0, write_bytes = 0;  // through HBM
  int64_t blocks = 0;                      // the grid
  KernelResources block;                   // threads, registers (ptxas -v), shared memory per block
  int loads_in_flight = 1;                 // independent loads a thread issues before it waits on one
  int load_bytes = 0;                      // bytes of one of them
  std::string what;                        // "mean: reads x"
};

// Bytes a launch reads a second time, counting on L2 to still hold them: it does while what the
// resident blocks move between a block's two reads (`block_bytes` each) fits in the L2; beyond,
// DRAM reads them again (sol/predict.hpp).
struct Reread {
  double bytes = 0;        // read a second time (0: none)
  int64_t blocks = 0;      // the grid
  KernelResources block;   // threads, registers (ptxas -v), shared memory per block
  double block_bytes = 0;  // what one block reads and writes between its two reads of a byte
};
// How a grid's CTAs share the SMs (sol/predict.hpp, schedule_seconds): the hardware starts each
// CTA, in launch order, on the first of the SMs' resident slots to free up. A CTA's time is its
// tiles at the kernel's per-slot rate, plus, where it is alone on its SM, the bytes it moves before
// its first tile and after its last at that SM's share of the bandwidth. Uneven CTAs (causal
// masks) and a last partial wave then show as the slots' last finish time against the even split.
struct CtaSchedule {
  std::vector<int64_t> tiles;  // tiles each CTA of one group computes, in launch order (empty: none declared)
  int64_t groups = 0;          // groups launched one after another (batch × heads), each with `tiles`
  int ctas_per_sm = 0;         // CTAs resident on one SM
  double fill_bytes = 0;       // per CTA: loaded before its first tile plus stored after its last
};

struct Execution {
  bool declared = false;        // false: the variant declares nothing beyond its FLOPs and bytes
  int kernels = 1;              // launches per call
  double dram_bytes = 0;        // bytes DRAM moves for the access pattern, whole granules (0: = bytes)
  double issue_slots = 0;       // thread-instructions issued, masked lanes included (32 per warp instruction)
  double smem_wavefronts = 0;   // shared-memory wavefronts (one bank-wide access of one SM each)
  double l1_wavefronts = 0;     // L1 passes of global loads and stores: one per distinct 128-byte line a warp request touches
  int64_t grid_blocks = 0;      // the grid, when its blocks share the L1 passes unevenly over the SMs (0: evenly)
  double work_flops = 0;        // FLOPs the units execute: whole tiles, recomputation (0: = flops)
  MatrixInstruction mma = MatrixInstruction::None;
  double exps = 0;              // exponentials on the special function units
  double l2_atomic_bytes = 0;   // read-modify-write traffic of global atomics through L2
  // The launches one after another, each bounded by its loads in flight; non-empty: they replace
  // dram_bytes ÷ copy as the memory term.
  std::vector<LoadStream> streams;
  Reread reread;
  CtaSchedule schedule;         // a tiled matrix kernel's CTAs over the SMs (tiles empty: not declared)
  std::string how;              // one line: where the counts come from
};

struct Cost {
  std::string op;                   // human label: "matmul 4096×4096×4096 (minimal traffic)"
  Execution exec;                   // how the kernel runs (declared by a variant; see Execution)
  double flops = 0;
  double bytes = 0;                 // through HBM, read + write
  double saved_bytes = 0;           // kept in HBM for the backward pass (attention), 0 if n/a
  hw::Unit unit = hw::Unit::Vector; // which unit does the arithmetic
  DType dtype = DType::bf16;
  // The type the arithmetic runs in, when it is not the storage type: fp8 data on a vector unit
  // that has no fp8 math is converted and computed in fp32. The roofline takes its peak.
  std::optional<DType> math_dtype;
  std::vector<LevelTraffic> levels; // traffic at faster levels, when the model knows it
  std::vector<std::string> notes;   // how the bytes and FLOPs were counted, one line each
};

// ---- matmul C[M×N] = A[M×K] · B[K×N] -------------------------------------------------------
enum class MatmulImpl {
  Minimal,  // each input read once, output written once: b(MK + KN + MN)
  Naive,    // untiled: every multiply-add reads both operands from HBM: 2·M·N·K·b (+ MN·b write)
  Tiled     // square tile T: A re-read N/T times, B re-read M/T times, C written once
};
struct MatmulOp {
  int64_t m = 0, n = 0, k = 0;
  DType dtype = DType::bf16;
  MatmulImpl impl = MatmulImpl::Minimal;
  int64_t tile = 0;    // for Tiled: the tile's rows (and columns, unless tile_n is given)
  int64_t tile_n = 0;  // for Tiled: the tile's columns when the tile is not square (0: = tile)
};
Cost matmul(const MatmulOp& op);

// ---- a chain of k elementwise ops over n elements -------------------------------------------
struct ElementwiseOp {
  int64_t n = 0;
  int ops = 1;                // k
  bool fused = false;         // fused: one read + one write; unfused: k reads + k writes
  double flops_per_op = 1;    // per element per op (ReLU: 1)
  DType dtype = DType::bf16;
  int extra_reads = 0;        // unfused only: whole-tensor reads beyond one per op (a binary op's
                              // second operand; sin²x + cos²x has one)
};
Cost elementwise(const ElementwiseOp& op);

// ---- row-wise reductions over a [rows × cols] tensor (cols = the normalized dimension) -------
enum class RowKind { LayerNorm, RMSNorm, Softmax };
struct RowOp {
  RowKind kind = RowKind::LayerNorm;
  int64_t rows = 0, cols = 0;
  bool fused = false;  // naive = the lecture's eager passes; fused = one read of x, one write of y
  DType dtype = DType::bf16;
  // The decoder's residual add first (norms): s = x + res is normalized and written. Fused: res
  // read and s written beside x and y; naive: an add pass (reads x and res, writes s) before the
  // passes over s.
  bool residual = false;
  // Fused norms only: y's e4m3 codes (one byte per element) written beside y, or in its place.
  enum class Fp8 { None, BesideY, InsteadOfY };
  Fp8 fp8 = Fp8::None;
};
Cost row_op(const RowOp& op);

// ---- attention O = softmax(Q Kᵀ / √d) V, per (batch, head) -----------------------------------
// Q, O (and dQ, dO) have `heads` heads of `seq` rows; K, V (and dK, dV) have `heads_kv` heads of
// `seq_k` rows (grouped-query attention, a decode step: seq = 1, seq_k = the cache). The causal
// mask is aligned bottom-right: query row i sees keys j ≤ i + seq_k − seq.
struct AttentionOp {
  int64_t batch = 1, heads = 1, seq = 0, head_dim = 0;
  bool flash = false;       // false: S and P materialized in HBM; true: K,V re-read once per Q block
  int64_t block_q = 128;    // Bq for flash
  bool causal = false;
  bool backward = false;
  DType dtype = DType::bf16;
  // flash: the re-reads (K, V per query block; backward: Q, dO, logsumexp, D and the dQ
  // accumulator per key block) served by L2 and counted once, as a GPU whose L2 holds the heads
  // in flight sees them. false: the lecture's IO count, every re-read from HBM.
  bool reuse_in_l2 = false;
  int64_t heads_kv = 0;     // K/V heads (divides heads); 0: = heads
  int64_t seq_k = 0;        // key rows; 0: = seq
  int64_t score_bytes = 0;  // standard: bytes per stored element of S (fp32 scores: 4); 0: the dtype's
  // A sliding window in the same frame (sol/core/attention_window.hpp; −1: unbounded; causal caps
  // the right side at 0): FLOPs count the pairs in the window, the flash kernels' K/V bytes the
  // keys some row sees. softcap: one tanh per score beside the exponential, no FLOPs counted.
  int64_t window_left = -1, window_right = -1;
  bool softcap = false;
};
Cost attention(const AttentionOp& op);
// The attention families' cost at a registry shape (b, h[, hkv], n[, nk], d[, causal, wl, wr,
// softcap, fp16]; wl, wr: the window's sizes, absent: unbounded): flash or standard (S in fp32),
// forward or backward, the flash re-reads served by L2.
Cost attention_at(const Shape& s, bool flash, bool backward, int64_t block_q);

// ---- activation memory of an L-layer stack -----------------------------------------------------
enum class Checkpointing { None, PerBlock, SqrtL };
struct ActivationOp {
  int64_t layers = 0;
  double bytes_per_block_input = 0;     // the tensor kept at a checkpoint
  double bytes_per_block_internal = 0;  // all intermediates one block keeps for backward
  Checkpointing policy = Checkpointing::None;
};
struct ActivationMemory {
  double peak_bytes = 0;        // activation memory held at the start of backward (+ one block re-materialized)
  double recompute_fraction = 0;// extra forward FLOPs as a fraction of one forward pass
  int64_t checkpoints = 0;
  int64_t segment = 0;          // blocks re-materialized together during backward (√L policy: ≈√L)
};
ActivationMemory activation_memory(const ActivationOp& op);

// Multiplies sizes with a check: throws sol::Error (BadInput) naming `what` if the product
// overflows 64 bits or any factor is not positive.
int64_t checked_product(std::initializer_list<int64_t> factors, const std::string& what);

}  // namespace sol::model
