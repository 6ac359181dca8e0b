/* SPDX-License-Identifier: MIT */
/* libfoliosim internals: the structures behind the public handles. */
#ifndef FOLIOSIM_INTERNAL_H
#define FOLIOSIM_INTERNAL_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "foliosim/foliosim.h"
#include "kshim.h"

/* mm/internal.h of 6.12 */
#define ENTIRELY_MAPPED		0x800000
#define FOLIO_PAGES_MAPPED	(ENTIRELY_MAPPED - 1)
/* include/linux/mm.h */
#define GUP_PIN_COUNTING_BIAS	(1U << 10)
_Static_assert(GUP_PIN_COUNTING_BIAS == FSIM_GUP_PIN_COUNTING_BIAS, "the public copy");
#define MM_ID_DUMMY		0u
#define MM_ID_MIN		1u

/* ------------------------------------------------------------------ */
/* Sparse page sets (AnonExclusive without per-page arrays)            */
/* ------------------------------------------------------------------ */

/* Sorted, disjoint, non-adjacent half-open intervals of page indices. */
struct rangeset {
	size_t n, cap;
	struct { unsigned long start, end; } *r;
};

void rangeset_init(struct rangeset *rs);
void rangeset_destroy(struct rangeset *rs);
bool rangeset_contains(const struct rangeset *rs, unsigned long page);
/* 0 or -ENOMEM (then the set is unchanged). */
int rangeset_add(struct rangeset *rs, unsigned long start, unsigned long end);
int rangeset_remove(struct rangeset *rs, unsigned long start, unsigned long end);
/* Can removing [start, end) need a new interval (a split)? */
bool rangeset_remove_needs_slot(const struct rangeset *rs, unsigned long start,
				unsigned long end);
int rangeset_reserve(struct rangeset *rs, size_t extra);

/* ------------------------------------------------------------------ */
/* The oracle: a precise record of every mapping                       */
/* ------------------------------------------------------------------ */

/*
 * For each (mm, level) a piecewise-constant count over page indices:
 * segment [start, end) is mapped `count` times by entries of that level.
 * Segments are level-aligned; a PMD segment of 1024 pages stands for 2
 * entries per count.  Sorted by (mm_id, level, start), disjoint per
 * (mm_id, level), count > 0.
 */
struct oracle_seg {
	unsigned int mm_id;
	unsigned char level;
	unsigned long start, end;
	uint64_t count;
};

/* oracle_cover.c: the per-page total over every (mm, level). */
struct cover_node {
	int64_t add;		/* applies to the node's whole range */
	int64_t min, max;	/* over the range, add included */
	unsigned long min_pages;	/* pages of the range at min */
	uint32_t child[2];	/* 0: never created (all zero) */
};

struct cover_tree {
	unsigned long size;	/* pages: [0, size) */
	struct cover_node *node;	/* node[0] is the root once n > 0 */
	uint32_t n, cap;
};

void cover_init(struct cover_tree *t, unsigned long size);
void cover_destroy(struct cover_tree *t);
/* Makes room so that the next cover_add() cannot fail. */
int cover_reserve(struct cover_tree *t);
void cover_add(struct cover_tree *t, unsigned long start, unsigned long end,
	       int64_t delta);
void cover_reset_if_empty(struct cover_tree *t);
unsigned long cover_covered(const struct cover_tree *t);
uint64_t cover_max(const struct cover_tree *t);
uint64_t cover_at(const struct cover_tree *t, unsigned long page);

/* The segments live in a gap buffer: buf[0, gap) and buf[gap + cap - n,
 * cap) hold them in order; oracle_seg_at() is the i-th. */
struct oracle {
	size_t n, cap, gap;
	struct oracle_seg *buf;
	/* Running totals, used for admission (overflow) checks only; the
	 * invariant check recomputes them from the segments. */
	uint64_t entries, pages;
	/* Kept with every change, for the O(1) profile: the number of mms
	 * with a segment, and the per-page sum over all groups. */
	size_t nr_mms;
	struct cover_tree cover;
	/* Concurrent calls do not keep the per-page total (only the checks
	 * at quiescent points read it): true until oracle_track_cover()
	 * rebuilds it. */
	bool cover_stale;
};

