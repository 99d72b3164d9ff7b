// The checker's answers for exercise 03c's host functions (support/host_references.hpp): the
// A and B strips of one block, 2 x BLOCK x K floats. Compiled into the checker only.
#include "exercises/support/host_references.hpp"

namespace {

using exercise::Args;

const exercise::HostReferences references(
    "03c_strips", {{"strip_bytes_16", [](const Args& a) { return Args{2.0 * 16 * a.at(0) * 4}; }},
                   {"strip_bytes_32", [](const Args& a) { return Args{2.0 * 32 * a.at(0) * 4}; }}});

}  // namespace
