// SPDX-License-Identifier: MIT
/*
 * The oracle (oracle.c): piecewise-constant counts per (mm, level) over
 * page indices.  Random adds and removes on small folios are compared
 * with a naive per-page array after every operation; a few deterministic
 * cases pin down splits, merges and the repeated-identical-range fast
 * path.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "internal.h"

#define PTE FSIM_LEVEL_PTE
#define PMD FSIM_LEVEL_PMD
#define PUD FSIM_LEVEL_PUD

/* A tiny arch so that PMD (8 pages) and PUD (32 pages) fit small folios. */
static const struct fsim_arch tiny = { 64, 12, 3, 5 };

#define NPAGES 64
#define NMMS 3		/* mm ids 1..3 */
#define NLEVELS 3

struct naive {
	uint64_t cnt[NMMS + 1][NLEVELS][NPAGES];
};

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static unsigned long unit_of(enum fsim_level l)
{
	return 1ul << level_order(&tiny, l);
}

static bool naive_covers(const struct naive *n, unsigned int mm, enum fsim_level l,
			 unsigned long start, unsigned long nr, uint64_t times)
{
	unsigned long p;

	for (p = start; p < start + nr; p++)
		if (n->cnt[mm][l][p] < times)
			return false;
	return true;
}

/* Structural invariants documented in internal.h: sorted by (mm, level,
 * start), disjoint per group, count > 0, level-aligned, totals right. */
static void check_structure(const struct oracle *o, const char *when)
{
	uint64_t entries = 0, pages = 0;
	size_t i;

	for (i = 0; i < o->n; i++) {
		const struct oracle_seg *s = oracle_seg_at(o, i);
		const unsigned long u = unit_of((enum fsim_level)s->level);

		if (s->count == 0 || s->start >= s->end || s->start % u || s->end % u ||
		    s->end > NPAGES)
			fail_msg("%s: malformed segment %zu [%lu,%lu) x%" PRIu64,
				 when, i, s->start, s->end, s->count);
		if (i > 0) {
			const struct oracle_seg *p = oracle_seg_at(o, i - 1);

			if (p->mm_id > s->mm_id ||
			    (p->mm_id == s->mm_id && p->level > s->level) ||
			    (p->mm_id == s->mm_id && p->level == s->level &&
			     p->end > s->start))
				fail_msg("%s: segments %zu and %zu out of order or overlapping",
					 when, i - 1, i);
		}
		entries += s->count * ((s->end - s->start) / u);
		pages += s->count * (s->end - s->start);
	}
	if (entries != o->entries || pages != o->pages)
		fail_msg("%s: running totals %" PRIu64 "/%" PRIu64 ", segments say %"
			 PRIu64 "/%" PRIu64, when, o->entries, o->pages, entries, pages);
}

/* Page p's count over every mm and level, naively; the oracle must
 * answer the same.  Returns the sum. */
static uint64_t check_page_count(const struct oracle *o, const struct naive *n,
				 unsigned long p, const char *when)
{
	uint64_t sum = 0;
	unsigned int mm;
	int l;

	for (mm = 1; mm <= NMMS; mm++)
		for (l = 0; l < NLEVELS; l++)
			sum += n->cnt[mm][l][p];
	if (oracle_page_count(o, p) != sum)
		fail_msg("%s: page %lu count %" PRIu64 ", naive %" PRIu64, when, p,
			 oracle_page_count(o, p), sum);
	return sum;
}

/* The per-page counts alone (what oracle_page_count() answers while the
 * per-page total is stale). */
static void compare_counts(const struct oracle *o, const struct naive *n,
			   const char *when)
{
	unsigned long p;

	for (p = 0; p < NPAGES; p++)
		check_page_count(o, n, p, when);
}

