// The checker: decides, for every call a runner made, whether the answer is right. It never
// runs with the student's code: it reads the request the grader wrote, the expectations only
// the grader and the checker see, and the results the runner left, recomputes each
// reference itself (the harness's CPU GEMM and transpose, the host references) and prints one
// JSON line per call:
//
//   exercise_check <exercise> <request.txt> <expect.txt> <results folder>
//   {"call": 0, "ok": true, "message": "..."}
//
// A call passes only if its result line is there, well formed and right: a runner that exits
// early, crashes, prints fake lines or writes fake answers gains nothing. (The memory model's
// figures come from the runner's process; exercises/INSTRUCTORS.md says what that leaves open.)
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "common/compare.hpp"
#include "common/reference.hpp"
#include "common/transpose.hpp"
#include "exercises/support/host_references.hpp"
#include "exercises/support/inputs.hpp"
#include "exercises/support/protocol.hpp"

namespace {

using exercise::protocol::Call;
namespace inputs = exercise::inputs;
namespace protocol = exercise::protocol;

struct Verdict {
  bool ok = false;
  std::string message;
  bool grader_error = false;  // the grader's side failed: only the checker's own code sets it,
                              // never text a runner wrote (the grader then marks it pending)
};

Verdict grader_error(const std::string& why) { return {false, "grader error: " + why, true}; }

std::string json_escape(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  return out;
}

// results.txt: "<call> <result line>" per call, in the order the calls ran; a call's last line
// counts (as a file written again would), a call with none left no result, and a line for a
// call the request does not hold, or not of that form (digits, one space), counts for nothing:
// the file is the student's, up to the runner's file-size limit, and holds what it likes.
std::vector<std::string> read_results(const std::string& path, size_t calls,
                                      std::vector<bool>& found) {
  std::vector<std::string> lines(calls);
  found.assign(calls, false);
  std::ifstream in(path, std::ios::binary);
  for (std::string line; std::getline(in, line);) {
    size_t digits = 0;
    while (digits < line.size() && digits < 10 && line[digits] >= '0' && line[digits] <= '9')
      ++digits;
    if (digits == 0 || digits >= line.size() || line[digits] != ' ') continue;
    const unsigned long long call = std::stoull(line.substr(0, digits));
    if (call >= calls) continue;
    lines[call] = line.substr(digits + 1);
    found[call] = true;
  }
  return lines;
}

template <typename T>
bool read_binary(const std::string& path, size_t count, std::vector<T>& values) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return false;
  const std::streamoff size = in.tellg();
  if (size != std::streamoff(count * sizeof(T))) return false;
  in.seekg(0);
  values.resize(count);
  in.read(reinterpret_cast<char*>(values.data()), std::streamsize(count * sizeof(T)));
  return bool(in);
}

std::string word(const std::string& line, size_t i) {
  std::istringstream in(line);
  std::string w;
  for (size_t k = 0; k <= i; ++k)
    if (!(in >> w)) return "";
  return w;
}

// What the runner said, turned into a failure message (empty: it says "ok").
std::string failure_of(const std::string& result) {
  const std::string kind = word(result, 0);
  const std::string rest = result.size() > kind.size() ? result.substr(kind.size() + 1) : "";
  if (kind == "ok") return "";
  if (kind == "not_implemented") return rest;  // "not implemented yet: ..."
  if (kind == "refused") return "the launcher refused the shape: " + rest;
  if (kind == "cuda_error") return "CUDA error: " + rest;
  if (kind == "error") return "error: " + rest;
  return "malformed result: " + result.substr(0, 200);
}

long launches_of(const std::string& result) {
  const size_t at = result.find("launches=");
  return at == std::string::npos ? -1 : std::strtol(result.c_str() + at + 9, nullptr, 10);
}

bool is_poison(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits == 0xFFFFFFFFu;
}

// Writes outside the output: guard floats that no longer hold the poison.
std::string guard_damage(const std::vector<float>& buffer, size_t out_elements) {
  size_t before = 0, after = 0, first_after = 0;
  for (size_t i = 0; i < protocol::kGuardBefore; ++i) before += !is_poison(buffer[i]);
  for (size_t i = protocol::kGuardBefore + out_elements; i < buffer.size(); ++i)
    if (!is_poison(buffer[i]) && after++ == 0)
      first_after = i - protocol::kGuardBefore - out_elements;
  if (before + after == 0) return "";
  std::ostringstream s;
  s << "wrote " << before + after << " float(s) outside the output: " << before
    << " in front of it, " << after << " past its end";
  if (after) s << " (the first " << first_after << " floats past the end)";
  return s.str();
}

