// A calculator for the two rules every memory-bound kernel lives by, so that a lesson can
// predict a kernel's efficiency on paper before measuring it.
//
// Global memory: the L1/L2 move data in 32-byte sectors, tracked in 128-byte cache lines.
// A warp's load or store touches some set of sectors; the bytes in those sectors that no
// thread asked for are moved anyway. efficiency() is the share that was asked for.
//
// Shared memory: 32 banks, one 4-byte word per bank per clock. Word w lives in bank w % 32.
// If threads of a warp need k DIFFERENT words of the same bank, that bank serves them one
// after the other: a k-way bank conflict. Threads reading the SAME word get it broadcast,
// which costs nothing extra.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tutorial {

constexpr int kSectorBytes = 32;
constexpr int kCacheLineBytes = 128;
constexpr int kSharedBanks = 32;
constexpr int kBankWordBytes = 4;

struct GlobalAccessCost {
  int sectors = 0;             // distinct 32-byte sectors touched
  int lines = 0;               // distinct 128-byte lines touched
  size_t requested_bytes = 0;  // distinct bytes the threads asked for
  // requested / moved, where moved = 32 B per sector: 1.0 for a perfectly coalesced access.
  double efficiency() const;
  // The same with whole 128-byte lines as the unit of transfer (the rule before compute
  // capability 6.0 that older texts quote): requested / (128 B per line).
  double line_efficiency() const;
};

// `addresses` holds the byte address of each active thread of one warp (at most 32), each
// thread accessing `access_bytes` bytes (4 for a float, 8 for a float2, 16 for a float4).
GlobalAccessCost global_access_cost(const std::vector<uint64_t>& addresses, int access_bytes);

// The addresses of a warp in which lane t accesses base + t·stride_bytes.
std::vector<uint64_t> warp_addresses(uint64_t base, int64_t stride_bytes, int lanes = 32);

// Bank-conflict degree of one warp-wide access of 4-byte words: the largest number of
// distinct word addresses that fall into one bank (1 = conflict-free, 32 = fully serialized).
// `word_addresses` are indices of 4-byte words (byte address / 4), one per active thread.
int bank_conflict_degree(const std::vector<uint32_t>& word_addresses);

struct SharedAccessCost {
  int degree = 0;      // worst conflict degree of any phase (1 = conflict-free)
  int wavefronts = 0;  // passes through the banks for the whole warp; ideal = words_per_thread
};

// Vector accesses (float2: 2 words, float4: 4 words per thread). A warp then asks for more
// than the 128 bytes the banks deliver per pass, so the hardware splits it into phases of
// 32 / words_per_thread consecutive threads (half-warps for 8 bytes, quarter-warps for 16)
// and counts conflicts inside each phase. `first_words[t]` is the first word thread t
// accesses; it must be a multiple of words_per_thread (vector accesses are aligned).
// This is the model the CUDA documentation describes; it is conservative for some 8-byte
// patterns that recent GPUs merge further.
SharedAccessCost shared_access_cost(const std::vector<uint32_t>& first_words, int words_per_thread);

}  // namespace tutorial
