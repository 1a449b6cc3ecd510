#pragma once
// The one list of kernel variants. A variant is declared once (kernels/registry.cpp) and the
// CLI, the GPU tests, the benchmarks and the report all iterate it. No CUDA types here: a
// stream travels as void*, device memory stays inside a Case.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sol/core/launch.hpp"
#include "sol/core/shape.hpp"
#include "sol/model/cost.hpp"

namespace sol {

// How close a result must be: ‖out − ref‖₂ / ‖ref‖₂ ≤ rel_l2, and no element unwritten.
struct Tolerance {
  double rel_l2 = 1e-6;
  std::string why;  // "bf16 output: 8 mantissa bits" — stated in every result
};

struct CheckResult {
  bool ok = false;
  double rel_l2 = 0;
  int64_t unwritten = 0;     // elements still holding the poison pattern
  int64_t nonfinite = 0;
  std::string detail;        // first mismatch, when !ok
  uint64_t output_digest = 0;  // a hash of every output bit, where the Case computes one (0: none)
};

// How the harness wants a Case built; the default is what a timed run needs.
struct CaseOptions {
  // One input set instead of as many as exceed L2 between timed runs: a Case then holds what one
  // call needs, as a caller would (the memory probe).
  bool single_set = false;
};

// One variant at one shape, owning its device buffers. Created by Variant::make.
class Case {
 public:
  virtual ~Case() = default;
  // Number of input sets rotated between timed runs so that their total exceeds L2.
  virtual int sets() const = 0;
  // Fresh random inputs (never zeros) in every set; computes the CPU reference for set 0.
  virtual void randomize(uint64_t seed) = 0;
  // Fills the output of set `set` with a poison pattern (NaN for floats).
  virtual void poison(int set) = 0;
  // Launches the operation on input set `set` (stream is a cudaStream_t).
  virtual void run(int set, void* stream) = 0;
  // Copies set 0's output back and compares it with the reference (poison counts as unwritten).
  virtual CheckResult check() = 0;
  // How its main kernel is launched, for the doctor (occupancy, waves); empty for library peers.
  virtual LaunchInfo launch() const { return {}; }
  // What this variant chose for this shape on this GPU where it chooses (v08: its tile, or k split
  // over a cluster), for the record's note; empty where nothing is chosen.
  virtual std::string detail() const { return {}; }
};

struct Variant {
  std::string family;      // "copy"
  std::string name;        // "v02_vec16" or "peer:cudaMemcpy"
  int version = 0;         // rung on the ladder (peers: 0)
  std::string technique;   // one line: what this version changes
  int min_cc = 70;         // minimum compute capability, e.g. 90 for wgmma
  int max_cc = 0;          // the highest it runs on; 0: none (90: built for sm_90a alone, wgmma/TMA)
  // Empty if the shape is supported, else the reason it is not.
  std::function<std::string(const Shape&)> unsupported;
  // FLOPs and HBM bytes from the model, for the same shape the kernel runs.
  std::function<model::Cost(const Shape&)> cost;
  std::vector<Shape> bench_shapes;  // first is the headline shape; the rest a sweep
  std::vector<Shape> test_shapes;   // odd, prime, tiny sizes for the GPU test suite
  Tolerance tol;
  std::function<std::unique_ptr<Case>(const Shape&, const CaseOptions&)> make;  // empty in a build without CUDA
  // Empty if a GPU of compute capability cc (major·10 + minor) can run it, else why not.
  std::string cc_refusal(int cc) const;
  bool is_peer() const { return name.rfind("peer:", 0) == 0; }
  // The public API's dispatcher run as a variant: neither a peer nor a rung (version 0).
  bool is_dispatch() const { return name == "dispatch"; }
};

// Every variant, in family order then version order. In a build without CUDA every variant is
// described (shapes, cost, tolerance) but has no make: nothing can run.
const std::vector<Variant>& registry();
// Variants matching "family" or "family/name" (all for ""), where name may be the start of the
// variant's name ("layernorm/v03"); one named exactly is chosen alone; "family/a,b,c" selects
// what each of a, b, c would (once each, registry order). Throws sol::Error if none
// match, naming the closest family or variant when the pattern looks like a typo of one.
std::vector<const Variant*> select(const std::string& pattern);
// The same over another list of variants (the harness's selftest family).
std::vector<const Variant*> select(const std::vector<Variant>& from, const std::string& pattern);
// What the variant named `variant` of `family` declares about how it runs at `shape` (its cost's
// model::Execution); nullopt for a variant the registry lacks, a shape it refuses, or no declaration.
std::optional<model::Execution> declared_execution(const std::string& family, const std::string& variant,
                                                   const Shape& shape);
// The same variant's whole cost at `shape` (FLOPs, bytes and its execution); nullopt as above.
std::optional<model::Cost> declared_cost(const std::string& family, const std::string& variant, const Shape& shape);
bool built_with_cuda();

}  // namespace sol
