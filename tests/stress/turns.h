/* SPDX-License-Identifier: MIT */
/*
 * A seeded deterministic scheduler for the stress test: the threads take
 * turns, one at a time, switching only at the model's hook points
 * (fsim_ctx_set_sched_hook()) and at the test's own yield points; a PRNG
 * seeded from the command line picks the next thread at every switch.
 * Since every decision comes from seeded PRNGs and only one thread runs
 * at a time, a seed names one interleaving and `--seed N` replays it
 * exactly (the run prints a hash of the switch sequence to prove it).
 *
 * The only lock the model holds across a hook point is the bit spinlock
 * in _mm_ids (between "folio_lock_large_mapcount" and
 * "folio_unlock_large_mapcount").  A thread about to take it for a folio
 * whose lock another thread holds would spin forever while holding the
 * turn, so such a thread is not runnable until the holder releases it.
 */
#ifndef FOLIOSIM_STRESS_TURNS_H
#define FOLIOSIM_STRESS_TURNS_H

#include <stdbool.h>
#include <stdint.h>

#define TURNS_MAX_THREADS 32

struct turns;

/* Called by the turn holder when every writer is between rmap calls. */
typedef void (*turns_quiescent_fn)(void *arg);

struct turns *turns_create(unsigned int nthreads, uint64_t seed,
			   turns_quiescent_fn quiescent, void *arg);
void turns_destroy(struct turns *t);

/* Each thread calls turns_enter() first (it blocks until its turn) and
 * turns_exit() last.  @writer: counts for quiescent points. */
void turns_enter(struct turns *t, unsigned int id, bool writer);
void turns_exit(struct turns *t);

/* The current thread's next rmap call is on @folio (for lock tracking). */
void turns_set_folio(const void *folio);

/* A switch point; @where is a hook name or the test's own label.  "op"
 * marks a writer between two rmap calls. */
void turns_yield(struct turns *t, const char *where);

/* The fsim_sched_hook_t to install: arg is the struct turns. */
void turns_hook(void *arg, const char *where);

uint64_t turns_switches(const struct turns *t);
uint64_t turns_trace_hash(const struct turns *t);
uint64_t turns_quiescent_checks(const struct turns *t);

/* splitmix64: the PRNG of the scheduler and of the test threads. */
static inline uint64_t turns_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

#endif /* FOLIOSIM_STRESS_TURNS_H */
