/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kh_api.h: the plain-C interface between the two halves of kharness.
 *
 * The kernel half (kernel/tu.c) is compiled with one tree's own headers and
 * flags (-nostdinc -D__KERNEL__) around that tree's unmodified mm/rmap.c;
 * the harness half (harness/) is ordinary userspace C linked with libc and
 * libfoliosim.  Neither half can include the other's headers, so everything
 * that crosses is declared here with C types only: opaque handles, levels
 * and kinds as small integers, and plain structs of what the kernel state
 * reads.  The kernel half defines every kh_* function below except the
 * kh_kernel_*() reports, which the harness half defines.
 */
#ifndef KH_API_H
#define KH_API_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stdint.h>
typedef uint64_t u64;
typedef int64_t s64;
#endif

/*
 * Every function below crosses between the halves: on i386 the kernel
 * half is compiled with kbuild's -mregparm=3 (arguments in registers) and
 * the harness half with the userspace ABI (on the stack), so both sides
 * declare them regparm(0), as the kernel's asmlinkage does.
 */
#ifdef __i386__
#define KH_ABI __attribute__((regparm(0)))
#else
#define KH_ABI
#endif

#define KH_LEVEL_PTE	0
#define KH_LEVEL_PMD	1
#define KH_LEVEL_PUD	2

#define KH_KIND_ANON	0
#define KH_KIND_FILE	1
#define KH_KIND_SHMEM	2

/* What a tree has (kh_tree()->features). */
#define KH_HAS_MM_SLOTS		0x01	/* prep/0016: _mm_id[], folio_maybe_mapped_shared() */
#define KH_HAS_PAGE_MAPCOUNT	0x02	/* per-page _mapcount and _entire_mapcount */
#define KH_HAS_PUD_RMAP		0x04	/* prep/0009: folio_{add_file,remove}_rmap_pud() */
#define KH_HAS_ARBITRARY	0x08	/* rfc/0013: any mix of PTEs, PMDs and PUDs */
#define KH_HAS_DETECT		0x10	/* kernel-port's detect part */
#define KH_HAS_DUP_REFUSAL	0x20	/* fixes/0003: dups and adds refuse overflows */
#define KH_HAS_AVG_MAPCOUNT	0x40	/* fs/proc folio_average_page_mapcount() */

struct kh_tree_info {
	const char *release;		/* UTS_RELEASE of the tree */
	unsigned int features;		/* KH_HAS_* */
	unsigned int bits;		/* BITS_PER_LONG */
	unsigned int page_shift;
	unsigned int pmd_order;		/* HPAGE_PMD_ORDER */
	unsigned int pud_order;		/* HPAGE_PUD_ORDER */
	unsigned int max_order;		/* the largest folio kh_folio_alloc() makes */
	unsigned long overflow_headroom; /* fixes/0003's FOLIO_MAPPINGS_HEADROOM;
					  * 0: the tree has no such refusal */
};

struct kh_folio;	/* a struct folio of the tree, with its struct pages */
struct kh_mm;		/* an mm_struct and the one VMA the harness maps through */

/* Sets up the private memory map; 0 or -ENOMEM. */
KH_ABI int kh_init(void);
KH_ABI const struct kh_tree_info *kh_tree(void);

/* An mm with mm_id @id (the model's: trees with MM slots store it). */
KH_ABI struct kh_mm *kh_mm_create(unsigned int id);
KH_ABI void kh_mm_destroy(struct kh_mm *mm);
/* set_bit(MMF_HAS_PINNED, &mm->flags), as the first FOLL_PIN does. */
KH_ABI void kh_mm_set_has_pinned(struct kh_mm *mm);

/* A folio as the page allocator and the page cache leave it (refcount 1,
 * unmapped; shmem counted in NR_SHMEM as shmem_add_to_page_cache() does);
 * NULL for an order above max_order or without memory. */
KH_ABI struct kh_folio *kh_folio_alloc(unsigned int order, int kind, bool hugetlb);
/* Frees it; -EBUSY (nothing done) while mapped or pinned. */
KH_ABI int kh_folio_free(struct kh_folio *folio);
/* Drops it whatever its mappings and pins (off the deferred split queue,
 * its struct pages poisoned, its pfns reused): the fuzzer's end of an
 * input that could not undo everything it mapped.  The statistics keep
 * what its mappings added. */
KH_ABI void kh_folio_discard(struct kh_folio *folio);

/*
 * The rmap calls: each takes the folio lock where the kernel's callers
 * hold it and one folio reference per entry mapped (drops it per entry
 * unmapped), as the callers do.  They return 0, or -EBUSY for a dup the
 * kernel refuses (a maybe-pinned AnonExclusive page), or -EOVERFLOW where
 * fixes/0003 refuses; -EOPNOTSUPP for a level this tree has no code for.
 */
KH_ABI int kh_add_new_anon(struct kh_folio *f, struct kh_mm *mm, bool exclusive);
KH_ABI int kh_add_anon(struct kh_folio *f, struct kh_mm *mm, int level, unsigned long page,
		unsigned long nr, bool exclusive);
KH_ABI int kh_add_file(struct kh_folio *f, struct kh_mm *mm, int level, unsigned long page,
		unsigned long nr);
KH_ABI int kh_remove(struct kh_folio *f, struct kh_mm *mm, int level, unsigned long page,
	      unsigned long nr);