static inline struct oracle_seg *oracle_seg_at(const struct oracle *o, size_t i)
{
	return &o->buf[i < o->gap ? i : i + (o->cap - o->n)];
}

void oracle_init(struct oracle *o, unsigned long nr_pages);
void oracle_destroy(struct oracle *o);
/* Do all of [start, start+nr) have count >= times for (mm, level)? */
bool oracle_covers(const struct oracle *o, unsigned int mm_id,
		   enum fsim_level level, unsigned long start, unsigned long nr,
		   uint64_t times);
/* Makes room so that the next oracle_add/remove cannot fail. */
int oracle_reserve(struct oracle *o, unsigned int mm_id, enum fsim_level level,
		   unsigned long start, unsigned long nr);
void oracle_add(struct oracle *o, unsigned int mm_id, enum fsim_level level,
		unsigned long start, unsigned long nr, unsigned long unit);
void oracle_remove(struct oracle *o, unsigned int mm_id, enum fsim_level level,
		   unsigned long start, unsigned long nr, unsigned long unit);
uint64_t oracle_page_count(const struct oracle *o, unsigned long page);
uint64_t oracle_mm_entries(const struct oracle *o, unsigned int mm_id,
			   const struct fsim_arch *arch);
bool oracle_mm_maps(const struct oracle *o, unsigned int mm_id);

/* Entries of this level (any mm, summed over segments) mapping a page of
 * [start, start + nr): 0 if none. */
uint64_t oracle_level_overlaps(const struct oracle *o, enum fsim_level level,
			       unsigned long start, unsigned long nr);
/* Entries of this level (any mm): what _entire_mapcount counts of PMD and
 * PUD mappings; @unit is the level's entry size in pages. */
uint64_t oracle_level_entries(const struct oracle *o, enum fsim_level level,
			      unsigned long unit);

/* Pages mapped at all, the largest per-page count, the number of mms:
 * O(1), kept by every add and remove. */
struct oracle_profile {
	unsigned long covered;
	uint64_t max_count;
	size_t nr_mms;
};
/*
 * Whether the next add/remove keeps the per-page total: rmap.c says yes
 * for serial contexts, no for concurrent ones (the per-call transition
 * checks that read it are skipped there, and its O(log pages) update per
 * call cost half a concurrent pair).  Turning it back on rebuilds it from
 * the segments: 0 or -ENOMEM (then it stays stale and the call must be
 * refused).  oracle_profile() and oracle_covered() need it current.
 */
int oracle_track_cover(struct oracle *o, bool on);
void oracle_profile(const struct oracle *o, struct oracle_profile *p);
unsigned long oracle_covered(const struct oracle *o);

/* ------------------------------------------------------------------ */
/* Contexts, mms, folios                                               */
/* ------------------------------------------------------------------ */

struct fsim_backend;

struct shm_object;

struct fsim_ctx {
	enum fsim_mode mode;
	const struct fsim_backend *ops;	/* the accounting rules of the mode */
	struct fsim_arch arch;
	unsigned int mm_id_max;		/* MM_ID_MAX for the arch */

	/* The mm id allocator (IDA): bit i set = id i taken. */
	fsim_spinlock_t ida_lock;
	uint64_t *ida_bits;		/* ids below 2^20 */
	size_t ida_words;
	unsigned int *ida_sparse;	/* sorted ids from 2^20 up */
	size_t ida_nsparse;

	_Atomic int64_t stat[FSIM_NR_STATS];
	_Atomic int64_t thp[32][FSIM_THP_NR_COUNTERS];
	_Atomic uint64_t thp_deferred_split_page;

	/* The deferred split queue and the list of live objects. */
	fsim_spinlock_t list_lock;
	struct fsim_folio *folios;	/* doubly linked, all live folios */
	struct fsim_mm *mms;
	size_t deferred_len;

