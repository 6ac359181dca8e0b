// SPDX-License-Identifier: MIT
/*
 * The rfc back end: include/linux/rmap.h and mm/rmap.c after
 * "mm/rmap: support arbitrary folio mappings" (patches 12/13 and 13/13),
 * on the MM owner tracking of the RFC's base (mm_ids.c).  No per-page
 * mapcounts: _large_mapcount and _total_mapped_pages, both under the
 * MM-id lock; arbitrary PTE/PMD/PUD mappings; /proc reads the average
 * page mapcount and folio_maybe_mapped_shared() (02-06/13).
 */
#include "internal.h"

/* Anything aligned to its level: arbitrary mappings (13/13). */
static bool rfc_level_allowed(const struct fsim_folio *f, enum fsim_level level,
			      unsigned long page, unsigned long nr)
{
	(void)f;
	(void)level;
	(void)page;
	(void)nr;
	return true;
}

/* free_tail_page_prepare() of 13/13 */
static const char *rfc_large_free_check(const struct fsim_folio *f)
{
	if (f->mm_id_mapcount[0] != -1)
		return "nonzero mm mapcount 0";
	if (f->mm_id_mapcount[1] != -1)
		return "nonzero mm mapcount 1";
	if (atomic_long_read(&f->total_mapped_pages))
		return "nonzero total_mapped_pages";
	if (word_read(&f->mm_ids))
		return "nonzero mm_ids";
	return NULL;
}

static uint64_t rfc_total_mapped_pages(const struct fsim_folio *f)
{
	return atomic_long_read(&f->total_mapped_pages);
}

/* folio_add_new_anon_rmap() of 13/13 */
static void rfc_add_new_anon(struct fsim_folio *f, struct fsim_mm *mm,
			     bool exclusive)
{
	const struct fsim_arch *arch = &f->ctx->arch;
	const unsigned long nr = folio_nr_pages(f);
	unsigned int mapping_order;
	long nr_pmdmapped = 0;

	if (!folio_test_large(f)) {
		/* increment count (starts at -1) */
		atomic_set(&f->mapcount, 0);
		if (exclusive)
			anon_exclusive_set_range(f, 0, 1, 1, true);
	} else {
		if (f->order >= arch->pud_order)
			mapping_order = arch->pud_order;
		else if (f->order >= arch->pmd_order)
			mapping_order = arch->pmd_order;
		else
			mapping_order = 0;
		if (f->order == arch->pmd_order)
			nr_pmdmapped = (long)nr;
		if (exclusive)
			anon_exclusive_set_range(f, 0, nr, 1ul << mapping_order, true);
		mm_ids_set_large_mapcount(f, (unsigned int)(nr >> mapping_order),
					  mm->id);
		atomic_long_set(&f->total_mapped_pages, nr);
	}
	folio_mod_stat(f, (long)nr, nr_pmdmapped);
	ctx_mod_thp(f->ctx, f->order, FSIM_THP_NR_ANON, 1);
}

/* __folio_add_rmap() of 13/13 */
static void rfc_add(struct fsim_folio *f, struct fsim_mm *mm,
		    enum fsim_level level, unsigned long page,
		    unsigned long nr_pages)
{
	const struct fsim_arch *arch = &f->ctx->arch;
	long nr = 0, nr_pmdmapped = 0;

	(void)page;
	if (level == FSIM_LEVEL_PTE && !folio_test_large(f)) {
		nr = atomic_inc_and_test(&f->mapcount);
	} else {
		const unsigned int nr_mappings =
			(unsigned int)(nr_pages >> level_order(arch, level));
		uint64_t nr_mapped_pages;
		int mapcount;

		mapcount = mm_ids_add_return_large_mapcount(f, nr_mappings,
				nr_pages, mm->id, &f->total_mapped_pages,
				&nr_mapped_pages);
		if (mapcount == (int)nr_mappings)
			nr = (long)folio_nr_pages(f);
		/* PMD-sized THPs: adjust the counter on the first PMD mapping. */
		if (level == FSIM_LEVEL_PMD && f->order == arch->pmd_order &&
		    nr_mapped_pages - (uint64_t)mapcount == nr_pages - nr_mappings)
			nr_pmdmapped = 1l << arch->pmd_order;
	}
	folio_mod_stat(f, nr, nr_pmdmapped);
}

