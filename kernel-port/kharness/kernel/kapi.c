// SPDX-License-Identifier: GPL-2.0
/*
 * kharness: customised.  The plain-C interface of include/kh_api.h over
 * the tree's rmap functions, doing what their callers in mm/memory.c,
 * mm/huge_memory.c and mm/gup.c do around them: take the folio lock for
 * anon adds, one folio reference per entry mapped, the mm's
 * write_protect_seq around a dup as fork holds it, one call per PMD entry.
 *
 * Page i of a folio maps at address (folio->index + i) << PAGE_SHIFT in
 * every harness VMA (vm_start 0, vm_pgoff 0), folio->index being the
 * folio's pfn, so that __page_check_anon_rmap() finds page_to_pgoff() and
 * linear_page_index() equal.  Anon folios are born anonymous (their
 * mapping the harness's one anon_vma), as a folio that was mapped before,
 * so that an anon add without a new-anon is what it is in the model.
 */

static struct kh_tree_info kh_tree_info;

/* The tree's names for the levels: enum rmap_level (6.12), enum
 * pgtable_level (prep/0012 on). */
#ifdef KH_PREP
#define KH_RMAP_LEVEL_PUD PGTABLE_LEVEL_PUD
#endif

KH_ABI int kh_init(void)
{
#ifdef CONFIG_X86_32
	/* Per-cpu data is %fs-relative on i386 (the kernel's __KERNEL_PERCPU
	 * segment); a 32-bit process's %fs is the null selector, and an
	 * access through it faults.  Load the flat user data segment, whose
	 * base is 0, so that a per-cpu access reads the global as on x86_64
	 * (stubbed.c); threads created later inherit it. */
	asm volatile("movl %%ds, %%eax\n\tmovl %%eax, %%fs" ::: "eax");
#endif
	kh_tree_info.release = UTS_RELEASE;
	kh_tree_info.features = 0;
#ifdef KH_PREP
	kh_tree_info.features |= KH_HAS_MM_SLOTS | KH_HAS_PUD_RMAP | KH_HAS_AVG_MAPCOUNT;
#endif
#if !defined(KH_RFC) && (!defined(KH_PREP) || defined(CONFIG_PAGE_MAPCOUNT))
	kh_tree_info.features |= KH_HAS_PAGE_MAPCOUNT;
#endif
#ifdef KH_RFC
	kh_tree_info.features |= KH_HAS_ARBITRARY;
#endif
#ifdef KH_FIXES
	kh_tree_info.features |= KH_HAS_DUP_REFUSAL;
	kh_tree_info.overflow_headroom = FOLIO_MAPPINGS_HEADROOM;
#endif
#ifdef KH_DETECT
	kh_tree_info.features |= KH_HAS_DETECT;
#endif
	kh_tree_info.bits = BITS_PER_LONG;
	kh_tree_info.page_shift = PAGE_SHIFT;
	kh_tree_info.pmd_order = HPAGE_PMD_ORDER;
	kh_tree_info.pud_order = HPAGE_PUD_ORDER;
	kh_tree_info.max_order = min_t(unsigned int, HPAGE_PUD_ORDER, KH_MAX_ORDERS - 1);
	kh_anon_vma.root = &kh_anon_vma;
	return kh_mem_init();
}

KH_ABI const struct kh_tree_info *kh_tree(void)
{
	return &kh_tree_info;
}

/* The page tables' references: one per entry mapped, the first mapping
 * taking over the allocation's reference (do_anonymous_page() and the page
 * cache hand theirs to the page table), as the model counts them. */
static void kh_take_refs(struct folio *folio, unsigned long entries)
{
	if (test_and_clear_bit(folio_pfn(folio), kh_alloc_ref))
		entries--;
	folio_ref_add(folio, entries);
}

static unsigned long kh_addr(struct folio *folio, unsigned long page)
{
	return (folio->index + page) << PAGE_SHIFT;
}

