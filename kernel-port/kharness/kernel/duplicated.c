// SPDX-License-Identifier: GPL-2.0
/*
 * kharness: duplicated.  Kernel code outside mm/rmap.c that the accounting
 * runs, copied from the trees and kept in sync with them: each function
 * names its source, and where the trees differ the copy follows each tree
 * with the part macros (KH_PREP, KH_RFC, KH_DETECT).  Only what the
 * harness cannot have is changed, and each change says so: one deferred
 * split queue instead of one per node and memcg, no shrinker bit.
 */

/* mm/util.c */
struct anon_vma *folio_anon_vma(struct folio *folio)
{
	unsigned long mapping = (unsigned long)folio->mapping;

	if ((mapping & PAGE_MAPPING_FLAGS) != PAGE_MAPPING_ANON)
		return NULL;
	return (void *)(mapping - PAGE_MAPPING_ANON);
}

/* mm/util.c (no swap cache here: folio_test_swapcache() is never true) */
struct address_space *folio_mapping(struct folio *folio)
{
	struct address_space *mapping;

	if (unlikely(folio_test_slab(folio)))
		return NULL;
	mapping = folio->mapping;
	if ((unsigned long)mapping & PAGE_MAPPING_FLAGS)
		return NULL;
	return mapping;
}

/* mm/page_alloc.c */
static void kh_prep_compound_page(struct page *page, unsigned int order)
{
	int i;
	int nr_pages = 1 << order;

	__SetPageHead(page);
	for (i = 1; i < nr_pages; i++)
		prep_compound_tail(page, i);

	prep_compound_head(page, order);
}

/* ---- mm/huge_memory.c: the deferred split queue ------------------------ */

static struct deferred_split kh_split_queue = {
	.split_queue_lock = __SPIN_LOCK_UNLOCKED(kh_split_queue.split_queue_lock),
	.split_queue = LIST_HEAD_INIT(kh_split_queue.split_queue),
};

/* get_deferred_split_queue(): one node, no memcg. */
static struct deferred_split *get_deferred_split_queue(struct folio *folio)
{
	return &kh_split_queue;
}

static bool split_underused_thp = true;
#ifdef KH_DETECT
bool thp_detect_partially_mapped __read_mostly = true;
#endif

bool __folio_unqueue_deferred_split(struct folio *folio)
{
	struct deferred_split *ds_queue;
	unsigned long flags;
	bool unqueued = false;

	WARN_ON_ONCE(folio_ref_count(folio));
	WARN_ON_ONCE(!mem_cgroup_disabled() && !folio_memcg(folio));

	ds_queue = get_deferred_split_queue(folio);
	spin_lock_irqsave(&ds_queue->split_queue_lock, flags);
	if (!list_empty(&folio->_deferred_list)) {
		ds_queue->split_queue_len--;
		if (folio_test_partially_mapped(folio)) {
			folio_clear_partially_mapped(folio);
			mod_mthp_stat(folio_order(folio),
				      MTHP_STAT_NR_ANON_PARTIALLY_MAPPED, -1);
		}
		list_del_init(&folio->_deferred_list);
		unqueued = true;
	}
	spin_unlock_irqrestore(&ds_queue->split_queue_lock, flags);

	return unqueued;	/* useful for debug warnings */
}

/*
 * 6.12's deferred_split_folio(); the detect part splits it into the
 * checks (deferred_split_folio()) and the queueing (__deferred_split_folio())
 * that deferred_split_candidate() shares, where a candidate may find the
 * folio flagged.  The other trees only ever pass candidate = false.
 */
static bool __deferred_split_folio(struct folio *folio, bool partially_mapped,
				   bool candidate)
{
	struct deferred_split *ds_queue;
	unsigned long flags;

	/*
	 * Exclude swapcache: originally to avoid a corrupt deferred split
	 * queue. Nowadays that is fully prevented by mem_cgroup_swapout();
	 * but if page reclaim is already handling the same folio, it is
	 * unnecessary to handle it again in the shrinker, so excluding
	 * swapcache here may still be a useful optimization.
	 */
	if (folio_test_swapcache(folio))
		return false;

again:
	ds_queue = get_deferred_split_queue(folio);
	spin_lock_irqsave(&ds_queue->split_queue_lock, flags);
	/*
	 * memcg v1 charge moving changes the memcg, and so the queue, of a
	 * folio that a candidate, or the scan judging one, may be queueing:
	 * under the old queue's lock (folio_split_queue_lock_unqueued()).
	 * (One queue here, no memcg: the check never retries.)
	 */
	if (unlikely(ds_queue != get_deferred_split_queue(folio))) {
		spin_unlock_irqrestore(&ds_queue->split_queue_lock, flags);
		goto again;
	}
	if (partially_mapped) {
		if (!folio_test_partially_mapped(folio)) {
			folio_set_partially_mapped(folio);
			if (folio_test_pmd_mappable(folio))
				count_vm_event(THP_DEFERRED_SPLIT_PAGE);
			count_mthp_stat(folio_order(folio), MTHP_STAT_SPLIT_DEFERRED);
			mod_mthp_stat(folio_order(folio), MTHP_STAT_NR_ANON_PARTIALLY_MAPPED, 1);

		}
	} else {
		/* partially mapped folios cannot become non-partially mapped */
		VM_WARN_ON_FOLIO(!candidate && folio_test_partially_mapped(folio),
				 folio);
	}
	if (list_empty(&folio->_deferred_list)) {
		list_add_tail(&folio->_deferred_list, &ds_queue->split_queue);
		ds_queue->split_queue_len++;
		/* (no memcg: no set_shrinker_bit()) */
	}
	partially_mapped = folio_test_partially_mapped(folio);
	spin_unlock_irqrestore(&ds_queue->split_queue_lock, flags);
	return partially_mapped;
}

