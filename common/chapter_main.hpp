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

// Parses the command line (printing --help), makes sure a GPU is present, then calls body.
// Every exception becomes a one-line "error: …" on stderr and a non-zero exit code.
int guarded_main(int argc, char** argv, const CliOptions& defaults,
                 const std::function<int(const CliOptions&, const DeviceInfo&)>& body);

// The report header for this device and run (measures the copy bandwidth once).
ReportHeader make_header(const DeviceInfo& device, const std::string& shape);

// Whether a GEMM chapter prints, before its timing table, each kernel's registers, shared
// memory and occupancy (print_gemm_resources: the calculator beside the CUDA runtime). With
// --csv or --json that table goes to stderr, so that stdout stays machine-readable.
enum class ResourcesTable { Off, On };

// Runs cuBLAS and each kernel at the requested size, checks each against cuBLAS, times
// each (median of --iters) and prints one table. Returns non-zero if any kernel is wrong.
int run_gemm_chapter(const std::string& chapter, const std::vector<GemmKernel>& kernels,
                     const CliOptions& options, const DeviceInfo& device,
                     ResourcesTable resources = ResourcesTable::Off);

// The same for a transpose chapter, rows x cols from --rows/--cols: cudaMemcpy device-to-device
// of the same bytes is the ceiling every row is compared with; `copies` are more ceilings (a
// copy kernel: checked against the input), `kernels` the transposes (checked against the CPU
// transpose, exactly). Returns non-zero if any kernel is wrong.
int run_transpose_chapter(const std::string& chapter, const std::vector<TransposeKernel>& copies,
                          const std::vector<TransposeKernel>& kernels, const CliOptions& options,
                          const DeviceInfo& device);

// Refuses a transpose the kernels cannot index (more than INT_MAX elements) or this GPU cannot
// hold (input and output), before anything is allocated.
void check_transpose_size(const std::string& chapter, int rows, int cols);

// Occupancy of the kernel most recently launched through tutorial::launch().
Occupancy occupancy_of_first_launch_since(long count, const DeviceInfo& device);

// main() of a GEMM chapter in one line.
int gemm_chapter_main(int argc, char** argv, const std::string& chapter,
                      const std::vector<GemmKernel>& kernels,
                      ResourcesTable resources = ResourcesTable::Off);

}  // namespace tutorial
