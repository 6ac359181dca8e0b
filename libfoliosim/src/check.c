// SPDX-License-Identifier: MIT
/*
 * The invariant check: the model's counters against what the oracle says.
 * Every invariant has a name (docs/model.md lists them); the first broken
 * one is reported with the values seen.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int broken(struct fsim_violation *v, const char *name, const char *fmt, ...)
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

uint64_t fsim_oracle_true_mapcount(const struct fsim_folio *f, unsigned long page)
{
	struct fsim_folio *mf = (struct fsim_folio *)f;
	uint64_t n;

	fsim_spin_lock(&mf->oracle_lock);
	n = oracle_page_count(&f->oracle, page);
	fsim_spin_unlock(&mf->oracle_lock);
	return n;
}

uint64_t fsim_oracle_mm_entries(const struct fsim_folio *f, unsigned int mm_id)
{
	struct fsim_folio *mf = (struct fsim_folio *)f;
	uint64_t n;

	fsim_spin_lock(&mf->oracle_lock);
	n = oracle_mm_entries(&f->oracle, mm_id, &f->ctx->arch);
	fsim_spin_unlock(&mf->oracle_lock);
	return n;
}

uint64_t fsim_oracle_entries(const struct fsim_folio *f)
{
	return f->oracle.entries;
}

uint64_t fsim_oracle_mapped_pages(const struct fsim_folio *f)
{
	return f->oracle.pages;
}

size_t fsim_oracle_mms(const struct fsim_folio *f, unsigned int *ids, size_t max)
{
	struct fsim_folio *mf = (struct fsim_folio *)f;
	size_t i, n = 0;

	fsim_spin_lock(&mf->oracle_lock);
	for (i = 0; i < f->oracle.n; i++) {
		if (i && f->oracle.seg[i].mm_id == f->oracle.seg[i - 1].mm_id)
			continue;
		if (n < max && ids)
			ids[n] = f->oracle.seg[i].mm_id;
		n++;
	}
	fsim_spin_unlock(&mf->oracle_lock);
	return n;
}

/* Entries and pages recomputed from the segments, per level. */
struct truth {
	uint64_t entries, pages, level_entries[3];
	struct oracle_profile profile;
};

static int compute_truth(const struct fsim_folio *f, struct truth *t,
			 struct fsim_violation *v)
{
	const struct oracle *o = &f->oracle;
	size_t i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < o->n; i++) {
		const struct oracle_seg *s = &o->seg[i];
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
	if (oracle_profile(o, &t->profile))
		return broken(v, "oracle_profile", "out of memory");
	return 0;
}

static int check_rfc_slots(const struct fsim_folio *f, const struct truth *t,
			   struct fsim_violation *v)
{
	const struct fsim_arch *arch = &f->ctx->arch;
	const uint64_t word = word_read(&f->mm_ids);
	const bool shared = (word >> fsim_mm_ids_shared_bitnum(arch)) & 1;
	int i;

	if ((word >> fsim_mm_ids_lock_bitnum(arch)) & 1)
		return broken(v, "lock_bit_released", "_mm_ids %#llx",
			      (unsigned long long)word);
	if (arch->bits == 32 && word >> 32)
		return broken(v, "mm_ids_fits_32bit", "_mm_ids %#llx",
			      (unsigned long long)word);
	for (i = 0; i < 2; i++) {
		const unsigned int id = (unsigned int)rfc_slot_mm_id(f, i);
		const int count = f->mm_id_mapcount[i];
		uint64_t entries;

		if ((id == MM_ID_DUMMY) != (count == -1) || count < -1)
			return broken(v, "free_slot_holds_minus_one",
				      "slot%d id %u count %d", i, id, count);
		if (id == MM_ID_DUMMY)
			continue;
		entries = oracle_mm_entries(&f->oracle, id, arch);
		if ((uint64_t)count + 1 > entries)
			return broken(v, "slot_count_within_true_entries",
				      "slot%d mm %u records %d, it maps %llu", i,
				      id, count + 1, (unsigned long long)entries);
	}
	if (rfc_slot_mm_id(f, 0) && rfc_slot_mm_id(f, 0) == rfc_slot_mm_id(f, 1))
		return broken(v, "slots_distinct", "both slots hold mm %d",
			      rfc_slot_mm_id(f, 0));
	if (!t->entries && shared)
		return broken(v, "shared_bit_clear_when_unmapped", "_mm_ids %#llx",
			      (unsigned long long)word);
	if (t->profile.nr_mms >= 2 && !rfc_maybe_mapped_shared(f))
		return broken(v, "maybe_shared_when_two_mms_map",
			      "%zu mms map the folio, maybe_shared is false",
			      t->profile.nr_mms);
	return 0;
}

