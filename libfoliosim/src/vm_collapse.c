// SPDX-License-Identifier: MIT
/*
 * madvise(MADV_COLLAPSE) of anonymous memory (mm/khugepaged.c of 6.12):
 * every PMD-sized, PMD-aligned chunk of the range is scanned
 * (hpage_collapse_scan_pmd()) and, if it qualifies, copied into a new THP
 * that one PMD maps (collapse_huge_page()).  MADV_COLLAPSE ignores the
 * khugepaged limits (none, shared and swap PTEs) and the sysfs knobs.
 */
#include "vm_internal.h"

/* enum scan_result, the ones the model reaches. */
enum scan {
	SCAN_SUCCEED, SCAN_PMD_NONE, SCAN_PMD_MAPPED, SCAN_PAGE_RO, SCAN_PAGE_ANON,
	SCAN_PAGE_COUNT,
};

/* madvise_collapse_errno() */
static int collapse_errno(enum scan s)
{
	return s == SCAN_PAGE_COUNT ? -EAGAIN : -EINVAL;
}

/* is_refcount_suitable() of an anon folio (no swap cache): one reference
 * per mapping, no pin. */
static bool refcount_suitable(const struct fsim_folio *f)
{
	return fsim_folio_refcount(f) == fsim_folio_mapcount(f);
}

/* find_pmd_or_thp_or_none(), then hpage_collapse_scan_pmd()'s PTE walk. */
static enum scan scan_pmd(const struct region *r, unsigned long c, unsigned long n)
{
	bool writable = false;
	unsigned long i;

	if (r->e[c].level == FSIM_LEVEL_PMD && (r->e[c].folio || r->e[c].zero))
		return SCAN_PMD_MAPPED;
	if (pmd_none(r, c))
		return SCAN_PMD_NONE;
	for (i = c; i < c + n; i++) {
		const struct pte_entry *e = &r->e[i];

		if (!e->folio)
			continue;	/* pte_none_or_zero() */
		if (e->writable)
			writable = true;
		if (fsim_folio_kind(e->folio) != FSIM_KIND_ANON)
			return SCAN_PAGE_ANON;
		if (!refcount_suitable(e->folio))
			return SCAN_PAGE_COUNT;
	}
	return writable ? SCAN_SUCCEED : SCAN_PAGE_RO;
}

/*
 * collapse_huge_page(): __collapse_huge_page_copy_succeeded() unmaps the
 * old pages PTE by PTE (folio_remove_rmap_pte(), so a THP losing its first
 * PTE is partially mapped for a moment and queued for deferred split), the
 * old folios are put, then the new THP is mapped by the PMD
 * (folio_add_new_anon_rmap(RMAP_EXCLUSIVE)), its PTE table deposited.
 */
static int collapse_chunk(struct fsim_process *p, struct region *r, unsigned long c,
			  unsigned long n)
{
	struct fsim_folio *thp;
	unsigned long i;
	int err = fsim_folio_create(p->ctx, p->ctx->arch.pmd_order, FSIM_KIND_ANON, &thp);

	if (err)
		return err;
	for (i = c; i < c + n; i++) {
		struct pte_entry *e = &r->e[i];
		struct fsim_folio *old = e->folio;

		if (old) {
			vm_rmap_result(p, "collapse: remove_rmap(old PTE)",
				       fsim_folio_remove_rmap(old, p->mm, FSIM_LEVEL_PTE,
							      e->fpage, 1));
			clear_entry(e);
			if (i + 1 == c + n || r->e[i + 1].folio != old)
				put_if_unused(old);
		}
		clear_entry(e);
	}
	err = fsim_folio_add_new_anon_rmap(thp, p->mm, true);
	if (err) {
		fsim_folio_free(thp);
		return err;
	}
	set_entries(r, c, n, thp, 0, FSIM_LEVEL_PMD, true, true);
	r->pte_table[c >> r->pmd_shift] = 0;	/* deposited under the PMD */
	return 0;
}

int fsim_process_collapse(struct fsim_process *p, const char *name, uint64_t off,
			  uint64_t len)
{
	struct region *r = p ? find_region(p, name) : NULL;
	const unsigned long n = p ? pmd_nr(p) : 1;
	unsigned long a, b, c, first, last, thps = 0, i;
	enum scan last_fail = SCAN_SUCCEED;
	int err = page_range(p, r, off, len, &a, &b);

	if (err)
		return err;
	for (i = a; i < b; i++)
		if (!r->live[i])
			return -ENOMEM;	/* madvise() over a hole */
	if (r->hugetlb || r->order < 2)
		return -EINVAL;	/* hugetlb, or VM_NOHUGEPAGE (see process.h) */
	if (r->shm || r->misaligned)
		return -EOPNOTSUPP;	/* collapse_file(), or no aligned PMD known */
	for (i = a; i < b; i++)
		if (r->e[i].swap)
			return -EOPNOTSUPP;	/* __collapse_huge_page_swapin() */
	for (i = a; i < b; i++)
		if (r->live[i] != r->live[a])
			return -EOPNOTSUPP;	/* one VMA at a time: not modelled */
	first = (a + n - 1) / n * n;
	last = b / n * n;
	for (c = first; c < last; c += n) {
		enum scan s = scan_pmd(r, c, n);

		if (s == SCAN_SUCCEED)
			err = collapse_chunk(p, r, c, n);
		if (err)
			return err;
		if (s == SCAN_SUCCEED || s == SCAN_PMD_MAPPED) {
			thps++;
			continue;
		}
		last_fail = s;
		if (s != SCAN_PAGE_RO && s != SCAN_PAGE_COUNT)
			break;	/* not on the list of results to go on after */
	}
	return thps == (last - first) / n ? 0 : collapse_errno(last_fail);
}
