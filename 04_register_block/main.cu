// Chapter 04: first the registers, shared memory and occupancy of each kernel, then
// the register-blocked kernels timed against cuBLAS in one table.
#include <iostream>

#include "04_register_block/kernel_list.cuh"
#include "common/chapter_main.hpp"
#include "common/gemm_resources.hpp"

int main(int argc, char** argv) {
  return tutorial::guarded_main(
      argc, argv, {}, [](const tutorial::CliOptions& options, const tutorial::DeviceInfo& device) {
        // --csv and --json keep stdout machine-readable: the resources table goes to stderr.
        const bool table = options.format == tutorial::OutputFormat::Table;
        tutorial::print_gemm_resources(table ? std::cout : std::cerr, device,
                                       ch04::chapter_kernels());
        return tutorial::run_gemm_chapter("04_register_block", ch04::chapter_kernels(), options,
                                          device);
      });
}
