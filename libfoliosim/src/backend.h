/* SPDX-License-Identifier: MIT */
/*
 * One accounting back end per kernel.  Everything that differs between
 * Linux 6.12 (legacy), the RFC's base tree (base: 6.12 + the prep part with
 * CONFIG_PAGE_MAPCOUNT=y) and the series (rfc) is an operation or a flag
 * here; the callers (rmap.c, folio.c, proc.c, check.c, vm.c, the scenario
 * runner, the CLI) never test the mode.
 *
 * Layering (no file calls a file that calls it back):
 *
 *   ctx.c (picks the table)
 *     -> backend_legacy.c, backend_base.c, backend_rfc.c   (the tables)
 *          -> pagemapcount.c  (per-page mapcounts: legacy and base)
 *          -> mm_ids.c        (the two MM-id slots: base and rfc)
 *          -> smaps.c, stat.c, oracle.c, rangeset.c        (leaves)
 *
 * rmap.c, folio.c, proc.c and check.c reach a back end only through
 * ctx->ops.  Rmap operations run after rmap.c validated the call against
 * the oracle and the back end's range rule, and cannot fail.
 */
#ifndef FOLIOSIM_BACKEND_H
#define FOLIOSIM_BACKEND_H

struct fsim_backend {
	enum fsim_mode mode;
	const char *name;		/* as --mode and `mode` name it */
	const char *label;		/* name and tree, for diff headers */

	/* --- folio state ------------------------------------------------ */
	/* Allocates per-back-end state of a new folio (0 or -ENOMEM). */
	int (*folio_init)(struct fsim_folio *f);
	/* free_tail_page_prepare() of a large folio: what is not back at its
	 * initial value, or NULL. */
	const char *(*large_free_check)(const struct fsim_folio *f);

	/* --- the rmap paths ------------------------------------------- */
	/* __folio_rmap_sanity_checks(): which PMD/PUD entries this kernel's
	 * rmap can map (alignment and bounds are checked by the caller). */
	bool (*level_allowed)(const struct fsim_folio *f, enum fsim_level level,
			      unsigned long page, unsigned long nr);
	void (*add_new_anon)(struct fsim_folio *f, struct fsim_mm *mm,
			     bool exclusive);
	void (*add)(struct fsim_folio *f, struct fsim_mm *mm,
		    enum fsim_level level, unsigned long page, unsigned long nr);
	void (*remove)(struct fsim_folio *f, struct fsim_mm *mm,
		       enum fsim_level level, unsigned long page,
		       unsigned long nr);
	void (*dup)(struct fsim_folio *f, struct fsim_mm *dst,
		    enum fsim_level level, unsigned long page, unsigned long nr);
	/* __folio_add_anon_rmap() warns about a page still AnonExclusive
	 * that a second entry of its level maps: 6.12 and the base tree for
	 * every folio, the series (12/13 on) for small folios only. */
	bool warns_remapped_anon_exclusive_large;
	/* folio_has_pincount(): prep/0004 moved _pincount to page[2] on
	 * 32-bit, which an order-1 folio lacks (its pins go to the refcount
	 * bias, as a small folio's); 6.12 keeps it in page[1], and rfc/0010
	 * moves it back there. */
	bool no_pincount_order1_32bit;

	/* --- readers of a large folio ------------------------------------ */
	uint64_t (*total_mapped_pages)(const struct fsim_folio *f);
	/* folio_maybe_mapped_shared() / folio_likely_mapped_shared() for a
	 * large folio with mapcount > 1. */
	bool (*maybe_mapped_shared)(const struct fsim_folio *f);
	/* The CONFIG_PAGE_MAPCOUNT counters: NULL where the kernel has none. */
	int (*entire_mapcount)(const struct fsim_folio *f);
	int (*nr_pages_mapped)(const struct fsim_folio *f);
	int (*precise_page_mapcount)(const struct fsim_folio *f,
				     unsigned long page);
	bool has_mm_slots;		/* _mm_ids and _mm_id_mapcount[2] */
	/* kpagecount_of()/pagemap read per page (not the folio average) */
	bool precise_kpagecount;
	/* 13/13: any mix of PTE, PMD and PUD mappings of one folio */
	bool arbitrary_mappings;
	/* kernel-port's detect part applies on top of this kernel */
	bool detect_part;
	/* hugetlb mappings count in _entire_mapcount (until 11/13) */
	bool hugetlb_entire_mapcount;

	/* --- what /proc shows (fs/proc/page.c, fs/proc/task_mmu.c) -------- */
	uint64_t (*kpagecount)(const struct fsim_folio *f, unsigned long page);
	bool (*pagemap_exclusive)(const struct fsim_folio *f, unsigned long page);
	unsigned long (*numa_mapmax)(const struct fsim_folio *f,
				     unsigned long page);
	/* smaps_account() past its "refcount == 1" shortcut. */
	void (*smaps_account)(const struct fsim_folio *f, enum fsim_level level,
			      unsigned long page, bool dirty,
			      struct fsim_smaps *mss);
	/* pagemap bit 56 of a huge zeropage PMD (mapcount 0 large folio). */
	bool huge_zero_pmd_exclusive;

	/* --- the process layer (mm/memory.c) ------------------------------- */
	/* __wp_can_reuse_large_anon_folio() exists (COW reuse of PTE-mapped
	 * THP, upstream 1da190f4d0a6, prep/0017). */
	bool cow_reuses_large_anon;

