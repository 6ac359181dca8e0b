/* SPDX-License-Identifier: MIT */
/*
 * libfoliosim: a userspace model of the Linux folio rmap accounting.
 *
 * Three accounting modes, one per kernel, are modelled side by side:
 *
 *   FSIM_MODE_LEGACY  Linux 6.12 as shipped: per-page _mapcount,
 *                     _entire_mapcount, _nr_pages_mapped with
 *                     ENTIRELY_MAPPED, _large_mapcount.  Only whole-folio
 *                     PMD mappings of PMD-sized folios; no PUD rmap.
 *   FSIM_MODE_BASE    the RFC's base tree (6.12 + the prep part with
 *                     CONFIG_PAGE_MAPCOUNT=y): the 6.12 counters plus the
 *                     two MM-id slots, folio_maybe_mapped_shared(), COW
 *                     reuse of PTE-mapped THP and PUD rmap of whole
 *                     PUD-sized folios.  /proc reads as in 6.12.
 *   FSIM_MODE_RFC     after "mm/rmap: support arbitrary folio mappings"
 *                     (RFC, April 2026): _large_mapcount,
 *                     _total_mapped_pages, the two MM-id slots packed in
 *                     _mm_ids with the lock and "maybe mapped shared" bits;
 *                     arbitrary PTE/PMD/PUD mappings.
 *
 * Beside the model every folio carries an oracle: a precise record of
 * every mapping (mm, level, first page, pages, multiplicity).  It plays the
 * part of the page tables: calls that the page tables would make
 * impossible (removing a mapping that does not exist, ...) are refused
 * with -EINVAL before anything changes, and fsim_check_folio() compares
 * the model's counters with what the oracle implies.
 *
 * Conventions: functions returning int return 0 or a negative errno value
 * (-EINVAL, -EBUSY, -EOVERFLOW, -ENOSPC, -ENOMEM); the few that return a
 * count or an index return it (>= 0) or a negative errno, and "not found"
 * is -ENOENT everywhere.  Queries named has/test/is return bool and take a
 * bad argument as false.  A refused call leaves
 * every counter, flag and statistic exactly as it was.  The rmap calls are
 * thread-safe in the way the kernel's are: counters are C11 atomics and the
 * large-mapcount state is updated under a bit spinlock in the _mm_ids word
 * (rfc mode); the query functions are lockless.  Creating and freeing
 * folios and mms must not race with calls on the same objects.
 */
#ifndef FOLIOSIM_FOLIOSIM_H
#define FOLIOSIM_FOLIOSIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Symbols of the shared library; everything else stays hidden. */
#if defined(__GNUC__) || defined(__clang__)
#define FSIM_API __attribute__((visibility("default")))
#else
#define FSIM_API
#endif

#define FSIM_VERSION_MAJOR 0
#define FSIM_VERSION_MINOR 4
#define FSIM_VERSION_PATCH 0
#define FSIM_VERSION_STRING "0.4.0"

/** The accounting mode of a context. */
enum fsim_mode {
	FSIM_MODE_LEGACY = 0,	/* Linux 6.12 */
	FSIM_MODE_RFC = 1,	/* after the RFC series */
	FSIM_MODE_BASE = 2,	/* the RFC's base tree, CONFIG_PAGE_MAPCOUNT=y */
	FSIM_NR_MODES
};

/** Page-table level of a mapping (enum pgtable_level / enum rmap_level). */
enum fsim_level {
	FSIM_LEVEL_PTE = 0,
	FSIM_LEVEL_PMD = 1,
	FSIM_LEVEL_PUD = 2,
};

/** What backs a folio. */
enum fsim_kind {
	FSIM_KIND_ANON = 0,	/* anonymous memory */
	FSIM_KIND_FILE = 1,	/* page cache of a regular file */
	FSIM_KIND_SHMEM = 2,	/* page cache of shmem/tmpfs (swap-backed) */
};

/** Architecture parameters of a context ("arch" scenario statement). */
struct fsim_arch {
	unsigned int bits;	/* 64 or 32: sizes of unsigned long, mm_id_t */
	unsigned int page_shift;/* 12 on x86 */
	unsigned int pmd_order;	/* pages per PMD = 1 << pmd_order */
	unsigned int pud_order;	/* pages per PUD = 1 << pud_order */
};

