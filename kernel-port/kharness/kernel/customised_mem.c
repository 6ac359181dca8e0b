// SPDX-License-Identifier: GPL-2.0
/*
 * kharness: customised.  The memory map and the folio allocator.
 *
 * The x86_64 configs use classic SPARSEMEM (SPARSEMEM_EXTREME, no
 * vmemmap), so folio_page() and nth_page() go through page_to_pfn() and
 * pfn_to_page(), which read the section number from page->flags and the
 * section's mem_map from mem_section[][].  The harness reserves one
 * contiguous struct page array for pfns [0, KH_PFNS) and points every
 * section at it (sparse_encode_mem_map() of one map that starts at pfn 0),
 * so that any pfn in range has its struct page at map + pfn.  The i386
 * config is FLATMEM: the same array is mem_map.
 *
 * Folios are carved out of that pfn space naturally aligned, each in a
 * block twice its size whose second half stays unused: the harness poisons
 * the struct pages of every block's unused half and of freed folios under
 * AddressSanitizer (kh_mem_poison()), so an access past a folio's last
 * struct page, or before its first, is reported with the kernel source's
 * stack.  Freed blocks are kept per order and reused for that order.
 */

#ifdef CONFIG_64BIT
#define KH_PFN_BITS	24		/* 64 GiB of pfns: 1 GiB of struct pages reserved */
#else
/* i386: 4 GiB of pfns, all the addresses a 32-bit VMA can span (an
 * order-18 folio needs a block of 2^19 pfns, naturally aligned) */
#define KH_PFN_BITS	20
#endif
#define KH_PFNS		(1UL << KH_PFN_BITS)
#define KH_FIRST_PFN	(1UL << 10)	/* pfn 0 is not handed out */

static struct page *kh_mem_map;
/* Folios (by pfn) whose allocation reference no mapping took over yet,
 * and those folio_add_new_anon_rmap() counted in MTHP_STAT_NR_ANON. */
static DECLARE_BITMAP(kh_alloc_ref, KH_PFNS);
static DECLARE_BITMAP(kh_counted_anon, KH_PFNS);
static unsigned long kh_next_pfn = KH_FIRST_PFN;

/* Freed blocks, per order: a pfn stack. */
#define KH_FREE_MAX	4096
static unsigned long kh_free_pfn[KH_MAX_ORDERS][KH_FREE_MAX];
static unsigned int kh_free_nr[KH_MAX_ORDERS];

/* The anon_vma every harness VMA shares (one root for every folio), and
 * the address_space of file and shmem folios. */
static struct anon_vma kh_anon_vma;
static struct address_space kh_file_mapping;

struct kh_mm {
	struct mm_struct mm;
	struct vm_area_struct vma;	/* maps pfn p's page at address p << PAGE_SHIFT */
};

struct kh_folio {
	struct folio folio;		/* the folio is its own struct page array */
};

static struct folio *kh_f(struct kh_folio *f)
{
	return &f->folio;
}

static int kh_mem_init(void)
{
	if (kh_mem_map)
		return 0;
	kh_mem_map = kh_map_reserve(KH_PFNS * sizeof(struct page));
	if (!kh_mem_map)
		return -ENOMEM;
	kh_mem_poison(kh_mem_map, KH_PFNS * sizeof(struct page), true);
#ifdef CONFIG_SPARSEMEM
	{
		unsigned long nr_sections = KH_PFNS >> PFN_SECTION_SHIFT, nr;
		unsigned long roots = DIV_ROUND_UP(nr_sections, SECTIONS_PER_ROOT);

		mem_section = kh_zalloc(NR_SECTION_ROOTS * sizeof(*mem_section));
		if (!mem_section)
			return -ENOMEM;
		for (nr = 0; nr < roots; nr++) {
			mem_section[nr] = kh_zalloc(SECTIONS_PER_ROOT *
						    sizeof(struct mem_section));
			if (!mem_section[nr])
				return -ENOMEM;
		}
		/* sparse_encode_mem_map(): the map minus the section's first
		 * pfn, which for one map starting at pfn 0 is the map itself. */
		for (nr = 0; nr < nr_sections; nr++)
			__nr_to_section(nr)->section_mem_map = (unsigned long)kh_mem_map |
				SECTION_HAS_MEM_MAP | SECTION_MARKED_PRESENT;
	}
#else
	/* FLATMEM: pfn_to_page() is mem_map + pfn - ARCH_PFN_OFFSET (0) */
	BUILD_BUG_ON(ARCH_PFN_OFFSET != 0);
	mem_map = kh_mem_map;
#endif
#ifdef CONFIG_NUMA
	node_data[0] = &kh_pgdat;
#endif
	return 0;
}