// The reference of a matrix call on its untouched inputs. A GEMM call's op (protocol.hpp)
// says how its buffers hold A and B: stored transposed, they are transposed back first.
std::vector<float> reference_output(const Call& call) {
  if (call.is_gemm()) {
    const int M = call.dim(0), N = call.dim(1), K = call.dim(2);
    std::vector<float> A = inputs::operand_values(call.seed(), 0, size_t(M) * K);
    std::vector<float> B = inputs::operand_values(call.seed(), 1, size_t(K) * N);
    const std::string op = call.op();
    if (op != "ab" && op != "atb" && op != "abt")
      throw std::invalid_argument("unknown GEMM op " + op);
    if (op == "atb") {  // A stored K x M
      std::vector<float> stored = A;
      tutorial::cpu_transpose(stored.data(), A.data(), K, M);
    } else if (op == "abt") {  // B stored N x K
      std::vector<float> stored = B;
      tutorial::cpu_transpose(stored.data(), B.data(), N, K);
    }
    std::vector<float> C(size_t(M) * N);
    tutorial::cpu_gemm(A.data(), B.data(), C.data(), M, N, K);
    return C;
  }
  const int rows = call.dim(0), cols = call.dim(1);
  const std::vector<float> in = inputs::operand_values(call.seed(), 0, size_t(rows) * cols);
  std::vector<float> out(in.size());
  tutorial::cpu_transpose(in.data(), out.data(), rows, cols);
  return out;
}

tutorial::Tolerance tolerance_of(const Call& call) {
  return call.is_gemm() ? tutorial::Tolerance::for_gemm(call.dim(2)) : tutorial::Tolerance::exact();
}

// Output shape as the comparison reports it: rows x cols of the output.
void output_shape(const Call& call, int& rows, int& cols) {
  rows = call.is_gemm() ? call.dim(0) : call.dim(1);
  cols = call.is_gemm() ? call.dim(1) : call.dim(0);
}

Verdict check_matrix(const Call& call, const std::string& result, const std::string& prefix) {
  const std::string failed = failure_of(result);
  if (!failed.empty()) return {false, failed};
  if (launches_of(result) < 1)
    return {false, "no kernel was launched through tutorial::launch: the answer must come "
                   "from the exercise's kernel"};
  std::vector<float> buffer;
  if (!read_binary(prefix + ".bin", call.buffer_elements(), buffer))
    return {false, "the output is missing or has the wrong size"};
  const size_t offset = call.guard() ? protocol::kGuardBefore : 0;
  if (call.guard()) {
    const std::string damage = guard_damage(buffer, call.output_elements());
    if (!damage.empty()) return {false, damage};
  }
  int rows, cols;
  output_shape(call, rows, cols);
  const std::vector<float> want = reference_output(call);
  const tutorial::CompareResult r =
      tutorial::compare(buffer.data() + offset, want.data(), rows, cols, tolerance_of(call));
  return {r.ok(), r.summary()};
}

