// SPDX-License-Identifier: MIT
/*
 * madvise(MADV_PAGEOUT) of anonymous memory with swap on zram (the guest's
 * set-up), and the swap-in of a swap entry (do_swap_page()).  zram does
 * synchronous I/O: reclaim writes a folio out and frees it at once, and a
 * swap entry only one mapping holds is read into a new folio that skips
 * the swap cache.  The model keeps no swap cache, so what needs one (fork
 * over swap entries) is refused as not modelled.
 */
#include <stdlib.h>

#include "vm_internal.h"

bool region_has_swap(const struct region *r)
{
	unsigned long i;

	for (i = 0; i < r->npages; i++)
		if (r->e[i].swap)
			return true;
	return false;
}

/* Entries of @r that map @f (each page of a PMD once). */
static unsigned long entries_mapping(const struct fsim_process *p, const struct region *r,
				     const struct fsim_folio *f)
{
	unsigned long i, n = 0;

	for (i = 0; i < r->npages; i++) {
		if (r->e[i].folio != f)
			continue;
		n++;
		if (r->e[i].level != FSIM_LEVEL_PTE)
			i += entry_pages(p, &r->e[i]) - 1;
	}
	return n;
}

/* What reclaim does to a folio the walk isolated: -EOPNOTSUPP if another
 * mm maps it too (try_to_unmap() would reach it: not modelled), 0 to
 * leave it (a pinned folio: try_to_unmap() fails), 1 to page it out. */
static int reclaimable(const struct fsim_process *p, const struct region *r,
		       struct fsim_folio *f)
{
	const unsigned long here = entries_mapping(p, r, f);
	const bool pmd = fsim_folio_entire_mapcount(f) > 0;

	if ((unsigned long)fsim_folio_mapcount(f) != (pmd ? 1 : here) || (pmd && here != 1))
		return -EOPNOTSUPP;
	return fsim_folio_pincount(f) ? 0 : 1;
}

/* madvise_folio_pte_batch(): PTEs from @i on, before @end, that map the
 * following pages of the same folio. */
static unsigned long pte_batch(const struct region *r, unsigned long i, unsigned long end)
{
	const struct pte_entry *e = &r->e[i];
	unsigned long j = i + 1;

	while (j < end && r->e[j].folio == e->folio && r->e[j].level == FSIM_LEVEL_PTE &&
	       r->e[j].fpage == e->fpage + (j - i))
		j++;
	return j - i;
}

/* The folios madvise_cold_or_pageout_pte_range() isolates for reclaim
 * over [x, y) of one PMD chunk, into @out (at most y - x); their count,
 * or -EOPNOTSUPP for a folio 6.12 would split. */
static long pageout_chunk(const struct fsim_process *p, const struct region *r,
			  unsigned long x, unsigned long y, struct fsim_folio **out)
{
	const struct pte_entry *e = &r->e[x];
	unsigned long i, nr;
	long n = 0;

	if (e->level == FSIM_LEVEL_PMD) {
		if (!e->folio || fsim_folio_maybe_mapped_shared(e->folio))
			return 0;	/* the huge zeropage; other mappings */
		if (y - x != pmd_nr(p))
			return -EOPNOTSUPP;	/* split_folio() */
		out[0] = e->folio;
		return 1;
	}
	for (i = x; i < y; i += nr) {
		struct fsim_folio *f = r->e[i].folio;

		nr = 1;
		if (!f)
			continue;	/* none, zeropage, swap */
		if (fsim_folio_nr_pages(f) > 1) {
			nr = pte_batch(r, i, y);
			if (nr < fsim_folio_nr_pages(f)) {
				if (fsim_folio_maybe_mapped_shared(f))
					continue;
				return -EOPNOTSUPP;	/* split_folio() */
			}
		}
		if ((unsigned long)fsim_folio_mapcount(f) != fsim_folio_nr_pages(f))
			continue;	/* "do not interfere with other mappings" */
		out[n++] = f;
	}
	return n;
}

/* shrink_folio_list(): add_to_swap(), try_to_unmap() (a PMD split first,
 * TTU_SPLIT_HUGE_PMD; a folio in the swap cache is never queued for
 * deferred split, so the unmap is modelled as one call), pageout(), the
 * folio freed; its entries become swap entries. */
static void reclaim(struct fsim_process *p, struct region *r, struct fsim_folio *f)
{
	unsigned long i, n;

	for (i = 0; i < r->npages; i += n) {
		struct pte_entry *e = &r->e[i];

		n = 1;
		if (e->folio != f)
			continue;
		if (e->level == FSIM_LEVEL_PMD) {
			n = pmd_nr(p);
			vm_rmap_result(p, "pageout: remove_rmap(PMD)",
				       fsim_folio_remove_rmap(f, p->mm, FSIM_LEVEL_PMD, 0, n));
			r->pte_table[i >> r->pmd_shift] = 1;	/* the deposited table */
		} else {
			n = pte_batch(r, i, r->npages);
			vm_rmap_result(p, "pageout: remove_rmap(PTEs)",
				       fsim_folio_remove_rmap(f, p->mm, FSIM_LEVEL_PTE,
							      e->fpage, n));
		}
		for (unsigned long k = i; k < i + n; k++) {
			clear_entry(&r->e[k]);
			r->e[k].swap = true;
		}
	}
	put_if_unused(f);
}

int fsim_process_pageout(struct fsim_process *p, const char *name, uint64_t off,
			 uint64_t len)
{
	struct region *r = p ? find_region(p, name) : NULL;
	struct fsim_folio **victims;
	unsigned long a, b, x, y, i;
	long n = 0, got;
	int err = page_range(p, r, off, len, &a, &b);

	if (err)
		return err;
	if (live_range(r, a, b))
		return -ENOMEM;	/* madvise() over a hole */
	if (r->hugetlb)
		return -EINVAL;	/* can_madv_lru_vma() */
	if (r->shm)
		return -EOPNOTSUPP;	/* shmem and file pageout: not modelled */
	victims = malloc((b - a) * sizeof(*victims));
	if (!victims)
		return -ENOMEM;
	/* lru_add_drain(), then the walk: every decision before any change */
	for (x = a; x < b; x = y) {
		y = (x / pmd_nr(p) + 1) * pmd_nr(p);
		if (y > b)
			y = b;
		got = pageout_chunk(p, r, x, y, victims + n);
		if (got < 0) {
			free(victims);
			return (int)got;
		}
		n += got;
	}
	for (i = 0; i < (unsigned long)n; i++) {
		err = reclaimable(p, r, victims[i]);
		if (err < 0)
			break;
	}
	for (i = 0; err >= 0 && i < (unsigned long)n; i++)
		if (reclaimable(p, r, victims[i]) == 1)
			reclaim(p, r, victims[i]);
	free(victims);
	return err < 0 ? err : 0;
}

/* do_swap_page() of a swap entry one mapping holds, on zram
 * (SWP_SYNCHRONOUS_IO): a new small folio, mapped exclusive and writable
 * (dirty on a write), the swap slot freed. */
int swap_in(struct fsim_process *p, struct region *r, unsigned long i, bool write)
{
	int err = map_new_anon(p, r, i, 0);

	if (!err) {
		r->e[i].swap = false;
		r->e[i].dirty = write;
	}
	return err;
}
