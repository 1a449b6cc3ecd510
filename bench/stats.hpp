#pragma once
// Statistics of timing samples: the median is the figure (robust to the odd slow sample), min
// and the p10–p90 spread say how much to trust it. A median "settles" when another round of
// samples moves it less than a tolerance, or when its confidence interval is narrow enough.
#include <vector>

namespace sol::bench {

struct Summary {
  double median = 0, min = 0, max = 0, p10 = 0, p90 = 0;
  double spread = 0;  // (p90 − p10) / median
  // Half-width of the median's 95 % confidence interval, relative to the median: the order
  // statistics at ranks about n/2 ∓ 0.98·√n bound the median with 95 % probability whatever the
  // distribution (the binomial's normal approximation); below 6 samples, the whole range.
  double median_ci = 0;
  int samples = 0;
};

// Throws sol::Error (Failure) for no samples or a non-finite or negative sample.
Summary summarize(std::vector<double> samples);
// Quantile q ∈ [0, 1] of sorted values, linear between neighbours.
double quantile(const std::vector<double>& sorted, double q);
// |now − before| ≤ tolerance × now, for positive medians.
bool settled(double median_before, double median_now, double tolerance);

}  // namespace sol::bench
