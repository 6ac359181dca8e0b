// SPDX-License-Identifier: MIT
/* What /proc shows: fs/proc/page.c (kpagecount) and fs/proc/task_mmu.c
 * (pagemap, smaps_account(), numa_maps gather_stats()); the readers that
 * depend on the mapcounts are the back end's (backend.h). */
#include "internal.h"

/* get_kpage_count(): 03/13 vs folio_precise_page_mapcount() of 6.12 */
uint64_t fsim_kpagecount(const struct fsim_folio *f, unsigned long page)
{
	if (!f || page >= folio_nr_pages(f))
		return 0;
	return folio_ops(f)->kpagecount(f, page);
}

/* pte_to_pagemap_entry()/pagemap_pmd_range(): PM_MMAP_EXCLUSIVE;
 * pagemap_hugetlb_range() asks folio_likely/maybe_mapped_shared() in
 * every tree. */
bool fsim_pagemap_exclusive(const struct fsim_folio *f, unsigned long page)
{
	if (!f || page >= folio_nr_pages(f))
		return false;
	if (f->hugetlb)
		return !fsim_folio_maybe_mapped_shared(f);
	return folio_ops(f)->pagemap_exclusive(f, page);
}

/* gather_stats(): 02/13 vs the precise mapcount of the entry's page */
unsigned long fsim_numa_mapmax(const struct fsim_folio *f, unsigned long page)
{
	if (!f || page >= folio_nr_pages(f))
		return 0;
	return folio_ops(f)->numa_mapmax(f, page);
}

bool fsim_huge_zero_pmd_exclusive(const struct fsim_ctx *ctx)
{
	return ctx && ctx->ops->huge_zero_pmd_exclusive;
}

/* smaps_account() with smaps_pmd_entry()'s AnonHugePages/ShmemPmdMapped/
 * FilePmdMapped for PMD entries; the mapcount-dependent part is the
 * back end's (6.12 per page, 06/13 on the average). */
/* Some mm maps [page, page + nr) of @f by one entry of @level. */
static bool entry_exists(const struct fsim_folio *f, enum fsim_level level,
			 unsigned long page, unsigned long nr)
{
	struct fsim_folio *mf = (struct fsim_folio *)f;
	bool found = false;

	fsim_spin_lock(&mf->oracle_lock);
	for (size_t i = 0; i < f->oracle.n && !found; i++) {
		const unsigned int id = oracle_seg_at(&f->oracle, i)->mm_id;

		/* the segments of one mm are consecutive: ask once per mm */
		if (i && oracle_seg_at(&f->oracle, i - 1)->mm_id == id)
			continue;
		found = oracle_covers(&f->oracle, id, level, page, nr, 1);
	}
	fsim_spin_unlock(&mf->oracle_lock);
	return found;
}

/* The entry smaps_account() is asked about: a level, a page of the folio
 * aligned to it and, for PMDs and PUDs, an entry some mm holds. */
static int check_smaps_entry(const struct fsim_folio *f, enum fsim_level level,
			     unsigned long page, const struct fsim_smaps *mss)
{
	unsigned long nr;

	if (!f || !mss)
		return refuse(f ? "no fsim_smaps to add to (NULL)" : "no folio (NULL)",
			      -EINVAL);
	if ((unsigned int)level > FSIM_LEVEL_PUD)
		return refuse("no such level (PTE, PMD or PUD)", -EINVAL);
	nr = 1ul << level_order(&f->ctx->arch, level);
	if (nr > folio_nr_pages(f) || page >= folio_nr_pages(f) || (page & (nr - 1)))
		return refuse("the entry is not inside the folio at its level's "
			      "alignment", -EINVAL);
	if (level != FSIM_LEVEL_PTE && !entry_exists(f, level, page, nr))
		return refuse("no mm maps the folio by such a PMD or PUD entry",
			      -EINVAL);
	return 0;
}

int fsim_smaps_account(const struct fsim_folio *f, enum fsim_level level,
		       unsigned long page, bool dirty, struct fsim_smaps *mss)
{
	int err = check_smaps_entry(f, level, page, mss);
	uint64_t size;

	if (err)
		return err;
	size = (uint64_t)1 << (level_order(&f->ctx->arch, level) + f->ctx->arch.page_shift);

	if (f->hugetlb) {	/* smaps_hugetlb_range() */
		if (fsim_folio_maybe_mapped_shared(f))
			mss->shared_hugetlb += size;
		else
			mss->private_hugetlb += size;
		return 0;
	}
	if (folio_test_anon(f))
		mss->anonymous += size;
	mss->resident += size;
	if (level == FSIM_LEVEL_PMD) {
		if (folio_test_anon(f))
			mss->anonymous_thp += size;
		else if (f->kind == FSIM_KIND_SHMEM)
			mss->shmem_thp += size;
		else
			mss->file_thp += size;
	}
	/* refcount == 1 guarantees a single mapping: no mapcount needed. */
	if (fsim_folio_refcount(f) == 1) {
		smaps_page_accumulate(mss, f, size, size << FSIM_PSS_SHIFT, dirty,
				      true);
		return 0;
	}
	folio_ops(f)->smaps_account(f, level, page, dirty, mss);
	return 0;
}

int fsim_folio_page_info(const struct fsim_folio *f, unsigned long page,
			 struct fsim_page_info *out)
{
	if (!f || !out)
		return refuse(f ? "no fsim_page_info to fill (NULL)" : "no folio (NULL)",
			      -EINVAL);
	if (page >= folio_nr_pages(f))
		return refuse("the page is outside the folio", -EINVAL);
	out->kpagecount = fsim_kpagecount(f, page);
	out->pagemap_exclusive = fsim_pagemap_exclusive(f, page);
	out->numa_mapmax = fsim_numa_mapmax(f, page);
	out->precise_mapcount = fsim_folio_precise_page_mapcount(f, page);
	out->anon_exclusive = fsim_folio_anon_exclusive(f, page);
	out->true_mapcount = fsim_oracle_true_mapcount(f, page);
	return 0;
}