/** x86_64 defaults: 64-bit, 4 KiB pages, 2 MiB PMDs, 1 GiB PUDs. */
#define FSIM_ARCH_X86_64 ((struct fsim_arch){ 64, 12, 9, 18 })

/** Node statistics updated by the rmap calls (__folio_mod_stat()). */
enum fsim_stat {
	FSIM_NR_ANON_MAPPED = 0,	/* NR_ANON_MAPPED (pages) */
	FSIM_NR_FILE_MAPPED,		/* NR_FILE_MAPPED (pages) */
	FSIM_NR_ANON_THPS,		/* NR_ANON_THPS (pages) */
	FSIM_NR_FILE_PMDMAPPED,		/* NR_FILE_PMDMAPPED (pages) */
	FSIM_NR_SHMEM_PMDMAPPED,	/* NR_SHMEM_PMDMAPPED (pages) */
	FSIM_NR_SHMEM,		/* NR_SHMEM (pages): shmem folios in a page cache,
				 * mapped or not (shmem_add_to_page_cache()) */
	FSIM_NR_STATS
};

/** Per-order THP counters (sysfs hugepages-<size>kB/stats/). */
enum fsim_thp_counter {
	FSIM_THP_NR_ANON = 0,			/* MTHP_STAT_NR_ANON */
	FSIM_THP_NR_ANON_PARTIALLY_MAPPED,	/* MTHP_STAT_NR_ANON_PARTIALLY_MAPPED */
	FSIM_THP_SPLIT_DEFERRED,		/* MTHP_STAT_SPLIT_DEFERRED (event) */
	FSIM_THP_NR_COUNTERS
};

struct fsim_ctx;	/* a set of folios and mms sharing mode, arch and stats */
struct fsim_mm;		/* an address space: owns an mm id */
struct fsim_folio;	/* a folio of 2^order pages */

/* ------------------------------------------------------------------ */
/* Contexts                                                            */
/* ------------------------------------------------------------------ */

/** Checks arch parameters: bits 32/64, page_shift 10..16,
 *  1 <= pmd_order < pud_order <= 30. Returns 0 or -EINVAL. */
FSIM_API int fsim_arch_validate(const struct fsim_arch *arch);

/** Creates a context. @arch may be NULL for FSIM_ARCH_X86_64. */
FSIM_API int fsim_ctx_create(enum fsim_mode mode, const struct fsim_arch *arch,
		    struct fsim_ctx **out);
/** Frees a context with every folio and mm still in it. */
FSIM_API void fsim_ctx_destroy(struct fsim_ctx *ctx);
FSIM_API enum fsim_mode fsim_ctx_mode(const struct fsim_ctx *ctx);
FSIM_API const struct fsim_arch *fsim_ctx_arch(const struct fsim_ctx *ctx);
/** Node statistic value in pages. */
FSIM_API int64_t fsim_ctx_stat(const struct fsim_ctx *ctx, enum fsim_stat stat);
/** Per-order THP counter; orders outside 1..pmd_order read 0. */
FSIM_API int64_t fsim_ctx_thp_counter(const struct fsim_ctx *ctx, unsigned int order,
			     enum fsim_thp_counter counter);
/** vmstat event thp_deferred_split_page. */
FSIM_API uint64_t fsim_ctx_thp_deferred_split_page(const struct fsim_ctx *ctx);
/** Number of folios on the deferred split queue. */
FSIM_API size_t fsim_ctx_deferred_split_len(const struct fsim_ctx *ctx);

/**
 * Concurrent use: rmap calls on one folio from several threads.  The
 * per-call transition checks (did this removal flag the folio partially
 * mapped when it had to?) need a serial history and are skipped; the
 * state invariants of fsim_check_*() still hold at quiescent points.
 */
FSIM_API void fsim_ctx_set_concurrent(struct fsim_ctx *ctx, bool concurrent);

