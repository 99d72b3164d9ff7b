// The command line every chapter executable shares.
//   --size N          M = N = K = N (for a transpose: rows = cols = N)
//   --m M --n N --k K sizes one by one (--rows/--cols are aliases of --m/--n; a transpose
//                     has no K, and refuses --k). Each matrix may hold at most INT_MAX
//                     elements (the kernels index with int): checked here, before any GPU
//                     is looked for
//   --kernel PREFIX   run only the kernels whose names start with PREFIX (repeatable; the
//                     ceiling always runs)
//   --iters R         timed repetitions (median reported)
//   --seed S          random inputs are reproducible from the seed
//   --no-check        skip the correctness check
//   --carveout P      ask for P% of each SM's unified L1/shared memory as shared memory for
//                     every kernel (cudaFuncAttributePreferredSharedMemoryCarveout; a
//                     preference the driver may override); default: the driver's choice
//   --csv | --json    machine-readable output instead of the table
//   --help
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace tutorial {

struct CliError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

enum class OutputFormat { Table, Csv, Json };
enum class Problem { Gemm, Transpose };  // which sizes the flags set, and the help text

struct CliOptions {
  int m = 4096, n = 4096, k = 4096;
  int iters = 10;
  uint64_t seed = 2024;
  bool check = true;
  int carveout = -1;  // --carveout P, 0..100; -1: not set
  OutputFormat format = OutputFormat::Table;
  bool help = false;
  Problem problem = Problem::Gemm;  // set by the chapter in its defaults
  std::vector<std::string> kernels;  // --kernel prefixes, in the order given; empty: all
  std::string choose;                // --choose estimate|measure (common/chooser.hpp); empty: unset
  bool print_choices = false;        // --print-choices
};

// "gemm" or "transpose": the problem kind as the CSV/JSON reports name it.
std::string to_string(Problem problem);

// `defaults` supplies the chapter's default sizes; throws CliError with a message that names
// the flag and the bad value.
CliOptions parse_cli(int argc, const char* const* argv, const CliOptions& defaults = {});
std::string usage(const std::string& program, const CliOptions& defaults = {});

}  // namespace tutorial
