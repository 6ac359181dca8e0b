// SPDX-License-Identifier: MIT
/*
 * The public rmap calls.  Each one:
 *   1. validates the call against the folio, the mode and the oracle (the
 *      page tables' knowledge), under the oracle lock, and reserves every
 *      byte it may need, so that a refused call changes nothing;
 *   2. records the mapping change in the oracle;
 *   3. runs the mode's back end (backend.h: ctx->ops), which mirrors
 *      the kernel function and cannot fail, outside the oracle lock, so
 *      that calls on one folio from several threads really race on the
 *      kernel's counters and the bit spinlock;
 *   4. in serial use, checks the transition invariants of removals.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

static int reserve_anon_exclusive(struct fsim_folio *f, unsigned long nr,
				  unsigned long stride)
{
	int err;

	fsim_spin_lock(&f->flags_lock);
	err = rangeset_reserve(&f->anon_exclusive, stride == 1 ? 1 : nr / stride + 1);
	fsim_spin_unlock(&f->flags_lock);
	return err;
}

/* Is any of page, page + stride, ... below page + nr AnonExclusive? */
static bool any_anon_exclusive(struct fsim_folio *f, unsigned long page,
			       unsigned long nr, unsigned long stride)
{
	const struct rangeset *rs = &f->anon_exclusive;
	bool found = false;
	unsigned long i;
	size_t k;

	fsim_spin_lock(&f->flags_lock);
	if (stride == 1) {
		/* Any interval overlapping the range: one test per interval. */
		for (k = 0; k < rs->n && !found; k++)
			found = rs->r[k].start < page + nr && rs->r[k].end > page;
	} else {
		for (i = page; i < page + nr && !found; i += stride)
			found = rangeset_contains(rs, i);
	}
	fsim_spin_unlock(&f->flags_lock);
	return found;
}

/* __folio_rmap_sanity_checks() made strict: what 6.12/the RFC warn about
 * is refused with -EINVAL. */
static int check_range(const struct fsim_folio *f, enum fsim_level level,
		       unsigned long page, unsigned long nr)
{
	const struct fsim_arch *arch = &f->ctx->arch;
	const unsigned long align = (1ul << level_order(arch, level)) - 1;

	if ((unsigned int)level > FSIM_LEVEL_PUD)
		return refuse("no such level (PTE, PMD or PUD)", -EINVAL);
	if (nr == 0 || page >= folio_nr_pages(f) || nr > folio_nr_pages(f) - page)
		return refuse("the page range is empty or leaves the folio", -EINVAL);
	if ((page & align) || (nr & align))
		return refuse("the page range is not aligned to the level's order",
			      -EINVAL);
	/* hugetlb: one entry of the hstate's size maps the whole folio */
	if (f->hugetlb)
		return level == hugetlb_level(f) && !page && nr == folio_nr_pages(f) ?
		       0 : refuse("a hugetlb folio is mapped whole, by one entry of "
				  "its hstate's level", -EINVAL);
	/* 6.12 and the base tree: a PMD (PUD) maps a whole folio of its size */
	if (!folio_ops(f)->level_allowed(f, level, page, nr))
		return refuse("this kernel maps a PMD (PUD) only over a whole folio "
			      "of that size", -EINVAL);
	return 0;
}

static bool same_ctx(const struct fsim_folio *f, const struct fsim_mm *mm)
{
	return f && mm && mm->ctx == f->ctx;
}

static bool folio_test_anon_or(const struct fsim_folio *f)
{
	return f && folio_test_anon(f);
}

/* Why a call's folio and mms were refused (same_ctx() and the kind);
 * @src: the dup's source mm, NULL for other calls. */
static int refuse_args(const struct fsim_folio *f, const struct fsim_mm *mm,
		       const struct fsim_mm *src, bool dup, bool anon_call)
{
	if (!f)
		return refuse("no folio (NULL)", -EINVAL);
	if (!mm || (dup && !src))
		return refuse("no mm (NULL)", -EINVAL);
	if (mm->ctx != f->ctx || (dup && src->ctx != f->ctx))
		return refuse("the folio and the mm belong to different contexts",
			      -EINVAL);
	return refuse(anon_call ? "an anon rmap call on a folio that is not anonymous"
			: "a file rmap call on an anonymous folio", -EINVAL);
}

