// Exercise 04c: wavefronts of a warp's 16-byte shared load, LDS.128 (chapter 04). Host only:
// no GPU needed.
//
// Chapter 04's rule ("Wavefronts per LDS.128", measured with Nsight Compute on an H100):
//   * a 16-byte load asks for up to 512 bytes per warp and a wavefront carries 128, so the
//     hardware serves a QUARTER warp (lanes 0-7, 8-15, 16-23, 24-31) per pass;
//   * within a quarter, chunk c (the 16 bytes at words 4c .. 4c + 3) lies in banks
//     4(c % 8) .. 4(c % 8) + 3, a group of four: a quarter takes as many passes as the most
//     DIFFERENT chunks that fall into one group (lanes reading the same chunk share it);
//   * the two quarters of a half warp (0 and 1, 2 and 3) share ONE wavefront when together
//     they ask for at most four distinct chunks (a chunk counted once per quarter that asks for
//     it) and no bank holds two different words of theirs.
//
//   every lane the same chunk:      each quarter 1 chunk; a pair asks for 2: 1 per half -> 2
//   32 consecutive chunks:          each quarter 8 chunks in 8 groups: 1 each, no pair   -> 4
//   chunks 2 apart (8 floats):      a quarter's 8 chunks fall in 4 groups, 2 each        -> 8
//
// The pattern: lane t reads the chunk that starts at word (t / group) * outer + (t % group) *
// inner: lanes come in groups of `group` consecutive lanes (1 <= group <= 32), `inner` words
// apart within a group and `outer` words apart from group to group (both multiples of 4, >= 0).
// Chapter 04's vectorized kernel reads A as group 16, inner 0, outer TM (a thread row shares
// its chunk) and B as group 16, inner TN, outer 0; chapter 05's warp tile reads A as group 4,
// inner 0, outer 4 and B as group 4, inner 4, outer 0.
//
// Your task: wavefronts() for any such pattern. Test with `make check` in this folder.
#pragma once

#include "exercises/support/exercise.hpp"

namespace ex04c {

constexpr int kWarp = 32;
constexpr int kQuarter = 8;

// Wavefronts of one LDS.128 of a full warp in which lane t reads the 16-byte chunk starting
// at word (t / group) * outer + (t % group) * inner.
inline int wavefronts(int group, int inner, int outer) {
  return exercise::todo<int>("04c_wavefronts: wavefronts", group, inner, outer);
}

}  // namespace ex04c