	bool concurrent;		/* skip serial-history checks */
	fsim_sched_hook_t sched_hook;	/* deterministic interleavings */
	void *sched_arg;

	/* Named files (vm_file.c), which frees them through the hook it
	 * sets: the context sits below the process layer. */
	struct shm_object *files;
	void (*files_destroy)(struct fsim_ctx *ctx);

	/* The detect part (kernel-port/patches/detect): removals from a
	 * shared anon folio queue it as a candidate, the deferred split scan
	 * walks its mappings (detect.c).  rfc mode only. */
	bool part_detect;
	/* split_folio() of a queued anon folio, set by the process layer,
	 * which alone has the page tables to rewrite (vm_split.c); NULL at
	 * rmap level, where the scan detects but cannot split. */
	int (*split_folio)(struct fsim_folio *f, unsigned long *freed);
	struct fsim_process *procs;	/* the process layer's, for that walk */

	/* The first rmap call the process layer made that was refused: the
	 * page tables and the folios disagree from then on, which
	 * fsim_check_ctx() reports (invariant process_rmap_calls_succeed). */
	int vm_refused;
	char vm_refused_call[80];
};

struct fsim_mm {
	struct fsim_ctx *ctx;
	unsigned int id;
	_Atomic bool has_pinned;	/* MMF_HAS_PINNED */
	_Atomic long nr_mapped;		/* mappings held, for mmdrop checks */
	struct fsim_mm *prev, *next;
};

struct fsim_folio {
	struct fsim_ctx *ctx;
	unsigned int order;
	enum fsim_kind kind;
	bool hugetlb;			/* folio_test_hugetlb() */
	struct fsim_folio *prev, *next;	/* ctx->folios */

	/* _refcount, 64 bits wide: the model does not reproduce refcount
	 * overflow (a page-cache folio of order 18 would overflow the
	 * kernel's int long before its mapcount does). */
	_Atomic int64_t refcount;
	_Atomic bool alloc_ref;		/* allocation ref not yet handed over */
	_Atomic bool was_mapped;	/* ever mapped: no longer a *new* folio */
	atomic_t mapcount;		/* _mapcount of page 0 (small folios) */

	/* Large folios, both modes */
	atomic_t large_mapcount;	/* _large_mapcount, starts at -1 */
	atomic_t pincount;		/* _pincount */

	/* base, rfc: MM owner tracking (mm_types.h of the RFC base) */
	_Atomic uint64_t mm_ids;	/* _mm_id[2] / _mm_ids, lock + shared bit */
	int mm_id_mapcount[2];		/* _mm_id_mapcount[2]: under the lock */
	/* rfc */
	atomic_long_t total_mapped_pages; /* _total_mapped_pages */

	/* legacy (6.12), base: CONFIG_PAGE_MAPCOUNT */
	atomic_t entire_mapcount;	/* _entire_mapcount, starts at -1 */
	atomic_t nr_pages_mapped;	/* _nr_pages_mapped */
	atomic_t *page_mapcount;	/* page[i]._mapcount for large folios */
	/* The state digest's share of page_mapcount, kept with every change:
	 * the sum of page_weight(i) * (page[i]._mapcount + 1), mod 2^64
	 * (pagemapcount.c; the checker recomputes it). */
	_Atomic uint64_t page_hash;

	/* page flags */
	_Atomic bool partially_mapped;	/* PG_partially_mapped */
	bool on_deferred_list;		/* !list_empty(&_deferred_list), list_lock */
	bool counted_nr_anon;		/* MTHP_STAT_NR_ANON taken (anon mapping set) */
	fsim_spinlock_t flags_lock;	/* guards anon_exclusive */
	struct rangeset anon_exclusive;	/* PageAnonExclusive per page */

	/* The oracle, behind its own lock (the page table lock's part). */
	fsim_spinlock_t oracle_lock;
	struct oracle oracle;
	/* First broken transition invariant seen by an rmap call, reported
	 * by fsim_check_folio(). */
	bool transition_broken;
	struct fsim_violation transition;
};

static inline unsigned long folio_nr_pages(const struct fsim_folio *f)
{
	return 1ul << f->order;
}