/** Called at every lock acquisition and counter update of the rmap paths
 *  with the place's name, so a test can drive seeded interleavings. */
typedef void (*fsim_sched_hook_t)(void *arg, const char *where);
FSIM_API void fsim_ctx_set_sched_hook(struct fsim_ctx *ctx, fsim_sched_hook_t hook,
			     void *arg);

/** The @i-th mode in kernel order (0 legacy, 1 base, 2 rfc); FSIM_NR_MODES
 *  past the last. */
FSIM_API enum fsim_mode fsim_mode_at(unsigned int i);
/** The mode named @name ("legacy", "base", "rfc"): 0 or -EINVAL. */
FSIM_API int fsim_mode_from_name(const char *name, enum fsim_mode *out);
/** Name of a mode ("legacy", "base", "rfc"), level ("pte", ...), kind, stat. */
FSIM_API const char *fsim_mode_name(enum fsim_mode mode);
/** "legacy (6.12)", "base (6.12 + prep)", "rfc": the mode and its tree. */
FSIM_API const char *fsim_mode_label(enum fsim_mode mode);

/** What a kernel has, where a caller's behaviour depends on it
 *  (fsim_mode_has()): ask for the fact, never compare modes. */
enum fsim_feature {
	/* Per-page _mapcount of large folios (CONFIG_PAGE_MAPCOUNT): 6.12
	 * and the base tree; gone with rfc/0007. */
	FSIM_HAS_PAGE_MAPCOUNT = 0,
	/* The two MM owner slots, _mm_ids (prep/0016): base and rfc.  A
	 * large anon folio one process maps may then read as shared because
	 * of an earlier sharer (the "maybe mapped shared" bit). */
	FSIM_HAS_MM_SLOTS,
	/* /proc/kpagecount and pagemap's exclusive bit per page, not the
	 * folio average: 6.12 and the base tree. */
	FSIM_HAS_PRECISE_KPAGECOUNT,
	/* A folio mapped in any mix of PTEs, PMDs and PUDs (13/13): rfc. */
	FSIM_HAS_ARBITRARY_MAPPINGS,
	/* The detect part (kernel-port's patches on the series) applies:
	 * rfc only; 6.12 and the base tree detect every partial mapping on
	 * the removal path already (fsim_ctx_set_detect()). */
	FSIM_HAS_DETECT_PART,
	/* COW reuse of PTE-mapped THP (prep/0017): base and rfc. */
	FSIM_HAS_COW_REUSE_LARGE_ANON,
	FSIM_NR_FEATURES
};

/** Whether the kernel of @mode has @feature; false for an unknown mode or
 *  feature (a query, not an error).  Since 0.4.0. */
FSIM_API bool fsim_mode_has(enum fsim_mode mode, enum fsim_feature feature);
/** "mm-slots" for FSIM_HAS_MM_SLOTS etc.; "?" for an unknown feature.
 *  Since 0.4.0. */
FSIM_API const char *fsim_feature_name(enum fsim_feature feature);
FSIM_API const char *fsim_level_name(enum fsim_level level);
FSIM_API const char *fsim_kind_name(enum fsim_kind kind);
FSIM_API const char *fsim_stat_name(enum fsim_stat stat);
/** "EINVAL" for -EINVAL etc.; "OK" for 0. */
FSIM_API const char *fsim_errname(int err);
/**
 * Why the calling thread's last refused call was refused: a short string
 * naming the rule ("the page range is not aligned to the level's order"),
 * "" if no call of this thread was refused yet.  Successful calls leave it
 * alone: read it right after a call returned an error.  Set by the rmap,
 * folio, mm and context calls; a lack of memory (-ENOMEM) leaves it alone.
 */
FSIM_API const char *fsim_last_refusal(void);

/* ------------------------------------------------------------------ */
/* Address spaces                                                      */
/* ------------------------------------------------------------------ */

/**
 * Creates an mm.  @id 0 takes the lowest free id from 1 like
 * ida_alloc_range(&mm_ida, MM_ID_MIN, MM_ID_MAX) in mm_init(); a non-zero
 * @id asks for that id (-EINVAL if taken or above MM_ID_MAX: 2^31-1 with
 * bits=64, 2^15-1 with bits=32).  -ENOSPC when no id is left.
 */