static void kh_anon_prepare(struct folio *folio)
{
	if (!folio_test_anon(folio))
		WRITE_ONCE(folio->mapping, (struct address_space *)
			   ((void *)&kh_anon_vma + PAGE_MAPPING_ANON));
}

KH_ABI int kh_add_new_anon(struct kh_folio *f, struct kh_mm *mm, bool exclusive)
{
	struct folio *folio = kh_f(f);
	unsigned long entries = 1;

	if (!exclusive)
		kh_folio_lock(folio);
	folio_add_new_anon_rmap(folio, &mm->vma, kh_addr(folio, 0),
				exclusive ? RMAP_EXCLUSIVE : RMAP_NONE);
	if (!exclusive)
		folio_unlock(folio);
	if (!folio_test_hugetlb(folio))
		set_bit(folio_pfn(folio), kh_counted_anon);
	/* The fault handlers map a new folio with one entry per PTE, or one
	 * PMD (PUD) entry for a PMD- (PUD-)sized folio. */
	if (folio_test_large(folio) && folio_order(folio) < HPAGE_PMD_ORDER)
		entries = folio_nr_pages(folio);
	else if (folio_order(folio) > HPAGE_PUD_ORDER)
		entries = folio_nr_pages(folio) >> HPAGE_PUD_ORDER;
	else if (folio_order(folio) > HPAGE_PMD_ORDER && folio_order(folio) < HPAGE_PUD_ORDER)
		entries = folio_nr_pages(folio) >> HPAGE_PMD_ORDER;
	kh_take_refs(folio, entries);
	return 0;
}

KH_ABI int kh_add_anon(struct kh_folio *f, struct kh_mm *mm, int level, unsigned long page,
		unsigned long nr, bool exclusive)
{
	struct folio *folio = kh_f(f);
	const rmap_t flags = exclusive ? RMAP_EXCLUSIVE : RMAP_NONE;
	unsigned long i;

	if (level == KH_LEVEL_PUD)
		return -EOPNOTSUPP;	/* no folio_add_anon_rmap_pud() */
	kh_anon_prepare(folio);
	kh_folio_lock(folio);
	if (level == KH_LEVEL_PTE) {
		folio_add_anon_rmap_ptes(folio, folio_page(folio, page), nr, &mm->vma,
					 kh_addr(folio, page), flags);
		kh_take_refs(folio, nr);
	} else {
		for (i = 0; i < nr; i += HPAGE_PMD_NR) {
			folio_add_anon_rmap_pmd(folio, folio_page(folio, page + i), &mm->vma,
						kh_addr(folio, page + i), flags);
			kh_take_refs(folio, 1);
		}
	}
	folio_unlock(folio);
	return 0;
}

KH_ABI int kh_add_file(struct kh_folio *f, struct kh_mm *mm, int level, unsigned long page,
		unsigned long nr)
{
	struct folio *folio = kh_f(f);
	unsigned long i;

	switch (level) {
	case KH_LEVEL_PTE:
#ifdef KH_FIXES
		/* finish_fault(), filemap_map_folio_range() (fixes/0003) */
		if (unlikely(folio_mappings_would_overflow(folio, nr, nr)))
			return -EOVERFLOW;
#endif
		folio_add_file_rmap_ptes(folio, folio_page(folio, page), nr, &mm->vma);
		kh_take_refs(folio, nr);
		return 0;
	case KH_LEVEL_PMD:
		for (i = 0; i < nr; i += HPAGE_PMD_NR) {
#ifdef KH_FIXES
			/* do_set_pmd() (fixes/0003) */
			if (unlikely(folio_mappings_would_overflow(folio, 1, HPAGE_PMD_NR)))
				return i ? -EIO : -EOVERFLOW;
#endif
			folio_add_file_rmap_pmd(folio, folio_page(folio, page + i), &mm->vma);
			kh_take_refs(folio, 1);
		}
		return 0;
	default:
#ifdef KH_PREP
		for (i = 0; i < nr; i += HPAGE_PUD_NR) {
			folio_add_file_rmap_pud(folio, folio_page(folio, page + i), &mm->vma);
			kh_take_refs(folio, 1);
		}
		return 0;
#else
		return -EOPNOTSUPP;	/* PUD rmap came with prep/0009 */
#endif
	}
}