/* __folio_certainly_partially_mapped() of 13/13 */
static bool folio_certainly_partially_mapped(const struct fsim_folio *f)
{
	uint64_t total = atomic_long_read(&f->total_mapped_pages);

	return total && total < folio_nr_pages(f);
}

/*
 * The detect part (detect/0001): a removal that leaves an anon folio
 * mapped and maybe mapped shared, not certainly partially mapped, queues
 * it unflagged as a candidate for deferred_split_scan() to walk
 * (detect.c) -- unless only PMDs map it, every mapping mapping every page
 * (deferred_split_candidate()).  Here rather than in detect.c so that the
 * back end calls nothing above it.
 */
static void detect_queue_candidate(struct fsim_folio *f)
{
	const uint64_t total = atomic_long_read(&f->total_mapped_pages);
	int mapcount;

	if (!detect_eligible(f) || atomic_load(&f->partially_mapped) || !total)
		return;
	/*
	 * folio_maybe_mapped_shared() of a large folio, then the PMD-only
	 * filter of deferred_split_candidate().  The kernel reads the
	 * mapcount in each, racily; one value for both is one of the
	 * outcomes it can see, and the only one without a concurrent mapper.
	 */
	mapcount = folio_mapcount(f);
	if (mapcount <= 1 || !mm_ids_maybe_mapped_shared(f))
		return;
	if (total == (uint64_t)mapcount << f->order)
		return;
	deferred_split_candidate(f);
}

/* __folio_remove_rmap() of 13/13 */
static void rfc_remove(struct fsim_folio *f, struct fsim_mm *mm,
		       enum fsim_level level, unsigned long page,
		       unsigned long nr_pages)
{
	const struct fsim_arch *arch = &f->ctx->arch;
	long nr = 0, nr_pmdmapped = 0;

	(void)page;
	if (level == FSIM_LEVEL_PTE && !folio_test_large(f)) {
		nr = atomic_add_negative(-1, &f->mapcount);
	} else {
		const unsigned int nr_mappings =
			(unsigned int)(nr_pages >> level_order(arch, level));
		uint64_t nr_mapped_pages;
		int mapcount;

		mapcount = mm_ids_sub_return_large_mapcount(f, nr_mappings,
				nr_pages, mm->id, &f->total_mapped_pages,
				&nr_mapped_pages);
		if (!mapcount)
			nr = (long)folio_nr_pages(f);
		/* PMD-sized THPs: adjust the counter once the last PMD goes. */
		if (level == FSIM_LEVEL_PMD && f->order == arch->pmd_order &&
		    nr_mapped_pages - (uint64_t)mapcount == 0)
			nr_pmdmapped = 1l << arch->pmd_order;
		/* Queue for deferred split if certainly partially mapped. */
		if (folio_test_anon(f) && folio_certainly_partially_mapped(f) &&
		    !atomic_load(&f->partially_mapped))
			deferred_split_folio(f, true);
		else if (f->ctx->part_detect)
			detect_queue_candidate(f);
	}
	folio_mod_stat(f, -nr, -nr_pmdmapped);
}

/* __folio_dup_file_rmap() / __folio_try_dup_anon_rmap() of 13/13, after
 * the EBUSY check (done by the caller under the oracle lock). */
static void rfc_dup(struct fsim_folio *f, struct fsim_mm *dst,
		    enum fsim_level level, unsigned long page,
		    unsigned long nr_pages)
{
	const unsigned int mapping_order = level_order(&f->ctx->arch, level);
	uint64_t unused;

	if (folio_test_anon(f))
		anon_exclusive_set_range(f, page, nr_pages, 1ul << mapping_order,
					 false);
	if (level == FSIM_LEVEL_PTE && !folio_test_large(f))
		atomic_inc(&f->mapcount);
	else
		mm_ids_add_return_large_mapcount(f,
				(unsigned int)(nr_pages >> mapping_order),
				nr_pages, dst->id, &f->total_mapped_pages, &unused);
}

static unsigned long rfc_average_page_mapcount(const struct fsim_folio *f)
{
	return average_page_mapcount(folio_total_mapped_pages(f), f->order);
}

