// The body of every chapter executable, so that a chapter's main() is a list of kernels.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/cli.hpp"
#include "common/device_info.hpp"
#include "common/gemm.hpp"
#include "common/report.hpp"
#include "common/transpose.hpp"

namespace tutorial {

// Exit codes of the chapter executables.
constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;     // wrong result, CUDA error, out of memory
constexpr int kExitUsage = 2;       // bad flag or value
constexpr int kExitNoDevice = 3;    // no CUDA device: nothing to run

// Parses the command line (--help also lists `kernel_names`), refuses what can be refused
// without a GPU (a bad flag or value, a size the kernels cannot index, a --kernel prefix that
// starts none of `kernel_names`: kExitUsage), makes sure a GPU is present (kExitNoDevice), then
// calls body. Every exception becomes a one-line "error: …" on stderr and a non-zero exit code.
int guarded_main(int argc, char** argv, const CliOptions& defaults,
                 const std::vector<std::string>& kernel_names,
                 const std::function<int(const CliOptions&, const DeviceInfo&)>& body);

// Whether --kernel picks `name`: it starts with one of the prefixes, or none was given.
bool kernel_selected(const std::string& name, const std::vector<std::string>& prefixes);

// Throws CliError, naming the prefix and listing every name, for a prefix that starts none of
// `names` (a typo must not time nothing, or everything, quietly).
void check_kernel_prefixes(const std::vector<std::string>& prefixes,
                           const std::vector<std::string>& names);

// The names of a chapter's kernels, for guarded_main.
template <typename Kernel>
std::vector<std::string> names_of(const std::vector<Kernel>& kernels) {
  std::vector<std::string> names;
  for (const Kernel& k : kernels) names.push_back(k.name);
  return names;
}

// The kernels --kernel picks, in the chapter's order: only these are launched and timed.
template <typename Kernel>
std::vector<Kernel> selected_kernels(const std::vector<Kernel>& kernels, const CliOptions& o) {
  std::vector<Kernel> picked;
  for (const Kernel& k : kernels)
    if (kernel_selected(k.name, o.kernels)) picked.push_back(k);
  return picked;
}

// The report header for this device and run (measures the copy bandwidth once); `problem`:
// what the rows measure ("gemm", "transpose", ...).
ReportHeader make_header(const DeviceInfo& device, const std::string& problem,
                         const std::string& shape);

// Whether a GEMM chapter prints, before its timing table, each kernel's registers, shared
// memory and occupancy (print_gemm_resources: the calculator beside the CUDA runtime). With
// --csv or --json that table goes to stderr, so that stdout stays machine-readable.
enum class ResourcesTable { Off, On };

// Runs cuBLAS and each kernel --kernel picks at the requested size, checks each against cuBLAS, times
// each (median of --iters) and prints one table. Returns non-zero if any kernel is wrong.
int run_gemm_chapter(const std::string& chapter, const std::vector<GemmKernel>& kernels,
                     const CliOptions& options, const DeviceInfo& device,
                     ResourcesTable resources = ResourcesTable::Off);

// The same for a transpose chapter, rows x cols from --rows/--cols: cudaMemcpy device-to-device
// of the same bytes is the ceiling every row is compared with (it always runs); `copies` are
// more ceilings (a copy kernel: checked against the input), `kernels` the transposes (checked
// against the CPU transpose, exactly); of both, the ones --kernel picks run. Returns non-zero
// if any kernel is wrong.
int run_transpose_chapter(const std::string& chapter, const std::vector<TransposeKernel>& copies,
                          const std::vector<TransposeKernel>& kernels, const CliOptions& options,
                          const DeviceInfo& device);

// Occupancy of the kernel most recently launched through tutorial::launch().
Occupancy occupancy_of_first_launch_since(long count, const DeviceInfo& device);

// main() of a GEMM chapter in one line.
int gemm_chapter_main(int argc, char** argv, const std::string& chapter,
                      const std::vector<GemmKernel>& kernels,
                      ResourcesTable resources = ResourcesTable::Off);

}  // namespace tutorial