KH_ABI int kh_remove(struct kh_folio *f, struct kh_mm *mm, int level, unsigned long page,
	      unsigned long nr)
{
	struct folio *folio = kh_f(f);
	unsigned long i;

	switch (level) {
	case KH_LEVEL_PTE:
		folio_remove_rmap_ptes(folio, folio_page(folio, page), nr, &mm->vma);
		folio_ref_sub(folio, nr);
		return 0;
	case KH_LEVEL_PMD:
		for (i = 0; i < nr; i += HPAGE_PMD_NR) {
			folio_remove_rmap_pmd(folio, folio_page(folio, page + i), &mm->vma);
			folio_ref_dec(folio);
		}
		return 0;
	default:
#ifdef KH_PREP
		for (i = 0; i < nr; i += HPAGE_PUD_NR) {
			folio_remove_rmap_pud(folio, folio_page(folio, page + i), &mm->vma);
			folio_ref_dec(folio);
		}
		return 0;
#else
		return -EOPNOTSUPP;
#endif
	}
}

/* copy_present_ptes() / copy_huge_pmd(): the dup of one range, under the
 * source mm's write_protect_seq as fork holds it. */
static int kh_dup_range(struct folio *folio, struct kh_mm *dst, struct kh_mm *src,
			int level, unsigned long page, unsigned long nr)
{
	struct page *p = folio_page(folio, page);
	int ret = 0;

	if (folio_test_anon(folio)) {
		if (level == KH_LEVEL_PTE) {
#ifdef KH_PREP
			ret = folio_try_dup_anon_rmap_ptes(folio, p, nr, &dst->vma, &src->vma);
#else
			ret = folio_try_dup_anon_rmap_ptes(folio, p, nr, &src->vma);
#endif
		} else {
#ifdef KH_PREP
			ret = folio_try_dup_anon_rmap_pmd(folio, p, &dst->vma, &src->vma);
#else
			ret = folio_try_dup_anon_rmap_pmd(folio, p, &src->vma);
#endif
		}
		return ret;
	}
	if (level == KH_LEVEL_PTE) {
#if defined(KH_FIXES)
		ret = folio_dup_file_rmap_ptes(folio, p, nr, &dst->vma);
#elif defined(KH_PREP)
		folio_dup_file_rmap_ptes(folio, p, nr, &dst->vma);
#else
		folio_dup_file_rmap_ptes(folio, p, nr);
#endif
	} else {
#if defined(KH_FIXES)
		ret = folio_dup_file_rmap_pmd(folio, p, &dst->vma);
#elif defined(KH_PREP)
		folio_dup_file_rmap_pmd(folio, p, &dst->vma);
#else
		folio_dup_file_rmap_pmd(folio, p);
#endif
	}
	return ret;
}

KH_ABI int kh_dup(struct kh_folio *f, struct kh_mm *dst, struct kh_mm *src, int level,
	   unsigned long page, unsigned long nr)
{
	struct folio *folio = kh_f(f);
	unsigned long i, step = level == KH_LEVEL_PTE ? nr : HPAGE_PMD_NR;
	int ret = 0;

	if (level == KH_LEVEL_PUD)
		return -EOPNOTSUPP;	/* no folio_{try_dup_anon,dup_file}_rmap_pud() */
#ifndef KH_PREP
	/* 6.12's folio_dup_file_rmap_pmd() counts HPAGE_PMD_NR PTE mappings
	 * (prep/0008 fixes it); it has no caller: fork lets file PMDs fault
	 * in again. */
	if (level == KH_LEVEL_PMD && !folio_test_anon(folio))
		return -EOPNOTSUPP;
#endif
	raw_write_seqcount_begin(&src->mm.write_protect_seq);
	for (i = 0; i < nr && !ret; i += step) {
		ret = kh_dup_range(folio, dst, src, level, page + i, step);
		if (!ret)
			kh_take_refs(folio, level == KH_LEVEL_PTE ? step : 1);
		else if (i)
			ret = -EIO;	/* refused after a part: the model has no such state */
	}
	raw_write_seqcount_end(&src->mm.write_protect_seq);
	return ret;
}