static void compare(const struct oracle *o, const struct naive *n, const char *when)
{
	struct oracle_profile prof;
	unsigned long p, covered = 0;
	uint64_t maxc = 0;
	size_t mms = 0;
	unsigned int mm;
	int l;

	check_structure(o, when);
	for (p = 0; p < NPAGES; p++) {
		const uint64_t sum = check_page_count(o, n, p, when);

		covered += sum > 0;
		if (sum > maxc)
			maxc = sum;
	}
	for (mm = 1; mm <= NMMS; mm++) {
		uint64_t e = 0;
		bool maps = false;

		/* entries: mapped pages / pages per entry, per level */
		for (l = 0; l < NLEVELS; l++) {
			uint64_t pg = 0;

			for (p = 0; p < NPAGES; p++) {
				pg += n->cnt[mm][l][p];
				maps |= n->cnt[mm][l][p] > 0;
			}
			e += pg / unit_of((enum fsim_level)l);
		}
		if (oracle_mm_entries(o, mm, &tiny) != e)
			fail_msg("%s: mm %u entries %" PRIu64 ", naive %" PRIu64, when, mm,
				 oracle_mm_entries(o, mm, &tiny), e);
		if (oracle_mm_maps(o, mm) != maps)
			fail_msg("%s: oracle_mm_maps(%u)", when, mm);
		mms += maps;
	}
	oracle_profile(o, &prof);
	if (prof.covered != covered || prof.max_count != maxc || prof.nr_mms != mms)
		fail_msg("%s: profile covered %lu max %" PRIu64 " mms %zu, naive %lu %"
			 PRIu64 " %zu", when, prof.covered, prof.max_count, prof.nr_mms,
			 covered, maxc, mms);
}

/* A random level-aligned range of @l within the folio. */
static void random_range(uint64_t *rng, enum fsim_level l, unsigned long *start,
			 unsigned long *nr)
{
	const unsigned long u = unit_of(l), units = NPAGES / u;
	unsigned long a = xorshift(rng) % units, b = xorshift(rng) % units;

	if (a > b) {
		unsigned long t = a;

		a = b;
		b = t;
	}
	/* mostly short ranges, so that segments split and merge a lot */
	if (b - a > 4 && xorshift(rng) % 4)
		b = a + xorshift(rng) % 5;
	*start = a * u;
	*nr = (b - a + 1) * u;
}

/* With @stale, every other operation is made as a concurrent call makes
 * it (the per-page total not kept) and the comparison first rebuilds it,
 * as the checker does at a quiescent point. */
static void random_ops(uint64_t seed, int ops, bool stale)
{
	struct oracle o;
	static struct naive n;
	uint64_t rng = seed;
	char when[96];
	int i;

	memset(&n, 0, sizeof(n));
	oracle_init(&o, NPAGES);
	for (i = 0; i < ops; i++) {
		const unsigned int mm = 1 + (unsigned int)(xorshift(&rng) % NMMS);
		const uint64_t r = xorshift(&rng) % 16;
		const enum fsim_level l = r < 11 ? PTE : r < 15 ? PMD : PUD;
		const unsigned long u = unit_of(l);
		unsigned long start, nr, p;
		uint64_t times;
		bool covers;

		random_range(&rng, l, &start, &nr);
		snprintf(when, sizeof(when), "seed %#" PRIx64 " op %d%s", seed, i,
			 stale ? " (stale total)" : "");
		assert_int_equal(oracle_track_cover(&o, !(stale && i % 2)), 0);
		times = 1 + xorshift(&rng) % 3;
		covers = naive_covers(&n, mm, l, start, nr, times);
		if (oracle_covers(&o, mm, l, start, nr, times) != covers)
			fail_msg("%s: oracle_covers(mm %u, %s, %lu+%lu, x%" PRIu64 ") != %d",
				 when, mm, fsim_level_name(l), start, nr, times, covers);

		assert_int_equal(oracle_reserve(&o, mm, l, start, nr), 0);
		if (naive_covers(&n, mm, l, start, nr, 1) && xorshift(&rng) % 5 < 2) {
			oracle_remove(&o, mm, l, start, nr, u);
			for (p = start; p < start + nr; p++)
				n.cnt[mm][l][p]--;
		} else {
			/* sometimes repeat the exact range several times */
			int k, reps = xorshift(&rng) % 8 == 0 ? 3 : 1;

			for (k = 0; k < reps; k++) {
				assert_int_equal(oracle_reserve(&o, mm, l, start, nr), 0);
				oracle_add(&o, mm, l, start, nr, u);
				for (p = start; p < start + nr; p++)
					n.cnt[mm][l][p]++;
			}
		}
		if (stale && i % 2)	/* a concurrent call's state: counts by scan */
			compare_counts(&o, &n, when);
		assert_int_equal(oracle_track_cover(&o, true), 0);
		compare(&o, &n, when);
	}
	/* drain everything: the oracle must end empty */
	for (;;) {
		unsigned int mm;
		int l;
		bool any = false;

		for (mm = 1; mm <= NMMS && !any; mm++)
			for (l = 0; l < NLEVELS && !any; l++) {
				const unsigned long u = unit_of((enum fsim_level)l);

				for (unsigned long p = 0; p < NPAGES; p += u) {
					if (!n.cnt[mm][l][p])
						continue;
					assert_int_equal(oracle_reserve(&o, mm, (enum fsim_level)l, p, u), 0);
					oracle_remove(&o, mm, (enum fsim_level)l, p, u, u);
					for (unsigned long q = p; q < p + u; q++)
						n.cnt[mm][l][q]--;
					any = true;
					break;
				}
			}
		if (!any)
			break;
	}
	compare(&o, &n, "drained");
	assert_int_equal(o.n, 0);
	assert_int_equal(o.entries, 0);
	assert_int_equal(o.pages, 0);
	oracle_destroy(&o);
}

