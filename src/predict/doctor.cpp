// The doctor on committed results (include/sol/predict.hpp): no GPU, the record's measured time
// beside the model's prediction, and findings the family's model can name — a GEMM's tiles, waves,
// alignment and split-k; a row-wise kernel's rows per SM; attention's FLOPs per byte at decode.
#include <algorithm>
#include <cmath>

#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/predict.hpp"

namespace sol::predict {

namespace {
std::string pct(double f) { return fixed(100 * f, 1) + " %"; }
int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// A term below this is a problem worth a prescription.
constexpr double kPoor = 0.80;

void gemm_findings(const Work& w, const Ceilings& c, const Prediction& p, std::vector<Finding>& out) {
  const int64_t m = w.shape.at("m"), n = w.shape.at("n"), k = w.shape.at("k");
  const int sms = c.spec.compute_units;
  const GemmRung g = gemm_rung(w.family, w.variant, w.dtype, w.shape, sms);
  const int64_t tm = ceil_div(m, g.tile.m), tn = ceil_div(n, g.tile.n), tiles = tm * tn;
  {
    Finding f{"tile quantization", "", "", p.tile_efficiency < kPoor};
    f.observation = std::to_string(tiles) + " tiles of " + model::tile_str(g.tile) + " cover " + std::to_string(m) + "×" +
                    std::to_string(n) + "×" + std::to_string(k) + ": " + pct(p.tile_efficiency) +
                    " of the tensor-core work they do is asked for";
    if (m < g.tile.m || n < g.tile.n) {
      const bool rows = m < g.tile.m;
      f.observation += " (a " + std::to_string(rows ? g.tile.m : g.tile.n) + "-" + (rows ? "row" : "column") +
                       " tile serves " + std::to_string(rows ? m : n) + ")";
    }
    f.prescription = f.problem ? "The tile is far larger than the problem along " +
                                     std::string(m < g.tile.m ? "m" : n < g.tile.n ? "n" : "an edge") +
                                     ": use a tile that fits it (64 or fewer rows; for m ≤ 16 a GEMV-shaped kernel "
                                     "that streams B once), or split k so that more, smaller tiles share the work."
                               : "Tiles are well used.";
    out.push_back(f);
  }
  {
    const int64_t ctas = tiles * g.splits;  // v08 splits k over a cluster where tiles are too few
    const double waves = double(ctas) / double(sms * g.blocks_per_sm);
    Finding f{"waves", std::to_string(tiles) + " tiles" +
                           (g.splits > 1 ? " × " + std::to_string(g.splits) + " k splits = " + std::to_string(ctas) + " CTAs" : "") +
                           " over " + std::to_string(sms) + " SMs × " +
                           std::to_string(g.blocks_per_sm) + " = " + num(waves, 3) + " waves (" +
                           pct(p.wave_efficiency) + " of the slots busy)",
              "", p.wave_efficiency < kPoor};
    f.prescription = f.problem ? (waves < 1 ? "The grid fills " + pct(waves) + " of one wave: smaller tiles or split-k."
                                            : "The last wave runs mostly empty: a tile whose count is a multiple of " +
                                                  std::to_string(sms * g.blocks_per_sm) + ", or a persistent grid.")
                               : "Waves are well filled.";
    out.push_back(f);
  }
  {
    const int64_t b = w.dtype == "fp8_e4m3" || w.dtype == "fp8_e5m2" ? 1 : w.dtype == "fp32" || w.dtype == "tf32" ? 4 : 2;
    const int64_t pitch = w.shape.get("lda", k) * b;
    Finding f{"alignment", "A and B rows are " + std::to_string(pitch) + " bytes apart", "", false};
    if (g.pack_pitch_bytes > 0 && pitch % g.pack_pitch_bytes != 0) {
      f.problem = true;
      f.observation += ": not a multiple of " + std::to_string(g.pack_pitch_bytes) + " B, so the rung copies them first";
      f.prescription = "Pad k (or the row pitch) to a multiple of " + std::to_string(g.pack_pitch_bytes / b) +
                       " elements to skip the packing kernel.";
    } else if (p.alignment_efficiency < 1) {
      f.problem = p.alignment_efficiency < kPoor;
      f.observation += ": loads narrow to " + pct(p.alignment_efficiency) + " of 16-byte width";
      f.prescription = "Pad rows to a multiple of 16 bytes so that 16-byte loads (and TMA) apply.";
    } else {
      f.prescription = "Rows are aligned.";
    }
    out.push_back(f);
  }
  {
    // Split-k: when the grid leaves SMs idle and k is deep, k slices of the same tile run in
    // parallel and are summed (one more pass over C in fp32).
    const int64_t k_steps = ceil_div(k, g.tile.k);
    const int64_t split = std::min<int64_t>(tiles < sms ? sms / std::max<int64_t>(tiles, 1) : 1, k_steps / 4);
    Finding f{"split-k", "", "", split >= 2 && g.splits == 1};
    if (g.splits > 1) {  // the rung splits k itself (v08)
      f.observation = "k split " + std::to_string(g.splits) + " ways over a cluster: " + std::to_string(tiles * g.splits) +
                      " CTAs, each with " + std::to_string(ceil_div(k_steps, int64_t(g.splits))) + " of the " +
                      std::to_string(k_steps) + " k steps";
      f.prescription = "The rung already splits k; its partials are summed on chip.";
      out.push_back(f);
      return;
    }
    f.observation = std::to_string(tiles) + " tiles for " + std::to_string(sms) + " SMs, " + std::to_string(k_steps) +
                    " k steps per tile";
    f.prescription = f.problem ? "Split k " + std::to_string(split) + " ways: " + std::to_string(tiles * split) +
                                     " CTAs fill the GPU, each with " + std::to_string(ceil_div(k_steps, split)) +
                                     " k steps; the partial C tiles are summed afterwards."
                               : "No split-k to gain: the tiles already fill the SMs or k is shallow.";
    out.push_back(f);
  }
}

void row_findings(const Work& w, const Ceilings& c, std::vector<Finding>& out) {
  const int64_t rows = w.shape.at("rows"), cols = w.shape.at("cols");
  const int sms = c.spec.compute_units;
  const double per_sm = double(rows) / double(sms);
  Finding f{"rows", std::to_string(rows) + " rows of " + std::to_string(cols) + " over " + std::to_string(sms) +
                        " SMs: " + num(per_sm, 3) + " rows per SM",
            "", per_sm < 4};
  f.prescription = f.problem ? "Too few rows to fill the GPU with one row per CTA: split each row over several CTAs "
                               "(a two-pass reduction) or batch more rows per launch."
                             : "Enough rows per SM: one CTA (or one warp) per row keeps every SM busy.";
  out.push_back(f);
}

void attention_findings(const Work& w, const Ceilings& c, std::vector<Finding>& out) {
  const int64_t n = w.shape.at("n"), nk = w.shape.get("nk", n);
  std::string label;
  const auto it = c.spec.matrix_peaks.find(dtype_peak_key(w.dtype == "fp16" ? DType::f16 : DType::bf16));
  const double flops_rate = it != c.spec.matrix_peaks.end() ? it->second.flops_per_s : 0;
  const double ridge = flops_rate / c.copy_bytes_per_s, intensity = w.bytes > 0 ? w.flops / w.bytes : 0;
  Finding f{"intensity", num(intensity, 3) + " FLOP per byte against a ridge of " + num(ridge, 3) + " (" +
                             si(flops_rate, "FLOP/s") + " ÷ " + si(c.copy_bytes_per_s, "B/s") + ")",
            "", intensity < ridge};
  if (f.problem)
    f.prescription = "Memory-bound: " + std::string(n <= 16 ? "a decode step reads the whole K/V cache (" +
                                                                   si(w.bytes, "B") + ") for " + std::to_string(n) +
                                                                   " query rows; split the keys over CTAs (flash-decoding) "
                                                                   "so that every SM streams part of the cache, and keep "
                                                                   "K/V in a lower precision"
                                                             : "fewer bytes per FLOP (longer key blocks per query block, a lower precision)") +
                     ".";
  else
    f.prescription = "Compute-bound: the tensor cores and the softmax between them set the time (nk = " +
                     std::to_string(nk) + ").";
  out.push_back(f);
}
// What the declared execution adds: the share of each term beyond FLOPs and bytes, and what the
// variant's lesson says to do about the one that binds.
void execution_findings(const Work& w, const Prediction& p, std::vector<Finding>& out) {
  const auto share = [&](const std::string& name) {
    for (const Term& t : p.terms)
      if (t.name == name) return t.seconds / p.seconds;
    return 0.0;
  };
  const double exp = share("softmax exp"), smem = share("shared memory"), issue = share("issue"),
               atomics = share("L2 atomics"), launches = share("launch");
  if (w.family.rfind("attention", 0) == 0 && exp > 0)
    out.push_back({"exp share", pct(exp) + " of the predicted time is the softmax's exponentials (16 per clock per SM)",
                   exp > 0.2 ? "Issue the exponentials between MMAs that do not depend on them (FlashAttention-3's "
                               "ping-pong of two warpgroups) and keep the softmax to MUFU.EX2 alone."
                             : "",
                   exp > 0.2});
  if (w.exec.mma == model::MatrixInstruction::MmaSync)
    out.push_back({"matrix instruction", "mma.sync reaches " + pct(kMmaSyncShareOfWgmma) + " of the wgmma ceiling",
                   "Feed the tensor cores with wgmma from TMA-loaded shared memory (the Hopper rungs).", true});
  if (smem > 0.25)
    out.push_back({"shared memory", pct(smem) + " of the predicted time is shared-memory wavefronts (" +
                                        w.exec.how + ")",
                   w.exec.mma != model::MatrixInstruction::None
                       ? "Let each operand fragment read from shared memory feed more MMAs (larger warp tiles, two "
                         "query slices per warp), or use wgmma, which reads shared memory itself."
                       : "Pad or swizzle the tile so that each request touches each bank once.",
                   true});
  if (issue > 0.5)
    out.push_back({"issue slots", pct(issue) + " of the predicted time is issuing instructions (" + w.exec.how + ")",
                   "Keep a warp's lanes on one path (sort the work by trip count) and fewer instructions per FMA.", true});
  if (atomics > 0.15)
    out.push_back({"atomics", pct(atomics) + " of the predicted time is fp32 atomics at L2",
                   "Accumulate over more keys before each add (a larger key tile per CTA), or a deterministic pass.", true});
  if (w.exec.kernels > 1)
    out.push_back({"passes", std::to_string(w.exec.kernels) + " kernels per call: every pass reads and writes the tensor",
                   "Fuse the passes: one read of the input, one write of the output.", launches > 0.2 || w.exec.kernels > 2});
}
}  // namespace

Diagnosis diagnose(const Work& w, const Ceilings& c, const results::Record* record) {
  Diagnosis d;
  d.work = w;
  d.prediction = predict(w, c);
  d.ceilings = c.source;
  if (record && results::valid(*record)) {
    d.measured = true;
    d.measured_s = record->median_s;
  }
  if (is_gemm_family(w.family) && w.shape.has("m") && w.shape.has("n") && w.shape.has("k"))
    gemm_findings(w, c, d.prediction, d.findings);
  else if (w.shape.has("rows") && w.shape.has("cols"))
    row_findings(w, c, d.findings);
  else if (w.family.rfind("attention", 0) == 0 && w.shape.has("n"))
    attention_findings(w, c, d.findings);
  execution_findings(w, d.prediction, d.findings);
  if (d.prediction.bound == "launch")
    d.findings.push_back({"launch", "a launch (" + si(c.launch_s, "s") + ") is the largest term of the prediction",
                          "Fuse with the neighbouring kernels, or capture the sequence in a CUDA graph.", true});
  for (const Finding& f : d.findings)
    if (f.problem) {
      d.cause = f.topic;
      break;
    }
  return d;
}

std::string diagnosis_text(const Diagnosis& d) {
  const Work& w = d.work;
  std::string out = "doctor: " + w.family + "/" + w.variant + " at " + w.shape.str() + " (" + d.origin + ")\n";
  out += "  ceilings: " + d.ceilings + "\n";
  out += "  predicted " + si(d.prediction.seconds, "s") + " (" + d.prediction.bound + "-bound";
  if (!d.prediction.rung.empty()) out += "; " + d.prediction.rung;
  out += ")\n";
  for (const Term& t : d.prediction.terms) out += "    " + t.name + " " + si(t.seconds, "s") + ": " + t.why + "\n";
  if (d.measured) {
    const double r = d.measured_s / d.prediction.seconds;
    out += "  measured " + si(d.measured_s, "s") + ": " +
           (r >= 1 ? fixed(r, 2) + "× the prediction" : fixed(1 / r, 2) + "× faster than the prediction") + "\n";
  } else {
    out += "  no verified measurement at this shape: the findings are the model's alone\n";
  }
  out += "cause: " + (d.cause.empty() ? std::string("none the model names") : d.cause) + "\n";
  out += "findings:\n";
  for (const Finding& f : d.findings) {
    out += std::string(f.problem ? "  [!] " : "  [ok] ") + f.topic + ": " + f.observation + "\n";
    if (!f.prescription.empty()) out += "       → " + f.prescription + "\n";
  }
  return reflow(out);
}

}  // namespace sol::predict
