// SPDX-License-Identifier: MIT
/*
 * The legacy back end: Linux 6.12 as shipped (6.12.118).  Per-page
 * _mapcount, _entire_mapcount and _nr_pages_mapped (pagemapcount.c) with a
 * plain atomic _large_mapcount; no MM owner tracking, no PUD rmap, a PMD
 * maps a whole PMD-sized folio; folio_likely_mapped_shared() guesses from
 * page 0; a write fault never reuses a page of a large folio.
 */
#include "internal.h"

static const enum large_mapcount_tracking plain = LARGE_MAPCOUNT_PLAIN;

/* folio_likely_mapped_shared() of include/linux/mm.h (6.12), for a large
 * folio with mapcount > 1 */
static bool legacy_likely_mapped_shared(const struct fsim_folio *f)
{
	/* If any page is mapped more than once we treat it "mapped shared". */
	if (atomic_read(&f->entire_mapcount) + 1 ||
	    (unsigned long)folio_mapcount(f) > folio_nr_pages(f))
		return true;
	/* Let's guess based on the first subpage. */
	return atomic_read(&f->page_mapcount[0]) > 0;
}

/* No PUD rmap in 6.12. */
static bool legacy_level_allowed(const struct fsim_folio *f, enum fsim_level level,
				 unsigned long page, unsigned long nr)
{
	return pm_level_allowed(f, level, page, nr, false);
}

static void legacy_add_new_anon(struct fsim_folio *f, struct fsim_mm *mm,
				bool exclusive)
{
	pm_add_new_anon(f, mm, exclusive, plain);
}

static void legacy_add(struct fsim_folio *f, struct fsim_mm *mm,
		       enum fsim_level level, unsigned long page, unsigned long nr)
{
	pm_add(f, mm, level, page, nr, plain);
}

static void legacy_remove(struct fsim_folio *f, struct fsim_mm *mm,
			  enum fsim_level level, unsigned long page,
			  unsigned long nr)
{
	pm_remove(f, mm, level, page, nr, plain);
}

static void legacy_dup(struct fsim_folio *f, struct fsim_mm *dst,
		       enum fsim_level level, unsigned long page, unsigned long nr)
{
	pm_dup(f, dst, level, page, nr, plain);
}

const struct fsim_backend fsim_backend_legacy = {
	.mode = FSIM_MODE_LEGACY,
	.name = "legacy",
	.label = "legacy (6.12)",
	.folio_init = pm_folio_init,
	.large_free_check = pm_large_free_check,
	.level_allowed = legacy_level_allowed,
	.add_new_anon = legacy_add_new_anon,
	.add = legacy_add,
	.remove = legacy_remove,
	.dup = legacy_dup,
	.warns_remapped_anon_exclusive_large = true,
	.no_pincount_order1_32bit = false,
	.total_mapped_pages = pm_total_mapped_pages,
	.maybe_mapped_shared = legacy_likely_mapped_shared,
	.entire_mapcount = pm_entire_mapcount,
	.nr_pages_mapped = pm_nr_pages_mapped,
	.precise_page_mapcount = pm_precise_page_mapcount,
	.has_mm_slots = false,
	.precise_kpagecount = true,
	.arbitrary_mappings = false,
	.detect_part = false,
	.hugetlb_entire_mapcount = true,
	.kpagecount = pm_kpagecount,
	.pagemap_exclusive = pm_pagemap_exclusive,
	.numa_mapmax = pm_numa_mapmax,
	.smaps_account = pm_smaps_account,
	.huge_zero_pmd_exclusive = false,
	.cow_reuses_large_anon = false,
	.check_large = pm_check_large,
	.check_missed_partial = pm_check_missed_partial,
	.implied_mapped_pages = pm_implied_mapped_pages,
};
