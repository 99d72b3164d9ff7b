// Chapter 01: times naive_gemm and naive_gemm_swapped against cuBLAS and prints one table.
#include "01_naive/kernel_list.cuh"
#include "common/chapter_main.hpp"

int main(int argc, char** argv) {
  return tutorial::gemm_chapter_main(argc, argv, "01_naive", ch01::chapter_kernels());
}
