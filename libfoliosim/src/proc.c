// SPDX-License-Identifier: MIT
/* What /proc shows: fs/proc/page.c (kpagecount) and fs/proc/task_mmu.c
 * (pagemap, smaps_account(), numa_maps gather_stats()), per mode. */
#include "internal.h"

static uint64_t page_size(const struct fsim_folio *f)
{
	return (uint64_t)1 << f->ctx->arch.page_shift;
}

/* get_kpage_count(): 03/13 vs folio_precise_page_mapcount() of 6.12 */
uint64_t fsim_kpagecount(const struct fsim_folio *f, unsigned long page)
{
	if (folio_is_rfc(f))
		return fsim_folio_average_page_mapcount(f);
	return (uint64_t)fsim_folio_precise_page_mapcount(f, page);
}

/* pte_to_pagemap_entry()/pagemap_pmd_range(): PM_MMAP_EXCLUSIVE */
bool fsim_pagemap_exclusive(const struct fsim_folio *f, unsigned long page)
{
	if (folio_is_rfc(f))
		return !rfc_maybe_mapped_shared(f);
	return fsim_folio_precise_page_mapcount(f, page) == 1;
}

/* gather_stats(): 02/13 vs the precise mapcount of the entry's page */
unsigned long fsim_numa_mapmax(const struct fsim_folio *f, unsigned long page)
{
	if (folio_is_rfc(f))
		return fsim_folio_average_page_mapcount(f);
	return (unsigned long)fsim_folio_precise_page_mapcount(f, page);
}

/* smaps_page_accumulate() */
static void smaps_page_accumulate(struct fsim_smaps *mss, const struct fsim_folio *f,
				  uint64_t size, uint64_t pss, bool dirty,
				  bool private)
{
	mss->pss += pss;
	if (folio_test_anon(f))
		mss->pss_anon += pss;
	else if (f->kind == FSIM_KIND_SHMEM)	/* folio_test_swapbacked() */
		mss->pss_shmem += pss;
	else
		mss->pss_file += pss;
	if (dirty) {
		mss->pss_dirty += pss;
		if (private)
			mss->private_dirty += size;
		else
			mss->shared_dirty += size;
	} else {
		if (private)
			mss->private_clean += size;
		else
			mss->shared_clean += size;
	}
}

/* smaps_account() of 6.12 and of 06/13 (fixed), with smaps_pmd_entry()'s
 * AnonHugePages/ShmemPmdMapped/FilePmdMapped for PMD entries. */
void fsim_smaps_account(const struct fsim_folio *f, enum fsim_level level,
			unsigned long page, bool dirty, struct fsim_smaps *mss)
{
	const unsigned long nr = 1ul << level_order(&f->ctx->arch, level);
	const uint64_t psize = page_size(f), size = nr * psize;
	unsigned long i;

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
	if (folio_is_rfc(f)) {
		const unsigned long mapcount = fsim_folio_average_page_mapcount(f);
		uint64_t pss = size << FSIM_PSS_SHIFT;

		if (mapcount >= 2)
			pss /= mapcount;
		smaps_page_accumulate(mss, f, size, pss, dirty,
				      !rfc_maybe_mapped_shared(f));
		return;
	}
	for (i = page; i < page + nr; i++) {
		int mapcount = fsim_folio_precise_page_mapcount(f, i);
		uint64_t pss = psize << FSIM_PSS_SHIFT;

		if (mapcount >= 2)
			pss /= (uint64_t)mapcount;
		smaps_page_accumulate(mss, f, psize, pss, dirty, mapcount < 2);
	}
}
