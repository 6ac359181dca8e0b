// SPDX-License-Identifier: MIT
/*
 * Per-page mapcounts of large folios: mm/rmap.c and include/linux/rmap.h of
 * Linux 6.12 (6.12.118), with page[i]._mapcount, _entire_mapcount and
 * _nr_pages_mapped.  The RFC's base tree keeps all of them under
 * CONFIG_PAGE_MAPCOUNT=y and only changes how _large_mapcount moves (the
 * MM-id slots), which @tracking selects; everything else here is the same
 * code in both trees.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/*
 * The weights of f->page_hash telescope: page i weighs g(i + 1) - g(i), so
 * the pages [a, b) together weigh g(b) - g(a) and a batch updates the sum
 * in O(1).  g(i) is a mixed value (two multiplies) shifted left with i's
 * parity below it, so every weight is odd (changing one page's count by
 * less than 2^63 always changes the sum) and changes of several pages
 * cancel out only by chance.
 */
static inline uint64_t page_hash_g(unsigned long i)
{
	uint64_t z = (uint64_t)i * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;

	z = (z ^ (z >> 31)) * 0xbf58476d1ce4e5b9ull;
	return ((z ^ (z >> 29)) << 1) | (i & 1);
}

/* The summed weight of the pages [start, end). */
static inline uint64_t page_weights(unsigned long start, unsigned long end)
{
	return page_hash_g(end) - page_hash_g(start);
}

/* page_hash after the pages [page, page + nr) each changed by delta. */
static void page_hash_mod(struct fsim_folio *f, unsigned long page,
			  unsigned long nr, int delta)
{
	atomic_fetch_add_explicit(&f->page_hash,
				  page_weights(page, page + nr) * (uint64_t)(int64_t)delta,
				  memory_order_relaxed);
}

/*
 * The per-page loops of __folio_add_rmap(), __folio_remove_rmap() and the
 * dup paths: @delta (+1 or -1) on each _mapcount of [page, page + nr),
 * returning how many pages crossed -1 <-> 0 (atomic_inc_and_test() /
 * atomic_add_negative() summed), with page_hash kept.  Concurrent
 * contexts use the kernel's locked RMWs.  A serial context has no other
 * thread to race with, so a relaxed load and store gives the same values
 * and results without a locked instruction per page (6.12's model spent
 * about 6 ns a page on them; rmap-overflow.scn makes 2^31 such updates).
 */
static int pages_mod(struct fsim_folio *f, unsigned long page, unsigned long nr,
		     int delta)
{
	int crossed = 0;
	unsigned long i;

	if (f->ctx->concurrent) {
		for (i = page; i < page + nr; i++)
			crossed += delta > 0 ? atomic_inc_and_test(&f->page_mapcount[i]) :
					       atomic_add_negative(-1, &f->page_mapcount[i]);
	} else {
		for (i = page; i < page + nr; i++) {
			_Atomic int *c = &f->page_mapcount[i].counter;
			int v = atomic_load_explicit(c, memory_order_relaxed) + delta;

			atomic_store_explicit(c, v, memory_order_relaxed);
			crossed += delta > 0 ? v == 0 : v < 0;
		}
	}
	page_hash_mod(f, page, nr, delta);
	return crossed;
}

/* The page[i]._mapcount array of a large folio, all -1. */
int pm_folio_init(struct fsim_folio *f)
{
	const unsigned long nr = folio_nr_pages(f);
	unsigned long i;

	if (!folio_test_large(f))
		return 0;
	f->page_mapcount = malloc(nr * sizeof(*f->page_mapcount));
	if (!f->page_mapcount)
		return -ENOMEM;
	for (i = 0; i < nr; i++)
		atomic_set(&f->page_mapcount[i], -1);
	atomic_store(&f->page_hash, 0);
	return 0;
}