/* The cover letter's overflow TODO: refuse what would overflow mapcount
 * (an int) or total mapped pages (an unsigned long of the arch). */
static int check_overflow(const struct fsim_folio *f, uint64_t nr_mappings,
			  uint64_t nr_pages)
{
	const uint64_t ulong_max = f->ctx->arch.bits == 32 ? UINT32_MAX : UINT64_MAX;

	if (f->oracle.entries + nr_mappings > INT_MAX)
		return refuse("the folio's mapcount (an int) would overflow", -EOVERFLOW);
	if (f->oracle.pages > ulong_max - nr_pages)
		return refuse("the total of mapped pages (an unsigned long) would "
			      "overflow", -EOVERFLOW);
	return 0;
}

/* The page-table references of new mappings; the first mapping of an anon
 * folio takes over the allocation reference (do_anonymous_page()). */
static void take_refs(struct fsim_folio *f, struct fsim_mm *mm, long entries)
{
	long refs = entries;

	/* Both flags change once in a folio's life: read before writing, so
	 * that later adds do no locked RMW or seq_cst store for them. */
	if (atomic_load_explicit(&f->alloc_ref, memory_order_relaxed) &&
	    atomic_exchange(&f->alloc_ref, false))
		refs--;
	if (!atomic_load_explicit(&f->was_mapped, memory_order_relaxed))
		atomic_store(&f->was_mapped, true);
	atomic_fetch_add(&f->refcount, refs);
	atomic_fetch_add(&mm->nr_mapped, entries);
}

static void put_refs(struct fsim_folio *f, struct fsim_mm *mm, long entries)
{
	atomic_fetch_sub(&f->refcount, entries);
	atomic_fetch_sub(&mm->nr_mapped, entries);
}

/*
 * After a removal (serial use): the partially-mapped flag may only have
 * been set by a removal that left the folio partly mapped; whether an
 * unflagged partial mapping is a miss is the back end's rule (precise in
 * 6.12 and the base tree, only for one mm mapping each page at most once
 * in the RFC).  Order <= 1 folios are never flagged.
 */
static void check_removal(struct fsim_folio *f, bool flag_before,
			  unsigned long covered_before)
{
	const unsigned long nr = folio_nr_pages(f);
	struct oracle_profile p;
	bool flag = atomic_load(&f->partially_mapped), partial;

	if (f->ctx->concurrent)
		return;
	oracle_profile(&f->oracle, &p);
	partial = p.covered > 0 && p.covered < nr;
	if (flag && !flag_before && !partial)
		note_transition(f, "partially_mapped_flag_justified",
				"a removal flagged the folio with %lu of %lu pages mapped",
				p.covered, nr);
	if (!folio_test_anon(f) || f->order <= 1 || flag)
		return;
	folio_ops(f)->check_missed_partial(f, &p, covered_before);
}

