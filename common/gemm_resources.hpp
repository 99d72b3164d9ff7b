// Registers, shared memory and occupancy of GEMM launchers, found by launching each once.
//
// A launcher chooses its kernel (e.g. the 16-byte or the 4-byte variant), block size and
// dynamic shared memory itself, so the harness learns them the way tutorial::launch records
// them: run the launcher on a small aligned problem and read its first launch
// (first_launch_since: the main kernel, where a launcher makes more than one).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "common/device_info.hpp"
#include "common/gemm.hpp"
#include "common/occupancy.hpp"

namespace tutorial {

struct GemmResources {
  std::string name;
  KernelResources resources;  // threads, registers per thread, static + dynamic shared memory
  Occupancy occupancy;        // tutorial::compute_occupancy on this device's limits
  int runtime_blocks_per_sm = 0;  // cudaOccupancyMaxActiveBlocksPerMultiprocessor, for comparison
  std::string does_not_fit;  // why it has no row: KernelDoesNotFit, or no launch of ours; else empty
};

// Launches each kernel once at M = N = K = 64 (16-byte aligned, so the fast variant) and
// reports what that launch used. A kernel this GPU cannot run is listed with the reason.
std::vector<GemmResources> gemm_resources(const DeviceInfo& device,
                                          const std::vector<GemmKernel>& kernels);

// One line per kernel: threads, registers, shared memory, blocks/SM (ours and the runtime's),
// occupancy and the limiting resource.
void print_gemm_resources(std::ostream& out, const DeviceInfo& device,
                          const std::vector<GemmKernel>& kernels);

}  // namespace tutorial
