#include "exercises/support/timing_loop.hpp"

#include <algorithm>
#include <chrono>
#include <initializer_list>

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

// x[i] = the i-th value of one operand of repetition seed `seed` (inputs::operand_values on the
// device, so the host needs no copy of the inputs per repetition).
__global__ void fill(float* x, uint64_t n, uint64_t seed, int operand) {
  const uint64_t s = inputs::operand_seed(seed, operand);
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += uint64_t(gridDim.x) * blockDim.x)
    x[i] = inputs::value(s, i);
}

int grid_for(uint64_t elements) { return int(std::min<uint64_t>((elements + 255) / 256, 1024)); }

struct Operand {
  float* data;
  uint64_t elements;
};

// `run` launches on the operands (their first values from `seed`) into `output`.
template <typename Run>
Timed repeat(Run run, std::initializer_list<Operand> operands, float* output,
             size_t out_elements, uint64_t seed, int reps) {
  tutorial::DeviceBuffer<double> sums(size_t(std::max(reps, 1)));
  tutorial::device_memset(sums.data(), 0, sums.bytes());
  tutorial::device_memset(output, 0xFF, out_elements * sizeof(float));
  const long launches_before = tutorial::launch_count();
  run();  // warm-up: module load, caches (untimed, unchecked)
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    const uint64_t rep_seed = inputs::repetition_seed(seed, r);
    int operand = 0;
    for (const Operand& o : operands) fill<<<grid_for(o.elements), 256>>>(o.data, o.elements,
                                                                          rep_seed, operand++);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    const auto start = std::chrono::steady_clock::now();
    run();
    CUDA_CHECK(cudaDeviceSynchronize());  // every stream: work the launcher left running counts
    const auto stop = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
    checksum<<<grid_for(out_elements), 256>>>(output, out_elements, seed, sums.data() + r);
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
  tutorial::DeviceBuffer<float> A(inputs::operand_values(seed, 0, size_t(M) * K)),
      B(inputs::operand_values(seed, 1, size_t(K) * N)), C(size_t(M) * N);
  return repeat([&] { launch(A.data(), B.data(), C.data(), M, N, K); },
                {{A.data(), A.size()}, {B.data(), B.size()}}, C.data(), C.size(), seed, reps);
}

Timed time_transpose(TransposeLauncher launch, int rows, int cols, uint64_t seed, int reps) {
  tutorial::DeviceBuffer<float> in(inputs::operand_values(seed, 0, size_t(rows) * cols)),
      out(in.size());
  return repeat([&] { launch(in.data(), out.data(), rows, cols); }, {{in.data(), in.size()}},
                out.data(), out.size(), seed, reps);
}

}  // namespace exercise::timing
