// SPDX-License-Identifier: MIT
/*
 * fsim_snapshot_*: an observation replayed into each mode.  The case is
 * the series' headline: a parent maps a THP by a PMD, its forked child
 * unmapped the first half.  6.12 reads the parent's first half as private
 * (kpagecount 1); the series averages the folio's mappings.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <foliosim/snapshot.h>
#include "fsim_test.h"

#define NR 512

/* The parent's PMD (region 0) and the child's PTEs of pages 256-511
 * (region 1); kpagecount as a 6.12 kernel shows it, plus @extra mappings
 * of page 0 by a process outside the snapshot. */
static struct fsim_snapshot *forked_thp(uint64_t extra)
{
	struct fsim_snapshot *s;
	uint64_t count[NR];
	size_t f, parent, child, i;

	for (i = 0; i < NR; i++)
		count[i] = i < 256 ? 1 : 2;
	count[0] += extra;
	assert_int_equal(fsim_snapshot_create(NULL, &s), 0);
	assert_int_equal(fsim_snapshot_add_folio(s, 9, FSIM_KIND_ANON, count, true, &f), 0);
	assert_int_equal(fsim_snapshot_add_region(s, 0, NR, &parent), 0);
	assert_int_equal(fsim_snapshot_add_region(s, 1, NR, &child), 0);
	for (i = 0; i < NR; i++)
		assert_int_equal(fsim_snapshot_map(s, parent, i, f, i, FSIM_LEVEL_PMD), 0);
	for (i = 256; i < NR; i++)
		assert_int_equal(fsim_snapshot_map(s, child, i, f, i, FSIM_LEVEL_PTE), 0);
	return s;
}

static void test_legacy_prediction(void **state)
{
	struct fsim_snapshot *s = forked_thp(0);
	struct fsim_snapshot_values v[2];
	struct fsim_snapshot_notes n;

	(void)state;
	assert_int_equal(fsim_snapshot_predict(s, FSIM_MODE_LEGACY, v, &n), 0);
	assert_int_equal(v[0].kb.rss, 2048);
	assert_int_equal(v[0].kb.pss, 1536);	/* 256 pages alone, 256 halved */
	assert_int_equal(v[0].kb.private_total, 1024);
	assert_int_equal(v[0].kb.anon_huge, 2048);
	assert_int_equal(v[0].kpagecount_sum, 768);
	assert_int_equal(v[0].exclusive_pages, 256);
	assert_int_equal(v[1].kb.pss, 512);
	assert_int_equal(v[1].kb.private_total, 0);
	assert_int_equal(n.folios, 1);
	assert_int_equal(n.refused, 0);
	assert_int_equal(n.folios_shared_elsewhere, 0);
	fsim_snapshot_destroy(s);
}

static void test_rfc_prediction(void **state)
{
	struct fsim_snapshot *s = forked_thp(0);
	struct fsim_snapshot_values v[2];

	(void)state;
	assert_int_equal(fsim_snapshot_predict(s, FSIM_MODE_RFC, v, NULL), 0);
	assert_int_equal(v[0].kb.rss, 2048);
	assert_int_equal(v[0].kb.private_total, 0);	/* two mms: all shared */
	assert_int_equal(v[0].exclusive_pages, 0);
	/* the average mapcount, (512 + 256) / 512 rounded to 2, for both:
	 * the two Pss no longer add up to the folio (1536 of 2048 kB) */
	assert_int_equal(v[0].kb.pss, 1024);
	assert_int_equal(v[1].kb.pss, 512);
	fsim_snapshot_destroy(s);
}

/* A third process outside the snapshot maps page 0: it is theirs too. */
static void test_mapped_elsewhere(void **state)
{
	struct fsim_snapshot *s = forked_thp(1);
	struct fsim_snapshot_values v[2];
	struct fsim_snapshot_notes n;

	(void)state;
	assert_int_equal(fsim_snapshot_predict(s, FSIM_MODE_LEGACY, v, &n), 0);
	assert_int_equal(n.folios_shared_elsewhere, 1);
	assert_int_equal(v[0].kpagecount_sum, 769);
	assert_int_equal(v[0].kb.private_total, 1020);	/* page 0 is shared now */
	fsim_snapshot_destroy(s);
}

/* One process maps a whole THP by a PMD: private now, but in base and rfc
 * an earlier sharer may have left the MM-id shared bit set. */