void deferred_split_folio(struct folio *folio, bool partially_mapped)
{
	/*
	 * Order 1 folios have no space for a deferred list, but we also
	 * won't waste much memory by not adding them to the deferred list.
	 */
	if (folio_order(folio) <= 1)
		return;

	if (!partially_mapped && !split_underused_thp)
		return;

	__deferred_split_folio(folio, partially_mapped, false);
}

#ifdef KH_DETECT
/* detect/0001 */
void deferred_split_candidate(struct folio *folio)
{
	if (!READ_ONCE(thp_detect_partially_mapped))
		return;
	if (folio_order(folio) <= 1 || folio_order(folio) > HPAGE_PMD_ORDER)
		return;
	/*
	 * Only PMDs map it.  Two racy reads: a concurrent mapper can make them
	 * disagree, which skips this removal; the next one queues the folio.
	 */
	if ((u64)folio_total_mapped_pages(folio) ==
	    (u64)folio_large_mapcount(folio) << folio_order(folio))
		return;
	/* Pairs with the scan's smp_mb() (not in the harness: no scan). */
	smp_mb();
	/* Racy: __deferred_split_folio() checks again under the lock. */
	if (data_race(!list_empty(&folio->_deferred_list)))
		return;
	deferred_split_queue_candidate(folio);
}

/* detect/0001, without its KUnit static stub (no KUnit in the harness) */
void deferred_split_queue_candidate(struct folio *folio)
{
	__deferred_split_folio(folio, false, true);
}
#endif

/* free_pages_prepare() -> folio_unqueue_deferred_split(), once the last
 * reference is gone. */
static void kh_unqueue_deferred_split(struct folio *folio)
{
	set_page_count(&folio->page, 0);
	folio_unqueue_deferred_split(folio);
}

/* ---- fs/proc: what /proc/kpagecount, pagemap and numa_maps read --------- */

/* What the /proc readers below count for a page of a large folio: its
 * precise mapcount where the tree keeps per-page mapcounts, else the
 * average over the folio (prep/0020 with CONFIG_NO_PAGE_MAPCOUNT, the
 * series). */
static unsigned long kh_page_mapcount_or_average(struct folio *folio, struct page *page)
{
#if defined(KH_RFC)
	return folio_average_page_mapcount(folio);
#elif defined(KH_PREP)
	if (IS_ENABLED(CONFIG_PAGE_MAPCOUNT))
		return folio_precise_page_mapcount(folio, page);
	return folio_average_page_mapcount(folio);
#else
	return folio_precise_page_mapcount(folio, page);
#endif
}

/* fs/proc/page.c kpagecount_read() (rfc/0003: kpagecount_of(), which
 * counts a small folio by its mapcount) */
static u64 kh_kpagecount(struct folio *folio, struct page *page)
{
#if defined(KH_RFC)
	if (!folio_test_large(folio))
		return folio_mapcount(folio);
#endif
	return kh_page_mapcount_or_average(folio, page);
}

/* fs/proc/task_mmu.c pte_to_pagemap_entry(), pagemap_pmd_range(): bit 56
 * of a present entry (prep/0021 __folio_page_mapped_exclusively(), rfc/0004) */
static bool kh_pagemap_exclusive(struct folio *folio, struct page *page)
{
	/* pagemap_hugetlb_range() */
	if (folio_test_hugetlb(folio))
#ifdef KH_PREP
		return !folio_maybe_mapped_shared(folio);
#else
		return !folio_likely_mapped_shared(folio);
#endif
#if defined(KH_RFC)
	return !folio_maybe_mapped_shared(folio);
#elif defined(KH_PREP)
	if (IS_ENABLED(CONFIG_PAGE_MAPCOUNT))
		return folio_precise_page_mapcount(folio, page) == 1;
	return !folio_maybe_mapped_shared(folio);
#else
	return folio_precise_page_mapcount(folio, page) == 1;
#endif
}

/* fs/proc/task_mmu.c gather_stats(): the count mapmax takes the max of */
static unsigned long kh_numa_mapcount(struct folio *folio, struct page *page)
{
	return kh_page_mapcount_or_average(folio, page);
}
