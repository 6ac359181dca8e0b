/* SPDX-License-Identifier: MIT */
/*
 * gfuzz's internals, shared by its modules:
 *   gfuzz.c          the run: set-up, steps, the summary
 *   gfuzz_gen.c      worker processes and the random steps (generation)
 *   gfuzz_observe.c  observing the kernel and the model's folios
 *   gfuzz_replay.c   the rmap calls the observations imply
 *   gfuzz_compare.c  what /proc shows, kernel against model
 */
#ifndef FOLIOSIM_GFUZZ_H
#define FOLIOSIM_GFUZZ_H

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "foliosim/foliosim.h"
#include "guest.h"
#include "procfs.h"

/* include/uapi/linux/fs.h of 6.7+, spelled out: the build host's headers
 * may predate PAGEMAP_SCAN. */
struct gf_page_region {
	uint64_t start, end, categories;
};

struct gf_pm_scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};

#define GF_PAGEMAP_SCAN _IOWR('f', 16, struct gf_pm_scan_arg)
#define GF_PAGE_IS_PRESENT (1ull << 3)
#define GF_PAGE_IS_HUGE (1ull << 6)

#define PMD_ORDER 9
#define PMD_PAGES (1ul << PMD_ORDER)

#define GF_MAX_PROCS 6
#define GF_MAX_REG 12		/* < the worker's MAX_REGIONS */
#define GF_MAX_REGION_PAGES 1024
#define GF_MAX_LIVE_PAGES 6144	/* region pages over every live process */
#define GF_HISTORY 24
#define GF_MAX_REPORTED 20

/* ---------------------------------------------------------------- */
/* State                                                             */
/* ---------------------------------------------------------------- */

struct gf_region {
	char name[12];
	uintptr_t addr;
	uint64_t size;
	bool gone[GF_MAX_REGION_PAGES];	/* munmap()ed or mremap()ed away */
};

struct gf_proc {
	char name[16];
	pid_t pid;
	FILE *cmd, *rsp;
	bool live;
	struct fsim_mm *mm;
	struct gf_region reg[GF_MAX_REG];
	int nreg;
};

/* A folio the kernel showed us, by head PFN and order, and its model. */
struct gf_folio {
	uint64_t head;
	unsigned int order;
	struct fsim_folio *f;
	bool live;
	bool fresh;		/* first seen in this step */
};

/* One page-table entry mapping a folio: the rmap state, kernel and model. */
struct gf_map {
	int proc;
	uint32_t folio;		/* index into folios */
	uint8_t level;		/* FSIM_LEVEL_PTE or FSIM_LEVEL_PMD */
	uint32_t page;		/* first page in the folio */
};

/* One present page of a region, as observed. */
struct gf_page {
	int proc;
	uintptr_t va;
	uint64_t pfn;
	uint32_t folio;		/* UINT32_MAX: the zeropage */
	uint32_t fpage;		/* page index in the folio */
	bool pmd;		/* mapped by a PMD (PAGEMAP_SCAN PAGE_IS_HUGE) */
	bool kexcl;		/* pagemap bit 56 */
	uint64_t kcount;	/* /proc/kpagecount */
};

/* kpageflags and kpagecount of one PFN, and its folio's head and order
 * (head UINT64_MAX: no folio of order <= 9 found). */
struct gf_pfn {
	uint64_t pfn, flags, count, head;
	unsigned int order;
};

#define VEC(T) struct { T *v; size_t n, cap; }

/* What a mismatch is about; counted per kind for the summary. */
enum gf_what { MM_OBSERVE, MM_RMAP_CALL, MM_ORACLE, MM_KPAGECOUNT, MM_EXCLUSIVE,
	       MM_EXCLUSIVE_ZERO, MM_SMAPS, MM_NR };
extern const char *const gf_what_names[MM_NR];

enum gf_kind { OP_SPAWN, OP_MMAP, OP_TOUCH, OP_READ, OP_FORK, OP_MUNMAP,
	       OP_DONTNEED, OP_MREMAP, OP_EXIT, OP_NR };
extern const char *const gf_op_names[OP_NR];

struct gfuzz {
	enum fsim_mode mode;
	uint64_t seed, rng;
	bool verbose;
	char dir[64];
	struct fsim_ctx *ctx;
	struct fsim_folio *zero, *huge_zero;	/* never mapped: the zeropages */
	struct gf_proc procs[64];
	int nprocs;
	unsigned int next_region, next_proc;
	VEC(struct gf_folio) folios;
	VEC(uint32_t) free_folios;
	VEC(struct gf_map) prev, cur, adds, removes;
	VEC(struct gf_page) pages;
	VEC(struct gf_pfn) pfns;
	uint32_t *hash;		/* open addressing: folio index + 1, 0 empty */
	size_t hash_size;
	int pagemap_fd[64];
	char *smaps;
	size_t smaps_cap;
	/* the step being checked */
	unsigned long step;
	char op[160];
	char history[GF_HISTORY][200];
	int fork_parent, fork_child;
	/* figures */
	unsigned long ops[OP_NR], refused[OP_NR];
	unsigned long long pages_checked, vmas_checked, rmap_calls, folios_seen;
	unsigned long long pmd_pages, zero_pages, huge_zero_pages;	/* coverage */
	unsigned long long max_mapped_pages;
	long mismatches, by_what[MM_NR];
	bool fatal;
};

#define VEC_PUSH(g, vec, item)                                                  \
	do {                                                                    \
		if ((vec).n == (vec).cap) {                                     \
			size_t cap_ = (vec).cap ? 2 * (vec).cap : 256;          \
			void *p_ = realloc((vec).v, cap_ * sizeof(*(vec).v));   \
			if (!p_) {                                              \
				gf_fatal(g, "out of memory");                   \
				break;                                          \
			}                                                       \
			(vec).v = p_;                                           \
			(vec).cap = cap_;                                       \
		}                                                               \
		(vec).v[(vec).n++] = (item);                                    \
	} while (0)

/* gfuzz_gen.c: the workers and the random steps */
void gf_exit(struct gfuzz *g, struct gf_proc *p);
void gf_random_step(struct gfuzz *g);

/* gfuzz_observe.c: the kernel's page tables and folios, the model's folios */
void gf_qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
void gf_rehash(struct gfuzz *g);
bool gf_observe(struct gfuzz *g);

/* gfuzz_replay.c: the rmap calls between two observations */
void gf_replay(struct gfuzz *g);

/* gfuzz_compare.c: kpagecount, bit 56 and smaps, kernel against model */
void gf_mismatch(struct gfuzz *g, const struct gf_page *pg, enum gf_what what,
		 const char *fmt, ...);
void gf_compare_pages(struct gfuzz *g);
void gf_compare_smaps(struct gfuzz *g, int proc);

/* gfuzz.c: the run */
void gf_fatal(struct gfuzz *g, const char *fmt, ...);
uint64_t gf_below(struct gfuzz *g, uint64_t n);

#endif /* FOLIOSIM_GFUZZ_H */