static inline bool folio_test_large(const struct fsim_folio *f)
{
	return f->order > 0;
}

/* folio_has_pincount() (include/linux/mm.h), folio.c */
bool folio_has_pincount(const struct fsim_folio *f);

static inline bool folio_test_anon(const struct fsim_folio *f)
{
	return f->kind == FSIM_KIND_ANON;
}

/* A folio the detect part may queue and walk: anonymous, order 2 (the
 * deferred list) up to the PMD order (the kernel's walk keeps a bitmap of
 * at most MAX_PTRS_PER_PTE bits on the stack); hugetlb folios never. */
static inline bool detect_eligible(const struct fsim_folio *f)
{
	return folio_test_anon(f) && !f->hugetlb && f->order > 1 &&
	       f->order <= f->ctx->arch.pmd_order;
}

/* The accounting rules of the folio's kernel (backend.h). */
static inline const struct fsim_backend *folio_ops(const struct fsim_folio *f)
{
	return f->ctx->ops;
}

/* folio_mapcount() */
static inline int folio_mapcount(const struct fsim_folio *f)
{
	if (!folio_test_large(f))
		return atomic_read(&f->mapcount) + 1;
	return atomic_read(&f->large_mapcount) + 1;
}

/* folio_average_page_mapcount() of 13/13 (fs/proc/internal.h) on a total
 * of mapped pages. */
static inline unsigned long average_page_mapcount(uint64_t total,
						  unsigned int order)
{
	uint64_t avg;

	if (!total || !order)
		return (unsigned long)total;
	/* Round to closest integer ... */
	total += (uint64_t)1 << (order - 1);
	/* ... but return at least 1. */
	avg = total >> order;
	return (unsigned long)(avg > 1 ? avg : 1);
}

static inline unsigned int level_order(const struct fsim_arch *arch,
				       enum fsim_level level)
{
	switch (level) {
	case FSIM_LEVEL_PMD:
		return arch->pmd_order;
	case FSIM_LEVEL_PUD:
		return arch->pud_order;
	default:
		return 0;
	}
}

static inline void fsim_sched_point(const struct fsim_ctx *ctx, const char *where)
{
	if (ctx->sched_hook)
		ctx->sched_hook(ctx->sched_arg, where);
}

/* _mm_ids layout: MM_ID_BITS = sizeof(mm_id_t) * 8 - 1 */
static inline unsigned int mm_id_bits(const struct fsim_arch *arch)
{
	return arch->bits == 64 ? 31 : 15;
}

/* stat.c: node statistics (__mod_node_page_state / __lruvec_stat_mod_folio),
 * THP counters, the deferred split queue, PageAnonExclusive. */
void ctx_mod_stat(struct fsim_ctx *ctx, enum fsim_stat stat, int64_t delta);
void ctx_mod_thp(struct fsim_ctx *ctx, unsigned int order,
		 enum fsim_thp_counter c, int64_t delta);
void deferred_split_folio(struct fsim_folio *folio, bool partially_mapped);
/* The detect part: queue a folio whose partial mapping the removal could
 * not judge, without flagging it. */
void deferred_split_candidate(struct fsim_folio *folio);
void folio_unqueue_deferred_split(struct fsim_folio *folio);
/* folio.c: frees a folio's memory; drops a folio whatever its mappings. */
void folio_destroy(struct fsim_folio *f);
void folio_discard(struct fsim_folio *f);
void folio_mod_stat(struct fsim_folio *f, long nr, long nr_pmdmapped);
/* Room was reserved by the caller. */
void anon_exclusive_set_range(struct fsim_folio *f, unsigned long page,
			      unsigned long nr, unsigned long stride, bool set);

/* folio.c */
int folio_free_checks(const struct fsim_folio *f, struct fsim_violation *v);

/* hugetlb.c: the hugetlb rmap functions of include/linux/rmap.h, which
 * every tree keeps apart from the large-folio paths. */
