// The lecture's §12 workflow as a diagnosis, on numbers already measured. First the three-way
// verdict: near the compute roof, near the memory roof (≥ 60 % of the ceiling measured on this
// card), or neither. Then what usually explains "neither": launch overhead against kernel time,
// occupancy and what limits it, local-memory spills, wave quantization, and how much of the
// memory or compute ceiling the kernel reaches. One prescription sentence per finding.
#include <cmath>
#include <nlohmann/json.hpp>

#include "bench/harness.hpp"
#include "sol/core/error.hpp"
#include "sol/core/format.hpp"

namespace sol::bench {

namespace {

std::string pct(double f) { return num(100 * f, 3) + " %"; }

Finding launch_finding(const DoctorInputs& in) {
  // The time from the stream, launch gaps included: a short run timed from a graph keeps it apart.
  const double t =
      in.record.graph && in.record.eager_median_s > 0 ? in.record.eager_median_s : in.record.median_s;
  Finding f{"launch", "", "", false};
  if (in.launch_overhead_s <= 0 && in.graph_median_s <= 0) {
    f.observation = "launch overhead unknown (not probed)";
    return f;
  }
  if (in.launch_overhead_s > 0)
    f.observation = "a launch costs " + si(in.launch_overhead_s, "s") + " against a " + si(t, "s") + " kernel (" +
                    pct(in.launch_overhead_s / t) + ")";
  double gap = 0;
  if (in.graph_median_s > 0) {
    gap = (t - in.graph_median_s) / t;
    f.observation += std::string(f.observation.empty() ? "" : "; ") + "from a CUDA graph the same runs take " +
                     si(in.graph_median_s, "s") + " (" + (gap > 0 ? pct(gap) + " less" : "no gain") + ")";
  }
  f.problem = in.launch_overhead_s / t >= 0.10 || gap >= 0.10;
  f.prescription = f.problem ? "Launches cost a visible share of the time: fuse this kernel with its neighbours, give "
                               "each launch more work, or capture the sequence in a CUDA graph (sol bench --graph)."
                             : "Launch overhead is small next to the kernel; nothing to gain here.";
  return f;
}

std::string occupancy_prescription(const DoctorInputs& in, const model::Occupancy& o) {
  const int threads = in.launch.block_threads;
  switch (o.limiter) {
    case model::OccupancyLimiter::Registers: {
      const int regs = model::max_registers_for_blocks(in.limits, threads, o.blocks_per_sm + 1);
      if (regs <= 0) return "Registers limit occupancy; smaller blocks would let more of them fit.";
      return "Registers limit occupancy: at ≤ " + std::to_string(regs) + " registers per thread " +
             std::to_string(o.blocks_per_sm + 1) + " blocks would fit (__launch_bounds__ or fewer live values) — "
             "unless the registers buy instruction-level parallelism that already hides the latency (Volkov).";
    }
    case model::OccupancyLimiter::SharedMemory: {
      const int64_t per_block = in.limits.shared_bytes_per_sm / (o.blocks_per_sm + 1) -
                                in.limits.reserved_shared_bytes_per_block;
      return "Shared memory limits occupancy: at ≤ " + bytes_iec(double(std::max<int64_t>(per_block, 0))) +
             " per block " + std::to_string(o.blocks_per_sm + 1) +
             " blocks would fit (smaller tiles or fewer pipeline stages).";
    }
    case model::OccupancyLimiter::Blocks:
      return "Blocks of " + std::to_string(threads) + " threads hit the cap of " +
             std::to_string(in.limits.max_blocks_per_sm) + " blocks per SM before the warp limit: use ≥ 128 threads per block.";
    case model::OccupancyLimiter::Warps:
      return o.occupancy < 1 ? "The block size does not divide the SM's " + std::to_string(in.limits.max_warps_per_sm) +
                                   " warps: choose 128, 256 or 512 threads per block."
                             : "Occupancy is full.";
  }
  return "";
}

void occupancy_findings(const DoctorInputs& in, Diagnosis& d, bool latency_bound) {
  if (!in.has_kernel) {
    d.findings.push_back({"occupancy",
                          results::is_peer(in.record) ? "not visible: a library call, no kernel function to inspect"
                                                      : "not inspected: this rung's Case reports no kernel plan "
                                                        "(LaunchInfo) for its main kernel",
                          "", false});
    return;
  }
  const model::KernelResources k{in.launch.block_threads, in.registers_per_thread, in.static_shared_bytes,
                                 in.launch.dynamic_smem_bytes};
  model::Occupancy o;
  try {
    o = model::occupancy(in.limits, k);
  } catch (const Error& e) {
    d.findings.push_back({"occupancy", std::string("cannot be modelled: ") + e.what(), "", false});
    return;
  }
  d.occupancy = o;
  Finding f{"occupancy", "", "", false};
  f.observation = std::to_string(k.registers_per_thread) + " registers/thread, " +
                  bytes_iec(double(k.static_shared_bytes + k.dynamic_shared_bytes)) + " shared/block, " +
                  std::to_string(k.block_threads) + " threads/block → " + std::to_string(o.blocks_per_sm) + " blocks = " +
                  std::to_string(o.warps_per_sm) + " warps per SM = " + pct(o.occupancy) + " occupancy, limited by " +
                  model::limiter_name(o.limiter);
  if (in.runtime_blocks_per_sm >= 0 && in.runtime_blocks_per_sm != o.blocks_per_sm)
    f.observation += " (the CUDA runtime says " + std::to_string(in.runtime_blocks_per_sm) +
                     " blocks/SM: the model and the driver disagree)";
  if (o.blocks_per_sm == 0) {
    f.problem = true;
    f.prescription = "The block cannot fit on an SM at all; the launch fails with too many resources requested.";
  } else {
    f.problem = latency_bound && o.occupancy < 0.5;
    f.prescription = occupancy_prescription(in, o);
  }
  d.findings.push_back(f);

  if (in.local_bytes_per_thread > 0)
    d.findings.push_back({"spills",
                          std::to_string(in.local_bytes_per_thread) + " bytes of local memory per thread (register "
                          "spills or an indexed array)",
                          "Local memory goes through L1/L2 to HBM: keep arrays indexed by constants, unroll less, or "
                          "raise the register cap (-Xptxas -v shows the spill).",
                          true});

  if (o.blocks_per_sm > 0 && in.launch.grid_blocks > 0 && in.sms > 0) {
    const model::Waves w = model::waves(in.launch.grid_blocks, in.sms, o.blocks_per_sm);
    d.waves = w;
    Finding wf{"waves", "", "", false};
    wf.observation = std::to_string(w.blocks) + " blocks over " + std::to_string(in.sms) + " SMs × " +
                     std::to_string(o.blocks_per_sm) + " = " + std::to_string(w.blocks_per_wave) + " per wave → " +
                     num(w.waves, 3) + " waves, the last " + pct(w.last_wave_fill) + " full (" + pct(w.efficiency) +
                     " of the slots busy)";
    if (w.waves < 1) {
      wf.problem = true;
      wf.prescription = "The grid fills only " + pct(w.waves) + " of one wave: launch more blocks (smaller tiles, split "
                        "the reduction dimension) or give the GPU more work per launch.";
    } else if (w.efficiency < 0.85) {
      wf.problem = true;
      wf.prescription = "The last wave runs mostly empty: choose a tile size that makes the block count a multiple of " +
                        std::to_string(w.blocks_per_wave) + ", or use a persistent grid of " +
                        std::to_string(w.blocks_per_wave) + " blocks.";
    } else {
      wf.prescription = "Waves are well filled.";
    }
    d.findings.push_back(wf);
  }
}

// How much of one roof a kernel reaches; a problem when the model says that roof binds but the
// kernel stays under the 60 % line.
Finding roof_finding(const std::string& roof, double achieved, const std::string& unit, double fraction,
                     const std::string& ceiling, bool model_bound_here, const std::string& far_prescription) {
  Finding f{roof, "achieved " + si(achieved, unit) + " = " + pct(fraction) + " of " + ceiling, "", false};
  f.problem = model_bound_here && fraction < kSaturated;
  if (f.problem && fraction < kNearRoof)
    f.prescription = far_prescription;
  else if (f.problem)
    f.prescription = "Bound by this roof but " + pct(1 - fraction) +
                     " short of it: the rest usually comes from wider accesses (16-byte loads and stores) and more "
                     "independent work in flight per thread.";
  else
    f.prescription = fraction >= kSaturated ? "This roof is saturated."
                                            : "This roof is not what binds the kernel (the model says " +
                                                  std::string(model_bound_here ? "it does" : "the other one does") + ").";
  return f;
}

}  // namespace

Diagnosis diagnose(const DoctorInputs& in) {
  Diagnosis d;
  d.record = in.record;
  const results::Record& r = in.record;
  if (!r.skipped.empty()) {
    d.verdict = "invalid";
    d.verdict_line = "not measured: " + r.skipped;
    return d;
  }
  if (!r.verified || r.median_s <= 0) {
    d.verdict = "invalid";
    d.verdict_line = "fails verification, so its time means nothing: " + (r.note.empty() ? "see the check" : r.note);
    d.findings.push_back({"correctness", "‖out − ref‖/‖ref‖ = " + num(r.rel_l2, 3) + " against a tolerance of " +
                                             num(r.tolerance, 3) + (r.tolerance_why.empty() ? "" : " (" + r.tolerance_why + ")"),
                          "Fix correctness first: run the GPU tests (sol_gpu_tests) at the odd and tiny shapes, then "
                          "diagnose speed.",
                          true});
    return d;
  }
  d.compute_label = in.measured.flops_label;
  d.memory_label = in.measured.bytes_label;
  d.compute_fraction = in.measured.flops_per_s > 0 && r.flops > 0 ? r.flops / r.median_s / in.measured.flops_per_s : 0;
  d.memory_fraction = in.measured.bytes_per_s > 0 ? r.bytes / r.median_s / in.measured.bytes_per_s : 0;
  const std::string compute_part =
      r.flops > 0 ? pct(d.compute_fraction) + " of " + (d.compute_label.empty() ? "compute" : d.compute_label) + ", "
                  : "no arithmetic, ";
  const std::string both = compute_part + pct(d.memory_fraction) + " of " + d.memory_label;
  if (d.compute_fraction >= kNearRoof && d.compute_fraction >= d.memory_fraction) {
    d.verdict = "compute";
    d.verdict_line = "near the compute roof (" + both + "): beyond it only less arithmetic helps — a lower precision, fewer "
                     "FLOPs (no recomputation, sparsity) — not better scheduling.";
  } else if (d.memory_fraction >= kNearRoof) {
    d.verdict = "memory";
    d.verdict_line = "near the memory roof (" + both + ")" +
                     (d.memory_fraction < kSaturated ? "; the findings say where the remaining headroom is" : "") +
                     ": beyond the roof only fewer bytes help — fusion, a lower precision, recomputing instead of "
                     "storing.";
  } else {
    d.verdict = "neither";
    d.verdict_line = "neither roof (" + both + "): latency- or overhead-bound; the findings say where the time goes.";
  }
  const bool latency_bound = d.verdict == "neither";

  if (r.floor_measured_s > 0)
    d.findings.push_back({"roofline",
                          "the model's floor on the measured ceilings is " + si(r.floor_measured_s, "s") + " (" +
                              (r.bound.empty() ? std::string("?") : r.bound) + "-bound); this run reached " +
                              pct(r.floor_measured_s / r.median_s) + " of it",
                          "", false});
  d.findings.push_back(launch_finding(in));
  occupancy_findings(in, d, latency_bound);

  d.findings.push_back(roof_finding("memory", r.bytes / r.median_s, "B/s", d.memory_fraction, d.memory_label,
                                    r.bound == "memory",
                                    "Memory-bound by the model but far from the copy ceiling. Usual causes, in order: "
                                    "more bytes moved than counted (uncoalesced access, re-reads, spills), too few bytes "
                                    "in flight (use 16-byte loads and several loads per thread), many small launches."));
  if (r.flops > 0)
    d.findings.push_back(roof_finding("compute", r.flops / r.median_s, "FLOP/s", d.compute_fraction, d.compute_label,
                                      r.bound == "compute",
                                      "Compute-bound by the model but far from the measured ceiling: check that the "
                                      "intended instructions are there (tensor-core MMA, 16-byte loads; read the SASS), "
                                      "that tiles reuse operands from shared memory and registers, and that loads "
                                      "overlap the math (pipelining)."));
  // What the family's model names at this shape: tiles, waves, alignment, split-k; rows per SM;
  // FLOPs per byte (sol/predict.hpp).
  if (in.model) {
    try {
      for (const predict::Finding& f : predict::diagnose(predict::work_of(r), *in.model, &r).findings)
        d.findings.push_back({f.topic, f.observation, f.prescription, f.problem});
    } catch (const Error& e) {
      d.findings.push_back({"model", std::string("no model findings: ") + e.what(), "", false});
    }
  }
  return d;
}

std::string diagnosis_text(const Diagnosis& d) {
  const results::Record& r = d.record;
  std::string out = "doctor: " + r.family + "/" + r.variant + " at " + r.shape + "\n";
  if (r.skipped.empty() && r.median_s > 0) {
    out += "  time " + si(r.median_s, "s") + " (±" + num(50 * r.spread, 2) + " %, " + std::to_string(r.samples) +
           " samples" + (r.graph ? ", CUDA graph" : "") + (r.cold_l2 ? ", cold L2" : "") + "), " +
           si(r.achieved_bytes_per_s, "B/s") + (r.flops > 0 ? ", " + si(r.achieved_flops_per_s, "FLOP/s") : "") + "\n";
    if (r.floor_s > 0)
      out += "  floor " + si(r.floor_s, "s") + " on the datasheet" +
             (r.floor_measured_s > 0 ? ", " + si(r.floor_measured_s, "s") + " on the measured ceilings" : "") + " (" +
             r.bound + "-bound)\n";
    if (r.throttled) out += "  taken while throttled: " + r.throttle_reasons + "\n";
  }
  out += "verdict: " + d.verdict_line + "\n";
  if (!d.findings.empty()) out += "findings:\n";
  for (const auto& f : d.findings) {
    out += std::string(f.problem ? "  [!] " : "  [ok] ") + f.topic + ": " + f.observation + "\n";
    if (!f.prescription.empty()) out += "       → " + f.prescription + "\n";
  }
  return out;
}

std::vector<std::string> finding_lines(const Diagnosis& d) {
  std::vector<std::string> lines = {"verdict: " + d.verdict_line};
  for (const auto& f : d.findings)
    lines.push_back(std::string(f.problem ? "[!] " : "[ok] ") + f.topic + ": " + f.observation +
                    (f.problem && !f.prescription.empty() ? " → " + f.prescription : ""));
  return lines;
}

std::string diagnosis_json(const Diagnosis& d) {
  using nlohmann::json;
  const results::Record& r = d.record;
  json j = {{"family", r.family},
            {"variant", r.variant},
            {"shape", r.shape},
            {"median_s", r.median_s},
            {"spread", r.spread},
            {"samples", r.samples},
            {"verified", r.verified},
            {"skipped", r.skipped},
            {"flops", r.flops},
            {"bytes", r.bytes},
            {"achieved_flops_per_s", r.achieved_flops_per_s},
            {"achieved_bytes_per_s", r.achieved_bytes_per_s},
            {"floor_s", r.floor_s},
            {"floor_measured_s", r.floor_measured_s},
            {"bound", r.bound},
            {"throttled", r.throttled},
            {"verdict", d.verdict},
            {"verdict_line", d.verdict_line},
            {"near_roof_threshold", kNearRoof},
            {"compute_fraction", d.compute_fraction},
            {"memory_fraction", d.memory_fraction},
            {"compute_ceiling", d.compute_label},
            {"memory_ceiling", d.memory_label}};
  if (d.occupancy) {
    const auto& o = *d.occupancy;
    j["occupancy"] = {{"occupancy", o.occupancy},
                      {"blocks_per_sm", o.blocks_per_sm},
                      {"warps_per_sm", o.warps_per_sm},
                      {"limiter", model::limiter_name(o.limiter)},
                      {"derivation", o.derivation}};
  }
  if (d.waves) {
    const auto& w = *d.waves;
    j["waves"] = {{"blocks", w.blocks},
                  {"blocks_per_wave", w.blocks_per_wave},
                  {"waves", w.waves},
                  {"last_wave_fill", w.last_wave_fill},
                  {"efficiency", w.efficiency}};
  }
  json fs = json::array();
  for (const auto& f : d.findings)
    fs.push_back({{"topic", f.topic}, {"observation", f.observation}, {"prescription", f.prescription}, {"problem", f.problem}});
  j["findings"] = fs;
  return j.dump(2) + "\n";
}

}  // namespace sol::bench
