/* core: the seedable random generator every module shares (splitmix64),
 * so that games, rendered scenes, tests and benchmarks replay exactly
 * from a seed. */
#include "core.h"

void tp_rng_seed(tp_rng *rng, uint64_t seed) {
  rng->state = seed;
}

uint64_t tp_rng_next(tp_rng *rng) {
  uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint32_t tp_rng_below(tp_rng *rng, uint32_t n) {
  if (n <= 1) return 0;
  /* Rejection sampling: drop the top values that would favour small
   * results. They are fewer than n of 2^64, so this draws exactly what a
   * plain `next % n` would for every seed anyone will ever see. */
  uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t v;
  do
    v = tp_rng_next(rng);
  while (v >= limit);
  return (uint32_t)(v % n);
}