FSIM_API int fsim_mm_create(struct fsim_ctx *ctx, unsigned int id, struct fsim_mm **out);
/** Frees an mm and its id (__mmdrop()).  -EBUSY while it maps a folio. */
FSIM_API int fsim_mm_destroy(struct fsim_mm *mm);
FSIM_API unsigned int fsim_mm_id(const struct fsim_mm *mm);
/** Whether the mm has pinned pages (MMF_HAS_PINNED). */
FSIM_API bool fsim_mm_has_pinned(const struct fsim_mm *mm);

/* ------------------------------------------------------------------ */
/* Folios                                                              */
/* ------------------------------------------------------------------ */

/**
 * Creates an unmapped folio of 2^@order pages (0 <= order <= pud_order;
 * with bits=32 at most order 15, since a per-MM mapcount is a short),
 * as prep_compound_head() leaves it.  Refcount 1.
 */
FSIM_API int fsim_folio_create(struct fsim_ctx *ctx, unsigned int order,
		      enum fsim_kind kind, struct fsim_folio **out);
/**
 * Creates an unmapped hugetlb folio (folio_test_hugetlb()) of @order
 * pmd_order or pud_order (a PMD- or PUD-sized hstate): @kind FSIM_KIND_ANON
 * for a MAP_PRIVATE mapping's pages, FSIM_KIND_FILE for hugetlbfs (and
 * MAP_SHARED) pages.  A hugetlb folio is only ever mapped as a whole by one
 * PMD (PUD) entry: the rmap calls below route it to 6.12's hugetlb rmap
 * functions (hugetlb_add_new_anon_rmap(), hugetlb_add_anon_rmap(),
 * hugetlb_add_file_rmap(), hugetlb_remove_rmap(),
 * hugetlb_try_dup_anon_rmap()) and refuse any other range (-EINVAL).  No
 * node statistic or THP counter counts hugetlb mappings.
 */
FSIM_API int fsim_folio_create_hugetlb(struct fsim_ctx *ctx, unsigned int order,
				       enum fsim_kind kind, struct fsim_folio **out);
/** folio_test_hugetlb(). */
FSIM_API bool fsim_folio_test_hugetlb(const struct fsim_folio *folio);
/**
 * Frees a folio: -EINVAL if it is still mapped or pinned.  Otherwise runs
 * the free-time checks of free_tail_page_prepare()/free_page_is_bad():
 * returns -EFAULT (and frees nothing) when a counter is not back at its
 * initial value, which is a model bug; fsim_check_folio() names it.
 */
FSIM_API int fsim_folio_free(struct fsim_folio *folio);

FSIM_API unsigned int fsim_folio_order(const struct fsim_folio *folio);
FSIM_API unsigned long fsim_folio_nr_pages(const struct fsim_folio *folio);
FSIM_API enum fsim_kind fsim_folio_kind(const struct fsim_folio *folio);

/* ------------------------------------------------------------------ */
/* Rmap calls                                                          */
/* ------------------------------------------------------------------ */

/*
 * Every call names the mm whose page table holds the mapping (the kernel
 * passes the vma; only vma->vm_mm matters to the accounting).  @page is
 * the first page index in the folio, @nr the number of pages; a PTE call
 * with nr=k is one batched call mapping k PTEs, a PMD (PUD) call maps
 * nr >> pmd_order (pud_order) entries, @page and @nr aligned to the level.
 *
 * Like the kernel's callers, the model also takes (drops) one folio
 * reference per entry mapped (unmapped), so that the refcount seen by
 * smaps' "refcount == 1" shortcut is right.
 */

/** folio_add_new_anon_rmap(): maps the whole anon folio with the largest
 *  level that fits (rfc: PUD/PMD/PTE; legacy: PMD only if PMD-sized, PTEs
 *  below, -EINVAL above).  The folio must be anon and unmapped. */
FSIM_API int fsim_folio_add_new_anon_rmap(struct fsim_folio *folio, struct fsim_mm *mm,
				 bool exclusive);
