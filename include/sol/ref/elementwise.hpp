#pragma once
// Host reference for the elementwise chain (lecture §8's fusion example) in double:
// f(x) = sin²x + cos²x, which is 1 up to rounding: any other value a kernel returns is its error.
namespace sol::ref {

double sincos_chain(double x);

}  // namespace sol::ref