KH_ABI int kh_dup(struct kh_folio *f, struct kh_mm *dst, struct kh_mm *src, int level,
	   unsigned long page, unsigned long nr);
/* Hugetlb folios: one entry mapping the whole folio. */
KH_ABI int kh_hugetlb_add(struct kh_folio *f, struct kh_mm *mm, bool new_anon, bool exclusive);
KH_ABI int kh_hugetlb_remove(struct kh_folio *f, struct kh_mm *mm);
KH_ABI int kh_hugetlb_dup(struct kh_folio *f, struct kh_mm *dst, struct kh_mm *src);
/* GUP pins as try_grab_folio(FOLL_PIN) / unpin_user_page() count them. */
KH_ABI int kh_pin(struct kh_folio *f, struct kh_mm *mm, unsigned int n);
KH_ABI int kh_unpin(struct kh_folio *f, unsigned int n);
/* SetPageAnonExclusive() / ClearPageAnonExclusive() of one page. */
KH_ABI int kh_set_anon_exclusive(struct kh_folio *f, unsigned long page, bool set);

/* The detect part's sysfs knob (thp_detect_partially_mapped); a no-op in
 * trees without the part. */
KH_ABI void kh_set_detect(bool on);

/* What a folio's state reads through the tree's own accessors. */
struct kh_folio_state {
	int mapcount;			/* folio_mapcount() */
	bool mapped;			/* folio_mapped() */
	int large_mapcount;		/* folio_large_mapcount(); small: mapcount */
	int entire_mapcount;		/* folio_entire_mapcount(); -1: none */
	int nr_pages_mapped;		/* _nr_pages_mapped & FOLIO_PAGES_MAPPED; -1 */
	s64 total_mapped_pages;		/* folio_total_mapped_pages(); -1: none */
	long avg_mapcount;		/* folio_average_page_mapcount(); -1: none */
	bool maybe_shared;		/* folio_maybe_mapped_shared() (6.12: likely) */
	bool partially_mapped;		/* folio_test_partially_mapped() */
	bool deferred;			/* on a deferred split queue */
	int pincount;			/* _pincount; -1: none (folio_has_pincount()
					 * false: the pins are refcount bias) */
	s64 refcount;			/* folio_ref_count() */
	bool has_slots;			/* large folio of a tree with MM slots */
	unsigned int slot_id[2];	/* folio_mm_id() */
	int slot_mapcount[2];		/* _mm_id_mapcount[i] + 1 */
	bool shared_bit;		/* the raw maybe-mapped-shared bit */
	u64 mm_ids_word;		/* _mm_ids */
};
KH_ABI int kh_folio_state(struct kh_folio *f, struct kh_folio_state *out);

/* One page: the readers of fs/proc and the page's own bits. */
struct kh_page_state {
	int mapcount;			/* page_mapcount()-like precise count; -1: none */
	bool anon_exclusive;		/* PageAnonExclusive() */
	u64 kpagecount;			/* /proc/kpagecount (fs/proc/page.c) */
	bool pagemap_exclusive;		/* pagemap PM_MMAP_EXCLUSIVE (fs/proc/task_mmu.c) */
	unsigned long mapmax;		/* numa_maps gather_stats() mapcount */
};
KH_ABI int kh_page_state(struct kh_folio *f, unsigned long page, struct kh_page_state *out);

/* Node statistics and counters the rmap paths change. */
#define KH_NR_STATS 6	/* in enum fsim_stat order: anon_mapped, file_mapped,
			 * anon_thps, file_pmdmapped, shmem_pmdmapped, shmem */
#define KH_MAX_ORDERS 19
struct kh_stats {
	s64 node[KH_NR_STATS];
	s64 nr_anon[KH_MAX_ORDERS];		/* MTHP_STAT_NR_ANON */
	s64 nr_anon_partially_mapped[KH_MAX_ORDERS];
	s64 split_deferred[KH_MAX_ORDERS];	/* MTHP_STAT_SPLIT_DEFERRED */
	s64 thp_deferred_split_page;		/* vmstat event */
	long split_queue_len;
};
KH_ABI void kh_stats(struct kh_stats *out);

/* Defined by the harness half: a BUG() (does not return: the harness
 * longjmp()s out of the kernel code) and a WARN() at kernel @file:@line. */
KH_ABI void kh_kernel_bug(const char *file, int line) __attribute__((__noreturn__));
KH_ABI void kh_kernel_warn(const char *file, int line, unsigned int flags);
/* printk()'s text, for the report of the next WARN or BUG. */
KH_ABI void kh_kernel_print(const char *text);
/* An aborting stub was called: the accounting strayed outside what the
 * harness supports. */
KH_ABI void kh_kernel_unreachable(const char *symbol) __attribute__((__noreturn__));
/* Memory for the kernel half (mm_structs, VMAs, the memory map). */
KH_ABI void *kh_zalloc(unsigned long size);
KH_ABI void kh_free(void *p);
KH_ABI void *kh_map_reserve(unsigned long size);
/* Marks [addr, addr + size) unusable (@poison) or usable again: a no-op
 * unless the harness is built with AddressSanitizer. */
KH_ABI void kh_mem_poison(const void *addr, unsigned long size, bool poison);

#endif /* KH_API_H */
