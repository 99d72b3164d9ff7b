// The checker's own answers for the host exercises' functions: each exercise's references and
// verifiers live beside it (<exercise>/reference.cpp, below), computed with the harness's
// simulators (common/memory_access.hpp, common/occupancy.hpp, common/device_info.hpp), the
// memory model's rules (shared_memory_rule.hpp) or the arithmetic the chapters teach; the
// self-test fixture's are in host_references.cpp. Never linked into a runner.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace exercise {

// Fills `out` and returns true, or returns false with `error` set (unknown function, or
// arguments outside what the function accepts).
bool host_reference(const std::string& exercise, const std::string& function,
                    const std::vector<double>& args, std::vector<double>& out, std::string& error);

// An exercise's own references live beside it, in <exercise>/reference.cpp (compiled into the
// checker only, never into a runner), and register themselves by name:
//
//   static const exercise::HostReferences refs("02b_banks", {
//       {"bank_of", [](const exercise::Args& a) { return exercise::Args{...}; }},
//   });
//
// A reference computes the expected numbers ("expect": "reference"); a verifier judges the
// numbers a student returned ("expect": "verify": a layout, a swizzle, a split that must have
// some property, where many answers are right), filling `why` when they are wrong. Either
// may throw std::invalid_argument for arguments it does not take (a grader error).
using Args = std::vector<double>;
using HostReference = std::function<Args(const Args& args)>;
using HostVerifier = std::function<bool(const Args& args, const Args& got, std::string& why)>;

struct HostReferences {
  HostReferences(const std::string& exercise,
                 std::vector<std::pair<std::string, HostReference>> references,
                 std::vector<std::pair<std::string, HostVerifier>> verifiers = {});
};

// 1: `got` is right for `args`; 0: wrong (`why` says how); -1: no verifier, or it refused the
// arguments (`why`: the grader's error).
int host_verify(const std::string& exercise, const std::string& function, const Args& args,
                const Args& got, std::string& why);

}  // namespace exercise
