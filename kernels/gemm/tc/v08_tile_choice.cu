// v08 — the tile follows the problem. v07's 128×256 tile quantizes badly where the tile count
// lands just past a whole number of waves, or where there are too few tiles to fill the GPU:
// 2049³ makes 153 tiles = 1.16 waves on 132 SMs (the second wave runs 21 tiles), 1024³ makes 32
// tiles for 132 SMs. A 128×128 tile (wgmma m64n128, six 32 KiB stages) halves the work per tile:
// 2049³ becomes 289 tiles = 3 rounds of half-size tiles (1.5 of v07's), 1024³ 64 tiles in one
// half-size round. It costs a third more operand traffic per FLOP (16 KiB of A now feeds half
// as many outputs), so the launcher takes it only where the shape model's round count says the
// quantization saved is larger: time ∝ rounds × tile work, with 128-wide tiles charged 10 %
// (gemm_rungs::takes_narrow_tile, which the shape model reads too).
// Where even 128×128 tiles leave SMs idle (too few tiles for one wave), the tile stays 128×256
// and k is split over a cluster instead (kernels/gemm/tc/split_k.cuh). The choice is
// gemm_rungs::decomposition, which the shape model reads too. A 128×64 tile (wgmma m64n64, eight
// 24 KiB stages: four times the wide tile's CTAs, twice its operand traffic per FLOP) runs where
// a shape asks for it (tile_n=64), until measurements say where the rule should take it.
// Everything else is v07's kernel (kernels/gemm/tc/v07_tma_store.cuh): producer warpgroup,
// persistent CTAs, clusters of two multicasting B, TMA-store epilogue.
// Expected: 2049³ ~1.3× v07, 1024³ up to ~2× v07; unchanged where the 128×256 tile is chosen.
#include "kernels/gemm/tc/hopper.cuh"  // names the file Hopper-only (cmake/sol_hopper.cmake)
#include "kernels/gemm/tc/rungs.cuh"
#include "kernels/gemm/tc/split_k.cuh"
#include "kernels/gemm/tc/v07_tma_store.cuh"

namespace sol::kernels::gemm::tc {

void launch_v08_tile_choice(const Problem& p, Workspace& ws, cudaStream_t stream) {
  const gemm_rungs::Decomposition d = gemm_rungs::decomposition(
      p.m, p.n, gemm_rungs::hopper_k_tiles(p.k, in_bytes(p.in)), sm_count(), p.max_splits, p.tile_n);
  if (d.splits > 1)
    hopper::with_input(p.in, [&](auto in) { hopper::launch_split_k<in>(p, ws, d.splits, stream); });
  else if (d.tile.n == gemm_rungs::kHopperNarrow.n)
    hopper::launch_tma_store<gemm_rungs::kHopperNarrow.n>(p, ws, stream);
  else if (d.tile.n == gemm_rungs::kHopperSlim.n)
    hopper::launch_tma_store<gemm_rungs::kHopperSlim.n>(p, ws, stream);
  else
    hopper::launch_tma_store<gemm_rungs::kHopperWide.n>(p, ws, stream);
}

}  // namespace sol::kernels::gemm::tc
