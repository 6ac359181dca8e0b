/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the rmap fuzz targets: crash loudly on a broken
 * invariant, and take snapshots of everything a refused call must leave
 * alone.  A fuzz target reports a bug by crashing, so every failure path
 * ends in abort() after printing what was seen (the reproducer is then
 * the input file, replayable with the regression driver).
 */
#ifndef FOLIOSIM_FUZZ_COMMON_H
#define FOLIOSIM_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "foliosim/foliosim.h"

#define FZ_MAX_FOLIOS 4
#define FZ_MAX_MMS 4

/* Every libFuzzer target needs this prototype (-Wmissing-prototypes). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline void fz_die(const char *what, const char *detail)
{
	fprintf(stderr, "FUZZ FAILURE: %s: %s\n", what, detail);
	fflush(stderr);
	abort();
}

/* fsim_check_ctx() after every operation: a violation is a crash. */
static inline void fz_check_ctx(const struct fsim_ctx *ctx, const char *op)
{
	struct fsim_violation v;
	char msg[320];

	if (fsim_check_ctx(ctx, &v) == 0)
		return;
	snprintf(msg, sizeof(msg), "after %s (%s): invariant %s broken: %s", op,
		 fsim_mode_name(fsim_ctx_mode(ctx)), v.invariant, v.detail);
	fz_die("fsim_check_ctx", msg);
}

/* What a refused call must not change: every live folio's digest, every
 * node statistic, the mTHP counters and the deferred split queue. */
struct fz_snapshot {
	uint64_t digest[FZ_MAX_FOLIOS];
	int64_t stat[FSIM_NR_STATS];
	int64_t thp[32][FSIM_THP_NR_COUNTERS];
	uint64_t split_events;
	size_t deferred_len;
};

static inline void fz_snapshot_take(const struct fsim_ctx *ctx,
				    struct fsim_folio *const folios[FZ_MAX_FOLIOS],
				    struct fz_snapshot *s)
{
	unsigned int i, o;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < FZ_MAX_FOLIOS; i++)
		s->digest[i] = folios[i] ? fsim_folio_state_digest(folios[i]) : 0;
	for (i = 0; i < FSIM_NR_STATS; i++)
		s->stat[i] = fsim_ctx_stat(ctx, (enum fsim_stat)i);
	/* orders 1..pmd_order have counters (fsim_ctx_thp_counter() reads 0
	 * elsewhere); pmd_order < pud_order <= 30 */
	for (o = 1; o <= fsim_ctx_arch(ctx)->pmd_order; o++)
		for (i = 0; i < FSIM_THP_NR_COUNTERS; i++)
			s->thp[o][i] = fsim_ctx_thp_counter(ctx, o,
							    (enum fsim_thp_counter)i);
	s->split_events = fsim_ctx_thp_deferred_split_page(ctx);
	s->deferred_len = fsim_ctx_deferred_split_len(ctx);
}

/* A refused call: the state must be bit-for-bit what it was. */
static inline void fz_snapshot_same(const struct fsim_ctx *ctx,
				    struct fsim_folio *const folios[FZ_MAX_FOLIOS],
				    const struct fz_snapshot *before,
				    const char *op, int err)
{
	struct fz_snapshot after;
	char msg[200];

	fz_snapshot_take(ctx, folios, &after);
	if (memcmp(before, &after, sizeof(after)) == 0)
		return;
	snprintf(msg, sizeof(msg), "%s refused with %s (%s) but changed the state",
		 op, fsim_errname(err), fsim_mode_name(fsim_ctx_mode(ctx)));
	fz_die("refused call", msg);
}

/*
 * Figures for docs/testing.md: with FOLIOSIM_FUZZ_STATS set in the
 * environment, the target prints at exit how many inputs it ran and how
 * many operations it checked, so that "operations checked per second" can
 * be derived from libFuzzer's exec/s without guessing.
 */
struct fz_counters {
	unsigned long long execs, ops, refused;
	unsigned long long one_sided;	/* refused in one mode, not asked of the other */
};

static inline void fz_stats_print(const char *target, const struct fz_counters *c)
{
	fprintf(stderr, "%s: %llu inputs, %llu operations checked (%llu refused, "
		"%llu in one mode only)\n", target, c->execs, c->ops, c->refused, c->one_sided);
}

#endif /* FOLIOSIM_FUZZ_COMMON_H */
