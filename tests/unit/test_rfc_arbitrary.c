// SPDX-License-Identifier: MIT
/*
 * Arbitrary folio mappings of 13/13: the entire mapcount is replaced by
 * _total_mapped_pages, PMDs may map part of a larger folio, PUD-sized
 * folios may be mapped by PUDs, PMDs and PTEs at once.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <foliosim/foliosim.h>
#include "fsim_test.h"

#define PTE FSIM_LEVEL_PTE
#define PMD FSIM_LEVEL_PMD
#define PUD FSIM_LEVEL_PUD

static int64_t stat(const struct fsim_test_world *w, enum fsim_stat s)
{
	return fsim_ctx_stat(w->ctx, s);
}

/* The cover letter's example: a PMD-sized folio mapped through 2 PMDs and
 * one PTE has mapcount 3 and 1025 total mapped pages. */
static void thirteen_example(void **state)
{
	struct fsim_test_world w;
	struct fsim_folio *f;

	(void)state;
	fsim_test_world_init(&w, FSIM_MODE_RFC);
	f = fsim_test_folio(&w, 9, FSIM_KIND_ANON);
	assert_int_equal(fsim_folio_add_new_anon_rmap(f, w.a, true), 0);
	assert_int_equal(fsim_folio_try_dup_anon_rmap(f, w.b, w.a, PMD, 0, 512), 0);
	assert_int_equal(fsim_folio_add_anon_rmap(f, w.b, PTE, 7, 1, false), 0);

	assert_int_equal(fsim_folio_mapcount(f), 3);
	assert_int_equal(fsim_folio_total_mapped_pages(f), 1025);
	/* round(1025 / 512) = 2 */
	assert_int_equal(fsim_folio_average_page_mapcount(f), 2);
	assert_int_equal(stat(&w, FSIM_NR_ANON_MAPPED), 512);
	assert_int_equal(stat(&w, FSIM_NR_ANON_THPS), 512);
	assert_int_equal(fsim_folio_refcount(f), 3);
	assert_false(fsim_folio_partially_mapped(f));
	assert_consistent(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

/* An order-10 folio spans two PMDs: new_anon maps it with two PMD
 * entries; NR_ANON_THPS is only for PMD-sized folios. */
static void order10_two_pmds_and_ptes(void **state)
{
	struct fsim_test_world w;
	struct fsim_folio *f;

	(void)state;
	fsim_test_world_init(&w, FSIM_MODE_RFC);
	f = fsim_test_folio(&w, 10, FSIM_KIND_ANON);
	assert_int_equal(fsim_folio_add_new_anon_rmap(f, w.a, true), 0);
	assert_int_equal(fsim_folio_mapcount(f), 2);
	assert_int_equal(fsim_folio_total_mapped_pages(f), 1024);
	/* AnonExclusive on the first page of each PMD (mapping order). */
	assert_true(fsim_folio_anon_exclusive(f, 0));
	assert_true(fsim_folio_anon_exclusive(f, 512));
	assert_false(fsim_folio_anon_exclusive(f, 1));

	assert_int_equal(fsim_folio_try_dup_anon_rmap(f, w.b, w.a, PMD, 512, 512), 0);
	assert_false(fsim_folio_anon_exclusive(f, 512));
	assert_true(fsim_folio_anon_exclusive(f, 0));
	assert_int_equal(fsim_folio_add_anon_rmap(f, w.c, PTE, 100, 10, false), 0);

	assert_int_equal(fsim_folio_mapcount(f), 2 + 1 + 10);
	assert_int_equal(fsim_folio_total_mapped_pages(f), 1024 + 512 + 10);
	/* (1546 + 512) >> 10 = 2 */
	assert_int_equal(fsim_folio_average_page_mapcount(f), 2);
	assert_int_equal(stat(&w, FSIM_NR_ANON_MAPPED), 1024);
	assert_int_equal(stat(&w, FSIM_NR_ANON_THPS), 0);
	assert_consistent(w.ctx);

	/* Remove B's PMD and C's PTEs; then one of A's PMDs: the folio is
	 * now certainly partially mapped (512 of 1024 pages). */
	assert_int_equal(fsim_folio_remove_rmap(f, w.b, PMD, 512, 512), 0);
	assert_int_equal(fsim_folio_remove_rmap(f, w.c, PTE, 100, 10), 0);
	assert_false(fsim_folio_partially_mapped(f));
	assert_int_equal(fsim_folio_remove_rmap(f, w.a, PMD, 0, 512), 0);
	assert_int_equal(fsim_folio_total_mapped_pages(f), 512);
	assert_true(fsim_folio_partially_mapped(f));
	assert_true(fsim_folio_on_deferred_split(f));
	/* rfc: a partially mapped folio still counts as fully mapped. */
	assert_int_equal(stat(&w, FSIM_NR_ANON_MAPPED), 1024);
	assert_int_equal(fsim_ctx_thp_deferred_split_page(w.ctx), 1);
	assert_consistent(w.ctx);

	assert_int_equal(fsim_folio_remove_rmap(f, w.a, PMD, 512, 512), 0);
	assert_int_equal(stat(&w, FSIM_NR_ANON_MAPPED), 0);
	assert_consistent(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

/* An order-18 folio mapped by a PUD, PMDs and PTEs.  Everything is
 * constant-size state: no per-page arrays needed. */
static void order18_pud_pmds_ptes(void **state)
{
	struct fsim_test_world w;
	struct fsim_folio *f;
	unsigned long nr = 1ul << 18;

	(void)state;
	fsim_test_world_init(&w, FSIM_MODE_RFC);
	f = fsim_test_folio(&w, 18, FSIM_KIND_ANON);
	assert_int_equal(fsim_folio_add_new_anon_rmap(f, w.a, true), 0);
	assert_int_equal(fsim_folio_mapcount(f), 1);
	assert_int_equal(fsim_folio_total_mapped_pages(f), nr);
	assert_true(fsim_folio_anon_exclusive(f, 0));
	assert_false(fsim_folio_anon_exclusive(f, 512));

	/* B: 3 PMDs at pages 1536..3071 and a PMD at the last 512 pages. */
	assert_int_equal(fsim_folio_add_anon_rmap(f, w.b, PMD, 1536, 1536, false), 0);
	assert_int_equal(fsim_folio_add_anon_rmap(f, w.b, PMD, nr - 512, 512, false), 0);
	/* C: 5 PTEs, and a second PUD mapping by fork. */
	assert_int_equal(fsim_folio_add_anon_rmap(f, w.c, PTE, 12345, 5, false), 0);
	assert_int_equal(fsim_folio_try_dup_anon_rmap(f, w.c, w.a, PUD, 0, nr), 0);
	assert_false(fsim_folio_anon_exclusive(f, 0));

	assert_int_equal(fsim_folio_mapcount(f), 1 + 4 + 5 + 1);
	assert_int_equal(fsim_folio_total_mapped_pages(f), 2 * nr + 2048 + 5);
	/* (2 * 262144 + 2053 + 131072) >> 18 = 2 */
	assert_int_equal(fsim_folio_average_page_mapcount(f), 2);
	assert_int_equal(fsim_oracle_true_mapcount(f, 1536), 3);
	assert_int_equal(fsim_oracle_true_mapcount(f, 12345), 3);
	assert_int_equal(fsim_oracle_true_mapcount(f, 0), 2);
	assert_int_equal(stat(&w, FSIM_NR_ANON_MAPPED), nr);
	assert_int_equal(stat(&w, FSIM_NR_ANON_THPS), 0);
	assert_consistent(w.ctx);

	/* Unmap the PUDs: 2053 of 262144 pages remain -> partially mapped. */
	assert_int_equal(fsim_folio_remove_rmap(f, w.c, PUD, 0, nr), 0);
	assert_false(fsim_folio_partially_mapped(f));
	assert_int_equal(fsim_folio_remove_rmap(f, w.a, PUD, 0, nr), 0);
	assert_int_equal(fsim_folio_total_mapped_pages(f), 2053);
	assert_int_equal(fsim_folio_average_page_mapcount(f), 1);
	assert_true(fsim_folio_partially_mapped(f));
	assert_consistent(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

/* NR_ANON_THPS moves on the first PMD mapping of a PMD-sized folio and on
 * the removal of the last one, whatever PTEs map it meanwhile. */
static void anon_thps_first_and_last_pmd_only(void **state)
{
	struct fsim_test_world w;
	struct fsim_folio *f;

	(void)state;
	fsim_test_world_init(&w, FSIM_MODE_RFC);
	f = fsim_test_folio(&w, 9, FSIM_KIND_ANON);
	assert_int_equal(fsim_folio_add_anon_rmap(f, w.a, PTE, 0, 512, true), 0);
	assert_int_equal(stat(&w, FSIM_NR_ANON_MAPPED), 512);
	assert_int_equal(stat(&w, FSIM_NR_ANON_THPS), 0);

	assert_int_equal(fsim_folio_add_anon_rmap(f, w.b, PMD, 0, 512, false), 0);
	assert_int_equal(stat(&w, FSIM_NR_ANON_THPS), 512);
	assert_int_equal(fsim_folio_add_anon_rmap(f, w.c, PMD, 0, 512, false), 0);
	assert_int_equal(stat(&w, FSIM_NR_ANON_THPS), 512);
	assert_int_equal(fsim_folio_add_anon_rmap(f, w.b, PMD, 0, 512, false), 0);
	assert_int_equal(stat(&w, FSIM_NR_ANON_THPS), 512);

	assert_int_equal(fsim_folio_remove_rmap(f, w.b, PMD, 0, 512), 0);
	assert_int_equal(fsim_folio_remove_rmap(f, w.c, PMD, 0, 512), 0);
	assert_int_equal(stat(&w, FSIM_NR_ANON_THPS), 512);
	assert_int_equal(fsim_folio_remove_rmap(f, w.b, PMD, 0, 512), 0);
	assert_int_equal(stat(&w, FSIM_NR_ANON_THPS), 0);
	assert_int_equal(stat(&w, FSIM_NR_ANON_MAPPED), 512);

	/* PTE removals never touch NR_ANON_THPS, even with a PMD left. */
	assert_int_equal(fsim_folio_add_anon_rmap(f, w.b, PMD, 0, 512, false), 0);
	assert_int_equal(fsim_folio_remove_rmap(f, w.a, PTE, 0, 512), 0);
	assert_int_equal(stat(&w, FSIM_NR_ANON_THPS), 512);
	assert_int_equal(stat(&w, FSIM_NR_ANON_MAPPED), 512);
	assert_int_equal(fsim_folio_remove_rmap(f, w.b, PMD, 0, 512), 0);
	assert_int_equal(stat(&w, FSIM_NR_ANON_THPS), 0);
	assert_int_equal(stat(&w, FSIM_NR_ANON_MAPPED), 0);
	assert_consistent(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

/* An exclusive folio loses one page: total < nr_pages flags it at once. */
static void partial_unmap_of_exclusive_folio_is_flagged(void **state)
{
	struct fsim_test_world w;
	struct fsim_folio *f;

	(void)state;
	fsim_test_world_init(&w, FSIM_MODE_RFC);
	f = fsim_test_folio(&w, 4, FSIM_KIND_ANON);
	assert_int_equal(fsim_folio_add_new_anon_rmap(f, w.a, true), 0);
	assert_int_equal(fsim_ctx_thp_counter(w.ctx, 4, FSIM_THP_NR_ANON), 1);
	assert_false(fsim_folio_partially_mapped(f));

	assert_int_equal(fsim_folio_remove_rmap(f, w.a, PTE, 3, 1), 0);
	assert_int_equal(fsim_folio_total_mapped_pages(f), 15);
	assert_true(fsim_folio_partially_mapped(f));
	assert_true(fsim_folio_on_deferred_split(f));
	assert_int_equal(fsim_ctx_deferred_split_len(w.ctx), 1);
	assert_int_equal(fsim_ctx_thp_counter(w.ctx, 4, FSIM_THP_NR_ANON_PARTIALLY_MAPPED), 1);
	assert_int_equal(fsim_ctx_thp_counter(w.ctx, 4, FSIM_THP_SPLIT_DEFERRED), 1);
	/* Not PMD-mappable: no thp_deferred_split_page event. */
	assert_int_equal(fsim_ctx_thp_deferred_split_page(w.ctx), 0);
	/* rfc: still accounted as fully mapped. */
	assert_int_equal(stat(&w, FSIM_NR_ANON_MAPPED), 16);
	assert_consistent(w.ctx);

	/* A second partial unmap does not count again. */
	assert_int_equal(fsim_folio_remove_rmap(f, w.a, PTE, 4, 1), 0);
	assert_int_equal(fsim_ctx_thp_counter(w.ctx, 4, FSIM_THP_SPLIT_DEFERRED), 1);
	assert_int_equal(fsim_ctx_deferred_split_len(w.ctx), 1);
	assert_consistent(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

/* Order-1 folios have no deferred list: never flagged (both modes). */
static void order1_never_flagged(void **state)
{
	enum fsim_mode mode;

	(void)state;
	for_each_mode(mode) {
		struct fsim_test_world w;
		struct fsim_folio *f;

		fsim_test_world_init(&w, mode);
		f = fsim_test_folio(&w, 1, FSIM_KIND_ANON);
		assert_int_equal(fsim_folio_add_new_anon_rmap(f, w.a, true), 0);
		assert_int_equal(fsim_folio_remove_rmap(f, w.a, PTE, 1, 1), 0);
		assert_int_equal(fsim_folio_mapcount(f), 1);
		assert_false(fsim_folio_partially_mapped(f));
		assert_false(fsim_folio_on_deferred_split(f));
		assert_int_equal(fsim_ctx_deferred_split_len(w.ctx), 0);
		assert_consistent(w.ctx);
		fsim_ctx_destroy(w.ctx);
	}
}

/*
 * 01/13 example (A): a THP shared with a forked child; parent and child
 * each unmap half.  The average stays >= 1, so rfc cannot tell: not
 * flagged.  Once the child quits, the partial mapping is detected.  Legacy
 * (_nr_pages_mapped is precise per page) would not flag either while every
 * page is still mapped by someone, and flags at the same point.
 */
static void shared_partial_mapping_example_a(void **state)
{
	enum fsim_mode mode;

	(void)state;
	for_each_mode(mode) {
		struct fsim_test_world w;
		struct fsim_folio *f;

		fsim_test_world_init(&w, mode);
		f = fsim_test_folio(&w, 9, FSIM_KIND_ANON);
		assert_int_equal(fsim_folio_add_anon_rmap(f, w.a, PTE, 0, 512, true), 0);
		assert_int_equal(fsim_folio_try_dup_anon_rmap(f, w.b, w.a, PTE, 0, 512), 0);

		assert_int_equal(fsim_folio_remove_rmap(f, w.a, PTE, 0, 256), 0);
		assert_int_equal(fsim_folio_remove_rmap(f, w.b, PTE, 256, 256), 0);
		assert_int_equal(fsim_folio_total_mapped_pages(f), 512);
		assert_int_equal(fsim_folio_average_page_mapcount(f), 1);
		assert_false(fsim_folio_partially_mapped(f));
		assert_consistent(w.ctx);

		/* The child exits: pages 0..255 are no longer mapped. */
		assert_int_equal(fsim_folio_remove_rmap(f, w.b, PTE, 0, 256), 0);
		assert_true(fsim_folio_partially_mapped(f));
		assert_int_equal(stat(&w, FSIM_NR_ANON_MAPPED),
				 fsim_mode_has(mode, FSIM_HAS_PAGE_MAPCOUNT) ? 256 : 512);
		assert_consistent(w.ctx);
		fsim_ctx_destroy(w.ctx);
	}
}

/*
 * The case the average cannot see but legacy can: parent and child unmap
 * the *same* half, so pages 0..255 lose both mappings while 256..511 keep
 * two: average 512 / 512 = 1.  rfc: not flagged (the documented limitation
 * of 01/13); legacy: flagged by the child's unmap.
 */
static void shared_partial_mapping_average_hides_it(void **state)
{
	enum fsim_mode mode;

	(void)state;
	for_each_mode(mode) {
		struct fsim_test_world w;
		struct fsim_folio *f;

		fsim_test_world_init(&w, mode);
		f = fsim_test_folio(&w, 9, FSIM_KIND_ANON);
		assert_int_equal(fsim_folio_add_anon_rmap(f, w.a, PTE, 0, 512, true), 0);
		assert_int_equal(fsim_folio_try_dup_anon_rmap(f, w.b, w.a, PTE, 0, 512), 0);
		assert_int_equal(fsim_folio_remove_rmap(f, w.a, PTE, 0, 256), 0);
		assert_int_equal(fsim_folio_remove_rmap(f, w.b, PTE, 0, 256), 0);
		assert_int_equal(fsim_oracle_true_mapcount(f, 0), 0);
		assert_int_equal(fsim_folio_total_mapped_pages(f), 512);
		if (!fsim_mode_has(mode, FSIM_HAS_PAGE_MAPCOUNT))
			assert_false(fsim_folio_partially_mapped(f));
		else
			assert_true(fsim_folio_partially_mapped(f));
		assert_consistent(w.ctx);
		fsim_ctx_destroy(w.ctx);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(thirteen_example),
		cmocka_unit_test(order10_two_pmds_and_ptes),
		cmocka_unit_test(order18_pud_pmds_ptes),
		cmocka_unit_test(anon_thps_first_and_last_pmd_only),
		cmocka_unit_test(partial_unmap_of_exclusive_folio_is_flagged),
		cmocka_unit_test(order1_never_flagged),
		cmocka_unit_test(shared_partial_mapping_example_a),
		cmocka_unit_test(shared_partial_mapping_average_hides_it),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
