// Host reference for the elementwise chain (include/sol/ref/elementwise.hpp).
#include "sol/ref/elementwise.hpp"

#include <cmath>

namespace sol::ref {

double sincos_chain(double x) {
  const double s = std::sin(x), c = std::cos(x);
  return s * s + c * c;
}

}  // namespace sol::ref