/** folio_add_anon_rmap_{ptes,pmd,pud}(); @exclusive is RMAP_EXCLUSIVE. */
FSIM_API int fsim_folio_add_anon_rmap(struct fsim_folio *folio, struct fsim_mm *mm,
			     enum fsim_level level, unsigned long page,
			     unsigned long nr, bool exclusive);
/** folio_add_file_rmap_{ptes,pmd,pud}(). */
FSIM_API int fsim_folio_add_file_rmap(struct fsim_folio *folio, struct fsim_mm *mm,
			     enum fsim_level level, unsigned long page,
			     unsigned long nr);
/** folio_remove_rmap_{ptes,pmd,pud}(): -EINVAL unless @mm has every
 *  mapping named. */
FSIM_API int fsim_folio_remove_rmap(struct fsim_folio *folio, struct fsim_mm *mm,
			   enum fsim_level level, unsigned long page,
			   unsigned long nr);
/** folio_try_dup_anon_rmap_{ptes,pmd,pud}() for fork: @src must have the
 *  mappings, @dst gets copies.  -EBUSY if the folio may be pinned (pinned
 *  and @src has MMF_HAS_PINNED) and a covered page is AnonExclusive. */
FSIM_API int fsim_folio_try_dup_anon_rmap(struct fsim_folio *folio, struct fsim_mm *dst,
				 struct fsim_mm *src, enum fsim_level level,
				 unsigned long page, unsigned long nr);
/** folio_dup_file_rmap_{ptes,pmd,pud}() for fork. */
FSIM_API int fsim_folio_dup_file_rmap(struct fsim_folio *folio, struct fsim_mm *dst,
			     struct fsim_mm *src, enum fsim_level level,
			     unsigned long page, unsigned long nr);
/** GUP pin (FOLL_PIN) @n times; sets MMF_HAS_PINNED on @mm. */
FSIM_API int fsim_folio_pin(struct fsim_folio *folio, struct fsim_mm *mm, unsigned int n);
/** unpin_user_page() @n times; -EINVAL if fewer pins are held. */
FSIM_API int fsim_folio_unpin(struct fsim_folio *folio, unsigned int n);
/** Drops an AnonExclusive page's flag as the COW-reuse path keeps it, or
 *  sets it (@set) as do_wp_page() does on reuse; anon folios only. */
FSIM_API int fsim_folio_set_anon_exclusive(struct fsim_folio *folio, unsigned long page,
				  bool set);

/* ------------------------------------------------------------------ */
/* Queries (lockless, like the kernel's readers)                       */
/*                                                                     */
/* On a NULL folio, mm or context, or a page outside the folio, a      */
/* query returns 0 or false (-1 where -1 already means "no such        */
/* counter", FSIM_NR_MODES and NULL for the context's mode and arch);  */
/* fsim_folio_page_info() is the checked form of the per-page ones.    */
/* ------------------------------------------------------------------ */

/** folio_mapcount(): page-table entries mapping the folio. */
FSIM_API int fsim_folio_mapcount(const struct fsim_folio *folio);
/** folio_mapped(). */
FSIM_API bool fsim_folio_mapped(const struct fsim_folio *folio);
/** folio_total_mapped_pages(); in legacy derived from the 6.12 counters
 *  (large mapcount - entire mapcount + entire mapcount * nr_pages). */
FSIM_API uint64_t fsim_folio_total_mapped_pages(const struct fsim_folio *folio);
/** folio_average_page_mapcount() of the RFC (fs/proc/internal.h):
 *  0 if unmapped, else max(1, round-half-up(total / nr_pages)). */