static void test_history_bound(void **state)
{
	enum fsim_mode mode;
	struct fsim_snapshot_values v[1];
	struct fsim_snapshot_notes n;
	struct fsim_snapshot *s;
	uint64_t count[NR];
	size_t f, r, i;

	(void)state;
	for (i = 0; i < NR; i++)
		count[i] = 1;
	assert_int_equal(fsim_snapshot_create(NULL, &s), 0);
	assert_int_equal(fsim_snapshot_add_folio(s, 9, FSIM_KIND_ANON, count, true, &f), 0);
	assert_int_equal(fsim_snapshot_add_region(s, 0, NR, &r), 0);
	for (i = 0; i < NR; i++)
		assert_int_equal(fsim_snapshot_map(s, r, i, f, i, FSIM_LEVEL_PMD), 0);
	for_each_mode(mode) {
		assert_int_equal(fsim_snapshot_predict(s, mode, v, &n), 0);
		assert_int_equal(v[0].kb.private_total, 2048);
		assert_int_equal(v[0].exclusive_pages, NR);
		/* an earlier sharer may have left the MM-id shared bit set */
		assert_int_equal(v[0].history_pages,
				 fsim_mode_has(mode, FSIM_HAS_MM_SLOTS) ? NR : 0);
		assert_int_equal(n.folios_history_dependent, 1);	/* in every mode */
	}
	fsim_snapshot_destroy(s);
}

/*
 * 4096 small folios, each mapped by process 0 at consecutive pages and by
 * process 1 (the fork) too: two step runs in all, so the observation
 * stays near the 12 bytes a folio costs (8 + its kpagecount), and the
 * replay still sees two mappers of every page.
 */
static void test_small_folios_in_runs(void **state)
{
	enum { N = 4096 };
	struct fsim_snapshot_values v[2];
	struct fsim_snapshot_notes n;
	struct fsim_snapshot *s;
	const uint64_t two = 2;
	size_t f, first = 0, r0, r1, i;

	(void)state;
	assert_int_equal(fsim_snapshot_create(NULL, &s), 0);
	for (i = 0; i < N; i++) {
		assert_int_equal(fsim_snapshot_add_folio(s, 0, FSIM_KIND_ANON, &two, true, &f), 0);
		if (i == 0)
			first = f;
	}
	assert_int_equal(fsim_snapshot_add_region(s, 0, N, &r0), 0);
	assert_int_equal(fsim_snapshot_add_region(s, 1, N, &r1), 0);
	for (i = 0; i < N; i++)	/* a reader reads one region after the other */
		assert_int_equal(fsim_snapshot_map(s, r0, i, first + i, 0, FSIM_LEVEL_PTE), 0);
	for (i = 0; i < N; i++)
		assert_int_equal(fsim_snapshot_map(s, r1, i, first + i, 0, FSIM_LEVEL_PTE), 0);
	/* 8 + 4 bytes a folio, grown by half at most, and a few runs */
	assert_true(fsim_snapshot_bytes(s) <= (size_t)N * 12 * 3 / 2 + 4096);
	assert_int_equal(fsim_snapshot_predict(s, FSIM_MODE_LEGACY, v, &n), 0);
	assert_int_equal(n.folios, N);
	assert_int_equal(n.mappings, 2 * N);
	assert_int_equal(n.folios_shared_elsewhere, 0);
	for (i = 0; i < 2; i++) {
		assert_int_equal(v[i].kb.rss, 4 * N);
		assert_int_equal(v[i].kb.pss, 2 * N);
		assert_int_equal(v[i].kb.shared_total, 4 * N);
		assert_int_equal(v[i].kpagecount_sum, 2 * N);
		assert_int_equal(v[i].exclusive_pages, 0);
	}
	assert_int_equal(fsim_snapshot_kpagecount(s, first + 7, 0), 2);
	assert_int_equal(fsim_snapshot_kpagecount(s, first + 7, 1), 0);	/* no such page */
	fsim_snapshot_destroy(s);
}

/*
 * Small folios one PTE maps are replayed once per shape (kind, kpagecount,
 * precise) and their figures reused: a reused shape must read exactly as
 * a replayed one.  Three copies of 900 shapes (300 kpagecounts x 3 kinds),
 * one region each: copy 0 of a shape is replayed, copy 1 (read right after
 * it) reuses it, copy 2 (read after all the others) finds its slot taken
 * by colliding shapes, and must not take their figures.
 */