/* free_tail_page_prepare(): entire mapcount, nr_pages_mapped, tails */
const char *pm_large_free_check(const struct fsim_folio *f)
{
	unsigned long i;

	if (atomic_read(&f->entire_mapcount) != -1)
		return "nonzero entire_mapcount";
	if (atomic_read(&f->nr_pages_mapped))
		return "nonzero nr_pages_mapped";
	for (i = 0; i < folio_nr_pages(f); i++)
		if (atomic_read(&f->page_mapcount[i]) != -1)
			return "nonzero mapcount";
	return NULL;
}

/* __folio_rmap_sanity_checks(): a PMD (or, with PUD rmap, a PUD) entry
 * maps a whole folio of exactly its size. */
bool pm_level_allowed(const struct fsim_folio *f, enum fsim_level level,
		      unsigned long page, unsigned long nr, bool pud_rmap)
{
	const struct fsim_arch *arch = &f->ctx->arch;
	const bool whole = !page && nr == folio_nr_pages(f);

	switch (level) {
	case FSIM_LEVEL_PTE:
		return true;
	case FSIM_LEVEL_PMD:
		return whole && f->order == arch->pmd_order;
	case FSIM_LEVEL_PUD:
		return pud_rmap && whole && f->order == arch->pud_order;
	}
	return false;
}

/* _large_mapcount += nr_mappings for @mm: folio_add_large_mapcount(). */
static void large_mapcount_add(struct fsim_folio *f, struct fsim_mm *mm,
			       unsigned int nr_mappings,
			       enum large_mapcount_tracking tracking)
{
	uint64_t unused;

	if (tracking == LARGE_MAPCOUNT_MM_IDS)
		mm_ids_add_return_large_mapcount(f, nr_mappings, 0, mm->id, NULL,
						 &unused);
	else
		atomic_add((int)nr_mappings, &f->large_mapcount);
}

/* _large_mapcount -= nr_mappings for @mm: folio_sub_large_mapcount(). */
static void large_mapcount_sub(struct fsim_folio *f, struct fsim_mm *mm,
			       unsigned int nr_mappings,
			       enum large_mapcount_tracking tracking)
{
	uint64_t unused;

	if (tracking == LARGE_MAPCOUNT_MM_IDS)
		mm_ids_sub_return_large_mapcount(f, nr_mappings, 0, mm->id, NULL,
						 &unused);
	else
		atomic_sub((int)nr_mappings, &f->large_mapcount);
}

/* folio_set_large_mapcount() of a new folio */
static void large_mapcount_set(struct fsim_folio *f, struct fsim_mm *mm,
			       unsigned int nr_mappings,
			       enum large_mapcount_tracking tracking)
{
	if (tracking == LARGE_MAPCOUNT_MM_IDS)
		mm_ids_set_large_mapcount(f, nr_mappings, mm->id);
	else
		atomic_set(&f->large_mapcount, (int)nr_mappings - 1);
}

/* folio_add_new_anon_rmap() (6.12; the base tree's differs only in
 * folio_set_large_mapcount()) */
void pm_add_new_anon(struct fsim_folio *f, struct fsim_mm *mm, bool exclusive,
		     enum large_mapcount_tracking tracking)
{
	const unsigned long nr = folio_nr_pages(f);
	long nr_pmdmapped = 0;
	unsigned long i;

	if (!folio_test_large(f)) {
		/* increment count (starts at -1) */
		atomic_set(&f->mapcount, 0);
		if (exclusive)
			anon_exclusive_set_range(f, 0, 1, 1, true);
	} else if (f->order < f->ctx->arch.pmd_order) {	/* !pmd_mappable */
		for (i = 0; i < nr; i++)
			atomic_set(&f->page_mapcount[i], 0);
		page_hash_mod(f, 0, nr, 1);
		if (exclusive)
			anon_exclusive_set_range(f, 0, nr, 1, true);
		large_mapcount_set(f, mm, (unsigned int)nr, tracking);
		atomic_set(&f->nr_pages_mapped, (int)nr);
	} else {
		atomic_set(&f->entire_mapcount, 0);
		large_mapcount_set(f, mm, 1, tracking);
		atomic_set(&f->nr_pages_mapped, ENTIRELY_MAPPED);
		if (exclusive)
			anon_exclusive_set_range(f, 0, 1, 1, true);
		/* A PUD-sized folio (base only) is not a PMD mapping. */
		if (f->order == f->ctx->arch.pmd_order)
			nr_pmdmapped = (long)nr;
	}
	folio_mod_stat(f, (long)nr, nr_pmdmapped);
	ctx_mod_thp(f->ctx, f->order, FSIM_THP_NR_ANON, 1);
}

