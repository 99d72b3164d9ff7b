// Chapter 03: first the occupancy of each tile width (the harness's calculator beside the
// CUDA runtime's own answer), then the kernels timed against cuBLAS in one table.
#include <iomanip>
#include <iostream>

#include "03_bounds/kernel_list.cuh"
#include "common/chapter_main.hpp"
#include "common/occupancy.hpp"

namespace {

void print_occupancy_table(std::ostream& out, const tutorial::DeviceInfo& device) {
  const tutorial::SmLimits& sm = device.sm;
  out << "Occupancy per SM of " << device.name << ": " << sm.max_threads_per_sm << " threads, "
      << sm.registers_per_sm << " registers, " << sm.smem_per_sm / 1024 << " KB shared memory, "
      << sm.reserved_smem_per_block << " B reserved per block\n\n";
  out << std::left << std::setw(16) << "kernel" << std::right << std::setw(9) << "threads"
      << std::setw(11) << "regs/thr" << std::setw(13) << "smem/block" << std::setw(13)
      << "+reserved" << std::setw(13) << "blocks/SM" << std::setw(9) << "runtime"
      << std::setw(11) << "occupancy" << "  limiter\n";
  for (const ch03::CompiledKernel& k : ch03::compiled_kernels()) {
    const tutorial::KernelResources res =
        tutorial::kernel_resources(k.kernel, k.threads_per_block, k.dynamic_smem);
    const tutorial::Occupancy occ = tutorial::compute_occupancy(res, sm);
    const int runtime = tutorial::runtime_blocks_per_sm(k.kernel, k.threads_per_block, k.dynamic_smem);
    out << std::left << std::setw(16) << k.name << std::right << std::setw(9)
        << res.threads_per_block << std::setw(11) << res.registers_per_thread << std::setw(11)
        << res.smem_per_block << " B" << std::setw(11) << occ.smem_allocated_per_block << " B"
        << std::setw(13) << occ.blocks_per_sm << std::setw(9) << runtime << std::setw(10)
        << std::fixed << std::setprecision(1) << 100 * occ.occupancy << "%  "
        << tutorial::to_string(occ.limiter)
        << (runtime == occ.blocks_per_sm ? "" : "  (calculator and runtime disagree)") << "\n";
  }
  out << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  return tutorial::guarded_main(
      argc, argv, {}, [](const tutorial::CliOptions& options, const tutorial::DeviceInfo& device) {
        // --csv and --json keep stdout machine-readable: the occupancy table goes to stderr.
        const bool table = options.format == tutorial::OutputFormat::Table;
        print_occupancy_table(table ? std::cout : std::cerr, device);
        return tutorial::run_gemm_chapter("03_bounds", ch03::chapter_kernels(), options, device);
      });
}