/* Legacy: per-page _mapcount, _entire_mapcount, _nr_pages_mapped are
 * exact in serial use. */
static int check_legacy_pages(const struct fsim_folio *f, const struct truth *t,
			      struct fsim_violation *v)
{
	const unsigned long nr = folio_nr_pages(f);
	uint64_t *ptes = calloc(nr, sizeof(*ptes));
	const int entire = atomic_read(&f->entire_mapcount) + 1;
	long pte_mapped = 0;
	unsigned long i;
	size_t k;
	int err = 0, expect_mapped;

	if (!ptes)
		return broken(v, "oracle_profile", "out of memory");
	for (k = 0; k < f->oracle.n; k++) {
		const struct oracle_seg *s = &f->oracle.seg[k];

		if (s->level == FSIM_LEVEL_PTE)
			for (i = s->start; i < s->end; i++)
				ptes[i] += s->count;
	}
	if ((uint64_t)entire != t->level_entries[FSIM_LEVEL_PMD])
		err = broken(v, "legacy_entire_mapcount_equals_pmds",
			     "entire_mapcount %d, PMD entries %llu", entire,
			     (unsigned long long)t->level_entries[FSIM_LEVEL_PMD]);
	for (i = 0; !err && i < nr; i++) {
		int pc = atomic_read(&f->page_mapcount[i]) + 1;

		if ((uint64_t)pc != ptes[i])
			err = broken(v, "legacy_page_mapcount_equals_ptes",
				     "page %lu: _mapcount+1 = %d, PTEs %llu", i, pc,
				     (unsigned long long)ptes[i]);
		pte_mapped += ptes[i] > 0;
	}
	expect_mapped = (int)pte_mapped + (entire ? ENTIRELY_MAPPED : 0);
	if (!err && atomic_read(&f->nr_pages_mapped) != expect_mapped)
		err = broken(v, "legacy_nr_pages_mapped",
			     "_nr_pages_mapped %#x, expected %#x",
			     atomic_read(&f->nr_pages_mapped), expect_mapped);
	free(ptes);
	return err;
}

static int check_refcount(const struct fsim_folio *f, const struct truth *t,
			  struct fsim_violation *v)
{
	int64_t expect = (int64_t)t->entries;

	if (folio_test_anon(f))
		expect += atomic_load(&((struct fsim_folio *)f)->alloc_ref);
	else
		expect += (int64_t)folio_nr_pages(f);
	if (folio_test_large(f))
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
	if (folio_test_large(f) && folio_is_rfc(f)) {
		err = check_rfc_slots(f, &t, v);
		if (err)
			return err;
	}
	if (folio_test_large(f) && !folio_is_rfc(f)) {
		err = check_legacy_pages(f, &t, v);
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

	if (!t->entries)
		return;
	if (!folio_test_large(f) || folio_is_rfc(f))
		mapped = (int64_t)nr;	/* the whole folio once mapped at all */
	else if (t->level_entries[FSIM_LEVEL_PMD])
		mapped = (int64_t)nr;
	else
		mapped = (int64_t)t->profile.covered;	/* pages mapped by PTEs */
	stat[anon ? FSIM_NR_ANON_MAPPED : FSIM_NR_FILE_MAPPED] += mapped;
	if (pmd_mapped)
		stat[anon ? FSIM_NR_ANON_THPS :
		     f->kind == FSIM_KIND_SHMEM ? FSIM_NR_SHMEM_PMDMAPPED :
		     FSIM_NR_FILE_PMDMAPPED] += (int64_t)nr;
}

int fsim_check_ctx(const struct fsim_ctx *ctx, struct fsim_violation *v)
{
	int64_t stat[FSIM_NR_STATS] = { 0 };
	int64_t nr_anon[32] = { 0 }, partial[32] = { 0 };
	const struct fsim_folio *f;
	size_t queued = 0;
	unsigned int o;
	int s, err;

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
