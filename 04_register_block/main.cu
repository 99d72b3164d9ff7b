// Chapter 04: first the registers, shared memory and occupancy of each kernel, then
// the register-blocked kernels timed against cuBLAS in one table.
#include "04_register_block/kernel_list.cuh"
#include "common/chapter_main.hpp"

int main(int argc, char** argv) {
  return tutorial::gemm_chapter_main(argc, argv, "04_register_block", ch04::chapter_kernels(),
                                     tutorial::ResourcesTable::On);
}
