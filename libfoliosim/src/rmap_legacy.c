// SPDX-License-Identifier: MIT
/*
 * The legacy back end: mm/rmap.c and include/linux/rmap.h of Linux 6.12
 * (6.12.118), with per-page _mapcount, _entire_mapcount and
 * _nr_pages_mapped.  PMD level only for whole PMD-sized folios (the
 * caller has validated that); there is no PUD rmap in 6.12.
 */
#include "internal.h"

static atomic_t *page_mapcount(struct fsim_folio *f, unsigned long page)
{
	return folio_test_large(f) ? &f->page_mapcount[page] : &f->mapcount;
}

/* folio_likely_mapped_shared() of include/linux/mm.h (6.12) */
bool legacy_likely_mapped_shared(const struct fsim_folio *f)
{
	int mapcount = fsim_folio_mapcount(f);

	/* Only partially-mappable folios require more care. */
	if (!folio_test_large(f))
		return mapcount > 1;
	/* A single mapping implies "mapped exclusively". */
	if (mapcount <= 1)
		return false;
	/* If any page is mapped more than once we treat it "mapped shared". */
	if (atomic_read(&f->entire_mapcount) + 1 ||
	    (unsigned long)mapcount > folio_nr_pages(f))
		return true;
	/* Let's guess based on the first subpage. */
	return atomic_read(&f->page_mapcount[0]) > 0;
}

/* folio_add_new_anon_rmap() (6.12) */
void legacy_add_new_anon(struct fsim_folio *f, bool exclusive)
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
		if (exclusive)
			anon_exclusive_set_range(f, 0, nr, 1, true);
		atomic_set(&f->large_mapcount, (int)nr - 1);
		atomic_set(&f->nr_pages_mapped, (int)nr);
	} else {
		atomic_set(&f->entire_mapcount, 0);
		atomic_set(&f->large_mapcount, 0);
		atomic_set(&f->nr_pages_mapped, ENTIRELY_MAPPED);
		if (exclusive)
			anon_exclusive_set_range(f, 0, 1, 1, true);
		nr_pmdmapped = (long)nr;
	}
	folio_mod_stat(f, (long)nr, nr_pmdmapped);
	ctx_mod_thp(f->ctx, f->order, FSIM_THP_NR_ANON, 1);
}

/* __folio_add_rmap() + __folio_mod_stat() (6.12) */
void legacy_add_rmap(struct fsim_folio *f, enum fsim_level level,
		     unsigned long page, unsigned long nr_pages)
{
	atomic_t *mapped = &f->nr_pages_mapped;
	long nr = 0, nr_pmdmapped = 0;
	int first = 0;
	unsigned long i;

	if (level == FSIM_LEVEL_PTE) {
		if (!folio_test_large(f)) {
			nr = atomic_inc_and_test(&f->mapcount);
			goto stat;
		}
		for (i = 0; i < nr_pages; i++)
			first += atomic_inc_and_test(&f->page_mapcount[page + i]);
		if (first && atomic_add_return_relaxed(first, mapped) < ENTIRELY_MAPPED)
			nr = first;
		atomic_add((int)nr_pages, &f->large_mapcount);
	} else {
		first = atomic_inc_and_test(&f->entire_mapcount);
		if (first) {
			nr = atomic_add_return_relaxed(ENTIRELY_MAPPED, mapped);
			if (nr < ENTIRELY_MAPPED + ENTIRELY_MAPPED) {
				nr_pmdmapped = (long)folio_nr_pages(f);
				nr = nr_pmdmapped - (nr & FOLIO_PAGES_MAPPED);
				/* Raced ahead of a remove and another add? */
				if (nr < 0)
					nr = 0;
			} else {
				/* Raced ahead of a remove of ENTIRELY_MAPPED */
				nr = 0;
			}
		}
		atomic_inc(&f->large_mapcount);
	}
stat:
	folio_mod_stat(f, nr, nr_pmdmapped);
}

/* __folio_remove_rmap() (6.12) */
void legacy_remove_rmap(struct fsim_folio *f, enum fsim_level level,
			unsigned long page, unsigned long nr_pages)
{
	atomic_t *mapped = &f->nr_pages_mapped;
	long nr = 0, nr_pmdmapped = 0;
	bool partially_mapped = false;
	int last = 0;
	unsigned long i;

	if (level == FSIM_LEVEL_PTE) {
		if (!folio_test_large(f)) {
			nr = atomic_add_negative(-1, &f->mapcount);
			goto stat;
		}
		atomic_sub((int)nr_pages, &f->large_mapcount);
		for (i = 0; i < nr_pages; i++)
			last += atomic_add_negative(-1, &f->page_mapcount[page + i]);
		if (last && atomic_sub_return_relaxed(last, mapped) < ENTIRELY_MAPPED)
			nr = last;
		partially_mapped = nr && atomic_read(mapped);
	} else {
		atomic_dec(&f->large_mapcount);
		last = atomic_add_negative(-1, &f->entire_mapcount);
		if (last) {
			nr = atomic_sub_return_relaxed(ENTIRELY_MAPPED, mapped);
			if (nr < ENTIRELY_MAPPED) {
				nr_pmdmapped = (long)folio_nr_pages(f);
				nr = nr_pmdmapped - (nr & FOLIO_PAGES_MAPPED);
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
void legacy_dup_rmap(struct fsim_folio *f, enum fsim_level level,
		     unsigned long page, unsigned long nr_pages)
{
	unsigned long i;

	if (folio_test_anon(f))
		anon_exclusive_set_range(f, page, level == FSIM_LEVEL_PTE ? nr_pages : 1,
					 1, false);
	if (level == FSIM_LEVEL_PTE) {
		for (i = 0; i < nr_pages; i++)
			atomic_inc(page_mapcount(f, page + i));
		if (folio_test_large(f))
			atomic_add((int)nr_pages, &f->large_mapcount);
	} else {
		atomic_inc(&f->entire_mapcount);
		atomic_inc(&f->large_mapcount);
	}
}