int fsim_folio_add_new_anon_rmap(struct fsim_folio *f, struct fsim_mm *mm,
				 bool exclusive)
{
	const struct fsim_arch *arch;
	enum fsim_level level = FSIM_LEVEL_PTE;
	unsigned long nr;
	int err;

	if (!same_ctx(f, mm) || !folio_test_anon(f))
		return refuse_args(f, mm, NULL, false, true);
	/* hugetlb_add_new_anon_rmap() takes no flags: a new hugetlb page is
	 * always AnonExclusive (kharness's fuzzer found the model honouring
	 * exclusive=no, docs/kharness.md) */
	if (f->hugetlb && !exclusive)
		return refuse("a new hugetlb folio is mapped exclusively "
			      "(hugetlb_add_new_anon_rmap() takes no flags)", -EINVAL);
	arch = &f->ctx->arch;
	nr = folio_nr_pages(f);
	if (folio_test_large(f) && f->order >= arch->pud_order)
		level = FSIM_LEVEL_PUD;
	else if (folio_test_large(f) && f->order >= arch->pmd_order)
		level = FSIM_LEVEL_PMD;
	err = check_range(f, level, 0, nr);
	if (err)
		return err;	/* legacy: larger than a PMD cannot be mapped */

	fsim_spin_lock(&f->oracle_lock);
	/* "must only be called on *new* folios": never mapped before (a
	 * second call would also count MTHP_STAT_NR_ANON twice). */
	if (f->oracle.entries || atomic_load(&f->was_mapped))
		err = refuse("new-anon of a folio that was mapped before", -EINVAL);
	if (!err)
		err = check_overflow(f, nr >> level_order(arch, level), nr);
	if (!err && exclusive)
		err = reserve_anon_exclusive(f, nr, 1ul << level_order(arch, level));
	if (!err)
		err = oracle_track_cover(&f->oracle, !f->ctx->concurrent);
	if (!err)
		err = oracle_reserve(&f->oracle, mm->id, level, 0, nr);
	if (!err)
		oracle_add(&f->oracle, mm->id, level, 0, nr,
			   1ul << level_order(arch, level));
	fsim_spin_unlock(&f->oracle_lock);
	if (err)
		return err;

	if (f->hugetlb) {
		hugetlb_add_new_anon_rmap(f, exclusive);
	} else {
		folio_ops(f)->add_new_anon(f, mm, exclusive);
		f->counted_nr_anon = true;	/* __folio_set_anon() */
	}
	take_refs(f, mm, (long)(nr >> level_order(arch, level)));
	return 0;
}

/* Would an RMAP_EXCLUSIVE add leave a page mapped twice at one level, or
 * beside two entries of another level?  (The PMD split path maps each page
 * once by the PMD and once by the new PTE, which is fine.)  The same rule
 * in both modes: 6.12 warns about it, the RFC just dropped the check. */
static bool exclusive_page_shared(const struct fsim_folio *f, enum fsim_level level,
				  unsigned long page, unsigned long nr)
{
	uint64_t same = oracle_level_overlaps(&f->oracle, level, page, nr), other = 0;
	int l;

	for (l = FSIM_LEVEL_PTE; l <= FSIM_LEVEL_PUD; l++)
		if (l != (int)level)
			other += oracle_level_overlaps(&f->oracle, (enum fsim_level)l,
						       page, nr);
	return same || other > 1;
}

/*
 * Would a non-exclusive anon add map a page that is still AnonExclusive a
 * second time at its level?  __folio_add_anon_rmap() warns about it
 * ("_mapcount > 0 || entire_mapcount > 1" with PageAnonExclusive, after
 * the add) where the back end says: a page mapped by a second entry must
 * have lost the flag first (fork's dup, folio_try_share_anon_rmap()).
 * The model accepted it until kharness ran the kernel's own code
 * (docs/kharness.md).  Called under the oracle lock.
 */
static bool anon_exclusive_page_remapped(struct fsim_folio *f, enum fsim_level level,
					 unsigned long page, unsigned long nr,
					 bool entire_rule)
{
	const struct fsim_arch *arch = &f->ctx->arch;
	uint64_t entire = 0;
	bool remapped = false;
	size_t i;

	/* 6.12 and the base tree also warn for any AnonExclusive page of the
	 * range once the folio has two entire (PMD, PUD) mappings:
	 * "folio_entire_mapcount(folio) > 1" */
	if (entire_rule) {
		entire = oracle_level_entries(&f->oracle, FSIM_LEVEL_PMD,
					      1ul << arch->pmd_order) +
			 oracle_level_entries(&f->oracle, FSIM_LEVEL_PUD,
					      1ul << arch->pud_order);
		if (level != FSIM_LEVEL_PTE)
			entire += nr >> level_order(arch, level);
	}
	fsim_spin_lock(&f->flags_lock);
	for (i = 0; i < f->anon_exclusive.n && !remapped; i++) {
		unsigned long lo = f->anon_exclusive.r[i].start, hi = f->anon_exclusive.r[i].end;

		if (lo < page)
			lo = page;
		if (hi > page + nr)
			hi = page + nr;
		remapped = lo < hi && (entire > 1 ||
				       oracle_level_overlaps(&f->oracle, level, lo, hi - lo));
	}
	fsim_spin_unlock(&f->flags_lock);
	return remapped;
}

