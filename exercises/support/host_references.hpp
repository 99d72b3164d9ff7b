// The checker's own answers for the host exercises' functions, computed with the harness's
// simulators (common/memory_access.hpp, common/occupancy.hpp, common/device_info.hpp) or
// the arithmetic the chapters teach. Never linked into a runner.
#pragma once

#include <string>
#include <vector>

namespace exercise {

// Fills `out` and returns true, or returns false with `error` set (unknown function, or
// arguments outside what the function accepts).
bool host_reference(const std::string& exercise, const std::string& function,
                    const std::vector<double>& args, std::vector<double>& out, std::string& error);

}  // namespace exercise
