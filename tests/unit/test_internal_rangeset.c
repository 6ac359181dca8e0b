// SPDX-License-Identifier: MIT
/*
 * rangeset.c: sorted, disjoint, non-adjacent half-open intervals holding
 * PageAnonExclusive.  Random adds/removes compared with a bool per page;
 * deterministic cases for merging, hole punching and
 * rangeset_remove_needs_slot().
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

#define NPAGES 200

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/* Canonical form: start < end, r[i].end < r[i+1].start (a gap between
 * neighbours, or they would have been merged). */
static void check_canonical(const struct rangeset *rs, const char *when)
{
	size_t i;

	assert_true(rs->n <= rs->cap);
	for (i = 0; i < rs->n; i++) {
		if (rs->r[i].start >= rs->r[i].end)
			fail_msg("%s: empty interval %zu [%lu,%lu)", when, i,
				 rs->r[i].start, rs->r[i].end);
		if (i && rs->r[i - 1].end >= rs->r[i].start)
			fail_msg("%s: intervals %zu [%lu,%lu) and %zu [%lu,%lu) touch",
				 when, i - 1, rs->r[i - 1].start, rs->r[i - 1].end, i,
				 rs->r[i].start, rs->r[i].end);
	}
}

static void compare(const struct rangeset *rs, const bool *naive, const char *when)
{
	size_t runs = 0;
	unsigned long p;

	check_canonical(rs, when);
	for (p = 0; p < NPAGES + 5; p++) {
		const bool want = p < NPAGES && naive[p];

		if (rangeset_contains(rs, p) != want)
			fail_msg("%s: contains(%lu) != %d", when, p, want);
		runs += want && (p == 0 || !naive[p - 1]);
	}
	/* exactly one interval per run of set pages */
	if (rs->n != runs)
		fail_msg("%s: %zu intervals for %zu runs", when, rs->n, runs);
}

static void random_ops(uint64_t seed, int ops)
{
	struct rangeset rs;
	bool naive[NPAGES];
	uint64_t rng = seed;
	char when[64];
	int i;

	memset(naive, 0, sizeof(naive));
	rangeset_init(&rs);
	for (i = 0; i < ops; i++) {
		unsigned long a = xorshift(&rng) % NPAGES, len = xorshift(&rng) % 12, p;
		unsigned long b = a + len > NPAGES ? NPAGES : a + len;
		const size_t n_before = rs.n;

		snprintf(when, sizeof(when), "seed %#" PRIx64 " op %d", seed, i);
		if (xorshift(&rng) % 2) {
			assert_int_equal(rangeset_add(&rs, a, b), 0);
			for (p = a; p < b; p++)
				naive[p] = true;
		} else {
			const bool split = rangeset_remove_needs_slot(&rs, a, b);

			assert_int_equal(rangeset_remove(&rs, a, b), 0);
			for (p = a; p < b; p++)
				naive[p] = false;
			/* the prediction is exact for non-empty ranges: a
			 * split adds one interval, anything else never adds
			 * one (for an empty range inside an interval it may
			 * answer "yes": conservative, and nothing changes) */
			if (split && a < b && rs.n != n_before + 1)
				fail_msg("%s: needs_slot true but %zu -> %zu", when,
					 n_before, rs.n);
			if (!split && rs.n > n_before)
				fail_msg("%s: needs_slot false but %zu -> %zu", when,
					 n_before, rs.n);
		}
		compare(&rs, naive, when);
	}
	rangeset_destroy(&rs);
	assert_int_equal(rs.n, 0);
	assert_null(rs.r);
}

static void random_against_naive(void **state)
{
	static const uint64_t seeds[] = { 1, 0xfeedfacecafebeefull, 0x5eed5eedull };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++)
		random_ops(seeds[i], 4000);
}

#define ASSERT_R(rs, i, s, e) do {					\
	assert_int_equal((rs)->r[i].start, (s));			\
	assert_int_equal((rs)->r[i].end, (e));				\
} while (0)

static void merging_and_punching(void **state)
{
	struct rangeset rs;

	(void)state;
	rangeset_init(&rs);
	assert_int_equal(rangeset_add(&rs, 10, 20), 0);
	assert_int_equal(rangeset_add(&rs, 30, 40), 0);
	assert_int_equal(rs.n, 2);
	/* adjacent on both sides: everything merges into one */
	assert_int_equal(rangeset_add(&rs, 20, 30), 0);
	assert_int_equal(rs.n, 1);
	ASSERT_R(&rs, 0, 10, 40);
	/* empty ranges change nothing */
	assert_int_equal(rangeset_add(&rs, 50, 50), 0);
	assert_int_equal(rangeset_remove(&rs, 15, 15), 0);
	assert_int_equal(rs.n, 1);

	/* a hole in the middle needs a slot and splits */
	assert_true(rangeset_remove_needs_slot(&rs, 15, 25));
	assert_false(rangeset_remove_needs_slot(&rs, 10, 25));	/* prefix */
	assert_false(rangeset_remove_needs_slot(&rs, 25, 40));	/* suffix */
	assert_false(rangeset_remove_needs_slot(&rs, 0, 100));	/* all */
	assert_int_equal(rangeset_remove(&rs, 15, 25), 0);
	assert_int_equal(rs.n, 2);
	ASSERT_R(&rs, 0, 10, 15);
	ASSERT_R(&rs, 1, 25, 40);
	assert_false(rangeset_contains(&rs, 15));
	assert_true(rangeset_contains(&rs, 14));
	assert_true(rangeset_contains(&rs, 25));
	assert_false(rangeset_contains(&rs, 40));

	/* a removal spanning several intervals trims both ends */
	assert_int_equal(rangeset_add(&rs, 50, 60), 0);
	assert_int_equal(rangeset_remove(&rs, 12, 55), 0);
	assert_int_equal(rs.n, 2);
	ASSERT_R(&rs, 0, 10, 12);
	ASSERT_R(&rs, 1, 55, 60);
	/* an add covering both plus the gap */
	assert_int_equal(rangeset_add(&rs, 5, 70), 0);
	assert_int_equal(rs.n, 1);
	ASSERT_R(&rs, 0, 5, 70);

	/* an order-18 folio mapped by one PUD: a single interval */
	assert_int_equal(rangeset_add(&rs, 0, 1ul << 18), 0);
	assert_int_equal(rs.n, 1);
	ASSERT_R(&rs, 0, 0, 1ul << 18);
	rangeset_destroy(&rs);
}

/* After rangeset_reserve(k), k inserts need no allocation: the capacity
 * already covers them. */
static void reserve_is_enough(void **state)
{
	struct rangeset rs;
	size_t cap;
	unsigned long i;

	(void)state;
	rangeset_init(&rs);
	assert_int_equal(rangeset_reserve(&rs, 37), 0);
	cap = rs.cap;
	assert_true(cap >= 37);
	for (i = 0; i < 37; i++)
		assert_int_equal(rangeset_add(&rs, 3 * i, 3 * i + 1), 0);
	assert_int_equal(rs.n, 37);
	assert_int_equal(rs.cap, cap);
	rangeset_destroy(&rs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(random_against_naive),
		cmocka_unit_test(merging_and_punching),
		cmocka_unit_test(reserve_is_enough),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
