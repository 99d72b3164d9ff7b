#include "exercises/support/timing_loop.hpp"

#include <algorithm>
#include <chrono>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "common/launch_record.hpp"
#include "exercises/support/inputs.hpp"

namespace exercise::timing {

namespace {

// sums[0] += sum over i of weight(seed, i) * out[i] (grid-stride; one atomic per block).
__global__ void checksum(const float* out, uint64_t n, uint64_t seed, double* sum) {
  __shared__ double partial[256];
  double s = 0;
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += uint64_t(gridDim.x) * blockDim.x)
    s += inputs::weight(seed, i) * double(out[i]);
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (int(threadIdx.x) < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(sum, partial[0]);
}

// `run` launches on (input, output); `input` is the operand that the tweaks change, a
// matrix of rows of `row_length` floats whose original values are `first`.
template <typename Run>
Timed repeat(Run run, const std::vector<float>& first, size_t row_length, float* input,
             float* output, size_t out_elements, uint64_t seed, int reps) {
  tutorial::DeviceBuffer<double> sums(size_t(std::max(reps, 1)));
  tutorial::device_memset(sums.data(), 0, sums.bytes());
  tutorial::device_memset(output, 0xFF, out_elements * sizeof(float));
  const long launches_before = tutorial::launch_count();
  run();  // warm-up: module load, caches (untimed, unchecked)
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<double> ms;
  std::vector<float> row(row_length);
  const size_t rows = first.size() / row_length;
  size_t previous = 0;
  const int blocks = int(std::min<uint64_t>((out_elements + 255) / 256, 1024));
  for (int r = 0; r < reps; ++r) {
    const inputs::Tweak t = inputs::tweak(seed, r, rows);
    const size_t bytes = row_length * sizeof(float);
    tutorial::copy_to_device(input + previous * row_length, first.data() + previous * row_length,
                             bytes);
    for (size_t j = 0; j < row_length; ++j) row[j] = inputs::value(t.seed, j);
    tutorial::copy_to_device(input + t.row * row_length, row.data(), bytes);
    previous = t.row;
    CUDA_CHECK(cudaDeviceSynchronize());
    const auto start = std::chrono::steady_clock::now();
    run();
    CUDA_CHECK(cudaDeviceSynchronize());  // every stream: work the launcher left running counts
    const auto stop = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
    checksum<<<blocks, 256>>>(output, out_elements, seed, sums.data() + r);
    CUDA_CHECK(cudaGetLastError());
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  Timed timed;
  timed.launches = tutorial::launch_count() - launches_before;
  timed.output.resize(out_elements);
  tutorial::copy_to_host(timed.output.data(), output, out_elements * sizeof(float));
  timed.sums = sums.download();
  timed.sums.resize(size_t(reps));
  if (!ms.empty()) {
    std::sort(ms.begin(), ms.end());
    timed.median_ms = ms[ms.size() / 2];
  }
  return timed;
}

}  // namespace

Timed time_gemm(GemmLauncher launch, int M, int N, int K, uint64_t seed, int reps) {
  const std::vector<float> a = inputs::operand_values(seed, 0, size_t(M) * K);
  tutorial::DeviceBuffer<float> A(a), B(inputs::operand_values(seed, 1, size_t(K) * N)), C(size_t(M) * N);
  return repeat([&] { launch(A.data(), B.data(), C.data(), M, N, K); }, a, size_t(K), A.data(),
                C.data(), C.size(), seed, reps);
}

Timed time_transpose(TransposeLauncher launch, int rows, int cols, uint64_t seed, int reps) {
  const std::vector<float> in = inputs::operand_values(seed, 0, size_t(rows) * cols);
  tutorial::DeviceBuffer<float> dIn(in), dOut(in.size());
  return repeat([&] { launch(dIn.data(), dOut.data(), rows, cols); }, in, size_t(cols),
                dIn.data(), dOut.data(), dOut.size(), seed, reps);
}

}  // namespace exercise::timing