/* __folio_add_anon_rmap() / __folio_add_file_rmap() */
static int add_rmap(struct fsim_folio *f, struct fsim_mm *mm, enum fsim_level level,
		    unsigned long page, unsigned long nr, bool exclusive)
{
	const unsigned int lorder = level_order(&f->ctx->arch, level);
	int err = check_range(f, level, page, nr);

	if (err)
		return err;
	fsim_spin_lock(&f->oracle_lock);
	/*
	 * RMAP_EXCLUSIVE: __split_huge_pmd_locked() adds exclusive PTEs while
	 * the PMD still maps the pages, which is fine; an exclusive page
	 * mapped twice at one level is what __folio_add_anon_rmap() warns
	 * about (_mapcount > 0 or entire_mapcount > 1 with PageAnonExclusive).
	 */
	if (exclusive && exclusive_page_shared(f, level, page, nr))
		err = refuse("RMAP_EXCLUSIVE for a page this level maps already",
			     -EINVAL);
	/* (hugetlb_add_anon_rmap() warns about the same in every kernel) */
	if (!err && !exclusive && folio_test_anon(f) &&
	    (f->hugetlb || !folio_test_large(f) ||
	     folio_ops(f)->warns_remapped_anon_exclusive_large) &&
	    anon_exclusive_page_remapped(f, level, page, nr, !f->hugetlb &&
					 folio_test_large(f)))
		err = refuse("a page still AnonExclusive mapped again at its level: "
			     "clear the flag first (dup, folio_try_share_anon_rmap())",
			     -EINVAL);
	if (!err)
		err = check_overflow(f, nr >> lorder, nr);
	if (!err && exclusive)
		err = reserve_anon_exclusive(f, nr, 1ul << lorder);
	if (!err)
		err = oracle_track_cover(&f->oracle, !f->ctx->concurrent);
	if (!err)
		err = oracle_reserve(&f->oracle, mm->id, level, page, nr);
	if (!err)
		oracle_add(&f->oracle, mm->id, level, page, nr, 1ul << lorder);
	fsim_spin_unlock(&f->oracle_lock);
	if (err)
		return err;

	if (f->hugetlb)
		hugetlb_add_rmap(f);
	else
		folio_ops(f)->add(f, mm, level, page, nr);
	if (exclusive)
		anon_exclusive_set_range(f, page, nr, 1ul << lorder, true);
	take_refs(f, mm, (long)(nr >> lorder));
	return 0;
}

int fsim_folio_add_anon_rmap(struct fsim_folio *f, struct fsim_mm *mm,
			     enum fsim_level level, unsigned long page,
			     unsigned long nr, bool exclusive)
{
	if (!same_ctx(f, mm) || !folio_test_anon(f))
		return refuse_args(f, mm, NULL, false, true);
	return add_rmap(f, mm, level, page, nr, exclusive);
}

int fsim_folio_add_file_rmap(struct fsim_folio *f, struct fsim_mm *mm,
			     enum fsim_level level, unsigned long page,
			     unsigned long nr)
{
	if (!same_ctx(f, mm) || folio_test_anon(f))
		return refuse_args(f, mm, NULL, false, false);
	return add_rmap(f, mm, level, page, nr, false);
}

/* __folio_remove_rmap() */
static int remove_rmap(struct fsim_folio *f, struct fsim_mm *mm,
		       enum fsim_level level, unsigned long page, unsigned long nr)
{
	const unsigned int lorder = level_order(&f->ctx->arch, level);
	unsigned long covered_before = 0;
	bool flag_before;
	int err = 0;

