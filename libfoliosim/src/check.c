// SPDX-License-Identifier: MIT
/*
 * The invariant check: the model's counters against what the oracle says.
 * Every invariant has a name (docs/model.md lists them); the first broken
 * one is reported with the values seen.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

uint64_t fsim_oracle_true_mapcount(const struct fsim_folio *f, unsigned long page)
{
	if (!f || page >= folio_nr_pages(f))
		return 0;
	struct fsim_folio *mf = (struct fsim_folio *)f;
	uint64_t n;

	fsim_spin_lock(&mf->oracle_lock);
	n = oracle_page_count(&f->oracle, page);
	fsim_spin_unlock(&mf->oracle_lock);
	return n;
}

uint64_t fsim_oracle_mm_entries(const struct fsim_folio *f, unsigned int mm_id)
{
	if (!f)
		return 0;
	struct fsim_folio *mf = (struct fsim_folio *)f;
	uint64_t n;

	fsim_spin_lock(&mf->oracle_lock);
	n = oracle_mm_entries(&f->oracle, mm_id, &f->ctx->arch);
	fsim_spin_unlock(&mf->oracle_lock);
	return n;
}

uint64_t fsim_oracle_entries(const struct fsim_folio *f)
{
	if (!f)
		return 0;
	return f->oracle.entries;
}

uint64_t fsim_oracle_mapped_pages(const struct fsim_folio *f)
{
	if (!f)
		return 0;
	return f->oracle.pages;
}

size_t fsim_oracle_mms(const struct fsim_folio *f, unsigned int *ids, size_t max)
{
	if (!f)
		return 0;
	struct fsim_folio *mf = (struct fsim_folio *)f;
	size_t i, n = 0;

	fsim_spin_lock(&mf->oracle_lock);
	for (i = 0; i < f->oracle.n; i++) {
		if (i && oracle_seg_at(&f->oracle, i)->mm_id == oracle_seg_at(&f->oracle, i - 1)->mm_id)
			continue;
		if (n < max && ids)
			ids[n] = oracle_seg_at(&f->oracle, i)->mm_id;
		n++;
	}
	fsim_spin_unlock(&mf->oracle_lock);
	return n;
}

static int compute_truth(const struct fsim_folio *f, struct truth *t,
			 struct fsim_violation *v)
{
	const struct oracle *o = &f->oracle;
	size_t i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < o->n; i++) {
		const struct oracle_seg *s = oracle_seg_at(o, i);
		const unsigned int lorder = level_order(&f->ctx->arch, s->level);
		uint64_t len = s->end - s->start;

		if (s->count == 0 || s->start >= s->end || (s->start | len) &
		    ((1ul << lorder) - 1) || s->end > folio_nr_pages(f))
			return broken(v, "oracle_well_formed",
				      "segment %zu [%lu,%lu) count %llu", i,
				      s->start, s->end, (unsigned long long)s->count);
		t->entries += s->count * (len >> lorder);
		t->level_entries[s->level] += s->count * (len >> lorder);
		t->pages += s->count * len;
	}
	if (t->entries != o->entries || t->pages != o->pages)
		return broken(v, "oracle_totals", "entries %llu/%llu pages %llu/%llu",
			      (unsigned long long)t->entries,
			      (unsigned long long)o->entries,
			      (unsigned long long)t->pages,
			      (unsigned long long)o->pages);
	/* after concurrent calls the per-page total is rebuilt here, at a
	 * quiescent point (fsim_ctx_set_concurrent()) */
	if (oracle_track_cover((struct oracle *)o, true))
		return broken(v, "oracle_profile", "out of memory");
	oracle_profile(o, &t->profile);
	return 0;
}

static int check_refcount(const struct fsim_folio *f, const struct truth *t,
			  struct fsim_violation *v)
{
	int64_t expect = (int64_t)t->entries;

	if (folio_test_anon(f))
		expect += atomic_load(&((struct fsim_folio *)f)->alloc_ref);
	else
		expect += (int64_t)folio_nr_pages(f);
	if (folio_has_pincount(f))
		expect += atomic_read(&f->pincount);
	else
		expect += (int64_t)GUP_PIN_COUNTING_BIAS * atomic_read(&f->pincount);
	if (fsim_folio_refcount(f) != expect)
		return broken(v, "refcount_matches_mappings", "refcount %lld, expected %lld",
			      (long long)fsim_folio_refcount(f), (long long)expect);
	return 0;
}