/* __folio_add_rmap() + __folio_mod_stat() (6.12) */
void pm_add(struct fsim_folio *f, struct fsim_mm *mm, enum fsim_level level,
	    unsigned long page, unsigned long nr_pages,
	    enum large_mapcount_tracking tracking)
{
	atomic_t *mapped = &f->nr_pages_mapped;
	long nr = 0, nr_pmdmapped = 0;
	int first = 0;

	if (level == FSIM_LEVEL_PTE) {
		if (!folio_test_large(f)) {
			nr = atomic_inc_and_test(&f->mapcount);
			goto stat;
		}
		first = pages_mod(f, page, nr_pages, 1);
		if (first && atomic_add_return_relaxed(first, mapped) < ENTIRELY_MAPPED)
			nr = first;
		large_mapcount_add(f, mm, (unsigned int)nr_pages, tracking);
	} else {
		first = atomic_inc_and_test(&f->entire_mapcount);
		if (first) {
			nr = atomic_add_return_relaxed(ENTIRELY_MAPPED, mapped);
			if (nr < ENTIRELY_MAPPED + ENTIRELY_MAPPED) {
				nr_pages = folio_nr_pages(f);
				/* We only track PMD mappings of PMD-sized
				 * folios separately. */
				if (level == FSIM_LEVEL_PMD)
					nr_pmdmapped = (long)nr_pages;
				nr = (long)nr_pages - (nr & FOLIO_PAGES_MAPPED);
				/* Raced ahead of a remove and another add? */
				if (nr < 0)
					nr = 0;
			} else {
				/* Raced ahead of a remove of ENTIRELY_MAPPED */
				nr = 0;
			}
		}
		large_mapcount_add(f, mm, 1, tracking);
	}
stat:
	folio_mod_stat(f, nr, nr_pmdmapped);
}

/* __folio_remove_rmap() (6.12) */
void pm_remove(struct fsim_folio *f, struct fsim_mm *mm, enum fsim_level level,
	       unsigned long page, unsigned long nr_pages,
	       enum large_mapcount_tracking tracking)
{
	atomic_t *mapped = &f->nr_pages_mapped;
	long nr = 0, nr_pmdmapped = 0;
	bool partially_mapped = false;
	int last = 0;

	if (level == FSIM_LEVEL_PTE) {
		if (!folio_test_large(f)) {
			nr = atomic_add_negative(-1, &f->mapcount);
			goto stat;
		}
		large_mapcount_sub(f, mm, (unsigned int)nr_pages, tracking);
		last = pages_mod(f, page, nr_pages, -1);
		if (last && atomic_sub_return_relaxed(last, mapped) < ENTIRELY_MAPPED)
			nr = last;
		partially_mapped = nr && atomic_read(mapped);
	} else {
		large_mapcount_sub(f, mm, 1, tracking);
		last = atomic_add_negative(-1, &f->entire_mapcount);
		if (last) {
			nr = atomic_sub_return_relaxed(ENTIRELY_MAPPED, mapped);
			if (nr < ENTIRELY_MAPPED) {
				nr_pages = folio_nr_pages(f);
				if (level == FSIM_LEVEL_PMD)
					nr_pmdmapped = (long)nr_pages;
				nr = (long)nr_pages - (nr & FOLIO_PAGES_MAPPED);
				/* Raced ahead of another remove and an add? */
				if (nr < 0)
					nr = 0;
			} else {
				/* An add of ENTIRELY_MAPPED raced ahead */
				nr = 0;
			}
		}
		partially_mapped = nr && nr < nr_pmdmapped;
	}
	/* Queue anon large folio for deferred split if partially mapped. */
	if (partially_mapped && folio_test_anon(f) &&
	    !atomic_load(&f->partially_mapped))
		deferred_split_folio(f, true);
stat:
	folio_mod_stat(f, -nr, -nr_pmdmapped);
}