static unsigned long kh_pfn_alloc(unsigned int order)
{
	unsigned long block = 2UL << order, pfn;

	if (kh_free_nr[order])
		return kh_free_pfn[order][--kh_free_nr[order]];
	pfn = ALIGN(kh_next_pfn, block);
	if (pfn + block > KH_PFNS)
		return 0;
	kh_next_pfn = pfn + block;
	return pfn;
}

static void kh_pfn_free(unsigned long pfn, unsigned int order)
{
	if (kh_free_nr[order] < KH_FREE_MAX)
		kh_free_pfn[order][kh_free_nr[order]++] = pfn;
}

/* __init_single_page() of every page, then post_alloc_hook()'s
 * set_page_refcounted() and prep_compound_page() as the buddy allocator
 * leaves a folio of @order. */
static struct folio *kh_init_folio(unsigned long pfn, unsigned int order)
{
	unsigned long i, nr = 1UL << order;
	struct page *page = kh_mem_map + pfn;

	kh_mem_poison(page, nr * sizeof(struct page), false);
	for (i = 0; i < nr; i++) {
		mm_zero_struct_page(page + i);
		set_page_links(page + i, ZONE_NORMAL, 0, pfn + i);
		atomic_set(&page[i]._mapcount, -1);
		INIT_LIST_HEAD(&page[i].lru);
	}
	set_page_count(page, 1);
	if (order)
		kh_prep_compound_page(page, order);
	return page_folio(page);
}

KH_ABI struct kh_folio *kh_folio_alloc(unsigned int order, int kind, bool hugetlb)
{
	struct folio *folio;
	unsigned long pfn;

	if (order > kh_tree()->max_order || order >= KH_MAX_ORDERS)
		return NULL;
	if (hugetlb && (order < 2 || kind == KH_KIND_SHMEM))
		return NULL;
	pfn = kh_pfn_alloc(order);
	if (!pfn)
		return NULL;
	folio = kh_init_folio(pfn, order);
	/* Page-cache folios are found through their mapping at index pfn, so
	 * that page i maps at address (pfn + i) << PAGE_SHIFT in every VMA;
	 * anon folios get the same index from folio_add_new_anon_rmap(). */
	folio->index = pfn;
	/* As the model counts references: an anon folio's allocation
	 * reference goes to its first mapping; a page cache folio is held
	 * by the cache, once per page (__filemap_add_folio()). */
	if (kind == KH_KIND_ANON)
		set_bit(pfn, kh_alloc_ref);
	else
		folio_ref_add(folio, folio_nr_pages(folio) - 1);
	/* page_rmappable_folio(): folio_alloc() and the page cache's folios */
	if (!hugetlb && folio_test_large(folio))
		folio_set_large_rmappable(folio);
	if (hugetlb) {
		/* alloc_fresh_hugetlb_folio(): the hugetlb page type. */
		__folio_set_hugetlb(folio);
		if (kind == KH_KIND_ANON) {
			WRITE_ONCE(folio->mapping, (struct address_space *)
				   ((void *)&kh_anon_vma + PAGE_MAPPING_ANON));
		} else {
			folio->mapping = &kh_file_mapping;
		}
	} else if (kind != KH_KIND_ANON) {
		folio->mapping = &kh_file_mapping;
		if (kind == KH_KIND_SHMEM) {
			/* shmem_add_to_page_cache() */
			__folio_set_swapbacked(folio);
			__lruvec_stat_mod_folio(folio, NR_SHMEM, folio_nr_pages(folio));
		}
	}
	return (struct kh_folio *)folio;
}