	/* --- the oracle's invariants ---------------------------------------- */
	/* The back end's counters of a large folio against the oracle. */
	int (*check_large)(const struct fsim_folio *f, const struct truth *t,
			   struct fsim_violation *v);
	/* After a serial removal that left an anon folio of order >= 2
	 * unflagged: note the transition invariant broken if this kernel
	 * had to flag it partially mapped. */
	void (*check_missed_partial)(struct fsim_folio *f,
				     const struct oracle_profile *after,
				     unsigned long covered_before);
	/* NR_ANON_MAPPED / NR_FILE_MAPPED pages a mapped large folio adds. */
	int64_t (*implied_mapped_pages)(const struct fsim_folio *f,
					const struct truth *t);
};

/* ctx.c: the back end of @mode, NULL for none. */
const struct fsim_backend *backend_of(enum fsim_mode mode);

extern const struct fsim_backend fsim_backend_legacy;
extern const struct fsim_backend fsim_backend_base;
extern const struct fsim_backend fsim_backend_rfc;

/* ------------------------------------------------------------------ */
/* mm_ids.c: MM owner tracking (include/linux/mm.h of the RFC base)     */
/* ------------------------------------------------------------------ */

unsigned int folio_mm_id(const struct fsim_folio *f, int idx);
bool folio_mm_ids_shared(const struct fsim_folio *f);
/* folio_set_large_mapcount(): a new folio, no lock needed. */
void mm_ids_set_large_mapcount(struct fsim_folio *f, unsigned int nr_mappings,
			       unsigned int mm_id);
/* folio_add_return_large_mapcount() / folio_sub_return_large_mapcount():
 * @total (rfc's _total_mapped_pages, or NULL in base) changes by @nr_pages
 * under the same lock; returns the new mapcount. */
int mm_ids_add_return_large_mapcount(struct fsim_folio *f,
				     unsigned int nr_mappings,
				     unsigned long nr_pages, unsigned int mm_id,
				     atomic_long_t *total, uint64_t *new_total);
int mm_ids_sub_return_large_mapcount(struct fsim_folio *f,
				     unsigned int nr_mappings,
				     unsigned long nr_pages, unsigned int mm_id,
				     atomic_long_t *total, uint64_t *new_total);
/* folio_maybe_mapped_shared() of a large folio with mapcount > 1. */
bool mm_ids_maybe_mapped_shared(const struct fsim_folio *f);
int mm_ids_check(const struct fsim_folio *f, const struct truth *t,
		 struct fsim_violation *v);
const char *mm_ids_free_check(const struct fsim_folio *f);

/* ------------------------------------------------------------------ */
/* pagemapcount.c: per-page mapcounts (6.12, CONFIG_PAGE_MAPCOUNT)      */
/* ------------------------------------------------------------------ */

/* How _large_mapcount changes: plain atomics (6.12) or through the MM-id
 * slots (the base tree's folio_add_large_mapcount() and friends). */
enum large_mapcount_tracking { LARGE_MAPCOUNT_PLAIN, LARGE_MAPCOUNT_MM_IDS };

int pm_folio_init(struct fsim_folio *f);
const char *pm_large_free_check(const struct fsim_folio *f);
bool pm_level_allowed(const struct fsim_folio *f, enum fsim_level level,
		      unsigned long page, unsigned long nr, bool pud_rmap);
void pm_add_new_anon(struct fsim_folio *f, struct fsim_mm *mm, bool exclusive,
		     enum large_mapcount_tracking tracking);
void pm_add(struct fsim_folio *f, struct fsim_mm *mm, enum fsim_level level,
	    unsigned long page, unsigned long nr,
	    enum large_mapcount_tracking tracking);
void pm_remove(struct fsim_folio *f, struct fsim_mm *mm, enum fsim_level level,
	       unsigned long page, unsigned long nr,
	       enum large_mapcount_tracking tracking);
void pm_dup(struct fsim_folio *f, struct fsim_mm *dst, enum fsim_level level,
	    unsigned long page, unsigned long nr,
	    enum large_mapcount_tracking tracking);
uint64_t pm_total_mapped_pages(const struct fsim_folio *f);
int pm_entire_mapcount(const struct fsim_folio *f);
int pm_nr_pages_mapped(const struct fsim_folio *f);
int pm_precise_page_mapcount(const struct fsim_folio *f, unsigned long page);
uint64_t pm_kpagecount(const struct fsim_folio *f, unsigned long page);
bool pm_pagemap_exclusive(const struct fsim_folio *f, unsigned long page);
unsigned long pm_numa_mapmax(const struct fsim_folio *f, unsigned long page);
void pm_smaps_account(const struct fsim_folio *f, enum fsim_level level,
		      unsigned long page, bool dirty, struct fsim_smaps *mss);
int pm_check_large(const struct fsim_folio *f, const struct truth *t,
		   struct fsim_violation *v);
void pm_check_missed_partial(struct fsim_folio *f,
			     const struct oracle_profile *after,
			     unsigned long covered_before);
int64_t pm_implied_mapped_pages(const struct fsim_folio *f,
				const struct truth *t);

/* ------------------------------------------------------------------ */
/* smaps.c: smaps_page_accumulate() and the two ways to account an entry */
/* ------------------------------------------------------------------ */

void smaps_page_accumulate(struct fsim_smaps *mss, const struct fsim_folio *f,
			   uint64_t size, uint64_t pss, bool dirty, bool private);
/* Every page with its own mapcount (6.12, CONFIG_PAGE_MAPCOUNT). */
void smaps_account_per_page(const struct fsim_folio *f, unsigned long page,
			    unsigned long nr, bool dirty, struct fsim_smaps *mss,
			    int (*mapcount)(const struct fsim_folio *,
					    unsigned long));
/* The whole entry at one average mapcount (06/13). */
void smaps_account_average(const struct fsim_folio *f, unsigned long nr,
			   bool dirty, unsigned long mapcount, bool exclusive,
			   struct fsim_smaps *mss);

#endif /* FOLIOSIM_BACKEND_H */