/* get_kpage_count() of 03/13: folio_average_page_mapcount() */
static uint64_t rfc_kpagecount(const struct fsim_folio *f, unsigned long page)
{
	(void)page;
	if (!folio_test_large(f))
		return (uint64_t)folio_mapcount(f);
	return rfc_average_page_mapcount(f);
}

/* !folio_maybe_mapped_shared() (04/13) */
static bool rfc_pagemap_exclusive(const struct fsim_folio *f, unsigned long page)
{
	(void)page;
	if (!folio_test_large(f) || f->hugetlb || folio_mapcount(f) <= 1)
		return folio_mapcount(f) <= 1;
	return !mm_ids_maybe_mapped_shared(f);
}

/* gather_stats() of 02/13: the average page mapcount */
static unsigned long rfc_numa_mapmax(const struct fsim_folio *f,
				     unsigned long page)
{
	return (unsigned long)rfc_kpagecount(f, page);
}

/* smaps_account() of 06/13, with the mapping's size (fixes/0002) */
static void rfc_smaps_account(const struct fsim_folio *f, enum fsim_level level,
			      unsigned long page, bool dirty,
			      struct fsim_smaps *mss)
{
	(void)page;
	smaps_account_average(f, 1ul << level_order(&f->ctx->arch, level), dirty,
			      (unsigned long)rfc_kpagecount(f, page),
			      rfc_pagemap_exclusive(f, page), mss);
}

/* _total_mapped_pages is checked against the oracle by the caller; the
 * slots are what is left. */
static int rfc_check_large(const struct fsim_folio *f, const struct truth *t,
			   struct fsim_violation *v)
{
	return mm_ids_check(f, t, v);
}

/* The average can hide a partial mapping, except when one mm maps every
 * page at most once (the cover letter's change (7)). */
static void rfc_check_missed_partial(struct fsim_folio *f,
				     const struct oracle_profile *after,
				     unsigned long covered_before)
{
	const unsigned long nr = folio_nr_pages(f);

	(void)covered_before;
	if (after->covered > 0 && after->covered < nr && after->nr_mms == 1 &&
	    after->max_count <= 1)
		note_transition(f, "rfc_exclusive_partial_mapping_detected",
				"one mm maps %lu of %lu pages once each, not flagged",
				after->covered, nr);
}

/* NR_ANON_MAPPED counts the whole folio once it is mapped at all. */
static int64_t rfc_implied_mapped_pages(const struct fsim_folio *f,
					const struct truth *t)
{
	(void)t;
	return (int64_t)folio_nr_pages(f);
}

static int rfc_folio_init(struct fsim_folio *f)
{
	(void)f;
	return 0;
}

const struct fsim_backend fsim_backend_rfc = {
	.mode = FSIM_MODE_RFC,
	.name = "rfc",
	.label = "rfc",
	.folio_init = rfc_folio_init,
	.large_free_check = rfc_large_free_check,
	.level_allowed = rfc_level_allowed,
	.add_new_anon = rfc_add_new_anon,
	.add = rfc_add,
	.remove = rfc_remove,
	.dup = rfc_dup,
	.warns_remapped_anon_exclusive_large = false,
	.no_pincount_order1_32bit = false,
	.total_mapped_pages = rfc_total_mapped_pages,
	.maybe_mapped_shared = mm_ids_maybe_mapped_shared,
	.entire_mapcount = NULL,
	.nr_pages_mapped = NULL,
	.precise_page_mapcount = NULL,
	.has_mm_slots = true,
	.precise_kpagecount = false,
	.arbitrary_mappings = true,
	.detect_part = true,
	.hugetlb_entire_mapcount = false,
	.kpagecount = rfc_kpagecount,
	.pagemap_exclusive = rfc_pagemap_exclusive,
	.numa_mapmax = rfc_numa_mapmax,
	.smaps_account = rfc_smaps_account,
	.huge_zero_pmd_exclusive = true,
	.cow_reuses_large_anon = true,
	.check_large = rfc_check_large,
	.check_missed_partial = rfc_check_missed_partial,
	.implied_mapped_pages = rfc_implied_mapped_pages,
};
