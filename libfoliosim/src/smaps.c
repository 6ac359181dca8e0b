// SPDX-License-Identifier: MIT
/*
 * smaps_account()'s two ways of accounting a present entry (a leaf of the
 * back ends): page by page with precise mapcounts (6.12, and the base tree
 * with CONFIG_PAGE_MAPCOUNT), or the whole entry at the folio's average
 * mapcount (06/13, like CONFIG_NO_PAGE_MAPCOUNT).
 */
#include "internal.h"

/* smaps_page_accumulate() */
void smaps_page_accumulate(struct fsim_smaps *mss, const struct fsim_folio *f,
			   uint64_t size, uint64_t pss, bool dirty, bool private)
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

/* smaps_account() of 6.12: "for (i = 0; i < nr; i++, page++)" */
void smaps_account_per_page(const struct fsim_folio *f, unsigned long page,
			    unsigned long nr, bool dirty, struct fsim_smaps *mss,
			    int (*mapcount)(const struct fsim_folio *,
					    unsigned long))
{
	const uint64_t psize = (uint64_t)1 << f->ctx->arch.page_shift;
	unsigned long i;

	for (i = page; i < page + nr; i++) {
		int count = mapcount(f, i);
		uint64_t pss = psize << FSIM_PSS_SHIFT;

		if (count >= 2)
			pss /= (uint64_t)count;
		smaps_page_accumulate(mss, f, psize, pss, dirty, count < 2);
	}
}

/* smaps_account() of 06/13 (with the mapping's size, our fix) */
void smaps_account_average(const struct fsim_folio *f, unsigned long nr,
			   bool dirty, unsigned long mapcount, bool exclusive,
			   struct fsim_smaps *mss)
{
	const uint64_t size = (uint64_t)nr << f->ctx->arch.page_shift;
	uint64_t pss = size << FSIM_PSS_SHIFT;

	if (mapcount >= 2)
		pss /= mapcount;
	smaps_page_accumulate(mss, f, size, pss, dirty, exclusive);
}