static void test_small_folio_shapes_reused(void **state)
{
	enum { COUNTS = 300, KINDS = 3, SHAPES = COUNTS * KINDS };
	static const enum fsim_kind kind[KINDS] = { FSIM_KIND_ANON, FSIM_KIND_FILE,
						    FSIM_KIND_SHMEM };
	enum fsim_mode mode;
	static struct fsim_snapshot_values v[3 * SHAPES];
	struct fsim_snapshot_notes n;
	struct fsim_snapshot *s;
	size_t f, r, i, copy;
	uint64_t count;

	(void)state;
	assert_int_equal(fsim_snapshot_create(NULL, &s), 0);
	for (i = 0; i < 3 * SHAPES; i++)	/* region copy * SHAPES + shape */
		assert_int_equal(fsim_snapshot_add_region(s, (unsigned int)i, 1, &r), 0);
	for (i = 0; i < 3 * SHAPES; i++) {	/* folio copy * SHAPES + shape */
		count = 1 + (i % SHAPES) / KINDS;
		assert_int_equal(fsim_snapshot_add_folio(s, 0, kind[i % KINDS], &count,
							 (i % SHAPES) % 2, &f), 0);
		assert_int_equal(f, i);
	}
	for (i = 0; i < SHAPES; i++)	/* read order: 0 and 1 of each, then 2s */
		for (copy = 0; copy < 2; copy++)
			assert_int_equal(fsim_snapshot_map(s, copy * SHAPES + i, 0,
							   copy * SHAPES + i, 0, FSIM_LEVEL_PTE), 0);
	for (i = 0; i < SHAPES; i++)
		assert_int_equal(fsim_snapshot_map(s, 2 * SHAPES + i, 0, 2 * SHAPES + i, 0,
						   FSIM_LEVEL_PTE), 0);
	for_each_mode(mode) {
		assert_int_equal(fsim_snapshot_predict(s, mode, v, &n), 0);
		assert_int_equal(n.folios, 3 * SHAPES);
		assert_int_equal(n.mappings, 3 * SHAPES);
		for (i = 0; i < SHAPES; i++) {
			assert_memory_equal(&v[i], &v[SHAPES + i], sizeof(v[i]));
			assert_memory_equal(&v[i], &v[2 * SHAPES + i], sizeof(v[i]));
		}
		/* the shapes differ: a wrong reuse would show */
		assert_int_equal(v[KINDS * 5].kpagecount_sum, 6);
		assert_int_equal(v[3 * KINDS].kb.pss, 1);	/* 4 KiB / 4 mappings */
	}
	fsim_snapshot_destroy(s);
}

/*
 * The same for small folios two regions map (a forked process's pages, or
 * one process mapping a file twice): 100 kpagecounts x {two processes, one
 * process}, three copies read as above.  A reused shape must put each
 * region's figures into its own region, and read as the folio replayed in
 * a snapshot of its own.
 */
/* The figures of one anon folio with kpagecount @count that two regions
 * map (of one process if @one_proc), predicted on its own. */
static void alone_pair(enum fsim_mode mode, uint64_t count, bool one_proc,
		       struct fsim_snapshot_values out[2])
{
	struct fsim_snapshot *s;
	size_t r, f;

	assert_int_equal(fsim_snapshot_create(NULL, &s), 0);
	assert_int_equal(fsim_snapshot_add_region(s, 0, 1, &r), 0);
	assert_int_equal(fsim_snapshot_add_region(s, one_proc ? 0 : 1, 1, &r), 0);
	assert_int_equal(fsim_snapshot_add_folio(s, 0, FSIM_KIND_ANON, &count, true, &f), 0);
	assert_int_equal(fsim_snapshot_map(s, 0, 0, f, 0, FSIM_LEVEL_PTE), 0);
	assert_int_equal(fsim_snapshot_map(s, 1, 0, f, 0, FSIM_LEVEL_PTE), 0);
	assert_int_equal(fsim_snapshot_predict(s, mode, out, NULL), 0);
	fsim_snapshot_destroy(s);
}