// Timed calls. Repetition r ran on inputs of its own (inputs::repetition_seed) and left a
// checksum: a +-1-weighted sum of all its outputs. The checker computes the last repetition's
// answer itself and compares the last output with it, and that repetition's checksum with the
// answer's. Every other checksum it compares with the reference timer's at the same seed
// (<i>.ref.sums, which the grader puts beside the results when it checks a student; a reference
// run is checked without it), and where they differ it recomputes that repetition to say
// whose answer is wrong. Two right answers differ in a checksum by a random walk of their
// rounding differences, far below sqrt(sum tol^2); a wrong or stale answer moves it by about
// sqrt(M * N * K) / 3 (GEMM) or sqrt(rows * cols) / 2 (transpose).
Verdict check_timed(const Call& call, const Call& expect, const std::string& result,
                    const std::string& prefix) {
  const std::string failed = failure_of(result);
  if (!failed.empty()) return {false, failed};
  if (launches_of(result) < 1)
    return {false, "no kernel was launched through tutorial::launch"};
  const int reps = call.reps();
  if (reps < 1) return grader_error("a timed call needs reps >= 1");
  std::vector<float> out;
  std::vector<double> sums, reference_sums;
  if (!read_binary(prefix + ".bin", call.output_elements(), out) ||
      !read_binary(prefix + ".sums", size_t(reps), sums))
    return {false, "the timed output or its checksums are missing or have the wrong size"};
  const bool against_reference = expect.options.count("against") != 0;
  if (against_reference && !read_binary(prefix + ".ref.sums", size_t(reps), reference_sums))
    return grader_error("the reference timer's checksums are missing");
  int rows, cols;
  output_shape(call, rows, cols);
  Call last = call;  // the last repetition's inputs: a call at that repetition's seed
  last.options["seed"] = std::to_string(inputs::repetition_seed(call.seed(), reps - 1));
  const std::vector<float> want = reference_output(last);
  const tutorial::Tolerance tol = tolerance_of(call);
  double want_sum = 0, squares = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    want_sum += inputs::weight(call.seed(), i) * double(want[i]);
    const double t = tol.atol + tol.rtol * std::fabs(want[i]);
    squares += t * t;
  }
  // Against the checker's own answer: 4 sigma of the tolerance. Against the reference kernel,
  // another FP32 GEMM on the same inputs: 1 sigma, still about a hundred times the difference
  // two FP32 summation orders make, and too tight for a lower-precision shortcut (TF32) on the
  // repetitions the checker does not recompute.
  const double slack = 4.0 * std::sqrt(squares);
  const double slack_vs_reference = std::sqrt(squares);
  auto near = [&](double got, double expected, double allowed) {
    return std::fabs(got - expected) <= allowed + 1e-9 * (1.0 + std::fabs(expected));
  };
  auto wrong = [&](int r, double expected) {
    return Verdict{false, "repetition " + std::to_string(r) + " of " + std::to_string(reps) +
                              " computed a wrong answer (its output's checksum is " +
                              std::to_string(sums[size_t(r)]) + ", the reference's " +
                              std::to_string(expected) + ")"};
  };
  // The checksum of repetition r's answer, computed here (a whole CPU GEMM: only on a doubt).
  auto own_sum = [&](int r) {
    Call at = call;
    at.options["seed"] = std::to_string(inputs::repetition_seed(call.seed(), r));
    const std::vector<float> answer = reference_output(at);
    double sum = 0;
    for (size_t i = 0; i < answer.size(); ++i)
      sum += inputs::weight(call.seed(), i) * double(answer[i]);
    return sum;
  };
  if (!near(sums[size_t(reps - 1)], want_sum, slack)) return wrong(reps - 1, want_sum);
  if (against_reference)
    for (int r = 0; r < reps; ++r) {
      if (near(sums[size_t(r)], reference_sums[size_t(r)], slack_vs_reference)) continue;
      const double own = own_sum(r);  // who is wrong: the student or the reference kernel?
      if (near(sums[size_t(r)], own, slack))
        return grader_error("the reference kernel's repetition " + std::to_string(r) +
                            " disagrees with the checker's own answer; yours agrees");
      return wrong(r, own);
    }
  const tutorial::CompareResult r = tutorial::compare(out.data(), want.data(), rows, cols, tol);
  if (!r.ok()) return {false, "the last repetition: " + r.summary()};
  return {true, "the last output right, and " +
                    (against_reference ? "the checksums of all " + std::to_string(reps) +
                                             " repetitions equal to the reference's"
                                       : std::string("its checksum"))};
}

// Model calls: the answer must be right (as for a plain call), the loads must have touched
// every byte of the inputs and the stores every byte of the output, each kind of instruction
// the expectation limits must have made requests, and for each such kind (global=<x>:
// sectors, shared=<x>: wavefronts) its single worst request must cost at most x times the
// fewest that its lanes' bytes need: lane bytes / 32 sectors, lane bytes / 128 wavefronts
// (32 banks of 4 bytes). A request of one lane needs 1/32 of a sector, so a kernel cannot
// pass by running warps of one thread; and the worst single request decides, so cheap
// requests beside it cannot average it away.
struct Figure {
  bool present = false;
  uint64_t requests = 0, cost = 0, lane_bytes = 0;
  std::string where;
};

// "key=a,b,c[,where]": totals have three numbers (requests, cost, lane bytes), a worst request
// two and its line.
Figure figure_of(const std::string& result, const std::string& key, bool worst) {
  Figure f;
  const size_t at = result.find(" " + key + "=");
  if (at == std::string::npos) return f;
  std::istringstream in(result.substr(at + key.size() + 2));
  std::string word;
  in >> word;
  std::vector<std::string> parts;
  std::istringstream split(word);
  std::string part;
  while (std::getline(split, part, ',')) parts.push_back(part);
  if (parts.size() < (worst ? 2u : 3u)) return f;
  size_t i = 0;
  if (!worst) f.requests = std::strtoull(parts[i++].c_str(), nullptr, 10);
  f.cost = std::strtoull(parts[i++].c_str(), nullptr, 10);
  f.lane_bytes = std::strtoull(parts[i++].c_str(), nullptr, 10);
  f.where = i < parts.size() ? parts[i] : "?";
  f.present = true;
  return f;
}