/* ---- hugetlb: mm/hugetlb.c's callers of the hugetlb rmap functions ---- */

KH_ABI int kh_hugetlb_add(struct kh_folio *f, struct kh_mm *mm, bool new_anon, bool exclusive)
{
	struct folio *folio = kh_f(f);

	if (!folio_test_anon(folio))
		hugetlb_add_file_rmap(folio);
	else if (new_anon)
		hugetlb_add_new_anon_rmap(folio, &mm->vma, kh_addr(folio, 0));
	else
		hugetlb_add_anon_rmap(folio, &mm->vma, kh_addr(folio, 0),
				      exclusive ? RMAP_EXCLUSIVE : RMAP_NONE);
	kh_take_refs(folio, 1);
	return 0;
}

KH_ABI int kh_hugetlb_remove(struct kh_folio *f, struct kh_mm *mm)
{
	struct folio *folio = kh_f(f);

	hugetlb_remove_rmap(folio);
	folio_ref_dec(folio);
	return 0;
}

KH_ABI int kh_hugetlb_dup(struct kh_folio *f, struct kh_mm *dst, struct kh_mm *src)
{
	struct folio *folio = kh_f(f);
	int ret = 0;

	/* copy_hugetlb_page_range() */
	raw_write_seqcount_begin(&src->mm.write_protect_seq);
	if (folio_test_anon(folio))
		ret = hugetlb_try_dup_anon_rmap(folio, &src->vma);
	else
		hugetlb_add_file_rmap(folio);
	raw_write_seqcount_end(&src->mm.write_protect_seq);
	if (!ret)
		kh_take_refs(folio, 1);
	return ret;
}

/* ---- pins: mm/gup.c try_grab_folio(FOLL_PIN), unpin_user_page() ---------- */

KH_ABI int kh_pin(struct kh_folio *f, struct kh_mm *mm, unsigned int n)
{
	struct folio *folio = kh_f(f);

	/* try_grab_folio(FOLL_PIN) (mm/gup.c): a folio without _pincount
	 * (small, and on 32-bit in 6.12 and the prep part order 1 too)
	 * counts each pin as GUP_PIN_COUNTING_BIAS references */
	if (folio_has_pincount(folio)) {
		folio_ref_add(folio, n);
		atomic_add(n, &folio->_pincount);
	} else {
		folio_ref_add(folio, n * GUP_PIN_COUNTING_BIAS);
	}
	if (!test_bit(MMF_HAS_PINNED, &mm->mm.flags))
		set_bit(MMF_HAS_PINNED, &mm->mm.flags);
	return 0;
}

KH_ABI int kh_unpin(struct kh_folio *f, unsigned int n)
{
	struct folio *folio = kh_f(f);

	/* gup_put_folio() */
	if (folio_has_pincount(folio)) {
		atomic_sub(n, &folio->_pincount);
		folio_ref_sub(folio, n);
	} else {
		folio_ref_sub(folio, n * GUP_PIN_COUNTING_BIAS);
	}
	return 0;
}

KH_ABI int kh_set_anon_exclusive(struct kh_folio *f, unsigned long page, bool set)
{
	struct page *p = folio_page(kh_f(f), page);

	if (set)
		SetPageAnonExclusive(p);
	else
		ClearPageAnonExclusive(p);
	return 0;
}

KH_ABI void kh_set_detect(bool on)
{
#ifdef KH_DETECT
	WRITE_ONCE(thp_detect_partially_mapped, on);
#endif
}

/* ---- readers --------------------------------------------------------- */