FSIM_API unsigned long fsim_folio_average_page_mapcount(const struct fsim_folio *folio);
/** base, rfc: folio_maybe_mapped_shared(); legacy: folio_likely_mapped_shared(). */
FSIM_API bool fsim_folio_maybe_mapped_shared(const struct fsim_folio *folio);
/** folio_test_partially_mapped(). */
FSIM_API bool fsim_folio_partially_mapped(const struct fsim_folio *folio);
/** Whether the folio is on the deferred split queue. */
FSIM_API bool fsim_folio_on_deferred_split(const struct fsim_folio *folio);
/** PageAnonExclusive(folio_page(folio, page)). */
FSIM_API bool fsim_folio_anon_exclusive(const struct fsim_folio *folio, unsigned long page);
/** Pins: _pincount (large), refcount / GUP_PIN_COUNTING_BIAS (small). */
FSIM_API int fsim_folio_pincount(const struct fsim_folio *folio);
/** folio_has_pincount(): a pin counts once in _pincount and once in the
 *  refcount; else FSIM_GUP_PIN_COUNTING_BIAS in the refcount alone (small
 *  folios, and order-1 folios on 32-bit in the base tree, whose prep/0004
 *  moved _pincount to page[2]).  false for NULL.  Since 0.4.0. */
FSIM_API bool fsim_folio_has_pincount(const struct fsim_folio *folio);
/** GUP_PIN_COUNTING_BIAS (include/linux/mm.h). */
#define FSIM_GUP_PIN_COUNTING_BIAS 1024
/** folio_maybe_dma_pinned(). */
FSIM_API bool fsim_folio_maybe_dma_pinned(const struct fsim_folio *folio);
/** folio_ref_count(), kept 64 bits wide (the model does not overflow it). */
FSIM_API int64_t fsim_folio_refcount(const struct fsim_folio *folio);

/** One MM-id slot of a large folio (base and rfc modes). */
struct fsim_slot {
	unsigned int mm_id;	/* MM_ID_DUMMY (0) when free */
	int mapcount;		/* entries recorded: _mm_id_mapcount[i] + 1 */
};
/** Reads both slots and the shared bit under the folio's lock.  -EINVAL in
 *  legacy mode (no MM owner tracking) and for small folios. */
FSIM_API int fsim_folio_slots(const struct fsim_folio *folio, struct fsim_slot slots[2],
		     bool *shared_bit);
/** The raw _mm_ids word (low 32 bits used with bits=32). */
FSIM_API uint64_t fsim_folio_mm_ids_word(const struct fsim_folio *folio);
/** Bit numbers in _mm_ids for the arch (FOLIO_MM_IDS_LOCK_BITNUM ...). */
FSIM_API unsigned int fsim_mm_ids_lock_bitnum(const struct fsim_arch *arch);
FSIM_API unsigned int fsim_mm_ids_shared_bitnum(const struct fsim_arch *arch);

/** The CONFIG_PAGE_MAPCOUNT counters of legacy and base (-1 in rfc mode and
 *  for small folios where they do not exist, except the precise page
 *  mapcount of a small folio, its mapcount):
 *  folio_entire_mapcount(), folio_nr_pages_mapped(), and the precise page
 *  mapcount folio_precise_page_mapcount() of fs/proc/internal.h. */
FSIM_API int fsim_folio_entire_mapcount(const struct fsim_folio *folio);
FSIM_API int fsim_folio_nr_pages_mapped(const struct fsim_folio *folio);
FSIM_API int fsim_folio_precise_page_mapcount(const struct fsim_folio *folio,
				     unsigned long page);

/* ------------------------------------------------------------------ */
/* What /proc shows, per mode                                          */
/* ------------------------------------------------------------------ */

#define FSIM_PSS_SHIFT 12	/* fs/proc/task_mmu.c */

/** /proc/kpagecount of a page: rfc: the average page mapcount (03/13);
 *  legacy, base: folio_precise_page_mapcount(). */
FSIM_API uint64_t fsim_kpagecount(const struct fsim_folio *folio, unsigned long page);
/** /proc/PID/pagemap PM_MMAP_EXCLUSIVE (bit 56) for a present mapping of
 *  @page: rfc: !folio_maybe_mapped_shared() (04/13); legacy: precise page
 *  and base: precise page mapcount == 1. */
FSIM_API bool fsim_pagemap_exclusive(const struct fsim_folio *folio, unsigned long page);
/** numa_maps "mapmax" contribution of an entry whose first page is @page
 *  (gather_stats()): rfc: average page mapcount (02/13); legacy, base:
 *  precise mapcount of @page. */