std::string fixed1(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", v);
  return text;
}

Verdict check_model(const Call& call, const Call& expect, const std::string& result,
                    const std::string& prefix) {
  Verdict answer = check_matrix(call, result, prefix);
  if (!answer.ok) return answer;
  const size_t at = result.find(" covered=");
  const std::string covered = at == std::string::npos ? "" : word(result.substr(at), 0);
  const std::string want_covered = call.is_gemm() ? "covered=1,1,1" : "covered=1,1";
  if (covered != want_covered)
    return {false, "the memory model did not see every access: the loads it counted must "
                   "touch every element of the input" + std::string(call.is_gemm() ? "s" : "") +
                   " and the stores every element of the output (" +
                   (covered.empty() ? "no figures" : covered) + ")"};
  struct Limit {
    const char* option;  // the expectation's key
    const char* key;     // the runner's figure
    const char* what;
    const char* unit;
    double bytes_per_unit;
  };
  const Limit limits[] = {{"global", "gld", "global loads", "sectors", 32.0},
                          {"global", "gst", "global stores", "sectors", 32.0},
                          {"shared", "sld", "shared loads", "wavefronts", 128.0},
                          {"shared", "sst", "shared stores", "wavefronts", 128.0}};
  std::string summary;
  bool ok = true;
  for (const Limit& l : limits) {
    const auto it = expect.options.find(l.option);
    if (it == expect.options.end()) continue;
    const double limit = std::strtod(it->second.c_str(), nullptr);
    const Figure total = figure_of(result, l.key, false);
    const Figure worst = figure_of(result, std::string("worst_") + l.key, true);
    if (!total.present) return {false, std::string("no memory-model figures for ") + l.what};
    if (total.requests == 0)
      return {false, std::string("the kernel made no ") + l.what + ": this test measures " +
                         l.what + " (a kernel that skips them has nothing to measure)"};
    if (!worst.present || worst.lane_bytes == 0 || worst.cost > total.cost ||
        worst.lane_bytes > total.lane_bytes || total.lane_bytes < total.requests)
      return {false, std::string("malformed memory-model figures for ") + l.what};
    const double need = double(worst.lane_bytes) / l.bytes_per_unit;
    const bool fine = double(worst.cost) <= limit * need + 1e-9;
    ok = ok && fine;
    const double requests = double(total.requests);
    std::string line = std::string(l.what) + ": " + fixed1(double(total.cost) / requests) + " " +
                       l.unit + " per request where " +
                       fixed1(double(total.lane_bytes) / l.bytes_per_unit / requests) +
                       " would do; worst request at " + worst.where + ": " +
                       std::to_string(worst.cost) + " where " + fixed1(need) + " would do";
    if (!fine) line += " (the limit is " + it->second + "x what would do)";
    summary += (summary.empty() ? "" : "; ") + line;
  }
  if (summary.empty()) return {true, "right, every access seen (nothing to limit)"};
  return {ok, (ok ? "right, and within the limits: " : "right, but over the limit: ") + summary};
}

bool close(double got, double want, double rel, double abs) {
  if (!std::isfinite(got)) return false;
  return std::fabs(got - want) <= abs + rel * std::fabs(want);
}

std::string numbers_text(const std::vector<double>& v) {
  std::ostringstream s;
  s.precision(10);
  for (size_t i = 0; i < v.size(); ++i) s << (i ? " " : "") << v[i];
  return s.str();
}

