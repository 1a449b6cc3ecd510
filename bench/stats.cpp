// Median, extremes and spread of timing samples.
#include "bench/stats.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "sol/core/error.hpp"

namespace sol::bench {

double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) failure("quantile of no samples");
  const double pos = std::clamp(q, 0.0, 1.0) * double(sorted.size() - 1);
  const size_t lo = size_t(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - double(lo)) * (sorted[hi] - sorted[lo]);
}

Summary summarize(std::vector<double> samples) {
  if (samples.empty()) failure("no timing samples were taken");
  for (double s : samples)
    if (!std::isfinite(s) || s < 0) failure("a timing sample is " + std::to_string(s) + " s");
  std::sort(samples.begin(), samples.end());
  Summary r;
  r.samples = int(samples.size());
  r.min = samples.front();
  r.max = samples.back();
  r.median = quantile(samples, 0.5);
  r.p10 = quantile(samples, 0.1);
  r.p90 = quantile(samples, 0.9);
  r.spread = r.median > 0 ? (r.p90 - r.p10) / r.median : 0;
  const double n = double(samples.size()), half = 0.98 * std::sqrt(n);
  size_t lo = 0, hi = samples.size() - 1;
  if (samples.size() >= 6) {
    // 1-based ranks ⌊n/2 − h⌋ and ⌈1 + n/2 + h⌉ (n = 100: the 40th and 61st values).
    lo = size_t(std::max(1.0, std::floor(n / 2 - half))) - 1;
    hi = std::min(samples.size(), size_t(std::ceil(1 + n / 2 + half))) - 1;
  }
  r.median_ci = r.median > 0 ? (samples[hi] - samples[lo]) / (2 * r.median) : 0;
  return r;
}

bool settled(double median_before, double median_now, double tolerance) {
  if (median_before <= 0 || median_now <= 0) return false;
  return std::fabs(median_now - median_before) <= tolerance * median_now;
}

}  // namespace sol::bench