FSIM_API unsigned long fsim_numa_mapmax(const struct fsim_folio *folio, unsigned long page);

/** Every per-page figure of one page at once: the checked form of the
 *  queries above, which return 0 (false) for a NULL folio or a page
 *  outside it and so cannot tell that from a real 0. */
struct fsim_page_info {
	uint64_t kpagecount;		/* fsim_kpagecount() */
	bool pagemap_exclusive;		/* fsim_pagemap_exclusive() */
	unsigned long numa_mapmax;	/* fsim_numa_mapmax() */
	int precise_mapcount;		/* fsim_folio_precise_page_mapcount() (-1: rfc) */
	bool anon_exclusive;		/* fsim_folio_anon_exclusive() */
	uint64_t true_mapcount;		/* fsim_oracle_true_mapcount() */
};
/** 0, or -EINVAL (fsim_last_refusal() says why) for a NULL folio or @out,
 *  or a page outside the folio. */
FSIM_API int fsim_folio_page_info(const struct fsim_folio *folio, unsigned long page,
				  struct fsim_page_info *out);

/** pagemap bit 56 of a present huge zeropage PMD (pagemap_pmd_range()
 *  asks the huge zero folio, a large folio with mapcount 0): 6.12 and the
 *  base tree want a precise mapcount of 1 (no), the RFC
 *  !folio_maybe_mapped_shared() (yes). */
FSIM_API bool fsim_huge_zero_pmd_exclusive(const struct fsim_ctx *ctx);

/** Accumulated smaps fields (struct mem_size_stats), in bytes; the pss
 *  fields carry FSIM_PSS_SHIFT fractional bits. */
struct fsim_smaps {
	uint64_t resident;
	uint64_t anonymous;
	uint64_t anonymous_thp;	/* AnonHugePages: PMD-mapped anon */
	uint64_t shmem_thp;	/* ShmemPmdMapped */
	uint64_t file_thp;	/* FilePmdMapped */
	uint64_t private_clean, private_dirty;
	uint64_t shared_clean, shared_dirty;
	uint64_t pss, pss_anon, pss_file, pss_shmem, pss_dirty;
	/* hugetlb entries (smaps_hugetlb_range()): not in Rss or Pss */
	uint64_t shared_hugetlb, private_hugetlb;
	uint64_t swap;		/* Swap: swap entries (smaps_pte_hole()/swap PTEs) */
};
/**
 * smaps_account() for one present page-table entry of @level whose first
 * page is @page (smaps_pte_entry()/smaps_pmd_entry()).  Legacy and base walk the
 * pages with their precise mapcounts; rfc uses the average mapcount and
 * folio_maybe_mapped_shared() (06/13), with the mapping's size rather than
 * folio_size() (our fix of 06/13 for PMDs mapping part of a larger folio).
 * Both take the "folio_ref_count() == 1" shortcut.  A hugetlb entry only
 * adds its size to Shared_Hugetlb or Private_Hugetlb (smaps_hugetlb_range():
 * shared when folio_maybe_mapped_shared()).
 * Returns 0, or -EINVAL with @acc unchanged for NULL arguments, a level
 * that does not exist, an entry outside the folio or not aligned to its
 * level, and a PMD or PUD entry that no mm holds (PTE entries are not
 * looked up: the snapshot reader asks about every page).
 */
FSIM_API int fsim_smaps_account(const struct fsim_folio *folio, enum fsim_level level,
			unsigned long page, bool dirty, struct fsim_smaps *acc);

/* ------------------------------------------------------------------ */
/* The oracle and the invariant check                                  */
/* ------------------------------------------------------------------ */

/** How many entries really map @page (every mode). */
FSIM_API uint64_t fsim_oracle_true_mapcount(const struct fsim_folio *folio,
				   unsigned long page);
/** Entries of @mm_id mapping the folio. */
FSIM_API uint64_t fsim_oracle_mm_entries(const struct fsim_folio *folio,
				unsigned int mm_id);