Verdict check_host(const std::string& exercise, const Call& call, const Call& expect,
                   const std::string& result) {
  if (word(result, 0) != "value") {
    const std::string failed = failure_of(result);
    return {false, failed.empty() ? "no value returned" : failed};
  }
  std::vector<double> got;
  std::istringstream in(result.substr(5));
  double v;
  while (in >> v) got.push_back(v);
  if (expect.kind == "verify") {  // the exercise's verifier judges the numbers themselves
    std::string args = call.entry + "(" + numbers_text(call.numbers) + ")";
    for (char& c : args)
      if (c == ' ') c = ',';
    std::istringstream words(result.substr(5));
    std::string token;
    size_t tokens = 0;
    while (words >> token) ++tokens;
    if (tokens != got.size())
      return {false, args + " returned a number that is not finite"};
    std::string why;
    const int verdict = exercise::host_verify(exercise, call.entry, call.numbers, got, why);
    if (verdict < 0) return grader_error(why);
    if (verdict == 1) return {true, args + " = " + numbers_text(got) + (why.empty() ? "" : ": " + why)};
    return {false, args + " returned " + (got.empty() ? "nothing" : numbers_text(got)) + ": " + why};
  }
  std::vector<double> want = expect.numbers;
  if (expect.kind == "reference") {
    std::string error;
    if (!exercise::host_reference(exercise, call.entry, call.numbers, want, error))
      return grader_error(error);
  }
  const double rel = std::strtod(expect.options.count("rel") ? expect.options.at("rel").c_str() : "1e-5", nullptr);
  const double abs = std::strtod(expect.options.count("abs") ? expect.options.at("abs").c_str() : "1e-9", nullptr);
  // The grader names the call (its label) before the verdict: the verdict does not repeat it.
  bool ok = got.size() == want.size();
  for (size_t i = 0; ok && i < got.size(); ++i) ok = close(got[i], want[i], rel, abs);
  if (ok) return {true, "= " + numbers_text(got)};
  return {false, "returned " + (got.empty() ? std::string("nothing") : numbers_text(got)) +
                     ", expected " + numbers_text(want)};
}

Verdict check_refusal(const Call& expect, const std::string& result) {
  const std::string kind = word(result, 0);
  if (kind != "refused") {
    const std::string failed = failure_of(result);
    return {false, failed.empty() ? "the launcher accepted a shape its kernel cannot handle "
                                    "(it must throw tutorial::UnsupportedShape)"
                                  : failed};
  }
  const std::string why = result.size() > kind.size() ? result.substr(kind.size() + 1) : "";
  const auto it = expect.options.find("contains");
  if (it != expect.options.end() && why.find(it->second) == std::string::npos)
    return {false, "the refusal should name the constraint (" + it->second + "): " +
                       (why.empty() ? "it gave no reason" : why)};
  return {true, "refused: " + why};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: " << argv[0] << " <exercise> <request.txt> <expect.txt> <results>\n";
    return 2;
  }
  const std::string exercise = argv[1];
  std::ifstream request(argv[2]), expectations(argv[3]);
  if (!request || !expectations) {
    std::cerr << "cannot read the request or the expectations\n";
    return 2;
  }
  std::string line, expect_line;
  std::vector<Call> calls;
  while (std::getline(request, line)) {
    Call call;
    if (protocol::parse_line(line, call)) calls.push_back(call);
  }
  std::vector<bool> found;
  const std::vector<std::string> results =
      read_results(std::string(argv[4]) + "/results.txt", calls.size(), found);
  int index = 0;
  for (const Call& call : calls) {
    Call expect;
    if (!std::getline(expectations, expect_line) || !protocol::parse_line(expect_line, expect))
      expect.kind = "none";
    const std::string prefix = std::string(argv[4]) + "/" + std::to_string(index);
    std::string result;
    Verdict verdict;
    try {
    if (found[index]) result = results[index];
    if (!found[index]) {
      verdict = {false, "no result: the runner ended before this call finished (it exited, "
                        "crashed or was stopped)"};
    } else if (call.kind == "call") {
      verdict = check_host(exercise, call, expect, result);
    } else if (call.kind == "refuse_gemm") {
      verdict = check_refusal(expect, result);
    } else if (call.timed()) {
      verdict = check_timed(call, expect, result, prefix);
    } else if (call.kind == "gemm" || call.kind == "transpose") {
      verdict = check_matrix(call, result, prefix);
    } else if (call.is_model()) {
      verdict = check_model(call, expect, result, prefix);
    } else {
      verdict = grader_error("unknown call " + call.kind);
    }
    } catch (const std::exception& e) {  // the request or a reference the checker cannot make
      verdict = grader_error(e.what());
    }
    std::cout << "{\"call\": " << index << ", \"ok\": " << (verdict.ok ? "true" : "false")
              << ", \"grader_error\": " << (verdict.grader_error ? "true" : "false")
              << ", \"message\": \"" << json_escape(protocol::one_line(verdict.message)) << "\"}"
              << std::endl;
    ++index;
  }
  return 0;
}
