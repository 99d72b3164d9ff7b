#include "common/gemm_resources.hpp"

#include <iomanip>
#include <sstream>

#include "common/device_buffer.hpp"
#include "common/launch_record.hpp"
#include "common/report.hpp"

namespace tutorial {

std::vector<GemmResources> gemm_resources(const DeviceInfo& device,
                                          const std::vector<GemmKernel>& kernels) {
  const int n = 64;
  DeviceBuffer<float> A(n * n), B(n * n), C(n * n);
  device_memset(A.data(), 0, A.bytes());
  device_memset(B.data(), 0, B.bytes());
  std::vector<GemmResources> out;
  for (const GemmKernel& kernel : kernels) {
    GemmResources r;
    r.name = kernel.name;
    const long before = launch_count();
    try {
      kernel.launch(A.data(), B.data(), C.data(), n, n, n);
    } catch (const KernelDoesNotFit& e) {
      r.does_not_fit = e.what();
      out.push_back(r);
      continue;
    }
    if (!launch_kept_since(before)) {  // a library call: no kernel of ours to report on
      r.does_not_fit = "launched no kernel through tutorial::launch";
      out.push_back(r);
      continue;
    }
    const LaunchRecord& l = first_launch_since(before);  // the main kernel, not a reduction
    r.resources = kernel_resources(l.kernel, l.threads_per_block(), l.dynamic_smem);
    r.occupancy = compute_occupancy(r.resources, device.sm);
    r.runtime_blocks_per_sm =
        runtime_blocks_per_sm(l.kernel, l.threads_per_block(), l.dynamic_smem);
    out.push_back(r);
  }
  device_synchronize();
  return out;
}

void print_gemm_resources(std::ostream& out, const DeviceInfo& device,
                          const std::vector<GemmKernel>& kernels) {
  const std::vector<GemmResources> rows = gemm_resources(device, kernels);
  const SmLimits& sm = device.sm;
  out << "Resources per block and occupancy on " << device.name << " (per SM: "
      << sm.max_threads_per_sm << " threads, " << sm.registers_per_sm << " registers, "
      << sm.smem_per_sm / 1024 << " KB shared memory, " << sm.reserved_smem_per_block
      << " B of it reserved per block)\n";
  // "smem (B)" is what the kernel asks for (static + dynamic); "+reserved" what a block takes
  // from the SM (with the reservation, in allocation units); "runtime" is the CUDA runtime's
  // own blocks/SM, which should equal the calculator's.
  const std::vector<std::string> titles = {"kernel",    "threads", "regs",      "smem (B)",
                                           "+reserved", "blocks/SM", "runtime", "occupancy",
                                           "limiter"};
  std::vector<std::vector<std::string>> cells;
  std::vector<std::string> skipped;  // kernels this GPU cannot run, listed under the table
  for (const GemmResources& r : rows) {
    if (!r.does_not_fit.empty()) {
      skipped.push_back(r.name + ": skipped, " + r.does_not_fit);
      continue;
    }
    std::ostringstream occupancy;
    occupancy << std::fixed << std::setprecision(1) << 100 * r.occupancy.occupancy << "%";
    std::string limiter = to_string(r.occupancy.limiter);
    if (r.runtime_blocks_per_sm != r.occupancy.blocks_per_sm) limiter += " (runtime disagrees)";
    cells.push_back({r.name, std::to_string(r.resources.threads_per_block),
                     std::to_string(r.resources.registers_per_thread),
                     std::to_string(r.resources.smem_per_block),
                     std::to_string(r.occupancy.smem_allocated_per_block),
                     std::to_string(r.occupancy.blocks_per_sm),
                     std::to_string(r.runtime_blocks_per_sm), occupancy.str(), limiter});
  }
  print_aligned(out, titles, cells, {0, 8});  // the name and the limiter left, numbers right
  for (const std::string& line : skipped) out << line << "\n";
  out << "\n";
}

}  // namespace tutorial
