// SPDX-License-Identifier: MIT
/*
 * The base back end: the RFC's base tree as distributions build it, i.e.
 * 6.12 with the prep part of kernel-port/series and CONFIG_PAGE_MAPCOUNT=y
 * (upstream 6.15-7.0).  The per-page mapcounts and _nr_pages_mapped of 6.12
 * stay, so every /proc reader and the partial-mapping detection are
 * precise as in 6.12.  What is new: _large_mapcount moves under the MM-id
 * slots' bit spinlock (folio_add_large_mapcount() and friends, 6af8cb80d3a9),
 * folio_maybe_mapped_shared() reads the shared bit (003fde4492c8), a write
 * fault may reuse a page of an exclusively owned PTE-mapped THP
 * (1da190f4d0a6), and a PUD entry can map a whole PUD-sized folio
 * (349994cf61e6).
 */
#include "internal.h"

static const enum large_mapcount_tracking tracked = LARGE_MAPCOUNT_MM_IDS;

/* PUD rmap of 349994cf61e6: whole PUD-sized folios only. */
static bool base_level_allowed(const struct fsim_folio *f, enum fsim_level level,
			       unsigned long page, unsigned long nr)
{
	return pm_level_allowed(f, level, page, nr, true);
}

/* free_tail_page_prepare(): the 6.12 checks and the slots */
static const char *base_large_free_check(const struct fsim_folio *f)
{
	const char *bad = mm_ids_free_check(f);

	return bad ? bad : pm_large_free_check(f);
}

static void base_add_new_anon(struct fsim_folio *f, struct fsim_mm *mm,
			      bool exclusive)
{
	pm_add_new_anon(f, mm, exclusive, tracked);
}

static void base_add(struct fsim_folio *f, struct fsim_mm *mm,
		     enum fsim_level level, unsigned long page, unsigned long nr)
{
	pm_add(f, mm, level, page, nr, tracked);
}

static void base_remove(struct fsim_folio *f, struct fsim_mm *mm,
			enum fsim_level level, unsigned long page,
			unsigned long nr)
{
	pm_remove(f, mm, level, page, nr, tracked);
}

static void base_dup(struct fsim_folio *f, struct fsim_mm *dst,
		     enum fsim_level level, unsigned long page, unsigned long nr)
{
	pm_dup(f, dst, level, page, nr, tracked);
}

/* Both the per-page counters and the slots against the oracle. */
static int base_check_large(const struct fsim_folio *f, const struct truth *t,
			    struct fsim_violation *v)
{
	int err = mm_ids_check(f, t, v);

	return err ? err : pm_check_large(f, t, v);
}

const struct fsim_backend fsim_backend_base = {
	.mode = FSIM_MODE_BASE,
	.name = "base",
	.label = "base (6.12 + prep)",
	.folio_init = pm_folio_init,
	.large_free_check = base_large_free_check,
	.level_allowed = base_level_allowed,
	.add_new_anon = base_add_new_anon,
	.add = base_add,
	.remove = base_remove,
	.dup = base_dup,
	.warns_remapped_anon_exclusive_large = true,
	.no_pincount_order1_32bit = true,
	.total_mapped_pages = pm_total_mapped_pages,
	.maybe_mapped_shared = mm_ids_maybe_mapped_shared,
	.entire_mapcount = pm_entire_mapcount,
	.nr_pages_mapped = pm_nr_pages_mapped,
	.precise_page_mapcount = pm_precise_page_mapcount,
	.has_mm_slots = true,
	.precise_kpagecount = true,
	.arbitrary_mappings = false,
	.detect_part = false,
	.hugetlb_entire_mapcount = true,
	/* fs/proc with CONFIG_PAGE_MAPCOUNT: the 6.12 readers */
	.kpagecount = pm_kpagecount,
	.pagemap_exclusive = pm_pagemap_exclusive,
	.numa_mapmax = pm_numa_mapmax,
	.smaps_account = pm_smaps_account,
	.huge_zero_pmd_exclusive = false,
	.cow_reuses_large_anon = true,
	.check_large = base_check_large,
	.check_missed_partial = pm_check_missed_partial,
	.implied_mapped_pages = pm_implied_mapped_pages,
};
