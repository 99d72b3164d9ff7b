#include <vector>

#include "common/catch_compat.hpp"
#include "common/cli.hpp"

using namespace tutorial;

namespace {
CliOptions parse(std::vector<const char*> args) {
  args.insert(args.begin(), "prog");
  return parse_cli(int(args.size()), args.data());
}
}  // namespace

TEST_CASE("defaults and --size", "[cli]") {
  CliOptions o = parse({});
  CHECK(o.m == 4096);
  CHECK(o.check);
  o = parse({"--size", "127"});
  CHECK(o.m == 127);
  CHECK(o.n == 127);
  CHECK(o.k == 127);
}

TEST_CASE("individual sizes, flags and formats", "[cli]") {
  const CliOptions o = parse({"--m", "1", "--n", "4097", "--k", "3", "--iters", "5", "--seed", "9",
                              "--no-check", "--json"});
  CHECK(o.m == 1);
  CHECK(o.n == 4097);
  CHECK(o.k == 3);
  CHECK(o.iters == 5);
  CHECK(o.seed == 9);
  CHECK_FALSE(o.check);
  CHECK(o.format == OutputFormat::Json);
  CHECK(parse({"--rows", "5", "--cols", "6"}).n == 6);
  CHECK(parse({"--help"}).help);
  CHECK(parse({}).carveout == -1);  // the driver's choice unless asked
  CHECK(parse({"--carveout", "100"}).carveout == 100);
  CHECK(parse({"--carveout", "0"}).carveout == 0);
}

TEST_CASE("bad values give an error that names the flag", "[cli]") {
  auto message_of = [](std::vector<const char*> args) -> std::string {
    try {
      parse(std::move(args));
    } catch (const CliError& e) {
      return e.what();
    }
    return "no error";
  };
  CHECK(message_of({"--size", "0"}) == "--size must be between 1 and 1048576, got 0");
  CHECK(message_of({"--size", "-5"}).find("--size must be between") == 0);
  CHECK(message_of({"--m", "abc"}) == "--m expects an integer, got 'abc'");
  CHECK(message_of({"--k", "12x"}) == "--k expects an integer, got '12x'");
  CHECK(message_of({"--iters"}) == "--iters expects a value");
  CHECK(message_of({"--carveout", "101"}) == "--carveout must be between 0 and 100, got 101");
  CHECK(message_of({"--fast"}) == "unknown option '--fast'");
  CHECK(message_of({"--size", "99999999999999999999"}).find("expects an integer") != std::string::npos);
}

TEST_CASE("a transpose has no K, and one output format is chosen", "[cli]") {
  CliOptions transpose;
  transpose.problem = Problem::Transpose;
  std::vector<const char*> args = {"prog", "--rows", "3", "--k", "5"};
  CHECK_THROWS_AS(parse_cli(int(args.size()), args.data(), transpose), CliError);
  args = {"prog", "--rows", "3", "--cols", "7"};
  const CliOptions o = parse_cli(int(args.size()), args.data(), transpose);
  CHECK((o.m == 3 && o.n == 7));
  CHECK_THROWS_AS(parse({"--csv", "--json"}), CliError);
  CHECK(parse({"--json", "--json"}).format == OutputFormat::Json);
  // A transpose may be thin: a side past 2^20 is fine, the element count is what is limited.
  args = {"prog", "--rows", "4", "--cols", "5000000"};
  CHECK(parse_cli(int(args.size()), args.data(), transpose).n == 5000000);
  args = {"prog", "--rows", "100000", "--cols", "100000"};
  CHECK_THROWS_AS(parse_cli(int(args.size()), args.data(), transpose), CliError);
  CHECK_THROWS_AS(parse({"--n", "5000000"}), CliError);  // a GEMM side is still at most 2^20
  const std::string u = usage("prog", transpose);
  CHECK(u.find("--k K") == std::string::npos);
  CHECK(usage("prog").find("--k K") != std::string::npos);
  CHECK(u.find("rows = cols") != std::string::npos);
}

TEST_CASE("a GEMM no kernel can index is refused while parsing, before any GPU is looked for",
          "[cli]") {
  // 100000^2 elements per matrix: each side is allowed, the matrices are not (INT_MAX).
  CHECK_THROWS_AS(parse({"--size", "100000"}), CliError);
  CHECK_THROWS_AS(parse({"--m", "65536", "--k", "32768", "--n", "1"}), CliError);  // A
  CHECK_THROWS_AS(parse({"--m", "1", "--k", "32768", "--n", "65536"}), CliError);  // B
  CHECK_THROWS_AS(parse({"--m", "65536", "--k", "1", "--n", "32768"}), CliError);  // C
  CHECK(parse({"--size", "46340"}).m == 46340);  // 46340^2 < 2^31 - 1
  CHECK_THROWS_AS(parse({"--size", "46341"}), CliError);
  CHECK(parse({"--m", "1048576", "--n", "2047", "--k", "1"}).n == 2047);
}

TEST_CASE("the kernel selection is repeatable and keeps its prefixes in order", "[cli]") {
  CHECK(parse({}).kernels.empty());
  const CliOptions o = parse({"--kernel", "pipelined", "--kernel", "stream-K 128"});
  REQUIRE(o.kernels.size() == 2);
  CHECK(o.kernels[0] == "pipelined");
  CHECK(o.kernels[1] == "stream-K 128");
  CHECK_THROWS_AS(parse({"--kernel"}), CliError);
  CHECK_THROWS_AS(parse({"--kernel", ""}), CliError);
}

TEST_CASE("usage lists every flag", "[cli]") {
  const std::string u = usage("prog");
  for (const char* flag : {"--size", "--m", "--kernel", "--iters", "--seed", "--no-check",
                           "--carveout", "--csv", "--json"})
    CHECK(u.find(flag) != std::string::npos);
}

TEST_CASE("the final launchers' flags: --choose and --print-choices", "[cli]") {
  CHECK(parse({}).choose.empty());
  CHECK_FALSE(parse({}).print_choices);
  CHECK(parse({"--choose", "estimate"}).choose == "estimate");
  CHECK(parse({"--choose", "measure", "--print-choices"}).print_choices);
  CHECK_THROWS_AS(parse({"--choose", "fastest"}), CliError);
  CHECK_THROWS_AS(parse({"--choose"}), CliError);
}
