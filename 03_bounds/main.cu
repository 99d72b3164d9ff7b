// Chapter 03: first the occupancy of each tile width (the harness's calculator beside the
// CUDA runtime's own answer), then the kernels timed against cuBLAS in one table.
#include "03_bounds/kernel_list.cuh"
#include "common/chapter_main.hpp"

int main(int argc, char** argv) {
  return tutorial::gemm_chapter_main(argc, argv, "03_bounds", ch03::chapter_kernels(),
                                     tutorial::ResourcesTable::On);
}
