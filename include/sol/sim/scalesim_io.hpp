#pragma once
// SCALE-Sim v2's file formats: the .cfg (INI) that describes the array and its memories, the
// topology CSV (conv or GEMM, told apart by the header), and the three reports it writes
// (COMPUTE_REPORT.csv, BANDWIDTH_REPORT.csv, DETAILED_ACCESS_REPORT.csv), number for number.
#include <string>
#include <vector>

#include "sol/sim/systolic.hpp"

namespace sol::sim {

ArrayConfig parse_scalesim_config(const std::string& text, const std::string& where = "config");
ArrayConfig read_scalesim_config(const std::string& path);

// Rows of a topology CSV. The first line is a header: "Layer, M, N, K," means GEMM rows,
// anything else conv rows (name, H, W, FH, FW, C, filters, stride[, column stride]). A conv
// layer whose name contains "DP" is depthwise: one 1-channel layer per channel, as SCALE-Sim does.
std::vector<Layer> parse_topology(const std::string& text, const std::string& where = "topology");
std::vector<Layer> read_topology(const std::string& path);

// The three reports, with SCALE-Sim's headers, one row per layer (LayerID from 0), numbers
// printed the way Python prints them ("1.0", "9.620669406928949").
std::string compute_report_csv(const std::vector<LayerResult>& layers);
std::string bandwidth_report_csv(const std::vector<LayerResult>& layers);
std::string detailed_access_report_csv(const std::vector<LayerResult>& layers);
// Writes the three files into dir (created if missing); throws sol::failure if it cannot.
void write_scalesim_reports(const std::string& dir, const std::vector<LayerResult>& layers);

// A float as Python's repr() prints it: shortest round-trip digits, ".0" on integers,
// exponent form below 1e-4 and from 1e16.
std::string python_float(double v);

}  // namespace sol::sim
