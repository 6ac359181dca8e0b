// SPDX-License-Identifier: MIT
/*
 * smaps_account()'s two ways of accounting a present entry (a leaf of the
 * back ends): page by page with precise mapcounts (6.12, and the base tree
 * with CONFIG_PAGE_MAPCOUNT), or the whole entry at the folio's average
 * mapcount (06/13, like CONFIG_NO_PAGE_MAPCOUNT).
 */
#include "foliosim/process.h"
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

/* __show_smap(): every field of one accumulator in kB, as printed. */
void smaps_kb_add(struct fsim_smaps_kb *out, const struct fsim_smaps *v)
{
	const unsigned int pss_shift = FSIM_PSS_SHIFT + 10;

	out->rss += v->resident >> 10;
	out->pss += v->pss >> pss_shift;
	out->pss_anon += v->pss_anon >> pss_shift;
	out->pss_file += v->pss_file >> pss_shift;
	out->pss_shmem += v->pss_shmem >> pss_shift;
	out->pss_dirty += v->pss_dirty >> pss_shift;
	out->private_clean += v->private_clean >> 10;
	out->private_dirty += v->private_dirty >> 10;
	out->shared_clean += v->shared_clean >> 10;
	out->shared_dirty += v->shared_dirty >> 10;
	out->private_total += (v->private_clean >> 10) + (v->private_dirty >> 10);
	out->shared_total += (v->shared_clean >> 10) + (v->shared_dirty >> 10);
	out->anonymous += v->anonymous >> 10;
	out->anon_huge += v->anonymous_thp >> 10;
	out->shmem_pmd += v->shmem_thp >> 10;
	out->file_pmd += v->file_thp >> 10;
	out->shared_hugetlb += v->shared_hugetlb >> 10;
	out->private_hugetlb += v->private_hugetlb >> 10;
	out->swap += v->swap >> 10;
}