static void test_shared_small_folio_shapes_reused(void **state)
{
	enum { COUNTS = 100, SHAPES = COUNTS * 2 };
	static struct fsim_snapshot_values v[3 * SHAPES * 2];
	struct fsim_snapshot_values pair[2];
	enum fsim_mode mode;
	struct fsim_snapshot *s;
	size_t f, r, i, copy, side;
	uint64_t count;

	(void)state;
	assert_int_equal(fsim_snapshot_create(NULL, &s), 0);
	for (i = 0; i < 3 * SHAPES; i++)	/* regions 2i, 2i + 1: folio i */
		for (side = 0; side < 2; side++) {
			const unsigned int one_proc = (i % SHAPES) % 2;

			assert_int_equal(fsim_snapshot_add_region(s, (unsigned int)(2 * i +
								  (one_proc ? 0 : side)),
								  1, &r), 0);
		}
	for (i = 0; i < 3 * SHAPES; i++) {
		count = 2 + (i % SHAPES) / 2;	/* 2 and up: the two seen and others */
		assert_int_equal(fsim_snapshot_add_folio(s, 0, FSIM_KIND_ANON, &count, true,
							 &f), 0);
	}
	for (i = 0; i < SHAPES; i++)	/* copies 0 and 1 of each, then 2s */
		for (copy = 0; copy < 2; copy++)
			for (side = 0; side < 2; side++)
				assert_int_equal(fsim_snapshot_map(s, 2 * (copy * SHAPES + i) + side,
								   0, copy * SHAPES + i, 0,
								   FSIM_LEVEL_PTE), 0);
	for (i = 0; i < SHAPES; i++)
		for (side = 0; side < 2; side++)
			assert_int_equal(fsim_snapshot_map(s, 2 * (2 * SHAPES + i) + side, 0,
							   2 * SHAPES + i, 0, FSIM_LEVEL_PTE), 0);
	for_each_mode(mode) {
		assert_int_equal(fsim_snapshot_predict(s, mode, v, NULL), 0);
		for (i = 0; i < 2 * SHAPES; i++) {
			assert_memory_equal(&v[i], &v[2 * SHAPES + i], sizeof(v[i]));
			assert_memory_equal(&v[i], &v[4 * SHAPES + i], sizeof(v[i]));
		}
		for (i = 0; i < SHAPES; i++) {	/* and == the folio replayed alone */
			alone_pair(mode, 2 + i / 2, i % 2, pair);
			assert_memory_equal(&v[2 * i], pair, sizeof(pair));
		}
	}
	fsim_snapshot_destroy(s);
}

static void test_bad_input(void **state)
{
	struct fsim_snapshot *s;
	size_t f, r;

	(void)state;
	assert_int_equal(fsim_snapshot_create(NULL, &s), 0);
	assert_int_equal(fsim_snapshot_add_folio(s, 2, FSIM_KIND_ANON, NULL, false, &f), 0);
	assert_int_equal(fsim_snapshot_add_region(s, 0, 4, &r), 0);
	assert_int_equal(fsim_snapshot_add_region(s, 0, 0, &r), -EINVAL);
	assert_int_equal(fsim_snapshot_map(s, 0, 4, f, 0, FSIM_LEVEL_PTE), -EINVAL);
	assert_int_equal(fsim_snapshot_map(s, 0, 0, f, 4, FSIM_LEVEL_PTE), -EINVAL);
	assert_int_equal(fsim_snapshot_map(s, 0, 0, f, 0, FSIM_LEVEL_PMD), -EINVAL);
	assert_int_equal(fsim_snapshot_map(s, 1, 0, f, 0, FSIM_LEVEL_PTE), -EINVAL);
	assert_int_equal(fsim_snapshot_add_folio(s, 99, FSIM_KIND_ANON, NULL, false, &f), -EINVAL);
	assert_int_equal(fsim_snapshot_predict(s, FSIM_MODE_RFC, NULL, NULL), -EINVAL);
	fsim_snapshot_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_legacy_prediction),
		cmocka_unit_test(test_rfc_prediction),
		cmocka_unit_test(test_mapped_elsewhere),
		cmocka_unit_test(test_history_bound),
		cmocka_unit_test(test_small_folios_in_runs),
		cmocka_unit_test(test_small_folio_shapes_reused),
		cmocka_unit_test(test_shared_small_folio_shapes_reused),
		cmocka_unit_test(test_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