static void random_against_naive(void **state)
{
	static const uint64_t seeds[] = {
		0x9e3779b97f4a7c15ull, 0x1234567ull, 0xdeadbeefcafef00dull, 42,
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		random_ops(seeds[i], 1500, false);
		random_ops(seeds[i], 1500, true);
	}
}

static void add(struct oracle *o, unsigned int mm, enum fsim_level l,
		unsigned long start, unsigned long nr)
{
	assert_int_equal(oracle_reserve(o, mm, l, start, nr), 0);
	oracle_add(o, mm, l, start, nr, unit_of(l));
}

static void del(struct oracle *o, unsigned int mm, enum fsim_level l,
		unsigned long start, unsigned long nr)
{
	assert_true(oracle_covers(o, mm, l, start, nr, 1));
	assert_int_equal(oracle_reserve(o, mm, l, start, nr), 0);
	oracle_remove(o, mm, l, start, nr, unit_of(l));
}

#define ASSERT_SEG(o, i, mm, l, s, e, c) do {				\
	assert_int_equal(oracle_seg_at((o), (i))->mm_id, (mm));			\
	assert_int_equal(oracle_seg_at((o), (i))->level, (l));			\
	assert_int_equal(oracle_seg_at((o), (i))->start, (s));			\
	assert_int_equal(oracle_seg_at((o), (i))->end, (e));				\
	assert_int_equal(oracle_seg_at((o), (i))->count, (c));			\
} while (0)

