/* SPDX-License-Identifier: MIT */
/*
 * The process layer: address spaces on top of the folio model, driven the
 * way user space drives the kernel (mmap, faults, fork, munmap,
 * MADV_DONTNEED, mprotect, mremap, MADV_COLLAPSE, MADV_PAGEOUT, exit), the
 * /proc views each mode computes, and what the readers of those views
 * (psutil, smem, ...) make of them (fsim_consumer_*).
 *
 * Each process owns an mm (and so an mm id).  A region is one mmap() of
 * anonymous private, shmem (MAP_SHARED|MAP_ANONYMOUS), hugetlb or named
 * file memory, aligned to its folio size; faults allocate folios of the region's order as 6.12's
 * fault paths do when only that mTHP size (or the PMD size) is enabled.
 * Functions return 0 or a negative errno: -EINVAL (bad name or range),
 * -EEXIST (region name taken), -EFAULT (access outside a live mapping: the
 * process would get SIGSEGV), -ENOMEM.  A failed call changes nothing.
 */
#ifndef FOLIOSIM_PROCESS_H
#define FOLIOSIM_PROCESS_H

#include <stdbool.h>
#include <stdint.h>

#include "foliosim/foliosim.h"

#ifdef __cplusplus
extern "C" {
#endif

struct fsim_process;

/** A new process with an empty address space (a new mm and mm id). */
FSIM_API int fsim_process_create(struct fsim_ctx *ctx, struct fsim_process **out);
/** fork(): a child whose address space is a copy of @parent's
 *  (dup_mmap() -> copy_page_range()). */
FSIM_API int fsim_process_fork(struct fsim_process *parent,
			       struct fsim_process **child);
/** exit(): unmaps everything (exit_mmap()), drops the mm and its id, frees
 *  the process. */
FSIM_API int fsim_process_exit(struct fsim_process *p);
FSIM_API struct fsim_mm *fsim_process_mm(const struct fsim_process *p);

/** mmap() of @size bytes (a multiple of the page size) of anonymous
 *  private (@shmem false) or shmem memory whose faults allocate folios of
 *  2^@order pages. */
FSIM_API int fsim_process_mmap(struct fsim_process *p, const char *region,
			       uint64_t size, bool shmem, unsigned int order);
/** mmap(MAP_HUGETLB) of @size bytes, a multiple of the hstate's page of
 *  2^@order pages (@order pmd_order or pud_order): MAP_PRIVATE anonymous
 *  (@shared false: faults map anon hugetlb folios, fork shares them until a
 *  write copies the whole huge page) or MAP_SHARED (@shared: one hugetlbfs
 *  page cache, which fork maps in the child too).  munmap() and
 *  MADV_DONTNEED then need ranges aligned to the huge page (-EINVAL). */
FSIM_API int fsim_process_mmap_hugetlb(struct fsim_process *p, const char *region,
				       uint64_t size, bool shared, unsigned int order);
/** mmap(MAP_PRIVATE) of the first @size bytes of the file named @file
 *  (created with that size by its first mmap; every process that maps it
 *  shares its page cache): on tmpfs (@tmpfs: shmem folios) or another file
 *  system whose page cache holds folios of 2^@order pages.  Reads map the
 *  page cache's pages read-only, writes copy them into small anon folios.
 *  -EINVAL if the file exists with another kind or order, or is smaller. */
FSIM_API int fsim_process_mmap_file(struct fsim_process *p, const char *region,
				    uint64_t size, const char *file, bool tmpfs,
				    unsigned int order);
/** Protection bits of fsim_process_mprotect() (PROT_READ, PROT_WRITE). */
#define FSIM_PROT_READ	0x1u
#define FSIM_PROT_WRITE	0x2u
/** mprotect() of a page-aligned range of the region to @prot (FSIM_PROT_*
 *  bits; 0 is PROT_NONE; write implies read, as on x86): VMAs split at the
 *  range's ends, a PMD mapping cut there is split first
 *  (vma_adjust_trans_huge()); pages stay mapped.  -ENOMEM on a hole. */
FSIM_API int fsim_process_mprotect(struct fsim_process *p, const char *region,
				   uint64_t off, uint64_t len, unsigned int prot);
/** mremap(MREMAP_MAYMOVE|MREMAP_FIXED) of the whole region, one VMA, to a
 *  new place that becomes region @to (@region is left empty).  @keep_pmd:
 *  the new place keeps the offset within a PMD, so PMD mappings move whole
 *  (move_huge_pmd()); else it is one page further, so they are split
 *  (split_huge_pmd(): anon PTE-mapped, file and shmem zapped).  A moved
 *  off-alignment region refuses later faults that would need a large folio
 *  (-EOPNOTSUPP: not modelled).  -EFAULT if the region is not one VMA. */
FSIM_API int fsim_process_mremap(struct fsim_process *p, const char *region,
				 const char *to, bool keep_pmd);
/** madvise(MADV_COLLAPSE) of a page-aligned range of an anonymous region:
 *  each PMD-aligned PMD-sized chunk in it with a PTE table, a writable PTE
 *  and no pinned page is copied into a new THP mapped by a PMD (none and
 *  zero PTEs become new pages).  -EINVAL for a region of order 0 or 1
 *  (the guest madvises those MADV_NOHUGEPAGE, which MADV_COLLAPSE obeys),
 *  a hugetlb region, a chunk never touched (no PMD, no table) or one whose
 *  pages are all write-protected (shared since a fork); -EAGAIN for a pin;
 *  -EOPNOTSUPP (not modelled) for shmem and file regions (collapse_file()),
 *  a range over several VMAs, a region mremap() moved off its alignment.
 *  Chunks before a failing one stay collapsed, as in the kernel. */
FSIM_API int fsim_process_collapse(struct fsim_process *p, const char *region,
				   uint64_t off, uint64_t len);
/** madvise(MADV_PAGEOUT) of a page-aligned range of an anonymous region
 *  (swap on zram, as in the guest): each folio this mm alone maps, whole
 *  in the range, unpinned, is swapped out (its entries become swap
 *  entries: smaps Swap, pagemap PM_SWAP) and freed; a folio another mm
 *  maps is left alone (6.12: folio_likely_mapped_shared(), the series:
 *  folio_maybe_mapped_shared()).  A later access swaps the page in as a
 *  new small folio (do_swap_page() without the swap cache).  Not modelled
 *  (-EOPNOTSUPP, nothing changed): a large folio the range cuts (6.12
 *  splits it), a folio the range's checks call exclusive that another mm
 *  also maps, shmem and file regions, swap-in in an mTHP region (6.12
 *  swaps large folios in there), fork or MADV_COLLAPSE over swap entries. */
FSIM_API int fsim_process_pageout(struct fsim_process *p, const char *region,
				  uint64_t off, uint64_t len);
/** The region's size in bytes as mmap()ed (munmap leaves holes in it). */
FSIM_API int fsim_process_region_size(const struct fsim_process *p,
				      const char *region, uint64_t *bytes);
/** Writes (@write) or reads every page of [@off, @off + @len). */
FSIM_API int fsim_process_access(struct fsim_process *p, const char *region,
				 uint64_t off, uint64_t len, bool write);
/** munmap() of a page-aligned range of the region. */
FSIM_API int fsim_process_munmap(struct fsim_process *p, const char *region,
				 uint64_t off, uint64_t len);
/** madvise(MADV_DONTNEED) of a page-aligned range of the region. */
FSIM_API int fsim_process_dontneed(struct fsim_process *p, const char *region,
				   uint64_t off, uint64_t len);

/** /proc/PID/smaps of the region: the sum over every VMA left of it. */
FSIM_API int fsim_process_smaps(const struct fsim_process *p, const char *region,
				struct fsim_smaps *out);
/** The region's smaps fields in kB, as smaps prints them: each VMA's
 *  value shifted right by 10 (Pss: by PSS_SHIFT + 10), summed over VMAs. */
struct fsim_smaps_kb {
	uint64_t rss, pss, pss_anon, pss_shmem, pss_dirty;
	uint64_t private_clean, private_dirty, shared_clean, shared_dirty;
	uint64_t private_total, shared_total;	/* Private_* and Shared_* sums */
	uint64_t anonymous, anon_huge, shmem_pmd;
	uint64_t shared_hugetlb, private_hugetlb;	/* Shared_/Private_Hugetlb */
	unsigned long mapmax;		/* numa_maps "mapmax" over the region */
	unsigned int vmas;
	uint64_t pss_file, file_pmd;	/* Pss_File, FilePmdMapped */
	uint64_t swap;			/* Swap */
};
FSIM_API int fsim_process_smaps_kb(const struct fsim_process *p, const char *region,
				   struct fsim_smaps_kb *out);
/** numa_maps "mapmax" over the region's entries (0 if nothing mapped). */
FSIM_API int fsim_process_mapmax(const struct fsim_process *p, const char *region,
				 unsigned long *out);

/** What maps the page at byte offset @off of the region. */
struct fsim_page_view {
	bool present;			/* a folio page is mapped */
	bool zero_page;			/* the shared zeropage is mapped */
	struct fsim_folio *folio;	/* when present */
	unsigned long folio_page;	/* index of the page in the folio */
	enum fsim_level level;		/* PTE or PMD */
	uint64_t kpagecount;		/* /proc/kpagecount of the page */
	bool pm_exclusive;		/* pagemap bit 56 */
	bool swapped;			/* a swap entry (pagemap bit 62, PM_SWAP) */
};
FSIM_API int fsim_process_page(const struct fsim_process *p, const char *region,
			       uint64_t off, struct fsim_page_view *out);

/** fsim_process_page() of @n pages from page @first of the region into
 *  @out[0..n-1]: one look-up of the region for a walk of many pages. */
FSIM_API int fsim_process_pages(const struct fsim_process *p, const char *region,
				uint64_t first, uint64_t n, struct fsim_page_view *out);

/** Calls @fn with the name of every region of @p, in mmap() order. */
FSIM_API void fsim_process_regions(const struct fsim_process *p,
		void (*fn)(void *arg, const char *region), void *arg);

/** Calls @fn for every distinct folio mapped in the region, in address
 *  order. */
FSIM_API int fsim_process_region_folios(const struct fsim_process *p,
		const char *region,
		void (*fn)(void *arg, struct fsim_folio *folio), void *arg);

/* ------------------------------------------------------------------ */
/* Consumers: the figures real tools compute from /proc, each derived in */
/* the model from the same fields the tool reads (docs/consumers.md     */
/* cites each tool's source).                                           */
/* ------------------------------------------------------------------ */

/** /proc/PID/smaps_rollup: the raw fields summed over every VMA of @p,
 *  then converted to kB once, as show_smaps_rollup() does. */
FSIM_API int fsim_process_smaps_rollup(const struct fsim_process *p,
				       struct fsim_smaps_kb *out);

struct fsim_consumer {
	const char *tool;	/* "psutil", "procrank (libmeminfo)", ... */
	const char *figure;	/* "memory_full_info().uss", "USS", ... */
	const char *formula;	/* what it computes, from which /proc fields */
	const char *source;	/* where that formula is in the tool's source */
	const char *trigger;	/* when the series makes it read wrong, in plain words */
	bool per_process;	/* a figure of one process; else system-wide */
	const char *unit;	/* "kB" or "pages" */
};

/** Number of consumers, and consumer @i (NULL past the last). */
FSIM_API size_t fsim_consumer_count(void);
FSIM_API const struct fsim_consumer *fsim_consumer_at(size_t i);
/** The number (>= 0) of the consumer whose tool and figure are @tool and
 *  @figure (as in the table: "psutil", "uss"), or -ENOENT (-EINVAL for
 *  NULL).  Before 0.4.0 it returned (size_t)-1 for none. */
FSIM_API int fsim_consumer_find(const char *tool, const char *figure);
/** Per-process consumer @i's figure for process @p, in its unit.  0, or
 *  -EINVAL (no such consumer, or a system-wide one), -ENOMEM. */
FSIM_API int fsim_consumer_value(size_t i, const struct fsim_process *p, int64_t *out);
/** System-wide consumer @i's figure for the context (one cgroup, one
 *  node: the model has no others).  0 or -EINVAL. */
FSIM_API int fsim_consumer_system_value(size_t i, const struct fsim_ctx *ctx,
					int64_t *out);

#ifdef __cplusplus
}
#endif

#endif /* FOLIOSIM_PROCESS_H */
