// The registry of the speed tests' reference kernels and the scratch buffers of those that
// race another product (race_references.hpp). Part of the reference timer only.
#include "exercises/support/race_references.hpp"

#include <stdexcept>

#include "06_transpose/3_padded.cuh"
#include "common/device_buffer.hpp"

namespace exercise::race {

namespace {

std::vector<Reference>& table() {
  static std::vector<Reference> list;
  return list;
}

void add(Reference r) {
  for (const Reference& have : table())
    if (have.name == r.name) throw std::logic_error("race reference " + r.name + " registered twice");
  table().push_back(std::move(r));
}

}  // namespace

const std::vector<Reference>& references() { return table(); }

Register::Register(const char* name, GemmLauncher gemm) { add({name, gemm, nullptr}); }
Register::Register(const char* name, TransposeLauncher transpose) { add({name, nullptr, transpose}); }

float* scratch(int which, size_t floats) {
  // Never freed: the process ends after its one timed call, and a static destructor would
  // free device memory after the CUDA runtime has shut down.
  static tutorial::DeviceBuffer<float>* buffers[2] = {nullptr, nullptr};
  tutorial::DeviceBuffer<float>*& b = buffers[which];
  if (!b || b->size() < floats) {
    delete b;
    b = new tutorial::DeviceBuffer<float>(floats);
  }
  return b->data();
}

void transpose(const float* in, float* out, int rows, int cols) {
  ch06::launch_padded<32, 8>(in, out, rows, cols);
}

}  // namespace exercise::race
