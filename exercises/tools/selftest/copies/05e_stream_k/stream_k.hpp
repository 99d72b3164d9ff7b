// A copy of the repository's own code for exercise 05e (selftest/copies.py): chapter 05's
// plan_stream_k and StreamKPlan::begin (05_double_buffer/7_stream_k.cuh) re-typed under the
// exercise's names; what the chapter has no function for stays as the stub has it. It must
// score no more than the stub.
#pragma once

#include "exercises/support/exercise.hpp"

namespace ex05e {

// The first iteration (numbered over all tiles, tile t's being t * kIters .. (t+1) * kIters - 1)
// of stream-K block b, 0 <= b <= slots (b = slots: the end of the last range). With whole
// waves (R = 0) there are no stream-K iterations: tiles * kIters for every b.
inline long long range_begin(long long tiles, long long kIters, long long slots, long long b) {
  // 05_double_buffer/7_stream_k.cuh: plan_stream_k (StreamKShare::LastWave) and StreamKPlan::begin.
  const long long partial = tiles % slots;
  const long long skTiles = partial == 0 ? 0 : partial;
  const long long dpTiles = tiles - skTiles;
  return dpTiles * kIters + skTiles * kIters * b / slots;
}

// Into how many pieces tile t is computed: 1 for a whole tile, the number of stream-K blocks
// whose (non-empty) range overlaps its iterations otherwise.
inline long long pieces(long long tiles, long long kIters, long long slots, long long t) {
  return exercise::todo<long long>("05e_stream_k: pieces", tiles, kIters, slots, t);
}

// How many tiles need the fixup: those computed in more than one piece.
inline long long split_tiles(long long tiles, long long kIters, long long slots) {
  return exercise::todo<long long>("05e_stream_k: split_tiles", tiles, kIters, slots);
}

// The iterations of the busiest slot: the time of the launch, in k-iterations, if every
// iteration costs the same. mode 0: one block per tile (waves of `slots` tiles); mode 1:
// stream-K as above (the full waves, then the busiest stream-K range).
inline long long busiest_iterations(long long tiles, long long kIters, long long slots, int mode) {
  return exercise::todo<long long>("05e_stream_k: busiest_iterations", tiles, kIters, slots, mode);
}

}  // namespace ex05e