/* A hole punched in the middle splits; refilling it merges back. */
static void split_and_merge(void **state)
{
	struct oracle o;

	(void)state;
	oracle_init(&o, NPAGES);
	add(&o, 1, PTE, 0, 64);
	assert_int_equal(o.n, 1);
	del(&o, 1, PTE, 16, 16);
	assert_int_equal(o.n, 2);
	ASSERT_SEG(&o, 0, 1, PTE, 0, 16, 1);
	ASSERT_SEG(&o, 1, 1, PTE, 32, 64, 1);
	add(&o, 1, PTE, 16, 16);
	assert_int_equal(o.n, 1);
	ASSERT_SEG(&o, 0, 1, PTE, 0, 64, 1);

	/* Overlapping add: three pieces with counts 1, 2, 1 ... */
	add(&o, 1, PTE, 8, 8);
	assert_int_equal(o.n, 3);
	ASSERT_SEG(&o, 0, 1, PTE, 0, 8, 1);
	ASSERT_SEG(&o, 1, 1, PTE, 8, 16, 2);
	ASSERT_SEG(&o, 2, 1, PTE, 16, 64, 1);
	/* ... and removing it merges them again. */
	del(&o, 1, PTE, 8, 8);
	assert_int_equal(o.n, 1);

	/* A range bridging a gap between two segments. */
	del(&o, 1, PTE, 20, 10);
	add(&o, 1, PTE, 10, 40);
	assert_int_equal(o.n, 5);
	ASSERT_SEG(&o, 0, 1, PTE, 0, 10, 1);
	ASSERT_SEG(&o, 1, 1, PTE, 10, 20, 2);
	ASSERT_SEG(&o, 2, 1, PTE, 20, 30, 1);
	ASSERT_SEG(&o, 3, 1, PTE, 30, 50, 2);
	ASSERT_SEG(&o, 4, 1, PTE, 50, 64, 1);
	assert_int_equal(o.entries, 64 - 10 + 40);

	/* Groups of other mms and levels are separate and ordered. */
	add(&o, 2, PMD, 8, 16);
	add(&o, 1, PMD, 0, 8);
	assert_int_equal(o.n, 7);
	ASSERT_SEG(&o, 5, 1, PMD, 0, 8, 1);
	ASSERT_SEG(&o, 6, 2, PMD, 8, 24, 1);
	assert_int_equal(oracle_mm_entries(&o, 2, &tiny), 2);
	assert_int_equal(oracle_page_count(&o, 12), 3);
	assert_false(oracle_covers(&o, 2, PTE, 8, 8, 1));
	assert_false(oracle_covers(&o, 1, PMD, 0, 16, 1));
	oracle_destroy(&o);
}

/* The same range again and again: one segment whose count grows (O(log n)
 * per repeat), and back to nothing. */
static void repeated_identical_range(void **state)
{
	struct oracle o;
	int i;

	(void)state;
	oracle_init(&o, NPAGES);
	add(&o, 1, PTE, 0, 16);
	add(&o, 1, PTE, 40, 8);
	for (i = 0; i < 100000; i++)
		add(&o, 1, PTE, 0, 16);
	assert_int_equal(o.n, 2);
	ASSERT_SEG(&o, 0, 1, PTE, 0, 16, 100001);
	assert_int_equal(o.entries, 100001ull * 16 + 8);
	assert_int_equal(o.pages, 100001ull * 16 + 8);
	assert_true(oracle_covers(&o, 1, PTE, 0, 16, 100001));
	assert_false(oracle_covers(&o, 1, PTE, 0, 16, 100002));
	for (i = 0; i < 100000; i++)
		del(&o, 1, PTE, 0, 16);
	assert_int_equal(o.n, 2);
	ASSERT_SEG(&o, 0, 1, PTE, 0, 16, 1);
	del(&o, 1, PTE, 0, 16);
	del(&o, 1, PTE, 40, 8);
	assert_int_equal(o.n, 0);
	assert_int_equal(o.entries, 0);
	assert_int_equal(o.pages, 0);
	oracle_destroy(&o);
}

/* Fast path next to an equal neighbour: counts stay right whichever way
 * the segments are represented. */
static void fast_path_next_to_equal_neighbour(void **state)
{
	struct oracle o;
	unsigned long p;

	(void)state;
	oracle_init(&o, NPAGES);
	add(&o, 1, PTE, 0, 32);
	add(&o, 1, PTE, 16, 16);	/* [0,16) x1, [16,32) x2 */
	add(&o, 1, PTE, 0, 16);		/* fast path: [0,16) x2 */
	for (p = 0; p < 32; p++)
		assert_int_equal(oracle_page_count(&o, p), 2);
	assert_true(oracle_covers(&o, 1, PTE, 0, 32, 2));
	check_structure(&o, "after fast path");
	del(&o, 1, PTE, 0, 32);
	del(&o, 1, PTE, 0, 32);
	assert_int_equal(o.n, 0);
	oracle_destroy(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(random_against_naive),
		cmocka_unit_test(split_and_merge),
		cmocka_unit_test(repeated_identical_range),
		cmocka_unit_test(fast_path_next_to_equal_neighbour),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
