// Chapter 05: first the registers, shared memory and occupancy of each kernel, then
// the double-buffered and pipelined kernels timed against cuBLAS in one table.
#include "05_double_buffer/kernel_list.cuh"
#include "common/chapter_main.hpp"

int main(int argc, char** argv) {
  return tutorial::gemm_chapter_main(argc, argv, "05_double_buffer", ch05::chapter_kernels(),
                                     tutorial::ResourcesTable::On);
}
