// Chapter 02: times tiled_gemm<8>, <16> and <32> against cuBLAS and prints one table.
#include "02_tiled/kernel_list.cuh"
#include "common/chapter_main.hpp"

int main(int argc, char** argv) {
  return tutorial::gemm_chapter_main(argc, argv, "02_tiled", ch02::chapter_kernels());
}