	fsim_spin_lock(&f->oracle_lock);
	if (!oracle_covers(&f->oracle, mm->id, level, page, nr, 1))
		err = refuse("the mm does not map that range at that level",
			     -EINVAL);
	if (!err)
		err = oracle_track_cover(&f->oracle, !f->ctx->concurrent);
	if (!err)
		err = oracle_reserve(&f->oracle, mm->id, level, page, nr);
	if (!err)
		covered_before = oracle_covered(&f->oracle);
	if (!err)
		oracle_remove(&f->oracle, mm->id, level, page, nr, 1ul << lorder);
	fsim_spin_unlock(&f->oracle_lock);
	if (err)
		return err;

	flag_before = atomic_load(&f->partially_mapped);
	if (f->hugetlb)
		hugetlb_remove_rmap(f);
	else
		folio_ops(f)->remove(f, mm, level, page, nr);
	put_refs(f, mm, (long)(nr >> lorder));
	check_removal(f, flag_before, covered_before);
	return 0;
}

int fsim_folio_remove_rmap(struct fsim_folio *f, struct fsim_mm *mm,
			   enum fsim_level level, unsigned long page,
			   unsigned long nr)
{
	unsigned long entry, off;
	bool held;
	int err;

	if (!same_ctx(f, mm))
		return refuse_args(f, mm, NULL, false, folio_test_anon_or(f));
	err = check_range(f, level, page, nr);
	if (err)
		return err;
	entry = 1ul << level_order(&f->ctx->arch, level);
	if (level == FSIM_LEVEL_PTE || f->hugetlb || nr == entry)
		return remove_rmap(f, mm, level, page, nr);
	/*
	 * The kernel removes one PMD (PUD) entry per call (zap_huge_pmd(),
	 * folio_remove_rmap_pmd() takes no count): a folio that the first
	 * removals leave partly mapped is flagged and queued before the last
	 * one, as kharness showed on the series' own code.  The whole range
	 * is checked first, so that a refused call changes nothing.
	 */
	fsim_spin_lock(&f->oracle_lock);
	held = oracle_covers(&f->oracle, mm->id, level, page, nr, 1);
	fsim_spin_unlock(&f->oracle_lock);
	if (!held)
		return refuse("the mm does not map that range at that level", -EINVAL);
	for (off = 0; off < nr; off += entry) {
		err = remove_rmap(f, mm, level, page + off, entry);
		if (err)
			return err;
	}
	return 0;
}

/* __folio_try_dup_anon_rmap() / __folio_dup_file_rmap() */
static int dup_rmap(struct fsim_folio *f, struct fsim_mm *dst, struct fsim_mm *src,
		    enum fsim_level level, unsigned long page, unsigned long nr)
{
	const unsigned int lorder = level_order(&f->ctx->arch, level);
	const unsigned long stride = 1ul << lorder;
	bool maybe_pinned;
	int err = check_range(f, level, page, nr);

	if (err)
		return err;
	fsim_spin_lock(&f->oracle_lock);
	if (!oracle_covers(&f->oracle, src->id, level, page, nr, 1))
		err = refuse("src does not map that range at that level (nothing "
			     "to copy)", -EINVAL);
	if (!err)
		err = check_overflow(f, nr >> lorder, nr);
	/* folio_needs_cow_for_dma(src_vma, folio) */
	maybe_pinned = atomic_load(&src->has_pinned) && fsim_folio_maybe_dma_pinned(f);
	if (!err && folio_test_anon(f) && maybe_pinned &&
	    any_anon_exclusive(f, page, nr, stride))
		err = refuse("an exclusive page of a maybe pinned folio: the child "
			     "must copy it (folio_needs_cow_for_dma())", -EBUSY);
	if (!err && folio_test_anon(f))
		err = reserve_anon_exclusive(f, nr, stride);
	if (!err)
		err = oracle_track_cover(&f->oracle, !f->ctx->concurrent);
	if (!err)
		err = oracle_reserve(&f->oracle, dst->id, level, page, nr);
	if (!err)
		oracle_add(&f->oracle, dst->id, level, page, nr, stride);
	fsim_spin_unlock(&f->oracle_lock);
	if (err)
		return err;

	if (f->hugetlb)
		hugetlb_dup_rmap(f);
	else
		folio_ops(f)->dup(f, dst, level, page, nr);
	take_refs(f, dst, (long)(nr >> lorder));
	return 0;
}

