// SPDX-License-Identifier: MIT
/*
 * The detect part of kernel-port (beyond the RFC): partially mapped shared
 * anonymous folios, which the series' average per-page mapcount cannot
 * see (01/13, examples (A) and (B)), found by the deferred split scan.
 *
 * A removal that leaves an anon folio mapped, not certainly partially
 * mapped and maybe mapped shared queues it unflagged as a candidate; the
 * scan walks every mapping of each candidate (rmap_walk() with a bitmap
 * of the pages it saw mapped), flags the partially mapped ones as
 * deferred_split_folio(folio, true) would have, and splits every flagged
 * folio.  docs/partial-detect.md says why there and not in reclaim's
 * folio_referenced() walk.
 */
#include <stdlib.h>

#include "internal.h"

/*
 * folio_rmap_mapped_pages() of the detect part: the number of pages some
 * page table maps, counted by rmap_walk() over every VMA.  The model reads
 * that set from the oracle, which mirrors the page tables exactly (and is
 * itself checked against the counters after every call).
 */
static int walk_mapped_pages(struct fsim_folio *f, unsigned long *covered)
{
	int err;

	fsim_spin_lock(&f->oracle_lock);
	/* Concurrent contexts leave the cover tree stale between calls. */
	err = oracle_track_cover(&f->oracle, true);
	if (!err)
		*covered = oracle_covered(&f->oracle);
	if (f->ctx->concurrent)
		oracle_track_cover(&f->oracle, false);
	fsim_spin_unlock(&f->oracle_lock);
	return err;
}

/* The candidate's judgement in deferred_split_scan() of the detect part. */
int fsim_folio_detect_partial(struct fsim_folio *f)
{
	unsigned long covered;
	int err;

	if (!f)
		return -EINVAL;
	if (!detect_eligible(f) || atomic_load(&f->partially_mapped))
		return 0;
	err = walk_mapped_pages(f, &covered);
	if (err)
		return err;
	if (!covered || covered == folio_nr_pages(f))
		return 0;
	deferred_split_folio(f, true);
	return 1;
}

int fsim_ctx_set_detect(struct fsim_ctx *ctx, bool on)
{
	if (!ctx)
		return -EINVAL;
	/* The part is a patch on the series; 6.12 and the base tree detect
	 * every partial mapping on the removal path already. */
	if (on && !ctx->ops->detect_part)
		return -EOPNOTSUPP;
	ctx->part_detect = on;
	return 0;
}

bool fsim_ctx_detect(const struct fsim_ctx *ctx)
{
	return ctx && ctx->part_detect;
}

/* The queued folios, in a new array (the scan frees some of them). */
static int queued_folios(struct fsim_ctx *ctx, struct fsim_folio ***out, size_t *n)
{
	struct fsim_folio *f, **v;
	size_t k = 0;

	fsim_spin_lock(&ctx->list_lock);
	v = malloc((ctx->deferred_len ? ctx->deferred_len : 1) * sizeof(*v));
	for (f = ctx->folios; v && f; f = f->next)
		if (f->on_deferred_list)
			v[k++] = f;
	fsim_spin_unlock(&ctx->list_lock);
	if (!v)
		return -ENOMEM;
	*out = v;
	*n = k;
	return 0;
}

/*
 * deferred_split_scan() of mm/huge_memory.c (6.12), over the whole queue,
 * with the detect part's walk of unflagged candidates.  6.12 drops an
 * unflagged folio that is not underused (the model does not queue
 * underused THPs); it splits a flagged one, here through the process
 * layer's split_folio(); a pinned folio fails can_split_folio() and stays.
 */
int fsim_ctx_deferred_split_scan(struct fsim_ctx *ctx, struct fsim_split_scan *out)
{
	struct fsim_split_scan res = { 0 };
	struct fsim_folio **v;
	size_t i, n;
	int err;

	if (!ctx)
		return -EINVAL;
	err = queued_folios(ctx, &v, &n);
	if (err)
		return err;
	res.queued = n;
	for (i = 0; i < n; i++) {
		struct fsim_folio *f = v[i];
		unsigned long freed = 0;
		int got;

		/* deferred_split_detect(): exclusive folios need no walk,
		 * their average per-page mapcount is exact. */
		if (!atomic_load(&f->partially_mapped) && ctx->part_detect &&
		    detect_eligible(f) && fsim_folio_maybe_mapped_shared(f)) {
			res.walked++;
			got = fsim_folio_detect_partial(f);
			if (got < 0) {
				err = got;
				break;
			}
			res.detected += (size_t)got;
		}
		if (!atomic_load(&f->partially_mapped)) {
			folio_unqueue_deferred_split(f);	/* list_del_init() */
			continue;
		}
		if (!ctx->split_folio || fsim_folio_maybe_dma_pinned(f))
			continue;
		got = ctx->split_folio(f, &freed);
		if (got < 0 && got != -EBUSY) {
			err = got;
			break;
		}
		if (!got) {
			res.split++;
			res.pages_freed += freed;
		}
	}
	free(v);
	if (out)
		*out = res;
	return err;
}
