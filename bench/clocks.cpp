// NVML through dlopen: the handful of C entry points the harness needs, declared here with the
// types NVML's ABI uses (an int return code, an opaque device pointer, unsigned out-parameters).
#include "bench/clocks.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <vector>

#include "bench/harness.hpp"

namespace sol::bench {

namespace {

using nvml_return = int;  // nvmlReturn_t; 0 = NVML_SUCCESS
using nvml_device = struct nvml_device_opaque*;
constexpr int kNvmlClockSm = 1;   // NVML_CLOCK_SM
constexpr int kNvmlClockMem = 2;  // NVML_CLOCK_MEM

struct Nvml {
  void* lib = nullptr;
  std::string why;
  nvml_return (*init)() = nullptr;
  nvml_return (*shutdown)() = nullptr;
  nvml_return (*by_index)(unsigned, nvml_device*) = nullptr;
  nvml_return (*by_bus_id)(const char*, nvml_device*) = nullptr;
  nvml_return (*clock_info)(nvml_device, int, unsigned*) = nullptr;
  nvml_return (*reasons)(nvml_device, unsigned long long*) = nullptr;
  nvml_return (*driver)(char*, unsigned) = nullptr;
  nvml_return (*max_clock_info)(nvml_device, int, unsigned*) = nullptr;
  nvml_return (*power_limit)(nvml_device, unsigned*) = nullptr;  // enforced limit, milliwatts
  const char* (*error_string)(nvml_return) = nullptr;
  // The last device looked up: the sampling loop asks for the same one every round.
  std::string cached_bus_id;
  int cached_index = -1;
  nvml_device cached = nullptr;

  Nvml() {
    lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* e = dlerror();
      why = std::string("libnvidia-ml.so.1 not loadable: ") + (e ? e : "unknown reason");
      return;
    }
    auto sym = [&](const char* name) { return dlsym(lib, name); };
    init = reinterpret_cast<decltype(init)>(sym("nvmlInit_v2"));
    shutdown = reinterpret_cast<decltype(shutdown)>(sym("nvmlShutdown"));
    by_index = reinterpret_cast<decltype(by_index)>(sym("nvmlDeviceGetHandleByIndex_v2"));
    by_bus_id = reinterpret_cast<decltype(by_bus_id)>(sym("nvmlDeviceGetHandleByPciBusId_v2"));
    clock_info = reinterpret_cast<decltype(clock_info)>(sym("nvmlDeviceGetClockInfo"));
    // Renamed in newer drivers; the bits are the same.
    reasons = reinterpret_cast<decltype(reasons)>(sym("nvmlDeviceGetCurrentClocksEventReasons"));
    if (!reasons) reasons = reinterpret_cast<decltype(reasons)>(sym("nvmlDeviceGetCurrentClocksThrottleReasons"));
    driver = reinterpret_cast<decltype(driver)>(sym("nvmlSystemGetDriverVersion"));
    max_clock_info = reinterpret_cast<decltype(max_clock_info)>(sym("nvmlDeviceGetMaxClockInfo"));
    power_limit = reinterpret_cast<decltype(power_limit)>(sym("nvmlDeviceGetEnforcedPowerLimit"));
    error_string = reinterpret_cast<decltype(error_string)>(sym("nvmlErrorString"));
    if (!init || !by_index || !clock_info || !reasons) {
      why = "libnvidia-ml.so.1 lacks the clock functions";
      lib = nullptr;
      return;
    }
    if (nvml_return rc = init(); rc != 0) {
      why = "nvmlInit_v2 failed: " + message(rc);
      lib = nullptr;
    }
  }
  ~Nvml() {
    if (lib && shutdown) shutdown();
  }
  std::string message(nvml_return rc) const {
    return error_string ? std::string(error_string(rc)) : "NVML error " + std::to_string(rc);
  }
};

Nvml& nvml() {
  static Nvml n;
  return n;
}
std::mutex& nvml_mutex() {
  static std::mutex m;
  return m;
}

struct ReasonName {
  uint64_t bit;
  const char* name;
  bool throttle;
};
// nvmlClocksEventReason* bits (nvml.h).
const std::vector<ReasonName>& reason_names() {
  static const std::vector<ReasonName> v = {
      {0x1, "gpu idle", false},         {0x2, "applications clocks setting", false},
      {0x4, "sw power cap", true},      {0x8, "hw slowdown", true},
      {0x10, "sync boost", false},      {0x20, "sw thermal slowdown", true},
      {0x40, "hw thermal slowdown", true}, {0x80, "hw power brake slowdown", true},
      {0x100, "display clock setting", false}};
  return v;
}

}  // namespace

std::string describe_clock_reasons(uint64_t reasons) {
  std::string s;
  uint64_t known = 0;
  for (const auto& r : reason_names()) {
    known |= r.bit;
    if (reasons & r.bit) s += (s.empty() ? "" : ", ") + std::string(r.name);
  }
  if (reasons & ~known) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(reasons & ~known));
    s += (s.empty() ? "other reasons " : ", other reasons ") + std::string(buf);
  }
  return s.empty() ? "none" : s;
}