KH_ABI int kh_folio_state(struct kh_folio *f, struct kh_folio_state *st)
{
	struct folio *folio = kh_f(f);
	const bool large = folio_test_large(folio);

	memset(st, 0, sizeof(*st));
	st->mapcount = folio_mapcount(folio);
	st->mapped = folio_mapped(folio);
	st->large_mapcount = large ? folio_large_mapcount(folio) : st->mapcount;
	st->entire_mapcount = -1;
	st->nr_pages_mapped = -1;
	st->total_mapped_pages = -1;
	st->avg_mapcount = -1;
#if !defined(KH_RFC)
	if (large) {
		st->entire_mapcount = folio_entire_mapcount(folio);
		st->nr_pages_mapped = atomic_read(&folio->_nr_pages_mapped) & FOLIO_PAGES_MAPPED;
	}
#endif
#if defined(KH_RFC)
	st->total_mapped_pages = large ? (s64)folio_total_mapped_pages(folio) : st->mapcount;
#endif
#ifdef KH_PREP
	st->avg_mapcount = folio_average_page_mapcount(folio);
	st->maybe_shared = folio_maybe_mapped_shared(folio);
	if (large && !folio_test_hugetlb(folio)) {
		st->has_slots = true;
		st->slot_id[0] = folio_mm_id(folio, 0);
		st->slot_id[1] = folio_mm_id(folio, 1);
		st->slot_mapcount[0] = folio->_mm_id_mapcount[0] + 1;
		st->slot_mapcount[1] = folio->_mm_id_mapcount[1] + 1;
		st->shared_bit = test_bit(FOLIO_MM_IDS_SHARED_BITNUM, &folio->_mm_ids);
		st->mm_ids_word = folio->_mm_ids;
	}
#else
	st->maybe_shared = folio_likely_mapped_shared(folio);
#endif
	st->partially_mapped = large && folio_order(folio) > 1 &&
			       folio_test_partially_mapped(folio);
	st->deferred = large && folio_order(folio) > 1 &&
		       !list_empty(&folio->_deferred_list);
	st->pincount = folio_has_pincount(folio) ? atomic_read(&folio->_pincount) : -1;
	st->refcount = folio_ref_count(folio);
	return 0;
}

KH_ABI int kh_page_state(struct kh_folio *f, unsigned long i, struct kh_page_state *st)
{
	struct folio *folio = kh_f(f);
	struct page *page = folio_page(folio, i);

	memset(st, 0, sizeof(*st));
	st->mapcount = -1;
	if (!folio_test_large(folio))
		st->mapcount = folio_mapcount(folio);
#if !defined(KH_RFC)
	else if (kh_tree_info.features & KH_HAS_PAGE_MAPCOUNT)
		st->mapcount = folio_precise_page_mapcount(folio, page);
#endif
	st->anon_exclusive = folio_test_anon(folio) && PageAnonExclusive(page);
	st->kpagecount = kh_kpagecount(folio, page);
	st->pagemap_exclusive = kh_pagemap_exclusive(folio, page);
	st->mapmax = kh_numa_mapcount(folio, page);
	return 0;
}

KH_ABI void kh_stats(struct kh_stats *out)
{
	static const enum node_stat_item items[KH_NR_STATS] = {
		NR_ANON_MAPPED, NR_FILE_MAPPED, NR_ANON_THPS,
		NR_FILE_PMDMAPPED, NR_SHMEM_PMDMAPPED, NR_SHMEM,
	};
	unsigned int i, order;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < KH_NR_STATS; i++)
		out->node[i] = atomic_long_read(&kh_node_stat[items[i]]);
	for (order = 0; order < KH_MAX_ORDERS && order <= PMD_ORDER; order++) {
		out->nr_anon[order] = mthp_stats.stats[order][MTHP_STAT_NR_ANON];
		out->nr_anon_partially_mapped[order] =
			mthp_stats.stats[order][MTHP_STAT_NR_ANON_PARTIALLY_MAPPED];
		out->split_deferred[order] = mthp_stats.stats[order][MTHP_STAT_SPLIT_DEFERRED];
	}
	out->thp_deferred_split_page = vm_event_states.event[THP_DEFERRED_SPLIT_PAGE];
	out->split_queue_len = kh_split_queue.split_queue_len;
}