/* __folio_dup_file_rmap() / __folio_try_dup_anon_rmap() (6.12) after the
 * EBUSY check; no statistics change on fork. */
void pm_dup(struct fsim_folio *f, struct fsim_mm *dst, enum fsim_level level,
	    unsigned long page, unsigned long nr_pages,
	    enum large_mapcount_tracking tracking)
{

	if (folio_test_anon(f))
		anon_exclusive_set_range(f, page, level == FSIM_LEVEL_PTE ? nr_pages : 1,
					 1, false);
	if (level == FSIM_LEVEL_PTE) {
		if (folio_test_large(f)) {
			pages_mod(f, page, nr_pages, 1);
			large_mapcount_add(f, dst, (unsigned int)nr_pages, tracking);
		} else {
			atomic_inc(&f->mapcount);
		}
	} else {
		atomic_inc(&f->entire_mapcount);
		large_mapcount_add(f, dst, 1, tracking);
	}
}

/* Every entire mapping maps the whole folio and every other entry is a
 * PTE: large mapcount - entire mapcount + entire mapcount * nr_pages. */
uint64_t pm_total_mapped_pages(const struct fsim_folio *f)
{
	const uint64_t entire = (uint64_t)(atomic_read(&f->entire_mapcount) + 1);

	return (uint64_t)folio_mapcount(f) - entire + entire * folio_nr_pages(f);
}

/* folio_entire_mapcount() */
int pm_entire_mapcount(const struct fsim_folio *f)
{
	return atomic_read(&f->entire_mapcount) + 1;
}

/* folio_nr_pages_mapped() */
int pm_nr_pages_mapped(const struct fsim_folio *f)
{
	return atomic_read(&f->nr_pages_mapped) & FOLIO_PAGES_MAPPED;
}

/* folio_precise_page_mapcount() of fs/proc/internal.h (6.12) */
int pm_precise_page_mapcount(const struct fsim_folio *f, unsigned long page)
{
	int mapcount;

	if (!folio_test_large(f))
		return atomic_read(&f->mapcount) + 1;
	mapcount = atomic_read(&f->page_mapcount[page]) + 1;
	return mapcount + atomic_read(&f->entire_mapcount) + 1;
}

/* get_kpage_count() of 6.12: the precise page mapcount */
uint64_t pm_kpagecount(const struct fsim_folio *f, unsigned long page)
{
	return (uint64_t)pm_precise_page_mapcount(f, page);
}

/* pte_to_pagemap_entry()/pagemap_pmd_range(): precise mapcount == 1 */
bool pm_pagemap_exclusive(const struct fsim_folio *f, unsigned long page)
{
	return pm_precise_page_mapcount(f, page) == 1;
}

/* gather_stats(): the precise mapcount of the entry's page */
unsigned long pm_numa_mapmax(const struct fsim_folio *f, unsigned long page)
{
	return (unsigned long)pm_precise_page_mapcount(f, page);
}

/* smaps_account() of 6.12: every page at its precise mapcount */
void pm_smaps_account(const struct fsim_folio *f, enum fsim_level level,
		      unsigned long page, bool dirty, struct fsim_smaps *mss)
{
	smaps_account_per_page(f, page, 1ul << level_order(&f->ctx->arch, level),
			       dirty, mss, pm_precise_page_mapcount);
}

/* Per-page _mapcount, _entire_mapcount, _nr_pages_mapped are exact in
 * serial use. */