/** Entries of every mm, and pages summed over entries. */
FSIM_API uint64_t fsim_oracle_entries(const struct fsim_folio *folio);
FSIM_API uint64_t fsim_oracle_mapped_pages(const struct fsim_folio *folio);
/** Fills up to @max ids of the mms mapping the folio, ascending; returns
 *  how many mms map it. */
FSIM_API size_t fsim_oracle_mms(const struct fsim_folio *folio, unsigned int *ids,
		       size_t max);

/* ------------------------------------------------------------------ */
/* The detect part (beyond the RFC, docs/partial-detect.md)            */
/* ------------------------------------------------------------------ */

/**
 * Turns kernel-port's detect part on or off (rfc mode only: -EOPNOTSUPP
 * elsewhere, where every partial mapping is found on the removal path).
 * With it, a removal that leaves an anonymous folio mapped, maybe mapped
 * shared and not certainly partially mapped queues it, unflagged, on the
 * deferred split queue, and fsim_ctx_deferred_split_scan() walks it.
 */
FSIM_API int fsim_ctx_set_detect(struct fsim_ctx *ctx, bool on);
/** Whether the detect part is on (false for NULL). */
FSIM_API bool fsim_ctx_detect(const struct fsim_ctx *ctx);
/**
 * The detect part's walk of one folio: counts the pages some page table
 * maps; an anonymous folio of order 2..PMD order that is mapped but not
 * entirely is flagged partially mapped and queued, as
 * deferred_split_folio(folio, true) does.  Returns 1 if it flagged the
 * folio, 0 if not (not partially mapped, flagged already, or not such a
 * folio), -EINVAL for NULL, -ENOMEM.  The same in every mode.
 */
FSIM_API int fsim_folio_detect_partial(struct fsim_folio *folio);

/** What one deferred split scan did. */
struct fsim_split_scan {
	size_t queued;		/**< folios on the queue when it began */
	size_t walked;		/**< unflagged candidates walked (detect part) */
	size_t detected;	/**< of those, found partially mapped */
	size_t split;		/**< flagged folios split */
	uint64_t pages_freed;	/**< unmapped pages those splits freed */
};

/**
 * deferred_split_scan() over the whole queue (the shrinker's scan, e.g.
 * through /sys/kernel/debug/shrinker/thp-deferred_split-N/scan): with the
 * detect part, each unflagged candidate is walked
 * (fsim_folio_detect_partial()); unflagged folios leave the queue; flagged
 * ones are split into order-0 folios and their unmapped pages freed, when
 * processes (process.h) own the page tables.  At rmap level the model has
 * no page tables to rewrite, so flagged folios stay queued.  A pinned
 * folio is not split (can_split_folio()).  @out may be NULL.
 */
FSIM_API int fsim_ctx_deferred_split_scan(struct fsim_ctx *ctx,
					  struct fsim_split_scan *out);

/** A broken invariant: its name (see docs/model.md) and the values seen. */
struct fsim_violation {
	char invariant[48];
	char detail[200];
};

/** Compares a folio with its oracle.  0 if every invariant holds, else
 *  -EFAULT with @v (may be NULL) naming the first that does not. */
FSIM_API int fsim_check_folio(const struct fsim_folio *folio, struct fsim_violation *v);
/** Checks every live folio and the node statistics of the context. */
FSIM_API int fsim_check_ctx(const struct fsim_ctx *ctx, struct fsim_violation *v);

/**
 * A digest of everything a refused call must leave alone: every counter,
 * flag, slot, AnonExclusive bit and oracle record of the folio, and the
 * context's statistics.  Equal digests before and after a call mean
 * "bit-for-bit unchanged" (used by `fails=` and the tests): a change of
 * any one counter, flag or page mapcount always changes the digest
 * (every mixing step is a bijection); several changes cancel out only by
 * a 64-bit hash collision.  The per-page mapcounts enter through a sum
 * kept with every change, so the cost is O(1) in the folio's size and
 * linear in its AnonExclusive ranges and oracle segments.
 */
FSIM_API uint64_t fsim_folio_state_digest(const struct fsim_folio *folio);

#ifdef __cplusplus
}
#endif

#endif /* FOLIOSIM_FOLIOSIM_H */
