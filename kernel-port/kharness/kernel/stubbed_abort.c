// SPDX-License-Identifier: GPL-2.0
/*
 * kharness: stubbed.  Functions mm/rmap.c links against that the
 * accounting never reaches (try_to_unmap(), migration, rmap walks, TLB
 * flushing, mlock of VM_LOCKED VMAs, which the harness never creates...):
 * calling one ends the run naming it.  Compiled as its own unit without
 * kernel headers, so their types do not matter; weak, so that a tree that
 * defines one itself (or a later glue file) wins.  The list is the union
 * over the trees; build-kharness fails naming any symbol of a tree that
 * neither the tree, the glue nor this list defines.
 */
void kh_kernel_unreachable(const char *symbol) __attribute__((__noreturn__));

#define KH_UNREACHABLE(sym)						\
	void sym(void) __attribute__((weak));				\
	void sym(void) { kh_kernel_unreachable(#sym); }

/* try_to_unmap(), try_to_migrate() and their walks */
KH_UNREACHABLE(page_vma_mapped_walk)
KH_UNREACHABLE(ptep_clear_flush)
KH_UNREACHABLE(ptep_clear_flush_young)
KH_UNREACHABLE(pmdp_clear_flush_young)
KH_UNREACHABLE(pmdp_invalidate)
KH_UNREACHABLE(set_pmd_migration_entry)
KH_UNREACHABLE(split_huge_pmd_address)
KH_UNREACHABLE(split_huge_pmd_locked)
KH_UNREACHABLE(swap_duplicate)
KH_UNREACHABLE(swap_free_nr)
KH_UNREACHABLE(swap_migration_ad_supported)
KH_UNREACHABLE(huge_pmd_unshare)
KH_UNREACHABLE(huge_pmd_unshare_flush)
KH_UNREACHABLE(hugetlb_vma_trylock_write)
KH_UNREACHABLE(hugetlb_vma_unlock_write)
KH_UNREACHABLE(adjust_range_if_pmd_sharing_possible)
KH_UNREACHABLE(rmap_walk_ksm)
KH_UNREACHABLE(folio_mark_dirty)
KH_UNREACHABLE(__folio_put)
KH_UNREACHABLE(mm_trace_rss_stat)
KH_UNREACHABLE(percpu_counter_add_batch)
KH_UNREACHABLE(mem_cgroup_from_task)
KH_UNREACHABLE(__cond_resched)
/* TLB batching */
KH_UNREACHABLE(arch_tlbbatch_flush)
KH_UNREACHABLE(flush_tlb_mm_range)
KH_UNREACHABLE(tlb_finish_mmu)
KH_UNREACHABLE(tlb_gather_mmu_vma)
/* anon_vma and the interval trees (fork, mmap, the rmap walk) */
KH_UNREACHABLE(__kmem_cache_create_args)
KH_UNREACHABLE(kmem_cache_alloc_noprof)
KH_UNREACHABLE(kmem_cache_free)
KH_UNREACHABLE(__init_rwsem)
KH_UNREACHABLE(down_read)
KH_UNREACHABLE(down_read_trylock)
KH_UNREACHABLE(down_write)
KH_UNREACHABLE(up_read)
KH_UNREACHABLE(up_write)
KH_UNREACHABLE(find_mergeable_anon_vma)
KH_UNREACHABLE(anon_vma_interval_tree_insert)
KH_UNREACHABLE(anon_vma_interval_tree_iter_first)
KH_UNREACHABLE(anon_vma_interval_tree_iter_next)
KH_UNREACHABLE(anon_vma_interval_tree_remove)
KH_UNREACHABLE(vma_interval_tree_iter_first)
KH_UNREACHABLE(vma_interval_tree_iter_next)
/* the detect part's walk (folio_rmap_mapped_pages()): the bitmap of a
 * folio of more than 512 pages; the harness runs no deferred split scan */
KH_UNREACHABLE(bitmap_zalloc)
KH_UNREACHABLE(bitmap_free)
/* mlock: the harness's VMAs are never VM_LOCKED */
KH_UNREACHABLE(mlock_folio)
KH_UNREACHABLE(munlock_folio)
KH_UNREACHABLE(mlock_drain_local)
/* page table check: never enabled here (page_table_check_disabled) */
KH_UNREACHABLE(__page_table_check_pmd_set)
KH_UNREACHABLE(__page_table_check_pte_clear)
KH_UNREACHABLE(__page_table_check_ptes_set)
