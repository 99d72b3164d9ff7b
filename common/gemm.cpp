#include "common/gemm.hpp"

#include "common/reference.hpp"
#ifdef TUTORIAL_CPU_BACKEND
#include "common/cpu_backend/size_cap.hpp"
#endif

namespace tutorial {

double gemm_flops(int M, int N, int K) { return 2.0 * M * N * K; }

double gemm_compulsory_bytes(int M, int N, int K) {
  return 4.0 * (double(M) * K + double(K) * N + double(M) * N);
}

GemmProblem::GemmProblem(int M_, int N_, int K_, uint64_t seed)
    : M(M_), N(N_), K(K_), A(random_matrix(M_, K_, seed)), B(random_matrix(K_, N_, seed + 1)),
      dA(A.values), dB(B.values), dC(size_t(M_) * N_) {}

HostMatrix cpu_reference(const GemmProblem& p) {
  HostMatrix C(p.M, p.N);
  cpu_gemm(p.A.data(), p.B.data(), C.data(), p.M, p.N, p.K);
  return C;
}

CompareResult check_gemm(GemmLauncher launch, int M, int N, int K, uint64_t seed,
                         GemmReference reference) {
#ifdef TUTORIAL_CPU_BACKEND
  cpu::scale_down_gemm(M, N, K);  // large shapes at a CPU-friendly size, same remainders
#endif
  GemmProblem p(M, N, K, seed);
  if (reference == GemmReference::Auto)
    reference = double(M) * N * K <= double(1 << 28) ? GemmReference::Cpu : GemmReference::Cublas;

  HostMatrix want(M, N);
  if (reference == GemmReference::Cpu) {
    want = cpu_reference(p);
  } else {
    CublasHandle handle;
    DeviceBuffer<float> dRef(size_t(M) * N);
    dRef.poison();
    cublas_sgemm(handle.get(), p.dA.data(), p.dB.data(), dRef.data(), M, N, K);
    want.values = dRef.download();
  }
  p.dC.poison();
  launch(p.dA.data(), p.dB.data(), p.dC.data(), M, N, K);
  device_synchronize();
  const std::vector<float> got = p.dC.download();
  return compare(got.data(), want.data(), M, N, Tolerance::for_gemm(K));
}

}  // namespace tutorial
