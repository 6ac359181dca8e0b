// SPDX-License-Identifier: MIT
/*
 * Hugetlb folios: the hugetlb rmap functions of include/linux/rmap.h.  A
 * hugetlb folio is mapped only as a whole, by one PMD or PUD entry of its
 * hstate's size; no node statistic, THP counter or deferred split sees it,
 * and the MM owner tracking of the base tree leaves it alone ("large
 * folios (!hugetlb)").  6.12 and the base tree count each mapping in
 * _entire_mapcount and _large_mapcount; 11/13 of the series stops using
 * the entire mapcount, leaving _large_mapcount alone
 * (backend.h: hugetlb_entire_mapcount).
 */
#include "internal.h"

enum fsim_level hugetlb_level(const struct fsim_folio *f)
{
	return f->order >= f->ctx->arch.pud_order ? FSIM_LEVEL_PUD : FSIM_LEVEL_PMD;
}

static bool uses_entire_mapcount(const struct fsim_folio *f)
{
	return folio_ops(f)->hugetlb_entire_mapcount;
}

/* hugetlb_add_new_anon_rmap() */
void hugetlb_add_new_anon_rmap(struct fsim_folio *f, bool exclusive)
{
	/* increment count (starts at -1) */
	if (uses_entire_mapcount(f))
		atomic_set(&f->entire_mapcount, 0);
	atomic_set(&f->large_mapcount, 0);
	/* 6.12 always sets it; the model's callers pass exclusive=yes unless
	 * a scenario says otherwise. */
	if (exclusive)
		anon_exclusive_set_range(f, 0, 1, 1, true);
}

/* hugetlb_add_anon_rmap() / hugetlb_add_file_rmap(); RMAP_EXCLUSIVE is
 * set by the caller. */
void hugetlb_add_rmap(struct fsim_folio *f)
{
	if (uses_entire_mapcount(f))
		atomic_inc(&f->entire_mapcount);
	atomic_inc(&f->large_mapcount);
}

/* hugetlb_remove_rmap() */
void hugetlb_remove_rmap(struct fsim_folio *f)
{
	if (uses_entire_mapcount(f))
		atomic_dec(&f->entire_mapcount);
	atomic_dec(&f->large_mapcount);
}

/* hugetlb_try_dup_anon_rmap() after its EBUSY check (the caller's), and
 * the file side of copy_hugetlb_page_range(). */
void hugetlb_dup_rmap(struct fsim_folio *f)
{
	if (folio_test_anon(f))
		anon_exclusive_set_range(f, 0, 1, 1, false);
	hugetlb_add_rmap(f);
}

/* Every tree: _large_mapcount counts the entries (checked by the caller);
 * 6.12 and the base tree keep _entire_mapcount equal to it; no per-page
 * mapcount, _nr_pages_mapped or MM-id slot is ever touched. */
int hugetlb_check(const struct fsim_folio *f, const struct truth *t,
		  struct fsim_violation *v)
{
	const int entire = atomic_read(&f->entire_mapcount) + 1;
	const uint64_t expect = uses_entire_mapcount(f) ? t->entries : 0;
	unsigned long i;

	if (t->level_entries[FSIM_LEVEL_PTE])
		return broken(v, "hugetlb_mapped_entirely", "%llu PTE entries",
			      (unsigned long long)t->level_entries[FSIM_LEVEL_PTE]);
	if ((uint64_t)entire != expect)
		return broken(v, "hugetlb_entire_mapcount",
			      "entire_mapcount %d, expected %llu", entire,
			      (unsigned long long)expect);
	if (atomic_read(&f->nr_pages_mapped))
		return broken(v, "hugetlb_untouched_counters",
			      "_nr_pages_mapped %#x", atomic_read(&f->nr_pages_mapped));
	for (i = 0; f->page_mapcount && i < folio_nr_pages(f); i++)
		if (atomic_read(&f->page_mapcount[i]) != -1)
			return broken(v, "hugetlb_untouched_counters",
				      "page %lu: _mapcount %d", i,
				      atomic_read(&f->page_mapcount[i]));
	if (word_read(&f->mm_ids) || f->mm_id_mapcount[0] != -1 ||
	    f->mm_id_mapcount[1] != -1 || atomic_long_read(&f->total_mapped_pages))
		return broken(v, "hugetlb_untouched_counters",
			      "_mm_ids %#llx, slots %d/%d, total %llu",
			      (unsigned long long)word_read(&f->mm_ids),
			      f->mm_id_mapcount[0], f->mm_id_mapcount[1],
			      (unsigned long long)atomic_long_read(&f->total_mapped_pages));
	return 0;
}
