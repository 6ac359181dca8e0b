// SPDX-License-Identifier: MIT
/* What /proc shows: fs/proc/page.c (kpagecount) and fs/proc/task_mmu.c
 * (pagemap, smaps_account(), numa_maps gather_stats()); the readers that
 * depend on the mapcounts are the back end's (backend.h). */
#include "internal.h"

/* get_kpage_count(): 03/13 vs folio_precise_page_mapcount() of 6.12 */
uint64_t fsim_kpagecount(const struct fsim_folio *f, unsigned long page)
{
	return folio_ops(f)->kpagecount(f, page);
}

/* pte_to_pagemap_entry()/pagemap_pmd_range(): PM_MMAP_EXCLUSIVE;
 * pagemap_hugetlb_range() asks folio_likely/maybe_mapped_shared() in
 * every tree. */
bool fsim_pagemap_exclusive(const struct fsim_folio *f, unsigned long page)
{
	if (f->hugetlb)
		return !fsim_folio_maybe_mapped_shared(f);
	return folio_ops(f)->pagemap_exclusive(f, page);
}

/* gather_stats(): 02/13 vs the precise mapcount of the entry's page */
unsigned long fsim_numa_mapmax(const struct fsim_folio *f, unsigned long page)
{
	return folio_ops(f)->numa_mapmax(f, page);
}

bool fsim_huge_zero_pmd_exclusive(const struct fsim_ctx *ctx)
{
	return ctx && ctx->ops->huge_zero_pmd_exclusive;
}

/* smaps_account() with smaps_pmd_entry()'s AnonHugePages/ShmemPmdMapped/
 * FilePmdMapped for PMD entries; the mapcount-dependent part is the
 * back end's (6.12 per page, 06/13 on the average). */
void fsim_smaps_account(const struct fsim_folio *f, enum fsim_level level,
			unsigned long page, bool dirty, struct fsim_smaps *mss)
{
	const unsigned long nr = 1ul << level_order(&f->ctx->arch, level);
	const uint64_t size = (uint64_t)nr << f->ctx->arch.page_shift;

	if (f->hugetlb) {	/* smaps_hugetlb_range() */
		if (fsim_folio_maybe_mapped_shared(f))
			mss->shared_hugetlb += size;
		else
			mss->private_hugetlb += size;
		return;
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
		return;
	}
	folio_ops(f)->smaps_account(f, level, page, dirty, mss);
}
