#include "common/gemm_resources.hpp"

#include <algorithm>
#include <iomanip>

#include "common/device_buffer.hpp"
#include "common/launch_record.hpp"

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
    try {
      kernel.launch(A.data(), B.data(), C.data(), n, n, n);
    } catch (const KernelDoesNotFit& e) {
      r.does_not_fit = e.what();
      out.push_back(r);
      continue;
    }
    const LaunchRecord& l = last_launch();
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
  size_t width = 6;
  for (const GemmResources& r : rows) width = std::max(width, r.name.size());
  out << "Resources per block and occupancy on " << device.name << " ("
      << device.sm.registers_per_sm << " registers, " << device.sm.smem_per_sm / 1024
      << " KB shared memory per SM)\n";
  out << std::left << std::setw(int(width)) << "kernel" << std::right << std::setw(9)
      << "threads" << std::setw(7) << "regs" << std::setw(11) << "smem (B)" << std::setw(11)
      << "blocks/SM" << std::setw(9) << "runtime" << std::setw(11) << "occupancy"
      << "  limiter\n";
  for (const GemmResources& r : rows) {
    if (!r.does_not_fit.empty()) {
      out << std::left << std::setw(int(width)) << r.name << "  skipped: " << r.does_not_fit
          << "\n";
      continue;
    }
    out << std::left << std::setw(int(width)) << r.name << std::right << std::setw(9)
        << r.resources.threads_per_block << std::setw(7) << r.resources.registers_per_thread
        << std::setw(11) << r.resources.smem_per_block << std::setw(11)
        << r.occupancy.blocks_per_sm << std::setw(9) << r.runtime_blocks_per_sm << std::setw(10)
        << std::fixed << std::setprecision(1) << 100 * r.occupancy.occupancy << "%  "
        << to_string(r.occupancy.limiter)
        << (r.runtime_blocks_per_sm == r.occupancy.blocks_per_sm ? "" : "  (runtime disagrees)")
        << "\n";
  }
  out << "\n";
}

}  // namespace tutorial