int fsim_folio_try_dup_anon_rmap(struct fsim_folio *f, struct fsim_mm *dst,
				 struct fsim_mm *src, enum fsim_level level,
				 unsigned long page, unsigned long nr)
{
	if (!same_ctx(f, dst) || !same_ctx(f, src) || !folio_test_anon(f))
		return refuse_args(f, dst, src, true, true);
	if (dst == src)
		return refuse("dup: dst and src are the same mm", -EINVAL);
	return dup_rmap(f, dst, src, level, page, nr);
}

int fsim_folio_dup_file_rmap(struct fsim_folio *f, struct fsim_mm *dst,
			     struct fsim_mm *src, enum fsim_level level,
			     unsigned long page, unsigned long nr)
{
	if (!same_ctx(f, dst) || !same_ctx(f, src) || folio_test_anon(f))
		return refuse_args(f, dst, src, true, false);
	if (dst == src)
		return refuse("dup: dst and src are the same mm", -EINVAL);
	return dup_rmap(f, dst, src, level, page, nr);
}

/* try_grab_folio(FOLL_PIN): folios with a _pincount (folio_has_pincount())
 * count pins there and take one reference each; the others take
 * GUP_PIN_COUNTING_BIAS references. */
int fsim_folio_pin(struct fsim_folio *f, struct fsim_mm *mm, unsigned int n)
{
	uint64_t refs;

	if (!same_ctx(f, mm))
		return refuse_args(f, mm, NULL, false, folio_test_anon_or(f));
	if (n == 0)
		return refuse("pin of 0 pins", -EINVAL);
	refs = folio_has_pincount(f) ? n : (uint64_t)n * GUP_PIN_COUNTING_BIAS;
	fsim_spin_lock(&f->oracle_lock);
	/* _pincount is an int; a small folio's pins live in the int refcount */
	if ((uint64_t)atomic_read(&f->pincount) + n > INT_MAX ||
	    (!folio_has_pincount(f) && (uint64_t)atomic_load(&f->refcount) + refs > INT_MAX)) {
		fsim_spin_unlock(&f->oracle_lock);
		return refuse("the pin count would overflow an int", -EOVERFLOW);
	}
	/* Folios without _pincount: the kernel counts pins only in the
	 * refcount bias; the model keeps their number in pincount as well. */
	atomic_add((int)n, &f->pincount);
	atomic_fetch_add(&f->refcount, (int64_t)refs);
	fsim_spin_unlock(&f->oracle_lock);
	atomic_store(&mm->has_pinned, true);	/* MMF_HAS_PINNED */
	return 0;
}

/* unpin_user_page() -> gup_put_folio(FOLL_PIN) */
int fsim_folio_unpin(struct fsim_folio *f, unsigned int n)
{
	int err = 0;

	if (!f)
		return refuse("no folio (NULL)", -EINVAL);
	if (n == 0)
		return refuse("unpin of 0 pins", -EINVAL);
	fsim_spin_lock(&f->oracle_lock);
	if ((unsigned int)fsim_folio_pincount(f) < n) {
		err = refuse("unpin of more pins than the folio has", -EINVAL);
	} else {
		atomic_sub((int)n, &f->pincount);
		atomic_fetch_sub(&f->refcount, folio_has_pincount(f) ? (int64_t)n :
				 (int64_t)n * GUP_PIN_COUNTING_BIAS);
	}
	fsim_spin_unlock(&f->oracle_lock);
	return err;
}

int fsim_folio_set_anon_exclusive(struct fsim_folio *f, unsigned long page,
				  bool set)
{
	int err;

	if (!f || !folio_test_anon(f))
		return refuse(f ? "AnonExclusive of a folio that is not anonymous"
				: "no folio (NULL)", -EINVAL);
	if (page >= folio_nr_pages(f))
		return refuse("the page is outside the folio", -EINVAL);
	err = reserve_anon_exclusive(f, 1, 1);
	if (err)
		return err;
	anon_exclusive_set_range(f, page, 1, 1, set);
	return 0;
}
