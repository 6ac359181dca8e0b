/* SPDX-License-Identifier: MIT */
/*
 * What every benchmark of tests/bench shares: CPU and wall clocks, medians
 * of rounds, the floor a model call is compared with, and the report (one
 * human line and one JSON line per figure).
 *
 * A figure is always a ratio of two configurations measured in the same
 * run: the rounds interleave the configurations, so that a change of the
 * machine's speed during the run touches both alike.
 */
#ifndef FOLIOSIM_BENCH_H
#define FOLIOSIM_BENCH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BENCH_MAX_ROUNDS 64

static inline double bench_clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* This thread's CPU time: what a round costs, not what the scheduler did
 * to it in between. */
static inline double bench_cpu_ns(void)
{
	return bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

static inline double bench_wall_ns(void)
{
	return bench_clock_ns(CLOCK_MONOTONIC);
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The rounds' measurements of one configuration. */
struct bench_series {
	double v[BENCH_MAX_ROUNDS];
	unsigned int n;
};

static inline void bench_series_add(struct bench_series *s, double v)
{
	if (s->n < BENCH_MAX_ROUNDS)
		s->v[s->n++] = v;
}

static inline double bench_median(const struct bench_series *s)
{
	double tmp[BENCH_MAX_ROUNDS];

	if (!s->n)
		return 0;
	memcpy(tmp, s->v, s->n * sizeof(double));
	qsort(tmp, s->n, sizeof(double), bench_cmp_double);
	return s->n % 2 ? tmp[s->n / 2] : (tmp[s->n / 2 - 1] + tmp[s->n / 2]) / 2;
}

static inline double bench_min(const struct bench_series *s)
{
	double m = s->n ? s->v[0] : 0;
	unsigned int i;

	for (i = 1; i < s->n; i++)
		if (s->v[i] < m)
			m = s->v[i];
	return m;
}

/*
 * One figure: configuration @a against configuration @b, both in @unit
 * (a cost such as ns per pair, or a rate such as pairs per second), the
 * ratio of their medians, and the target if there is one
 * (@target > 0: the ratio must be <= @target when @at_most, else >=).
 */
struct bench_figure {
	const char *bench, *name, *unit;
	const char *a_label, *b_label;
	const struct bench_series *a, *b;
	double target;
	bool at_most;
};

static inline void bench_report(const struct bench_figure *f)
{
	const double ma = bench_median(f->a), mb = bench_median(f->b);
	const double ratio = mb > 0 ? ma / mb : 0;
	const char *verdict = "";

	if (f->target > 0)
		verdict = (f->at_most ? ratio <= f->target : ratio >= f->target) ?
			  " (target met)" : " (target missed)";
	printf("%-40s %s %.4g %s (min %.4g) / %s %.4g (min %.4g) = %.3gx",
	       f->name, f->a_label, ma, f->unit, bench_min(f->a), f->b_label, mb,
	       bench_min(f->b), ratio);
	if (f->target > 0)
		printf("; target %s %.3gx%s", f->at_most ? "<=" : ">=", f->target,
		       verdict);
	printf("\n");
	printf("{\"bench\":\"%s\",\"figure\":\"%s\",\"unit\":\"%s\","
	       "\"a\":\"%s\",\"a_median\":%.6g,\"a_min\":%.6g,"
	       "\"b\":\"%s\",\"b_median\":%.6g,\"b_min\":%.6g,"
	       "\"ratio\":%.6g,\"rounds\":%u,\"target\":%.6g,\"target_is_max\":%s}\n",
	       f->bench, f->name, f->unit, f->a_label, ma, bench_min(f->a),
	       f->b_label, mb, bench_min(f->b), ratio, f->a->n, f->target,
	       f->at_most ? "true" : "false");
	fflush(stdout);
}

/*
 * The floor: the least an rmap add or remove of the RFC must do, a bit
 * spinlock (bit_spin_lock() on the folio's _mm_ids, as folio_lock_large_
 * mapcount() takes it) around three counter read-modify-writes (the large
 * mapcount, the total mapped pages, the mm's slot mapcount).  A pair is
 * that twice.
 */
struct bench_floor {
	_Atomic uint64_t word;
	_Atomic long counters[3];
};

#define BENCH_FLOOR_LOCK_BIT 63

static inline void bench_floor_lock(struct bench_floor *fl)
{
	const uint64_t bit = (uint64_t)1 << BENCH_FLOOR_LOCK_BIT;

	while (atomic_fetch_or_explicit(&fl->word, bit, memory_order_acquire) & bit)
		while (atomic_load_explicit(&fl->word, memory_order_relaxed) & bit)
			;
}

static inline void bench_floor_unlock(struct bench_floor *fl)
{
	const uint64_t bit = (uint64_t)1 << BENCH_FLOOR_LOCK_BIT;

	atomic_fetch_and_explicit(&fl->word, ~bit, memory_order_release);
}

static inline void bench_floor_op(struct bench_floor *fl, long delta)
{
	bench_floor_lock(fl);
	atomic_fetch_add_explicit(&fl->counters[0], delta, memory_order_relaxed);
	atomic_fetch_add_explicit(&fl->counters[1], delta, memory_order_relaxed);
	atomic_fetch_add_explicit(&fl->counters[2], delta, memory_order_relaxed);
	bench_floor_unlock(fl);
}

static inline void bench_floor_pair(struct bench_floor *fl)
{
	bench_floor_op(fl, 1);
	bench_floor_op(fl, -1);
}

static inline void bench_die(const char *what, int err)
{
	fprintf(stderr, "bench: %s failed (%d)\n", what, err);
	exit(1);
}

#endif /* FOLIOSIM_BENCH_H */
