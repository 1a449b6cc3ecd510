#pragma once
// What a measuring run produces, host-readable so that the report and docs/ can be rendered
// on any machine from the committed bench/results/<gpu>/<family>.json files.
#include <map>
#include <string>
#include <vector>

namespace sol::results {

// The ceilings `sol probe` measured on this card in the same run.
struct MeasuredCeilings {
  double copy_bytes_per_s = 0;      // device-to-device copy, bytes read + written
  double l2_bytes_per_s = 0;
  double fp32_fma_flops_per_s = 0;
  std::map<std::string, double> matrix_flops_per_s;  // "bf16", "fp16", "tf32", "fp32", "fp8"
  double launch_overhead_s = 0;
};

struct Device {
  std::string name;            // "NVIDIA H200"
  int compute_capability = 0;  // 90
  int sms = 0;
  double memory_bytes = 0;
  double l2_bytes = 0;
  double sm_clock_hz = 0;      // max SM clock reported
  std::string driver;
  std::string database_row;    // "h200"
};

// A run shorter than this is timed from a CUDA graph (device time) as well as from the stream: at
// that length one launch's host work can outlast the kernel, and events around each launch would
// time the host. The harness times sol's runs so and gives the PyTorch peers the same threshold.
inline constexpr double kGraphBelowS = 50e-6;

struct Record {
  std::string family, variant, technique;
  int version = 0;
  std::string dtype;           // element type of the data ("bf16", "fp8_e4m3", "fp32"; "" when untyped);
                               // "tf32" for fp32 data multiplied in TF32 (10-bit mantissa inputs)
  std::string shape;           // Shape::str()
  double median_s = 0, min_s = 0, max_s = 0;
  double spread = 0;           // (p90 − p10) / median
  int samples = 0;
  double flops = 0, bytes = 0; // from the model, same shape
  bool verified = false;
  double rel_l2 = 0;           // ‖out − ref‖ / ‖ref‖
  double tolerance = 0;
  std::string tolerance_why;
  double achieved_flops_per_s = 0, achieved_bytes_per_s = 0;
  double floor_s = 0;          // model floor on the datasheet ceilings
  double floor_measured_s = 0; // model floor on the ceilings measured in this run
  double predicted_s = 0;      // the model's prediction (sol/predict.hpp), never from this time; 0: none
  std::string floor_measured_base;  // the ceilings under floor_measured_s and where each came from
  std::string bound;           // "compute" | "memory"
  bool cold_l2 = false;
  bool graph = false;
  std::string timing;          // how median_s was taken: "events" (device events per sample), "graph"
                               // (a captured graph replayed); peers also record their eager wall time
  double eager_median_s = 0;   // peers: one call's wall time in an eager Python loop (host dispatch
                               // included); sol's runs timed from a graph because short: the median
                               // from the stream (launch gaps included); 0 when not measured
  double sm_clock_hz = 0;      // median SM clock over the samples (0: unknown)
  bool throttled = false;
  std::string throttle_reasons;
  double peak_device_bytes = 0;  // `sol bench --memory`: most device memory one call held (0: not measured)
  std::string skipped;         // non-empty: not run, and why
  std::string note;
  std::vector<std::string> findings;  // the doctor's findings at this record, where a run asked for them
};

// The version of the results schema this build writes; files of older versions still read.
inline constexpr int kSchemaVersion = 3;  // 3: Record::predicted_s

struct File {
  int schema_version = kSchemaVersion;
  std::string family;
  std::string created;         // ISO-8601 UTC
  std::string sol_version;
  Device device;
  // What else the run ran on, as name → text: "torch", "cuda_runtime", "host", "sm_clock",
  // "memory_clock", "power_limit", ... (rendered as the report's environment block).
  std::map<std::string, std::string> environment;
  MeasuredCeilings ceilings;
  std::vector<Record> records;
};

bool is_peer(const std::string& variant);
bool is_peer(const Record& r);
// A peer sol runs in its own process from C++ (cuBLASLt, cuBLAS, cudaMemcpy): what a C++ user
// would call instead. The PyTorch peers (named "peer:torch…") run from Python.
bool is_in_process_peer(const std::string& variant);
// The "dispatch" variant: the public API's choice per shape (sol::matmul …). Neither a peer nor a
// rung of the ladder: it is compared with the peers, never counted as a version.
bool is_dispatch(const std::string& variant);
bool is_dispatch(const Record& r);
// The dispatcher is held to at least this share of the speed of the fastest of sol's rungs and the
// in-process peers it chooses among, at every shape it is measured at (docs/model-shapes.md).
inline constexpr double kDispatchShare = 0.95;
// A result to compare against: it ran, it verified, it has a time.
bool valid(const Record& r);
// How a record's median was taken: Record::timing, or for a record written before the field, what
// the harness and the PyTorch peer script did then: "graph" where the record says so, "events
// around one eager call" for a PyTorch peer, else "events".
std::string timing_of(const Record& r);
// True when the time holds the host's dispatch beside the device's work: a PyTorch peer timed
// around one eager call, the GPU idle while Python dispatched it. Against a device time such a
// ratio flatters the other side, and the model, which predicts device time, cannot answer for it.
bool host_in_time(const Record& r);
// The element type a record is compared by: Record::dtype; in files of schema 1, which lack it,
// the type named in the variant's name ("relu_bf16"), else in the family's ("gemm_fp16"), else "".
std::string comparison_dtype(const File& f, const Record& r);
// The fastest valid peer for `r` in the same file: same family, same shape, the same
// comparison_dtype (so that fp8 is never compared with a bf16 peer, nor SGEMM with TF32).
// nullptr when there is none.
const Record* best_peer(const File& f, const Record& r);
// What floor_measured_s is a floor on: the ceiling that binds it ("4.253 TB/s copy (measured)",
// "989.4 TFLOP/s fp16 matrix (datasheet: not measured)"). A record written before the field
// existed gets the ceiling of its file whose rate gives the floor, else "<rate> (datasheet)".
// "" when the record has no floor.
std::string floor_base(const File& f, const Record& r);

std::string to_json(const File& f);
File from_json_text(const std::string& text, const std::string& origin);
File read(const std::string& path);    // throws sol::Error naming the path
void write(const File& f, const std::string& path);
// `sol validate`'s summary, written beside the results files it checks; not a results file.
inline constexpr const char* kValidationFile = "validation.json";
// Every *.json file in a folder but kValidationFile, sorted by family.
std::vector<File> read_dir(const std::string& dir);

}  // namespace sol::results
