// SPDX-License-Identifier: MIT
/*
 * Statistics and page flags shared by every back end (a leaf: it calls
 * nothing of the library but the rangeset): node and per-size THP counters,
 * the deferred split queue, __folio_mod_stat() and PageAnonExclusive.
 */
#include "internal.h"

int64_t fsim_ctx_stat(const struct fsim_ctx *ctx, enum fsim_stat stat)
{
	if (!ctx || (unsigned int)stat >= FSIM_NR_STATS)
		return 0;
	return atomic_load(&((struct fsim_ctx *)ctx)->stat[stat]);
}

void ctx_mod_stat(struct fsim_ctx *ctx, enum fsim_stat stat, int64_t delta)
{
	atomic_fetch_add(&ctx->stat[stat], delta);
}

int64_t fsim_ctx_thp_counter(const struct fsim_ctx *ctx, unsigned int order,
			     enum fsim_thp_counter counter)
{
	if (!ctx || order < 1 || order > ctx->arch.pmd_order ||
	    (unsigned int)counter >= FSIM_THP_NR_COUNTERS)
		return 0;
	return atomic_load(&((struct fsim_ctx *)ctx)->thp[order][counter]);
}

/* mod_mthp_stat(): only orders 1..PMD_ORDER have per-size counters. */
void ctx_mod_thp(struct fsim_ctx *ctx, unsigned int order,
		 enum fsim_thp_counter c, int64_t delta)
{
	if (order < 1 || order > ctx->arch.pmd_order)
		return;
	atomic_fetch_add(&ctx->thp[order][c], delta);
}

uint64_t fsim_ctx_thp_deferred_split_page(const struct fsim_ctx *ctx)
{
	if (!ctx)
		return 0;
	return atomic_load(&((struct fsim_ctx *)ctx)->thp_deferred_split_page);
}

size_t fsim_ctx_deferred_split_len(const struct fsim_ctx *ctx)
{
	struct fsim_ctx *c = (struct fsim_ctx *)ctx;
	size_t n;

	if (!c)
		return 0;
	fsim_spin_lock(&c->list_lock);
	n = c->deferred_len;
	fsim_spin_unlock(&c->list_lock);
	return n;
}

/* deferred_split_folio() of mm/huge_memory.c (6.12). */
void deferred_split_folio(struct fsim_folio *folio, bool partially_mapped)
{
	struct fsim_ctx *ctx = folio->ctx;

	/* Order 1 folios have no space for a deferred list. */
	if (folio->order <= 1)
		return;
	/* Model: split_underused_thp queueing of new THPs is not modelled. */
	if (!partially_mapped)
		return;
	fsim_spin_lock(&ctx->list_lock);
	if (!atomic_load(&folio->partially_mapped)) {
		atomic_store(&folio->partially_mapped, true);
		if (folio->order >= ctx->arch.pmd_order)	/* pmd_mappable */
			atomic_fetch_add(&ctx->thp_deferred_split_page, 1);
		ctx_mod_thp(ctx, folio->order, FSIM_THP_SPLIT_DEFERRED, 1);
		ctx_mod_thp(ctx, folio->order,
			    FSIM_THP_NR_ANON_PARTIALLY_MAPPED, 1);
	}
	if (!folio->on_deferred_list) {
		folio->on_deferred_list = true;
		ctx->deferred_len++;
	}
	fsim_spin_unlock(&ctx->list_lock);
}

/*
 * The detect part's candidate: deferred_split_folio(folio, false) of 6.12
 * queues a folio without PG_partially_mapped (there for underused THPs);
 * the scan then judges it by walking its mappings (detect.c).
 */
void deferred_split_candidate(struct fsim_folio *folio)
{
	struct fsim_ctx *ctx = folio->ctx;

	if (folio->order <= 1)
		return;
	fsim_spin_lock(&ctx->list_lock);
	if (!folio->on_deferred_list) {
		folio->on_deferred_list = true;
		ctx->deferred_len++;
	}
	fsim_spin_unlock(&ctx->list_lock);
}

/* __folio_unqueue_deferred_split(): on the free path. */
void folio_unqueue_deferred_split(struct fsim_folio *folio)
{
	struct fsim_ctx *ctx = folio->ctx;

	fsim_spin_lock(&ctx->list_lock);
	if (folio->on_deferred_list) {
		ctx->deferred_len--;
		if (atomic_load(&folio->partially_mapped)) {
			atomic_store(&folio->partially_mapped, false);
			ctx_mod_thp(ctx, folio->order,
				    FSIM_THP_NR_ANON_PARTIALLY_MAPPED, -1);
		}
		folio->on_deferred_list = false;
	}
	fsim_spin_unlock(&ctx->list_lock);
}


/* __folio_mod_stat() of mm/rmap.c: identical in 6.12 and the RFC. */
void folio_mod_stat(struct fsim_folio *f, long nr, long nr_pmdmapped)
{
	struct fsim_ctx *ctx = f->ctx;

	if (nr)
		ctx_mod_stat(ctx, folio_test_anon(f) ? FSIM_NR_ANON_MAPPED
						     : FSIM_NR_FILE_MAPPED, nr);
	if (nr_pmdmapped) {
		if (folio_test_anon(f))
			ctx_mod_stat(ctx, FSIM_NR_ANON_THPS, nr_pmdmapped);
		else	/* folio_test_swapbacked() */
			ctx_mod_stat(ctx, f->kind == FSIM_KIND_SHMEM ?
				     FSIM_NR_SHMEM_PMDMAPPED :
				     FSIM_NR_FILE_PMDMAPPED, nr_pmdmapped);
	}
}

/* SetPageAnonExclusive()/ClearPageAnonExclusive() on page, page + stride,
 * ... below page + nr.  Room was reserved by the caller. */
void anon_exclusive_set_range(struct fsim_folio *f, unsigned long page,
			      unsigned long nr, unsigned long stride, bool set)
{
	unsigned long i;

	fsim_spin_lock(&f->flags_lock);
	if (stride == 1) {
		if (set)
			rangeset_add(&f->anon_exclusive, page, page + nr);
		else
			rangeset_remove(&f->anon_exclusive, page, page + nr);
	} else {
		for (i = page; i < page + nr; i += stride) {
			if (set)
				rangeset_add(&f->anon_exclusive, i, i + 1);
			else
				rangeset_remove(&f->anon_exclusive, i, i + 1);
		}
	}
	fsim_spin_unlock(&f->flags_lock);
}
