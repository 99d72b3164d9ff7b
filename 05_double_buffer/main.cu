// Chapter 05: first the registers, shared memory and occupancy of each kernel, then
// the double-buffered and pipelined kernels timed against cuBLAS in one table.
#include <iostream>

#include "05_double_buffer/kernel_list.cuh"
#include "common/chapter_main.hpp"
#include "common/gemm_resources.hpp"

int main(int argc, char** argv) {
  return tutorial::guarded_main(
      argc, argv, {}, [](const tutorial::CliOptions& options, const tutorial::DeviceInfo& device) {
        // --csv and --json keep stdout machine-readable: the resources table goes to stderr.
        const bool table = options.format == tutorial::OutputFormat::Table;
        tutorial::print_gemm_resources(table ? std::cout : std::cerr, device,
                                       ch05::chapter_kernels());
        return tutorial::run_gemm_chapter("05_double_buffer", ch05::chapter_kernels(), options,
                                          device);
      });
}
