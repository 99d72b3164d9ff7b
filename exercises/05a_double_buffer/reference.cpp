// The checker's answers for exercise 05a's question, why one barrier per step is enough
// (support/host_references.hpp). Step t reads buffer t % B and stores into (t + 1) % B: that
// buffer was last read in step t + 1 - B (none yet if negative); only B = 1 needs a second
// barrier. Compiled into the checker only.
#include <algorithm>

#include "exercises/support/host_references.hpp"

namespace {

using exercise::Args;

const exercise::HostReferences references(
    "05a_double_buffer",
    {{"last_read_step",
      [](const Args& a) { return Args{double(std::max(int(a.at(0)) + 1 - int(a.at(1)), -1))}; }},
     {"barriers_per_step", [](const Args& a) { return Args{int(a.at(0)) == 1 ? 2.0 : 1.0}; }}});

}  // namespace
