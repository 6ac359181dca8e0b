// SPDX-License-Identifier: GPL-2.0
/*
 * kharness: stubbed.  Symbols mm/rmap.c (and the headers it inlines) link
 * against whose work is not accounting: the data they read, set to what a
 * booted kernel with one node, one CPU in use and memcg disabled
 * (cgroup_disable=memory) holds, and functions that only report.
 * Functions the accounting never reaches are in stubbed_abort.c.
 */

/* Per-CPU data: %gs-relative in the kernel; userspace's GS base is 0, so a
 * per-cpu access reads these globals (one CPU's copy, shared by the
 * harness's threads). */
DEFINE_PER_CPU_ALIGNED(struct pcpu_hot, pcpu_hot);
asm(".globl const_pcpu_hot\n.set const_pcpu_hot, pcpu_hot");
DEFINE_PER_CPU(struct mthp_stat, mthp_stats);
DEFINE_PER_CPU(struct vm_event_state, vm_event_states);

struct mm_struct init_mm;
#ifdef CONFIG_NUMA
struct pglist_data *node_data[MAX_NUMNODES];
#else
struct pglist_data contig_page_data;	/* mm/memblock.c */
#endif
#ifdef CONFIG_SPARSEMEM
struct mem_section **mem_section;
#else
struct page *mem_map;			/* FLATMEM (i386): mm/memory.c */
#endif
unsigned int nr_cpu_ids = 1;
struct cpuinfo_x86 boot_cpu_data;
unsigned long zero_pfn = ~0UL;		/* no pfn of the harness */
DEFINE_SPINLOCK(mmlist_lock);
int percpu_counter_batch = 32;
#ifdef CONFIG_PAGE_TABLE_CHECK
DEFINE_STATIC_KEY_TRUE(page_table_check_disabled);
#endif
#ifdef CONFIG_KUNIT
#include <kunit/test-bug.h>
/* No KUnit test runs in the harness: KUNIT_STATIC_STUB_REDIRECT() (the
 * detect part's folio_rmap_partially_mapped()) never redirects. */
DEFINE_STATIC_KEY_FALSE(kunit_running);
struct kunit_hooks_table kunit_hooks;
#endif
#ifdef CONFIG_MEMCG
/* memcg disabled: folio_memcg() is NULL and nothing asks for it */
struct static_key_true memory_cgrp_subsys_enabled_key = { .key = STATIC_KEY_INIT_FALSE };
#endif

/* include/linux/mmdebug.h: VM_WARN_ON_FOLIO() and VM_BUG_ON_FOLIO() dump
 * the folio before they warn; the harness prints its counters. */
void dump_page(const struct page *page, const char *reason)
{
	char buf[160];
	const struct folio *folio = page_folio(page);

	snprintf(buf, sizeof(buf),
		 "page:%p pfn:%#lx order:%u mapcount:%d refcount:%d flags:%#lx%s%s",
		 page, page_to_pfn(page), folio_order(folio),
		 atomic_read(&page->_mapcount) + 1, page_ref_count(page),
		 folio->flags, reason ? " reason: " : "", reason ? reason : "");
	kh_kernel_print(buf);
}

void dump_vma(const struct vm_area_struct *vma)
{
	char buf[96];

	snprintf(buf, sizeof(buf), "vma:%p start:%#lx end:%#lx mm:%p",
		 vma, vma->vm_start, vma->vm_end, vma->vm_mm);
	kh_kernel_print(buf);
}
