// Exercise 06c: predict, then compare with the measurement (chapters 01, 02 and 06). Host
// only: no GPU needed.
//
// Each function below is a prediction one of the lessons makes before it measures. The
// comments say what to predict and where the lesson explains it, not how: write the model
// from the lesson. The tests feed your functions the numbers of the chapters' H100 runs and
// compare your prediction with what the GPU and Nsight Compute measured there, within the
// tolerance the test names: a prediction that is right in the lesson is right here. Units:
// bytes, nanoseconds, GB/s (1e9 bytes per second), GFLOP/s; 1 GB/s × 1 ns = 1 byte.
//
// Your task: the functions below. Test with `make check` in this folder.
#pragma once

#include "exercises/support/exercise.hpp"

namespace ex06c {

// ---- Little's law (01_naive/README.md, "The idea, part 1: what memory can do") -----------

// The bytes each of `sms` SMs must keep in flight for the GPU to read at `bandwidth_gbs` when
// one load takes `latency_ns`.
inline double bytes_in_flight_per_sm(double bandwidth_gbs, double latency_ns, int sms) {
  return exercise::todo<double>("06c_predict: bytes_in_flight_per_sm", bandwidth_gbs, latency_ns, sms);
}

// The other way round: the latency each load must have seen, in ns, if `sms` SMs with
// `bytes_per_sm` bytes in flight each read at `measured_gbs` (the table's "latency seen").
inline double latency_seen_ns(double bytes_per_sm, int sms, double measured_gbs) {
  return exercise::todo<double>("06c_predict: latency_seen_ns", bytes_per_sm, sms, measured_gbs);
}

// What that asks of each warp: the loads each of `warps_per_sm` resident warps must keep in
// flight at once (independent loads issued before the first is used) when a load moves
// `bytes_per_lane` bytes for each of its 32 lanes (4: a float, 16: a float4). Not rounded: 0.25
// means one warp in four needs a load in flight.
//   H100, 3,010 GB/s at 351 ns on 132 SMs: 8,004 B per SM; 64 warps of float4 loads: 0.24
//   each; 8 warps of float loads: 7.8 each (a kernel with few warps needs many loads in
//   flight per warp: the register-blocked kernels of chapters 04 and 05).
inline double loads_in_flight_per_warp(double bandwidth_gbs, double latency_ns, int sms,
                                       int warps_per_sm, int bytes_per_lane) {
  return exercise::todo<double>("06c_predict: loads_in_flight_per_warp", bandwidth_gbs,
                                 latency_ns, sms, warps_per_sm, bytes_per_lane);
}

// ---- A roofline from profiler numbers (01_naive and 02_tiled READMEs) -------------------

// A kernel's arithmetic intensity at DRAM, from the FLOP it does and what Nsight Compute
// measured it read and wrote (dram__bytes_read.sum, dram__bytes_write.sum).
inline double dram_intensity(double flop, double dram_read_bytes, double dram_write_bytes) {
  return exercise::todo<double>("06c_predict: dram_intensity", flop, dram_read_bytes, dram_write_bytes);
}

// How much of its roofline bound, in percent, a kernel running at `gflops` reaches, on a GPU
// of `bandwidth_gbs` and `peak_gflops`, at the given intensity.
inline double percent_of_roofline(double gflops, double intensity, double bandwidth_gbs,
                                  double peak_gflops) {
  return exercise::todo<double>("06c_predict: percent_of_roofline", gflops, intensity, bandwidth_gbs, peak_gflops);
}

// ---- Outgrowing the L2 (02_tiled/README.md, "Two traffic models", "Outgrowing the L2") -----

// The DRAM bytes a tiled GEMM (M × K times K × N floats, tile × tile blocks) reads, when its
// B fits in an L2 of `l2_bytes` and when it does not: the lesson's second traffic model and
// where it stops holding.
inline double tiled_dram_read_bytes(int M, int N, int K, int tile, double l2_bytes) {
  return exercise::todo<double>("06c_predict: tiled_dram_read_bytes", M, N, K, tile, l2_bytes);
}

// ---- Gathers and strides (06_transpose/README.md, parts 1 and 6) ---------------------------

// A gather, out[i] = in[index[i]], whose every value costs a DRAM fetch of `fetch_bytes`: the
// share of the bytes it moves that the program asked for (count the index and the store too).
inline double gather_useful_fraction(double fetch_bytes) {
  return exercise::todo<double>("06c_predict: gather_useful_fraction", fetch_bytes);
}

// A copy whose reads use only `read_efficiency` of the bytes they fetch, and whose writes are
// coalesced: its rate as a fraction of a perfect copy's, if moving bytes is all that costs.
inline double strided_copy_fraction(double read_efficiency) {
  return exercise::todo<double>("06c_predict: strided_copy_fraction", read_efficiency);
}

}  // namespace ex06c