int fsim_check_folio(const struct fsim_folio *f, struct fsim_violation *v)
{
	if (!f)
		return refuse("no folio (NULL)", -EINVAL);
	struct fsim_folio *mf = (struct fsim_folio *)f;
	struct truth t;
	int err;

	if (f->transition_broken) {
		if (v)
			*v = f->transition;
		return -EFAULT;
	}
	fsim_spin_lock(&mf->oracle_lock);
	err = compute_truth(f, &t, v);
	fsim_spin_unlock(&mf->oracle_lock);
	if (err)
		return err;
	if ((uint64_t)fsim_folio_mapcount(f) != t.entries)
		return broken(v, "mapcount_equals_entries", "mapcount %d, entries %llu",
			      fsim_folio_mapcount(f), (unsigned long long)t.entries);
	if (fsim_folio_total_mapped_pages(f) != t.pages)
		return broken(v, "total_mapped_pages_equals_true_sum",
			      "total_mapped_pages %llu, true sum %llu",
			      (unsigned long long)fsim_folio_total_mapped_pages(f),
			      (unsigned long long)t.pages);
	if (folio_test_large(f)) {
		err = f->hugetlb ? hugetlb_check(f, &t, v)
				 : folio_ops(f)->check_large(f, &t, v);
		if (err)
			return err;
	}
	err = check_refcount(f, &t, v);
	if (err)
		return err;
	if (fsim_folio_partially_mapped(f) &&
	    (f->order <= 1 || !folio_test_anon(f) || !fsim_folio_on_deferred_split(f)))
		return broken(v, "partially_mapped_implies_queued",
			      "order %u %s folio flagged, on queue: %d", f->order,
			      fsim_kind_name(f->kind), fsim_folio_on_deferred_split(f));
	if (!t.entries && !fsim_folio_pincount(f))
		return folio_free_checks(f, v);
	return 0;
}

/* What the oracle implies for the node statistics of one folio. */
static void implied_stats(const struct fsim_folio *f, const struct truth *t,
			  int64_t stat[FSIM_NR_STATS])
{
	const unsigned long nr = folio_nr_pages(f);
	const bool anon = folio_test_anon(f);
	const bool pmd_mapped = t->level_entries[FSIM_LEVEL_PMD] > 0 &&
				f->order == f->ctx->arch.pmd_order;
	int64_t mapped;

	if (f->kind == FSIM_KIND_SHMEM)	/* in a page cache, mapped or not */
		stat[FSIM_NR_SHMEM] += (int64_t)nr;
	if (!t->entries || f->hugetlb)	/* no node statistic counts hugetlb */
		return;
	if (!folio_test_large(f))
		mapped = (int64_t)nr;
	else
		mapped = folio_ops(f)->implied_mapped_pages(f, t);
	stat[anon ? FSIM_NR_ANON_MAPPED : FSIM_NR_FILE_MAPPED] += mapped;
	if (pmd_mapped)
		stat[anon ? FSIM_NR_ANON_THPS :
		     f->kind == FSIM_KIND_SHMEM ? FSIM_NR_SHMEM_PMDMAPPED :
		     FSIM_NR_FILE_PMDMAPPED] += (int64_t)nr;
}

int fsim_check_ctx(const struct fsim_ctx *ctx, struct fsim_violation *v)
{
	if (!ctx)
		return refuse("no context (NULL)", -EINVAL);
	int64_t stat[FSIM_NR_STATS] = { 0 };
	int64_t nr_anon[32] = { 0 }, partial[32] = { 0 };
	const struct fsim_folio *f;
	size_t queued = 0;
	unsigned int o;
	int s, err;

	if (ctx->vm_refused)
		return broken(v, "process_rmap_calls_succeed",
			      "the process layer's %s was refused with %s: its page "
			      "tables and the folios disagree from then on",
			      ctx->vm_refused_call, fsim_errname(ctx->vm_refused));
	for (f = ctx->folios; f; f = f->next) {
		struct truth t;

		err = fsim_check_folio(f, v);
		if (err)
			return err;
		err = compute_truth(f, &t, v);
		if (err)
			return err;
		implied_stats(f, &t, stat);
		if (f->counted_nr_anon)
			nr_anon[f->order]++;
		partial[f->order] += fsim_folio_partially_mapped(f);
		queued += f->on_deferred_list;
	}
	for (s = 0; s < FSIM_NR_STATS; s++)
		if (fsim_ctx_stat(ctx, (enum fsim_stat)s) != stat[s])
			return broken(v, "stats_match_oracle", "%s is %lld, oracle implies %lld",
				      fsim_stat_name((enum fsim_stat)s),
				      (long long)fsim_ctx_stat(ctx, (enum fsim_stat)s),
				      (long long)stat[s]);
	for (o = 1; o <= ctx->arch.pmd_order; o++) {
		if (fsim_ctx_thp_counter(ctx, o, FSIM_THP_NR_ANON) != nr_anon[o])
			return broken(v, "thp_nr_anon_matches_folios",
				      "order %u: nr_anon %lld, %lld folios", o,
				      (long long)fsim_ctx_thp_counter(ctx, o, FSIM_THP_NR_ANON),
				      (long long)nr_anon[o]);
		if (fsim_ctx_thp_counter(ctx, o, FSIM_THP_NR_ANON_PARTIALLY_MAPPED) !=
		    partial[o])
			return broken(v, "thp_partially_mapped_matches_folios",
				      "order %u: counter %lld, %lld folios flagged", o,
				      (long long)fsim_ctx_thp_counter(ctx, o,
						FSIM_THP_NR_ANON_PARTIALLY_MAPPED),
				      (long long)partial[o]);
	}
	if (queued != ctx->deferred_len)
		return broken(v, "deferred_queue_length", "queue %zu, %zu folios on it",
			      ctx->deferred_len, queued);
	return 0;
}
