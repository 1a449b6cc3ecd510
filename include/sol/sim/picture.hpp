#pragma once
// The lecture's §5 picture, drawn from the cycle-stepped engine: operands entering skewed from
// the left, stationary operands loaded from the top, partial sums flowing down and results
// leaving the bottom. Frames are taken from a real run, so every arrow is a register that held data.
#include <cstdint>
#include <string>
#include <vector>

#include "sol/sim/systolic.hpp"

namespace sol::sim {

// Frames [first_cycle, first_cycle + cycles) of a run (at most 64 cells a side, 400 frames).
std::vector<Frame> capture_frames(const Layer& layer, const ArrayConfig& cfg, Model model, int64_t first_cycle,
                                  int64_t cycles);

// One block of text per frame. Legend: '#' a MAC this cycle, '>' an operand passing, 'v' a
// partial sum / operand moving down, 'w' a loaded stationary cell, '.' idle; '→' at the left
// edge and '↓' on the top and bottom edges mark data entering and results leaving.
std::string picture_text(const std::vector<Frame>& frames, Dataflow df);
// The same frames side by side as an SVG document.
std::string picture_svg(const std::vector<Frame>& frames, Dataflow df, const std::string& title);

}  // namespace sol::sim
