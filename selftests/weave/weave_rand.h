/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small seeded pseudo-random generator for the weave suites that draw
 * their inputs at random (the fuzzer, the stress test).  It is splitmix64:
 * one 64-bit word of state, a fixed sequence per seed on every machine, so
 * a printed seed replays a run.
 */
#ifndef _WEAVE_RAND_H_
#define _WEAVE_RAND_H_

#include <stdint.h>
#include <time.h>
#include <unistd.h>

/* The next 64 random bits of the generator whose state is @s. */
static inline uint64_t weave_rand64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A value in [0, @n); 0 if @n is 0.  The bias (n / 2^64) is negligible. */
static inline uint64_t weave_rand_below(uint64_t *s, uint64_t n)
{
	uint64_t r = weave_rand64(s);

	return n ? r % n : 0;
}

/* A value in [@lo, @hi]. */
static inline uint64_t weave_rand_range(uint64_t *s, uint64_t lo, uint64_t hi)
{
	return lo + weave_rand_below(s, hi - lo + 1);
}

/* True with probability 1 / @n. */
static inline int weave_rand_one_in(uint64_t *s, uint64_t n)
{
	return weave_rand_below(s, n) == 0;
}

/* The state of stream @i of the generator seeded with @seed. */
static inline uint64_t weave_rand_stream(uint64_t seed, uint64_t i)
{
	uint64_t s = seed ^ (0xd1b54a32d192ed03ull * (i + 1));

	return weave_rand64(&s);
}

/* A seed from the clock and the process id, for runs not given one. */
static inline uint64_t weave_rand_seed(void)
{
	struct timespec ts;
	uint64_t s;

	clock_gettime(CLOCK_REALTIME, &ts);
	s = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	s ^= (uint64_t)getpid() << 32;
	return weave_rand64(&s);
}

#endif /* _WEAVE_RAND_H_ */