bool is_throttle(uint64_t reasons) {
  for (const auto& r : reason_names())
    if (r.throttle && (reasons & r.bit)) return true;
  return false;
}

namespace {
// The NVML handle of the device (bus id first, else index), or nullptr with *why; under the lock.
nvml_device device_handle(Nvml& n, const std::string& pci_bus_id, int index, std::string* why) {
  if (!n.lib) {
    *why = n.why;
    return nullptr;
  }
  if (n.cached && n.cached_bus_id == pci_bus_id && n.cached_index == index) return n.cached;
  nvml_device dev = nullptr;
  nvml_return rc = -1;
  if (n.by_bus_id && !pci_bus_id.empty()) rc = n.by_bus_id(pci_bus_id.c_str(), &dev);
  if (rc != 0) rc = n.by_index(unsigned(index < 0 ? 0 : index), &dev);
  if (rc != 0) {
    *why = "NVML has no handle for the device: " + n.message(rc);
    return nullptr;
  }
  n.cached_bus_id = pci_bus_id;
  n.cached_index = index;
  n.cached = dev;
  return dev;
}
}  // namespace

ClockSample read_clock(const std::string& pci_bus_id, int index) {
  std::lock_guard<std::mutex> lock(nvml_mutex());
  Nvml& n = nvml();
  ClockSample s;
  nvml_device dev = device_handle(n, pci_bus_id, index, &s.why_unknown);
  if (!dev) return s;
  nvml_return rc = 0;
  unsigned mhz = 0;
  unsigned long long reasons = 0;
  if (rc = n.clock_info(dev, kNvmlClockSm, &mhz); rc != 0) {
    n.cached = nullptr;
    s.why_unknown = "nvmlDeviceGetClockInfo failed: " + n.message(rc);
    return s;
  }
  if (rc = n.reasons(dev, &reasons); rc != 0) {
    s.why_unknown = "NVML clock reasons failed: " + n.message(rc);
    return s;
  }
  s.known = true;
  s.sm_clock_hz = double(mhz) * 1e6;
  s.reasons = reasons;
  return s;
}

std::string nvml_driver_version() {
  std::lock_guard<std::mutex> lock(nvml_mutex());
  Nvml& n = nvml();
  char buf[96] = {};
  if (!n.lib || !n.driver || n.driver(buf, sizeof buf) != 0) return "";
  return buf;
}

std::map<std::string, std::string> nvml_environment(const std::string& pci_bus_id, int index) {
  std::lock_guard<std::mutex> lock(nvml_mutex());
  Nvml& n = nvml();
  std::string why;
  nvml_device dev = device_handle(n, pci_bus_id, index, &why);
  if (!dev) return {{"nvml", "unknown: " + why}};
  std::map<std::string, std::string> env;
  auto clock = [&](const char* key, int which) {
    unsigned now = 0, max = 0;
    if (n.clock_info(dev, which, &now) != 0) return;
    std::string text = std::to_string(now) + " MHz";
    if (n.max_clock_info && n.max_clock_info(dev, which, &max) == 0) text += " (max " + std::to_string(max) + " MHz)";
    env[key] = text;
  };
  clock("sm_clock", kNvmlClockSm);
  clock("memory_clock", kNvmlClockMem);
  unsigned mw = 0;
  if (n.power_limit && n.power_limit(dev, &mw) == 0) env["power_limit"] = std::to_string(mw / 1000) + " W";
  return env;
}

void ClockWatch::add(const ClockSample& s) {
  if (!s.known) {
    if (!known_ && why_unknown_.empty()) why_unknown_ = s.why_unknown;
    return;
  }
  if (samples_ > 0 && max_hz_ > 0) fall_ = std::max(fall_, 1 - s.sm_clock_hz / max_hz_);
  min_hz_ = samples_ == 0 ? s.sm_clock_hz : std::min(min_hz_, s.sm_clock_hz);
  max_hz_ = samples_ == 0 ? s.sm_clock_hz : std::max(max_hz_, s.sm_clock_hz);
  reasons_ |= s.reasons;
  known_ = true;
  ++samples_;
}

bool ClockWatch::throttled() const { return known_ && (is_throttle(reasons_) || clock_fell()); }

std::string ClockWatch::note() const {
  if (!known_) return "clocks unknown: " + (why_unknown_.empty() ? std::string("not read") : why_unknown_);
  auto mhz = [](double hz) { return std::to_string(long(std::lround(hz / 1e6))); };
  std::string range = min_hz_ == max_hz_ ? mhz(min_hz_) : mhz(max_hz_) + "–" + mhz(min_hz_);
  const uint64_t shown = reasons_ & ~uint64_t(0x1);  // "idle" between samples says nothing
  const std::string fell = clock_fell() && !is_throttle(reasons_)
                               ? "; fell " + std::to_string(long(std::lround(100 * fall_))) + " % while busy, no reason read"
                               : "";
  return "SM clock " + range + " MHz" + (shown ? "; clock reasons: " + describe_clock_reasons(shown) : "") + fell;
}

}  // namespace sol::bench
