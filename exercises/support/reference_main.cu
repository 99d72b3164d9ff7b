// The reference timer of the speed tests: the chapter's own kernel, timed with the same loop
// as the student's runner (timing_loop.hpp), in a process of its own with no student code.
//
//   exercise_reference <reference> <request.txt | -> <results folder>  ("-": standard input)
//
// <reference> names a kernel registered by an exercise's race.cu (race_references.hpp); the
// request holds one time_gemm or time_transpose line (protocol.hpp). Writes results.txt ("0 ok
// launches=<n> median_ms=<t>"), 0.bin and 0.sums like a runner, so the checker can verify the
// reference too.
#include <fstream>
#include <iostream>
#include <string>

#include "exercises/support/protocol.hpp"
#include "exercises/support/race_references.hpp"
#include "exercises/support/timing_loop.hpp"

namespace {

using exercise::race::Reference;

void write_file(const std::string& path, const void* data, size_t bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char*>(data), std::streamsize(bytes));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--list") {
    for (const Reference& r : exercise::race::references()) std::cout << r.name << "\n";
    return 0;
  }
  if (argc != 4) {
    std::cerr << "usage: " << argv[0] << " <reference> <request.txt | -> <results folder> | --list\n";
    return 2;
  }
  const Reference* ref = nullptr;
  for (const Reference& r : exercise::race::references())
    if (r.name == argv[1]) ref = &r;
  if (!ref) {
    std::cerr << "no reference kernel named " << argv[1] << " (--list lists them)\n";
    return 2;
  }
  std::ifstream file;
  if (std::string(argv[2]) != "-") file.open(argv[2]);
  std::istream& request = std::string(argv[2]) == "-" ? std::cin : file;
  std::string line;
  exercise::protocol::Call call;
  while (std::getline(request, line) && !exercise::protocol::parse_line(line, call)) {
  }
  try {
    exercise::timing::Timed t;
    if (call.kind == "time_gemm" && ref->gemm)
      t = exercise::timing::time_gemm(ref->gemm, call.dim(0), call.dim(1), call.dim(2),
                                      call.seed(), call.reps());
    else if (call.kind == "time_transpose" && ref->transpose)
      t = exercise::timing::time_transpose(ref->transpose, call.dim(0), call.dim(1), call.seed(),
                                           call.reps());
    else
      throw std::invalid_argument("the request is not a timed call for " + ref->name);
    const std::string prefix = std::string(argv[3]) + "/0";
    write_file(prefix + ".bin", t.output.data(), t.output.size() * sizeof(float));
    write_file(prefix + ".sums", t.sums.data(), t.sums.size() * sizeof(double));
    std::ofstream(std::string(argv[3]) + "/results.txt")
        << "0 ok launches=" << t.launches << " median_ms=" << t.median_ms << "\n";
  } catch (const std::exception& e) {
    std::cerr << "reference " << ref->name << ": " << e.what() << "\n";
    return 1;
  }
  return 0;
}
