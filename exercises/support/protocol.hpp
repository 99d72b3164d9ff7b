// The files the grader, the runner and the checker pass each other (one test = one runner
// process). All three read the same request; only the grader and the checker see the
// expectations. Header-only, host code, no CUDA.
//
// request.txt, one call per line (tokens separated by spaces; entry names have none):
//   gemm <entry> <M> <N> <K> seed=<S> guard=<0|1>          C = A*B on inputs from the seed
//   transpose <entry> <rows> <cols> seed=<S> guard=<0|1>   out = in^T
//   refuse_gemm <entry> <M> <N> <K>                        null pointers: must throw first
//   call <entry> <numbers...>                              a host function
//   time_gemm <entry> <M> <N> <K> seed=<S> reps=<R>        R timed repetitions (GPU only)
//   time_transpose <entry> <rows> <cols> seed=<S> reps=<R>
//   model_gemm <entry> <M> <N> <K> seed=<S>                as gemm, counted by the memory model
//   model_transpose <entry> <rows> <cols> seed=<S>         as transpose, counted likewise
// guard=1 puts the output inside a poisoned guard band (kGuardBefore floats in front,
// guard_after() floats behind) and the runner returns the whole band. op=<atb|abt> on a GEMM
// line names another product of the same buffers (A: M*K floats, B: K*N): atb C = A^T B with A
// stored K x M, abt C = A B^T with B stored N x K (absent: C = A B). The runner makes the same
// call either way; the checker and the reference timer compute that product.
//
// The runner writes, for call number i (from 0), into its results folder:
//   results.txt   a line "<i> <result>" once call i has ended, the result one of "ok
//           launches=<n> [median_ms=<t>] [<model figures>]", "value <numbers...>",
//           "refused <message>", "not_implemented <message>", "cuda_error <message>" or
//           "error <message>" (one file for all calls: a host test makes thousands); the
//           checker takes a call's last line, and ignores lines of calls the request lacks
//   i.bin   the output matrix (with its guard band), float32, native byte order
//   i.sums  timed calls: one float64 checksum of the output per repetition
// and, after the last call, an empty file "done" (then the runner ends at once). A model
// call's figures (the memory model's runner, common/cpu_backend/analyze/memory_model.hpp) are
// key=value words after launches=:
//   gld=<requests>,<sectors>,<lane bytes>   global loads (gst= stores), summed; lane bytes:
//                                           what the active lanes asked for
//   sld=<requests>,<wavefronts>,<lane bytes>   shared loads (sst= stores), summed
//   worst_gld=<sectors>,<lane bytes>,<file:line>   the single request with the most sectors
//                                                  per lane byte (worst_sld: wavefronts)
//   covered=<0|1>,...   the loads touched every byte of each input (A and B, or the
//                       transpose's input), the stores every byte of the output When it checks a student's timed call the
// grader adds i.ref.sums, the reference timer's checksums at the same seed (never the runner).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace exercise::protocol {

// 1024 floats (4 KB) in front keep the output 16-byte aligned for float4 kernels.
constexpr size_t kGuardBefore = 1024;
// The largest tile edge any exercise uses: a kernel that ignores the edge of its last tile
// writes at most this many rows and columns past the end of the output.
constexpr size_t kMaxTile = 128;
inline size_t guard_after(size_t row_length) {
  return kMaxTile * (row_length + kMaxTile) + kGuardBefore;
}

struct Call {
  std::string kind;                           // gemm, transpose, refuse_gemm, call, time_*
  std::string entry;
  std::vector<double> numbers;                // positional arguments
  std::map<std::string, std::string> options;  // key=value

  int dim(size_t i) const { return i < numbers.size() ? int(numbers[i]) : 0; }
  uint64_t seed() const { return option_u64("seed", 1); }
  bool guard() const { return option_u64("guard", 0) != 0; }
  int reps() const { return int(option_u64("reps", 0)); }
  bool timed() const { return kind == "time_gemm" || kind == "time_transpose"; }
  bool is_gemm() const {
    return kind == "gemm" || kind == "time_gemm" || kind == "refuse_gemm" || kind == "model_gemm";
  }
  bool is_transpose() const {
    return kind == "transpose" || kind == "time_transpose" || kind == "model_transpose";
  }
  bool is_model() const { return kind == "model_gemm" || kind == "model_transpose"; }
  // The product a GEMM call asks for: "ab", "atb" or "abt" (see above).
  std::string op() const {
    const auto it = options.find("op");
    return it == options.end() ? "ab" : it->second;
  }

  uint64_t option_u64(const std::string& key, uint64_t fallback) const {
    const auto it = options.find(key);
    return it == options.end() ? fallback : std::strtoull(it->second.c_str(), nullptr, 10);
  }
  // Elements of the output the call returns (without its guard band), and of its rows.
  size_t output_elements() const { return size_t(dim(0)) * size_t(dim(1)); }  // M*N, rows*cols
  size_t output_row_length() const { return is_gemm() ? size_t(dim(1)) : size_t(dim(0)); }
  size_t buffer_elements() const {
    return output_elements() + (guard() ? kGuardBefore + guard_after(output_row_length()) : 0);
  }
};

// Splits one line; false for a blank line or a comment (#).
inline bool parse_line(const std::string& line, Call& call) {
  std::istringstream in(line);
  std::string token;
  if (!(in >> call.kind) || call.kind[0] == '#') return false;
  in >> call.entry;
  while (in >> token) {
    const size_t eq = token.find('=');
    if (eq != std::string::npos)
      call.options[token.substr(0, eq)] = token.substr(eq + 1);
    else
      call.numbers.push_back(std::strtod(token.c_str(), nullptr));
  }
  return true;
}

// One line for a result file: newlines and tabs become " | " and spaces.
inline std::string one_line(std::string text) {
  std::string out;
  for (char c : text) {
    if (c == '\n') out += " | ";
    else if (c == '\r' || c == '\t') out += ' ';
    else out += c;
  }
  if (out.size() > 2000) out = out.substr(0, 2000) + " ...";
  return out;
}

}  // namespace exercise::protocol
