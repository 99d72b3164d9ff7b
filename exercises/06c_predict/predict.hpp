// Exercise 06c: predict, then compare with the measurement (chapters 02 and 06). Host only: no
// GPU needed.
//
// Each function below is a prediction one of the lessons makes before it measures. The tests
// feed them the numbers of the chapters' H100 runs and compare your prediction with what the
// GPU and Nsight Compute measured there, within the tolerance the test names: a prediction
// that is right in the lesson is right here. Units: bytes, nanoseconds, GB/s (1e9 bytes per
// second), GFLOP/s; 1 GB/s × 1 ns = 1 byte.
//
// Your task: the functions below. Test with `make check` in this folder.
#pragma once

#include "exercises/support/exercise.hpp"

namespace ex06c {

// ---- Little's law (06_transpose/README.md, "Little's law: bytes in flight") ---------------

// The bytes each of `sms` SMs must keep in flight for the GPU to read at `bandwidth_gbs` when
// one load takes `latency_ns`: bandwidth × latency, shared by the SMs.
inline double bytes_in_flight_per_sm(double bandwidth_gbs, double latency_ns, int sms) {
  return exercise::todo<double>("06c_predict: bytes_in_flight_per_sm", bandwidth_gbs, latency_ns, sms);
}

// The other way round: the latency each load must have seen, in ns, if `sms` SMs with
// `bytes_per_sm` bytes in flight each read at `measured_gbs`.
inline double latency_seen_ns(double bytes_per_sm, int sms, double measured_gbs) {
  return exercise::todo<double>("06c_predict: latency_seen_ns", bytes_per_sm, sms, measured_gbs);
}

// ---- A roofline from profiler numbers (01_naive and 02_tiled READMEs) -------------------

// FLOP per byte of DRAM traffic, from what Nsight Compute measured (dram__bytes_read.sum and
// dram__bytes_write.sum).
inline double dram_intensity(double flop, double dram_read_bytes, double dram_write_bytes) {
  return exercise::todo<double>("06c_predict: dram_intensity", flop, dram_read_bytes, dram_write_bytes);
}

// How much of its roofline bound, in percent, a kernel running at `gflops` reaches:
// the bound is min(peak_gflops, bandwidth_gbs × intensity).
inline double percent_of_roofline(double gflops, double intensity, double bandwidth_gbs,
                                  double peak_gflops) {
  return exercise::todo<double>("06c_predict: percent_of_roofline", gflops, intensity, bandwidth_gbs, peak_gflops);
}

// ---- Outgrowing the L2 (02_tiled/README.md) -----------------------------------------------

// The DRAM bytes a tiled GEMM (M × K times K × N floats, TILE × TILE blocks) reads: A and B
// once when B (K × N floats) fits in `l2_bytes`; otherwise A once and B once per row of
// blocks (ceil(M / tile) rows).
inline double tiled_dram_read_bytes(int M, int N, int K, int tile, double l2_bytes) {
  return exercise::todo<double>("06c_predict: tiled_dram_read_bytes", M, N, K, tile, l2_bytes);
}

// ---- Gathers and strides (06_transpose/README.md) ------------------------------------------

// out[i] = in[index[i]] moves 12 useful bytes per element (the index, the value, the store).
// When each value costs a DRAM fetch of `fetch_bytes` instead of 4, the useful share of the
// bytes moved is 12 / (4 + fetch_bytes + 4).
inline double gather_useful_fraction(double fetch_bytes) {
  return exercise::todo<double>("06c_predict: gather_useful_fraction", fetch_bytes);
}

// A copy whose reads use only `read_efficiency` of the bytes they fetch (and whose writes are
// coalesced) runs at 2 / (1 / read_efficiency + 1) of a perfect copy's rate.
inline double strided_copy_fraction(double read_efficiency) {
  return exercise::todo<double>("06c_predict: strided_copy_fraction", read_efficiency);
}

}  // namespace ex06c
