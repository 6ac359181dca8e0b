/* SPDX-License-Identifier: MIT */
/*
 * The process layer's insides, shared by vm.c (address spaces, faults,
 * fork, /proc views) and the files it calls: vm_vma.c (mprotect, mremap),
 * vm_pt.c (page tables), vm_file.c (named files), vm_split.c (splits),
 * vm_swap.c (swap and pageout), vm_collapse.c (khugepaged).  Not
 * installed.
 */
#ifndef FOLIOSIM_VM_INTERNAL_H
#define FOLIOSIM_VM_INTERNAL_H

#include "foliosim/process.h"
#include "internal.h"

/* A page cache: of a shmem object (MAP_SHARED|MAP_ANONYMOUS), freed with
 * its last mapping, or of a named file (vm_file.c), which lives as long as
 * the context does (the file stays on its file system). */
struct shm_object {
	unsigned long npages;
	struct fsim_folio **folio;	/* per page index; a large folio repeats */
	unsigned long *fpage;		/* index of that page in its folio */
	unsigned int refs;		/* regions referring to it */
	/* named files only */
	char *name;			/* NULL: a shmem object */
	enum fsim_kind kind;		/* FSIM_KIND_FILE, or SHMEM (tmpfs) */
	unsigned int order;		/* the order its faults allocate */
	struct shm_object *next;	/* the context's list of files */
};

/* r->live[i]: 0 outside every VMA, else VMA_LIVE | the VMA's FSIM_PROT_*
 * bits.  A VMA is a maximal run of pages of one such value: munmap() and
 * mprotect() split VMAs, mprotect() merges them again (vma_merge()). */
#define VMA_LIVE 0x80

/* One page of a region: what its PTE (or the PMD covering it) maps. */
struct pte_entry {
	struct fsim_folio *folio;	/* NULL: none or the zeropage */
	unsigned long fpage;		/* page index in the folio */
	unsigned char level;		/* FSIM_LEVEL_PTE or FSIM_LEVEL_PMD */
	bool zero;			/* the (huge) zeropage */
	bool writable, dirty;
	bool swap;			/* a swap entry (folio NULL) */
};

struct region {
	char *name;
	bool shmem;			/* MAP_SHARED: pages from r->shm */
	bool file;			/* MAP_PRIVATE of the file r->shm */
	bool anon_vma;			/* an anon page was ever mapped here */
	bool misaligned;		/* moved off its folio alignment (mremap) */
	bool hugetlb;			/* MAP_HUGETLB: order is the hstate's */
	unsigned int order;
	unsigned long npages;
	unsigned char *live;		/* VMA_LIVE | prot: inside a VMA */
	/* Per PMD-sized chunk: a PTE table is installed, so the PMD is not
	 * pmd_none() and no PMD can be faulted in there (6.12 has no
	 * CONFIG_PT_RECLAIM: only munmap of the whole chunk frees it). */
	unsigned char *pte_table;
	struct pte_entry *e;
	struct shm_object *shm;
	unsigned int pmd_shift;		/* pmd_order: page index -> chunk */
	struct region *next;
};

struct fsim_process {
	struct fsim_ctx *ctx;
	struct fsim_mm *mm;
	struct region *regions;
	struct fsim_process *prev, *next;	/* ctx->procs */
};

/* vm_pt.c */
unsigned long pmd_nr(const struct fsim_process *p);
unsigned long entry_pages(const struct fsim_process *p, const struct pte_entry *e);
enum fsim_level hugetlb_entry_level(const struct fsim_process *p,
				    const struct region *r);
int map_new_folio(struct fsim_process *p, struct region *r, unsigned long a,
		  struct fsim_folio *f, enum fsim_level level, bool writable,
		  bool dirty);
void clear_entry(struct pte_entry *e);
void put_if_unused(struct fsim_folio *f);
void set_entries(struct region *r, unsigned long a, unsigned long n,
		 struct fsim_folio *f, unsigned long fpage,
		 enum fsim_level level, bool writable, bool dirty);
bool pmd_none(const struct region *r, unsigned long a);
bool range_none(const struct region *r, unsigned long a, unsigned long n);
void vma_bounds(const struct region *r, unsigned long i, unsigned long *s,
		unsigned long *e);
int map_new_anon(struct fsim_process *p, struct region *r, unsigned long a,
		 unsigned int order);
void split_pmd(struct fsim_process *p, struct region *r, unsigned long s);
int fault_around(struct fsim_process *p, struct region *r, unsigned long i);
struct fsim_folio *page_cache_get(struct fsim_process *p, struct shm_object *shm,
				  unsigned long i, unsigned int order,
				  enum fsim_kind kind, int *err);
struct region *region_alloc(const char *name, unsigned long npages,
			    unsigned long pmd_pages);
void region_link(struct fsim_process *p, struct region *r, unsigned int order);
struct region *find_region(const struct fsim_process *p, const char *name);

int live_range(const struct region *r, unsigned long a, unsigned long b);
int page_range(const struct fsim_process *p, const struct region *r,
	       uint64_t off, uint64_t len, unsigned long *a, unsigned long *b);
void zap_range(struct fsim_process *p, struct region *r, unsigned long a,
	       unsigned long b);
void region_free(struct region *r);

/* vm_swap.c */
int swap_in(struct fsim_process *p, struct region *r, unsigned long i, bool write);
bool region_has_swap(const struct region *r);

/* The result of an rmap call a page-table change makes: the page tables
 * are changed whatever it says, so a refusal (a model bug, or a caller
 * that changed the folio behind the process layer's back) is kept for
 * fsim_check_ctx() to report.  Returns @err. */
int vm_rmap_result(struct fsim_process *p, const char *call, int err);

/* vm_split.c: the context's list of processes (and its split_folio()) */
void vm_link_process(struct fsim_process *p);
void vm_unlink_process(struct fsim_process *p);

/* vm_file.c */
int file_access(struct fsim_process *p, struct region *r, unsigned long i, bool write);

#endif /* FOLIOSIM_VM_INTERNAL_H */
