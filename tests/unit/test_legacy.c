// SPDX-License-Identifier: MIT
/*
 * Linux 6.12 accounting (legacy mode): per-page _mapcount, _entire_mapcount,
 * _nr_pages_mapped with ENTIRELY_MAPPED (0x800000), NR_ANON_MAPPED counting
 * exactly the mapped pages, folio_likely_mapped_shared() guessing from
 * page 0.  References: mm/rmap.c __folio_add_rmap()/__folio_remove_rmap(),
 * include/linux/mm.h folio_likely_mapped_shared(), fs/proc/internal.h
 * folio_precise_page_mapcount() of 6.12.
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

#define ASSERT_PAGES(f, entire, nr_mapped, mapcount) do {		\
	assert_int_equal(fsim_folio_entire_mapcount(f), (entire));	\
	assert_int_equal(fsim_folio_nr_pages_mapped(f), (nr_mapped));	\
	assert_int_equal(fsim_folio_mapcount(f), (mapcount));		\
} while (0)

/* A PMD-mapped THP gets PTE-mapped by another mm, then loses its PMD:
 * the PMD removal accounts nr_pages - (pages still PTE-mapped). */
static void pmd_then_ptes_then_pmd_removal(void **state)
{
	struct fsim_test_world w;
	struct fsim_folio *f;

	(void)state;
	fsim_test_world_init(&w, FSIM_MODE_LEGACY);
	f = fsim_test_folio(&w, 9, FSIM_KIND_ANON);
	assert_int_equal(fsim_folio_add_new_anon_rmap(f, w.a, true), 0);
	/* _nr_pages_mapped = ENTIRELY_MAPPED: the masked count is 0. */
	ASSERT_PAGES(f, 1, 0, 1);
	assert_int_equal(fsim_folio_precise_page_mapcount(f, 0), 1);
	assert_int_equal(fsim_folio_precise_page_mapcount(f, 511), 1);
	assert_int_equal(stat(&w, FSIM_NR_ANON_MAPPED), 512);
	assert_int_equal(stat(&w, FSIM_NR_ANON_THPS), 512);
	assert_int_equal(fsim_folio_total_mapped_pages(f), 512);
	assert_consistent(w.ctx);

	/* 100 PTEs on top: pages become "mapped" below ENTIRELY_MAPPED, no
	 * stat changes since the folio is already entirely mapped. */
	assert_int_equal(fsim_folio_add_anon_rmap(f, w.b, PTE, 0, 100, false), 0);
	ASSERT_PAGES(f, 1, 100, 101);
	assert_int_equal(fsim_folio_precise_page_mapcount(f, 0), 2);
	assert_int_equal(fsim_folio_precise_page_mapcount(f, 99), 2);
	assert_int_equal(fsim_folio_precise_page_mapcount(f, 100), 1);
	assert_int_equal(stat(&w, FSIM_NR_ANON_MAPPED), 512);
	assert_int_equal(fsim_folio_total_mapped_pages(f), 612);
	assert_consistent(w.ctx);

	/* The PMD goes: 512 - 100 = 412 pages are no longer mapped. */
	assert_int_equal(fsim_folio_remove_rmap(f, w.a, PMD, 0, 512), 0);
	ASSERT_PAGES(f, 0, 100, 100);
	assert_int_equal(fsim_folio_precise_page_mapcount(f, 0), 1);
	assert_int_equal(fsim_folio_precise_page_mapcount(f, 100), 0);
	assert_int_equal(stat(&w, FSIM_NR_ANON_MAPPED), 100);
	assert_int_equal(stat(&w, FSIM_NR_ANON_THPS), 0);
	/* nr && nr < nr_pmdmapped: partially mapped, queued. */
	assert_true(fsim_folio_partially_mapped(f));
	assert_true(fsim_folio_on_deferred_split(f));
	assert_int_equal(fsim_ctx_thp_deferred_split_page(w.ctx), 1);
	assert_int_equal(fsim_ctx_thp_counter(w.ctx, 9, FSIM_THP_NR_ANON_PARTIALLY_MAPPED), 1);
	assert_consistent(w.ctx);

	assert_int_equal(fsim_folio_remove_rmap(f, w.b, PTE, 0, 50), 0);
	ASSERT_PAGES(f, 0, 50, 50);
	assert_int_equal(stat(&w, FSIM_NR_ANON_MAPPED), 50);
	assert_int_equal(fsim_folio_remove_rmap(f, w.b, PTE, 50, 50), 0);
	ASSERT_PAGES(f, 0, 0, 0);
	assert_int_equal(stat(&w, FSIM_NR_ANON_MAPPED), 0);
	assert_consistent(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

/* PTEs first, then a PMD: the PMD adds exactly the pages not yet mapped;
 * a second PMD adds nothing; only the last PMD removal subtracts. */
static void ptes_then_pmds(void **state)
{
	struct fsim_test_world w;
	struct fsim_folio *f;

	(void)state;
	fsim_test_world_init(&w, FSIM_MODE_LEGACY);
	f = fsim_test_folio(&w, 9, FSIM_KIND_ANON);
	assert_int_equal(fsim_folio_add_anon_rmap(f, w.b, PTE, 0, 300, false), 0);
	ASSERT_PAGES(f, 0, 300, 300);
	assert_int_equal(stat(&w, FSIM_NR_ANON_MAPPED), 300);

	assert_int_equal(fsim_folio_add_anon_rmap(f, w.a, PMD, 0, 512, false), 0);
	ASSERT_PAGES(f, 1, 300, 301);
	assert_int_equal(stat(&w, FSIM_NR_ANON_MAPPED), 512);
	assert_int_equal(stat(&w, FSIM_NR_ANON_THPS), 512);
	assert_int_equal(fsim_folio_add_anon_rmap(f, w.c, PMD, 0, 512, false), 0);
	ASSERT_PAGES(f, 2, 300, 302);
	assert_int_equal(fsim_folio_precise_page_mapcount(f, 0), 3);
	assert_int_equal(fsim_folio_precise_page_mapcount(f, 300), 2);
	assert_int_equal(stat(&w, FSIM_NR_ANON_MAPPED), 512);
	assert_int_equal(stat(&w, FSIM_NR_ANON_THPS), 512);

	assert_int_equal(fsim_folio_remove_rmap(f, w.c, PMD, 0, 512), 0);
	assert_int_equal(stat(&w, FSIM_NR_ANON_MAPPED), 512);
	assert_int_equal(stat(&w, FSIM_NR_ANON_THPS), 512);
	assert_int_equal(fsim_folio_remove_rmap(f, w.a, PMD, 0, 512), 0);
	ASSERT_PAGES(f, 0, 300, 300);
	assert_int_equal(stat(&w, FSIM_NR_ANON_MAPPED), 300);
	assert_int_equal(stat(&w, FSIM_NR_ANON_THPS), 0);
	assert_consistent(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

/* NR_ANON_MAPPED counts mapped pages precisely while partially mapped
 * (rfc keeps the whole folio accounted: see test_rfc_arbitrary). */
static void anon_mapped_is_precise_for_partial_folios(void **state)
{
	struct fsim_test_world w;
	struct fsim_folio *f;

	(void)state;
	fsim_test_world_init(&w, FSIM_MODE_LEGACY);
	f = fsim_test_folio(&w, 4, FSIM_KIND_ANON);
	assert_int_equal(fsim_folio_add_new_anon_rmap(f, w.a, true), 0);
	ASSERT_PAGES(f, 0, 16, 16);
	assert_int_equal(stat(&w, FSIM_NR_ANON_MAPPED), 16);
	assert_int_equal(fsim_folio_try_dup_anon_rmap(f, w.b, w.a, PTE, 0, 8), 0);
	/* fork does not touch the statistics */
	assert_int_equal(stat(&w, FSIM_NR_ANON_MAPPED), 16);

	/* Pages 0..7 stay mapped by the child. */
	assert_int_equal(fsim_folio_remove_rmap(f, w.a, PTE, 0, 8), 0);
	assert_int_equal(stat(&w, FSIM_NR_ANON_MAPPED), 16);
	assert_false(fsim_folio_partially_mapped(f));

	assert_int_equal(fsim_folio_remove_rmap(f, w.b, PTE, 0, 3), 0);
	ASSERT_PAGES(f, 0, 13, 13);
	assert_int_equal(stat(&w, FSIM_NR_ANON_MAPPED), 13);
	assert_true(fsim_folio_partially_mapped(f));
	assert_int_equal(fsim_ctx_thp_counter(w.ctx, 4, FSIM_THP_NR_ANON_PARTIALLY_MAPPED), 1);

	assert_int_equal(fsim_folio_remove_rmap(f, w.a, PTE, 12, 4), 0);
	assert_int_equal(stat(&w, FSIM_NR_ANON_MAPPED), 9);
	assert_consistent(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

/* The same for page cache: NR_FILE_MAPPED per page, NR_FILE_PMDMAPPED for
 * the PMD, NR_SHMEM_PMDMAPPED for shmem. */
static void file_and_shmem_stats(void **state)
{
	struct fsim_test_world w;
	struct fsim_folio *file, *shmem;

	(void)state;
	fsim_test_world_init(&w, FSIM_MODE_LEGACY);
	file = fsim_test_folio(&w, 9, FSIM_KIND_FILE);
	shmem = fsim_test_folio(&w, 9, FSIM_KIND_SHMEM);
	assert_int_equal(fsim_folio_add_file_rmap(file, w.a, PTE, 10, 20), 0);
	assert_int_equal(stat(&w, FSIM_NR_FILE_MAPPED), 20);
	assert_int_equal(fsim_folio_add_file_rmap(file, w.b, PMD, 0, 512), 0);
	assert_int_equal(stat(&w, FSIM_NR_FILE_MAPPED), 512);
	assert_int_equal(stat(&w, FSIM_NR_FILE_PMDMAPPED), 512);
	assert_int_equal(fsim_folio_add_file_rmap(shmem, w.a, PMD, 0, 512), 0);
	assert_int_equal(stat(&w, FSIM_NR_FILE_MAPPED), 1024);
	assert_int_equal(stat(&w, FSIM_NR_SHMEM_PMDMAPPED), 512);
	assert_int_equal(stat(&w, FSIM_NR_FILE_PMDMAPPED), 512);

	assert_int_equal(fsim_folio_remove_rmap(file, w.b, PMD, 0, 512), 0);
	assert_int_equal(stat(&w, FSIM_NR_FILE_MAPPED), 512 + 20);
	assert_int_equal(stat(&w, FSIM_NR_FILE_PMDMAPPED), 0);
	/* Page cache folios are never queued for deferred split. */
	assert_false(fsim_folio_partially_mapped(file));
	assert_int_equal(stat(&w, FSIM_NR_ANON_MAPPED), 0);
	assert_consistent(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

/*
 * folio_likely_mapped_shared(): mapcount <= nr_pages and no entire
 * mapping, so 6.12 guesses from page 0.  Pages 1..7 mapped by two mms,
 * page 0 by one: "exclusive" although two mms map the folio.  rfc's shared
 * bit gets it right.
 */
static void likely_mapped_shared_guesses_from_page0(void **state)
{
	enum fsim_mode mode;

	(void)state;
	for_each_mode(mode) {
		struct fsim_test_world w;
		struct fsim_folio *f;

		fsim_test_world_init(&w, mode);
		f = fsim_test_folio(&w, 4, FSIM_KIND_ANON);
		assert_int_equal(fsim_folio_add_anon_rmap(f, w.a, PTE, 0, 8, true), 0);
		assert_int_equal(fsim_folio_try_dup_anon_rmap(f, w.b, w.a, PTE, 1, 7), 0);
		assert_int_equal(fsim_folio_mapcount(f), 15);
		assert_int_equal(fsim_oracle_mms(f, NULL, 0), 2);
		/* without MM slots the guess is page 0's mapcount */
		if (!fsim_mode_has(mode, FSIM_HAS_MM_SLOTS))
			assert_false(fsim_folio_maybe_mapped_shared(f));
		else
			assert_true(fsim_folio_maybe_mapped_shared(f));

		/* Page 0 mapped twice: both say shared. */
		assert_int_equal(fsim_folio_try_dup_anon_rmap(f, w.b, w.a, PTE, 0, 1), 0);
		assert_true(fsim_folio_maybe_mapped_shared(f));
		assert_consistent(w.ctx);
		fsim_ctx_destroy(w.ctx);
	}
}

/* mapcount > nr_pages or an entire mapping: "shared" without a guess. */
static void likely_mapped_shared_without_guessing(void **state)
{
	struct fsim_test_world w;
	struct fsim_folio *f, *thp;

	(void)state;
	fsim_test_world_init(&w, FSIM_MODE_LEGACY);
	f = fsim_test_folio(&w, 4, FSIM_KIND_ANON);
	assert_int_equal(fsim_folio_add_anon_rmap(f, w.a, PTE, 8, 8, true), 0);
	assert_int_equal(fsim_folio_try_dup_anon_rmap(f, w.b, w.a, PTE, 8, 8), 0);
	assert_int_equal(fsim_folio_add_anon_rmap(f, w.b, PTE, 8, 1, false), 0);
	/* 17 > 16, page 0 unmapped */
	assert_int_equal(fsim_folio_precise_page_mapcount(f, 0), 0);
	assert_true(fsim_folio_maybe_mapped_shared(f));

	thp = fsim_test_folio(&w, 9, FSIM_KIND_ANON);
	assert_int_equal(fsim_folio_add_new_anon_rmap(thp, w.a, true), 0);
	assert_false(fsim_folio_maybe_mapped_shared(thp));	/* one mapping */
	assert_int_equal(fsim_folio_add_anon_rmap(thp, w.a, PTE, 5, 1, false), 0);
	/* entire_mapcount != 0 and two mappings: shared, even within one mm */
	assert_true(fsim_folio_maybe_mapped_shared(thp));
	assert_consistent(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

/* fork: PMD dup raises the entire mapcount and clears AnonExclusive of
 * the head page only; PTE dup raises per-page counts; no stats change. */
static void fork_dup_counters(void **state)
{
	struct fsim_test_world w;
	struct fsim_folio *thp, *small4;

	(void)state;
	fsim_test_world_init(&w, FSIM_MODE_LEGACY);
	thp = fsim_test_folio(&w, 9, FSIM_KIND_ANON);
	assert_int_equal(fsim_folio_add_new_anon_rmap(thp, w.a, true), 0);
	assert_true(fsim_folio_anon_exclusive(thp, 0));
	assert_false(fsim_folio_anon_exclusive(thp, 1));	/* head only */
	assert_int_equal(fsim_folio_try_dup_anon_rmap(thp, w.b, w.a, PMD, 0, 512), 0);
	ASSERT_PAGES(thp, 2, 0, 2);
	assert_false(fsim_folio_anon_exclusive(thp, 0));
	assert_int_equal(fsim_folio_precise_page_mapcount(thp, 77), 2);

	small4 = fsim_test_folio(&w, 4, FSIM_KIND_ANON);
	assert_int_equal(fsim_folio_add_new_anon_rmap(small4, w.a, true), 0);
	assert_true(fsim_folio_anon_exclusive(small4, 15));	/* every page */
	assert_int_equal(fsim_folio_try_dup_anon_rmap(small4, w.b, w.a, PTE, 4, 4), 0);
	ASSERT_PAGES(small4, 0, 16, 20);
	assert_int_equal(fsim_folio_precise_page_mapcount(small4, 3), 1);
	assert_int_equal(fsim_folio_precise_page_mapcount(small4, 4), 2);
	assert_false(fsim_folio_anon_exclusive(small4, 4));
	assert_true(fsim_folio_anon_exclusive(small4, 3));
	assert_true(fsim_folio_anon_exclusive(small4, 8));

	assert_int_equal(stat(&w, FSIM_NR_ANON_MAPPED), 512 + 16);
	assert_int_equal(stat(&w, FSIM_NR_ANON_THPS), 512);
	assert_consistent(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

/* 6.12 has no PUD rmap, maps only PMD-sized folios with a PMD, and
 * new_anon cannot map a folio larger than a PMD. */
static void refused_levels(void **state)
{
	struct fsim_test_world w;
	struct fsim_folio *o18, *o10, *o4, *o9, *file10;
	uint64_t d18, d10, d4, d9, df;

	(void)state;
	fsim_test_world_init(&w, FSIM_MODE_LEGACY);
	o18 = fsim_test_folio(&w, 18, FSIM_KIND_ANON);
	o10 = fsim_test_folio(&w, 10, FSIM_KIND_ANON);
	o4 = fsim_test_folio(&w, 4, FSIM_KIND_ANON);
	o9 = fsim_test_folio(&w, 9, FSIM_KIND_ANON);
	file10 = fsim_test_folio(&w, 10, FSIM_KIND_FILE);
	d18 = fsim_folio_state_digest(o18);
	d10 = fsim_folio_state_digest(o10);
	d4 = fsim_folio_state_digest(o4);
	d9 = fsim_folio_state_digest(o9);
	df = fsim_folio_state_digest(file10);

	assert_int_equal(fsim_folio_add_anon_rmap(o18, w.a, PUD, 0, 1ul << 18, false), -EINVAL);
	assert_int_equal(fsim_folio_add_new_anon_rmap(o18, w.a, true), -EINVAL);
	assert_int_equal(fsim_folio_add_new_anon_rmap(o10, w.a, true), -EINVAL);
	assert_int_equal(fsim_folio_add_anon_rmap(o10, w.a, PMD, 0, 512, false), -EINVAL);
	assert_int_equal(fsim_folio_add_anon_rmap(o10, w.a, PMD, 512, 512, false), -EINVAL);
	assert_int_equal(fsim_folio_add_anon_rmap(o10, w.a, PMD, 0, 1024, false), -EINVAL);
	assert_int_equal(fsim_folio_add_file_rmap(file10, w.a, PMD, 0, 512), -EINVAL);
	assert_int_equal(fsim_folio_add_anon_rmap(o4, w.a, PMD, 0, 16, false), -EINVAL);
	assert_int_equal(fsim_folio_add_anon_rmap(o9, w.a, PUD, 0, 512, false), -EINVAL);

	assert_int_equal(fsim_folio_state_digest(o18), d18);
	assert_int_equal(fsim_folio_state_digest(o10), d10);
	assert_int_equal(fsim_folio_state_digest(o4), d4);
	assert_int_equal(fsim_folio_state_digest(o9), d9);
	assert_int_equal(fsim_folio_state_digest(file10), df);
	assert_int_equal(stat(&w, FSIM_NR_ANON_MAPPED), 0);

	/* The very same calls are fine in rfc mode. */
	fsim_ctx_destroy(w.ctx);
	fsim_test_world_init(&w, FSIM_MODE_RFC);
	o18 = fsim_test_folio(&w, 18, FSIM_KIND_ANON);
	o10 = fsim_test_folio(&w, 10, FSIM_KIND_ANON);
	assert_int_equal(fsim_folio_add_anon_rmap(o18, w.a, PUD, 0, 1ul << 18, false), 0);
	assert_int_equal(fsim_folio_add_new_anon_rmap(o10, w.a, true), 0);
	assert_int_equal(fsim_folio_add_anon_rmap(o10, w.b, PMD, 512, 512, false), 0);
	assert_consistent(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

/* Legacy-only queries report -1 in rfc mode and for small folios. */
static void legacy_queries_absent_elsewhere(void **state)
{
	struct fsim_test_world w;
	struct fsim_folio *f, *small;

	(void)state;
	fsim_test_world_init(&w, FSIM_MODE_RFC);
	f = fsim_test_folio(&w, 9, FSIM_KIND_ANON);
	assert_int_equal(fsim_folio_add_new_anon_rmap(f, w.a, true), 0);
	assert_int_equal(fsim_folio_entire_mapcount(f), -1);
	assert_int_equal(fsim_folio_nr_pages_mapped(f), -1);
	assert_int_equal(fsim_folio_precise_page_mapcount(f, 0), -1);
	fsim_ctx_destroy(w.ctx);

	fsim_test_world_init(&w, FSIM_MODE_LEGACY);
	small = fsim_test_folio(&w, 0, FSIM_KIND_ANON);
	assert_int_equal(fsim_folio_add_new_anon_rmap(small, w.a, true), 0);
	assert_int_equal(fsim_folio_entire_mapcount(small), -1);
	assert_int_equal(fsim_folio_nr_pages_mapped(small), -1);
	assert_int_equal(fsim_folio_precise_page_mapcount(small, 0), 1);
	fsim_ctx_destroy(w.ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pmd_then_ptes_then_pmd_removal),
		cmocka_unit_test(ptes_then_pmds),
		cmocka_unit_test(anon_mapped_is_precise_for_partial_folios),
		cmocka_unit_test(file_and_shmem_stats),
		cmocka_unit_test(likely_mapped_shared_guesses_from_page0),
		cmocka_unit_test(likely_mapped_shared_without_guessing),
		cmocka_unit_test(fork_dup_counters),
		cmocka_unit_test(refused_levels),
		cmocka_unit_test(legacy_queries_absent_elsewhere),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