enum fsim_level hugetlb_level(const struct fsim_folio *f);
void hugetlb_add_new_anon_rmap(struct fsim_folio *f, bool exclusive);
void hugetlb_add_rmap(struct fsim_folio *f);
void hugetlb_remove_rmap(struct fsim_folio *f);
void hugetlb_dup_rmap(struct fsim_folio *f);

/* Entries and pages recomputed from the oracle's segments, per level
 * (check.c), handed to the back ends' invariant checks. */
struct truth {
	uint64_t entries, pages, level_entries[3];
	struct oracle_profile profile;
};

/* Records why the calling thread's current call is refused: a short
 * string naming the rule, which fsim_last_refusal() returns; returns @err. */
int refuse(const char *why, int err);

/* Records a broken invariant in @v (may be NULL); returns -EFAULT. */
static inline int broken(struct fsim_violation *v, const char *name,
			 const char *fmt, ...)
{
	va_list ap;

	if (v) {
		snprintf(v->invariant, sizeof(v->invariant), "%s", name);
		va_start(ap, fmt);
		vsnprintf(v->detail, sizeof(v->detail), fmt, ap);
		va_end(ap);
	}
	return -EFAULT;
}

/* The first broken transition invariant of an rmap call, reported by the
 * next fsim_check_folio(). */
static inline void note_transition(struct fsim_folio *f, const char *invariant,
				   const char *fmt, unsigned long a,
				   unsigned long b)
{
	if (f->transition_broken)
		return;
	f->transition_broken = true;
	snprintf(f->transition.invariant, sizeof(f->transition.invariant), "%s",
		 invariant);
	snprintf(f->transition.detail, sizeof(f->transition.detail), fmt, a, b);
}

#include "backend.h"

/* folio_total_mapped_pages() of 13/13 with fixes/0001: small folios count
 * their mapcount, hugetlb folios are only mapped entirely (mapcount <<
 * order in every tree), other large folios ask the back end. */
static inline uint64_t folio_total_mapped_pages(const struct fsim_folio *f)
{
	if (!folio_test_large(f))
		return (uint64_t)folio_mapcount(f);
	if (f->hugetlb)
		return (uint64_t)folio_mapcount(f) << f->order;
	return folio_ops(f)->total_mapped_pages(f);
}

int hugetlb_check(const struct fsim_folio *f, const struct truth *t,
		  struct fsim_violation *v);

/* ------------------------------------------------------------------ */
/* consumers.c: what each tool reads of one process, gathered by the   */
/* public fsim_consumer_value() or, region by region, by the diff.     */
/* ------------------------------------------------------------------ */

struct fsim_smaps_kb;
struct fsim_page_view;

/* /proc/PID/smaps in kB per VMA, summed by the tool. */
struct consumer_smaps_sum {
	uint64_t rss, pss, private_clean, private_dirty;
	uint64_t shared_clean, shared_dirty, private_hugetlb, shared_hugetlb;
};

struct consumer_inputs {
	struct fsim_smaps raw;		/* raw smaps summed: smaps_rollup */
	struct consumer_smaps_sum smaps;
	uint64_t page_kb;
	int64_t pm_rss_kb, pm_pss_kb, pm_uss_kb;	/* pagemap + kpagecount */
	int64_t exclusive_pages;			/* pagemap bit 56 */
};

/* smaps.c: show_smap() / show_smaps_rollup() print one accumulator in kB
 * (Pss shifted by PSS_SHIFT too); adds those figures to @out. */
void smaps_kb_add(struct fsim_smaps_kb *out, const struct fsim_smaps *v);

void consumer_inputs_init(struct consumer_inputs *in, const struct fsim_ctx *ctx);
void consumer_inputs_add_raw(struct consumer_inputs *in, const struct fsim_smaps *v);
void consumer_inputs_add_kb(struct consumer_inputs *in, const struct fsim_smaps_kb *kb);
void consumer_inputs_add_page(struct consumer_inputs *in, const struct fsim_page_view *v);
/* Per-process consumer @i's figure from @in. */
int64_t consumer_compute(size_t i, const struct consumer_inputs *in);

#endif /* FOLIOSIM_INTERNAL_H */
