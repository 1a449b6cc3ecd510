#pragma once
// SM clock and throttle reasons through NVML, loaded with dlopen at run time (no nvml.h needed,
// and a machine without libnvidia-ml still measures: its results say "clocks unknown").
#include <cstdint>
#include <map>
#include <string>

namespace sol::bench {

struct ClockSample {
  bool known = false;
  std::string why_unknown;   // when !known
  double sm_clock_hz = 0;
  uint64_t reasons = 0;      // NVML clocks-event (throttle) reason bits
};

// Reads the device with this PCI bus id ("0000:19:00.0"), or NVML index `index` if the bus id
// is not found. Never throws: a missing library or a failing call gives known = false.
ClockSample read_clock(const std::string& pci_bus_id, int index);
// The driver's version string from NVML, "" when unknown.
std::string nvml_driver_version();
// "sm_clock", "memory_clock" (current, and the maximum), "power_limit" (enforced) of the device,
// as text; what NVML cannot say is left out, and without NVML {"nvml": "unknown: <why>"}.
std::map<std::string, std::string> nvml_environment(const std::string& pci_bus_id, int index);

// Clock samples taken before, during and after a timed region, summarized.
class ClockWatch {
 public:
  void add(const ClockSample& s);
  bool known() const { return known_; }
  // Throttle reasons read, or the clock fell (below).
  bool throttled() const;
  // The clock fell by more than kClockFall from a higher sample taken before it: the driver
  // lowered it while the GPU was busy (NVML's reasons are read at instants and can miss a power
  // cap the clock range shows). A rise, as from an idle clock at the start, is not a fall.
  static constexpr double kClockFall = 0.1;
  bool clock_fell() const { return known_ && fall_ > kClockFall; }
  double fall() const { return fall_; }  // the largest fall, as a fraction of the clock before it
  uint64_t reasons() const { return reasons_; }
  // "SM clock 1980–1755 MHz; sw power cap" or "clocks unknown: <why>".
  std::string note() const;

 private:
  bool known_ = false;
  int samples_ = 0;
  std::string why_unknown_;
  double min_hz_ = 0, max_hz_ = 0, fall_ = 0;
  uint64_t reasons_ = 0;
};

}  // namespace sol::bench