KH_ABI int kh_folio_free(struct kh_folio *f)
{
	struct folio *folio = kh_f(f);
	const unsigned int order = folio_order(folio);
	const unsigned long pfn = folio_pfn(folio);

	if (folio_mapped(folio) || folio_maybe_dma_pinned(folio))
		return -EBUSY;
	if (!folio_test_hugetlb(folio) && folio->mapping == &kh_file_mapping &&
	    folio_test_swapbacked(folio))
		__lruvec_stat_mod_folio(folio, NR_SHMEM, -folio_nr_pages(folio));
	/* free_pages_prepare() takes a partially mapped folio off the queue
	 * (folio_unqueue_deferred_split()) and clears the flag with the
	 * counter. */
	clear_bit(pfn, kh_alloc_ref);
	kh_unqueue_deferred_split(folio);
	/* free_pages_prepare(): "if (PageAnon(page)) mod_mthp_stat(order,
	 * MTHP_STAT_NR_ANON, -1)".  Departure: the harness's anon folios are
	 * anonymous from birth, also those mapped without
	 * folio_add_new_anon_rmap() (as the model allows), which never
	 * counted themselves; only those that went through it uncount. */
	if (test_and_clear_bit(pfn, kh_counted_anon))
		mod_mthp_stat(order, MTHP_STAT_NR_ANON, -1);
	kh_mem_poison(&folio->page, folio_nr_pages(folio) * sizeof(struct page), true);
	kh_pfn_free(pfn, order);
	return 0;
}

KH_ABI void kh_folio_discard(struct kh_folio *f)
{
	struct folio *folio = kh_f(f);
	const unsigned int order = folio_order(folio);
	const unsigned long pfn = folio_pfn(folio);
	unsigned long flags;

	if (folio_test_large(folio) && order > 1 && !folio_test_hugetlb(folio)) {
		spin_lock_irqsave(&kh_split_queue.split_queue_lock, flags);
		if (!list_empty(&folio->_deferred_list)) {
			list_del_init(&folio->_deferred_list);
			kh_split_queue.split_queue_len--;
		}
		spin_unlock_irqrestore(&kh_split_queue.split_queue_lock, flags);
	}
	clear_bit(pfn, kh_alloc_ref);
	clear_bit(pfn, kh_counted_anon);
	kh_mem_poison(&folio->page, folio_nr_pages(folio) * sizeof(struct page), true);
	kh_pfn_free(pfn, order);
}

KH_ABI struct kh_mm *kh_mm_create(unsigned int id)
{
	struct kh_mm *m = kh_zalloc(sizeof(*m));

	if (!m)
		return NULL;
#ifdef KH_PREP
	m->mm.mm_id = id;
#endif
	seqcount_init(&m->mm.write_protect_seq);
	m->vma.vm_mm = &m->mm;
	m->vma.vm_start = 0;
	/* (on i386 the last page, whose end would wrap to 0: it is in the
	 * unused half of the top block, no folio's) */
	m->vma.vm_end = (KH_PFNS - 1) << PAGE_SHIFT;
	m->vma.vm_pgoff = 0;
	m->vma.anon_vma = &kh_anon_vma;
	vm_flags_init(&m->vma, VM_READ | VM_WRITE | VM_MAYREAD | VM_MAYWRITE);
	return m;
}

KH_ABI void kh_mm_destroy(struct kh_mm *m)
{
	kh_free(m);
}

KH_ABI void kh_mm_set_has_pinned(struct kh_mm *m)
{
	set_bit(MMF_HAS_PINNED, &m->mm.flags);
}
