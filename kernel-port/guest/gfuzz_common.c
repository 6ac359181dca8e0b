// SPDX-License-Identifier: MIT
/*
 * What every part of the differential fuzzer uses (gfuzz.h): the fatal
 * error, the seeded random stream and the names of observations and
 * operations.  A leaf: the run (gfuzz.c), the generator, the observer, the
 * replay and the comparison call it and it calls none of them.
 */
#define _GNU_SOURCE
#include "gfuzz.h"

void gf_fatal(struct gfuzz *g, const char *fmt, ...)
{
	va_list ap;

	if (g->fatal)
		return;
	g->fatal = true;
	printf("gfuzz: ERROR at step %lu (%s): ", g->step, g->op);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* splitmix64: small, seedable, the same stream on every build. */
static uint64_t gf_rand(struct gfuzz *g)
{
	uint64_t z = (g->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t gf_below(struct gfuzz *g, uint64_t n)
{
	return n ? gf_rand(g) % n : 0;
}

const char *const gf_what_names[MM_NR] = {
	"observation", "refused rmap call", "oracle", "kpagecount", "bit 56",
	"bit 56 of the zeropage", "smaps",
};

const char *const gf_op_names[OP_NR] = { "spawn", "mmap", "touch", "read", "fork",
					     "munmap", "dontneed", "mremap", "exit" };