int pm_check_large(const struct fsim_folio *f, const struct truth *t,
		   struct fsim_violation *v)
{
	const unsigned long nr = folio_nr_pages(f);
	/* PTE entries per page from the oracle; on the stack up to order 9
	 * (4 KiB), the common case, without an allocation per check */
	uint64_t on_stack[512];
	uint64_t *ptes = nr <= 512 ? memset(on_stack, 0, nr * sizeof(*ptes)) :
				     calloc(nr, sizeof(*ptes));
	const uint64_t entire_entries = t->level_entries[FSIM_LEVEL_PMD] +
					t->level_entries[FSIM_LEVEL_PUD];
	long pte_mapped = 0;
	uint64_t page_hash = 0, g = page_hash_g(0), g_next;
	unsigned long i;
	size_t k;
	int err = 0, expect_mapped;

	if (!ptes)
		return broken(v, "oracle_profile", "out of memory");
	for (k = 0; k < f->oracle.n; k++) {
		const struct oracle_seg *s = oracle_seg_at(&f->oracle, k);

		if (s->level == FSIM_LEVEL_PTE)
			for (i = s->start; i < s->end; i++)
				ptes[i] += s->count;
	}
	/*
	 * No check that entire_mapcount equals the PMD/PUD entries: it cannot
	 * fail once mapcount_equals_entries and total_mapped_pages_equals_true_sum
	 * hold.  The total is derived here as large - entire + entire * nr,
	 * which equals entries + entire * (nr - 1); the truth is entries +
	 * (PMD/PUD entries) * (nr - 1), since these kernels map a PMD (PUD)
	 * only over a whole folio of that size.  So entire == PMD/PUD entries
	 * (nr > 1); test_internal_checker's legacy_entire_mapcount shows the
	 * total check catching a corrupted entire_mapcount.
	 */
	for (i = 0; !err && i < nr; i++) {
		int pc = atomic_read(&f->page_mapcount[i]) + 1;

		g_next = page_hash_g(i + 1);	/* page i weighs g(i + 1) - g(i) */
		page_hash += (g_next - g) * (uint64_t)(int64_t)pc;
		g = g_next;
		if ((uint64_t)pc != ptes[i])
			err = broken(v, "legacy_page_mapcount_equals_ptes",
				     "page %lu: _mapcount+1 = %d, PTEs %llu", i, pc,
				     (unsigned long long)ptes[i]);
		pte_mapped += ptes[i] > 0;
	}
	/* (the loop above ran over every page when no error stopped it) */
	if (!err && page_hash != atomic_load(&((struct fsim_folio *)f)->page_hash))
		err = broken(v, "pm_page_hash_matches",
			     "page_hash %#llx, the page mapcounts sum to %#llx",
			     (unsigned long long)atomic_load(&((struct fsim_folio *)f)->page_hash),
			     (unsigned long long)page_hash);
	expect_mapped = (int)pte_mapped + (entire_entries ? ENTIRELY_MAPPED : 0);
	if (!err && atomic_read(&f->nr_pages_mapped) != expect_mapped)
		err = broken(v, "legacy_nr_pages_mapped",
			     "_nr_pages_mapped %#x, expected %#x",
			     atomic_read(&f->nr_pages_mapped), expect_mapped);
	if (ptes != on_stack)
		free(ptes);
	return err;
}

/* _nr_pages_mapped is precise: a removal that unmapped pages while others
 * stay mapped must have flagged the folio. */
void pm_check_missed_partial(struct fsim_folio *f,
			     const struct oracle_profile *after,
			     unsigned long covered_before)
{
	const unsigned long nr = folio_nr_pages(f);

	if (after->covered > 0 && after->covered < nr &&
	    after->covered < covered_before)
		note_transition(f, "legacy_partial_mapping_detected",
				"a removal left %lu of %lu pages mapped, not flagged",
				after->covered, nr);
}

/* NR_ANON_MAPPED counts the whole folio while an entire mapping exists,
 * else the pages mapped by PTEs. */
int64_t pm_implied_mapped_pages(const struct fsim_folio *f,
				const struct truth *t)
{
	if (t->level_entries[FSIM_LEVEL_PMD] || t->level_entries[FSIM_LEVEL_PUD])
		return (int64_t)folio_nr_pages(f);
	return (int64_t)t->profile.covered;
}
