// SPDX-License-Identifier: MIT
/* What `foliosim diff` and `report` compare: every value a user can read
 * after a statement (scenario_values.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "foliosim/process.h"
#include "internal.h"
#include "scenario_values.h"

/* Readers of the report's summary (fsim_report_reader_name()). */
enum { R_PSS, R_PRIVATE, R_SHARED, R_ANON, R_KPAGECOUNT, R_EXCLUSIVE, R_MAPMAX,
       R_PARTIAL, R_RSS };

const struct vkey_def vkey_defs[VK_NR] = {
	[VK_MAPCOUNT] = { "mapcount", "folio", false, false, false, -1 },
	[VK_TOTAL_MAPPED] = { "total_mapped_pages", "folio", false, false, false, -1 },
	[VK_AVG_MAPCOUNT] = { "avg_mapcount", "folio", false, false, false, -1 },
	[VK_MAYBE_SHARED] = { "maybe_shared", "folio", false, true, false, -1 },
	[VK_PARTIALLY_MAPPED] = { "partially_mapped", "folio", false, true, false, -1 },
	[VK_F_KPAGECOUNT] = { "kpagecount", "folio", true, false, false, R_KPAGECOUNT },
	[VK_F_EXCLUSIVE] = { "exclusive", "folio", true, true, false, R_EXCLUSIVE },
	[VK_F_MAPMAX] = { "mapmax", "folio", true, false, false, R_MAPMAX },
	[VK_RSS] = { "rss_kb", "region", false, false, false, R_RSS },
	[VK_PSS] = { "pss_kb", "region", false, false, false, R_PSS },
	[VK_PRIVATE] = { "private_kb", "region", false, false, false, R_PRIVATE },
	[VK_SHARED] = { "shared_kb", "region", false, false, false, R_SHARED },
	[VK_ANON_HUGE] = { "anon_huge_kb", "region", false, false, false, -1 },
	[VK_MAPMAX] = { "mapmax", "region", false, false, false, R_MAPMAX },
	[VK_SHARED_HUGETLB] = { "shared_hugetlb_kb", "region", false, false, false, -1 },
	[VK_PRIVATE_HUGETLB] = { "private_hugetlb_kb", "region", false, false, false, -1 },
	[VK_R_KPAGECOUNT] = { "kpagecount", "region", true, false, false, R_KPAGECOUNT },
	[VK_R_EXCLUSIVE] = { "exclusive", "region", true, true, false, R_EXCLUSIVE },
	[VK_R_ORDER] = { "order", "region", true, false, true, -1 },
	[VK_STAT] = { "stat", "stats", false, false, false, -1 },
	[VK_ANON_PAGES_KB] = { "anon_pages_kb", "meminfo", false, false, false, R_ANON },
	[VK_THP_PARTIAL] = { "nr_anon_partially_mapped", "thp", false, false, false,
			     R_PARTIAL },
	[VK_CONSUMER] = { "consumer", "consumer", false, false, false, -1 },
};

bool dval_same_key(const struct dval *a, const struct dval *b)
{
	return a->subject == b->subject && a->region == b->region && a->key == b->key &&
	       a->aux == b->aux;
}

static int put(struct values *v, const struct dval *d)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 1024;
		void *mem;

		if (v->n >= v->limit)
			return -E2BIG;
		mem = realloc(v->v, cap * sizeof(*v->v));
		if (!mem)
			return -ENOMEM;
		v->v = mem;
		v->cap = cap;
	}
	if (v->n >= v->limit)
		return -E2BIG;
	v->v[v->n++] = *d;
	return 0;
}

/* Appends a value; a page's value that continues the run of the previous
 * page extends that run instead. */
static int put_value(struct values *v, uint32_t subject, uint32_t region,
		     const char *region_name, enum vkey key, uint32_t aux,
		     uint64_t page, int64_t value)
{
	const struct dval d = { subject, region, (uint32_t)key, aux, page, 1, value,
				region_name };
	struct dval *last = v->n ? &v->v[v->n - 1] : NULL;

	if (last && vkey_defs[key].per_page && dval_same_key(last, &d) &&
	    last->page + last->npages == page && last->value == value) {
		last->npages++;
		return 0;
	}
	return put(v, &d);
}

/* A folio's counters, then per mapped page (the oracle's true mapcount,
 * the same in every mode) what /proc derives from them. */
static int collect_folio(struct values *v, uint32_t subject, struct fsim_folio *f)
{
	const unsigned long pages = 1ul << fsim_folio_order(f);
	const int64_t counters[] = {
		fsim_folio_mapcount(f), (int64_t)fsim_folio_total_mapped_pages(f),
		(int64_t)fsim_folio_average_page_mapcount(f),
		fsim_folio_maybe_mapped_shared(f), fsim_folio_partially_mapped(f),
	};
	unsigned long i;
	int k, err = 0;

	for (k = 0; !err && k <= VK_PARTIALLY_MAPPED; k++)
		err = put_value(v, subject, 0, NULL, (enum vkey)k, 0, 0, counters[k]);
	for (k = VK_F_KPAGECOUNT; !err && k <= VK_F_MAPMAX; k++)
		for (i = 0; !err && i < pages; i++) {
			int64_t val;

			if (!fsim_oracle_true_mapcount(f, i))
				continue;
			val = k == VK_F_KPAGECOUNT ? (int64_t)fsim_kpagecount(f, i) :
			      k == VK_F_EXCLUSIVE ? fsim_pagemap_exclusive(f, i) :
			      (int64_t)fsim_numa_mapmax(f, i);
			err = put_value(v, subject, 0, NULL, (enum vkey)k, 0, i, val);
		}
	return err;
}

/* The values of one page of a region, as region_value() reads them. */
static int64_t page_value(enum vkey key, const struct fsim_page_view *pv)
{
	switch (key) {
	case VK_R_KPAGECOUNT:
		return (int64_t)pv->kpagecount;
	case VK_R_EXCLUSIVE:
		return (pv->present || pv->zero_page) && pv->pm_exclusive;
	default:	/* VK_R_ORDER */
		return pv->present ? (int64_t)fsim_folio_order(pv->folio) : -1;
	}
}

#define PAGE_BATCH 512	/* pages looked up at once */

struct region_walk {
	struct fsim_page_view views[PAGE_BATCH];
	struct consumer_inputs in;	/* what the tools read of the process */
	struct values *v;
	const struct fsim_process *p;
	unsigned int page_shift;
	uint32_t subject, region;
	int err;
};

/* A run of pages with one value being built, for one per-page key. */
struct run_builder;
static int save_run(struct dval **runs, size_t *n, size_t *cap,
		    const struct region_walk *w, const char *name, enum vkey key,
		    const struct run_builder *rb);
struct run_builder {
	uint64_t first, n;
	int64_t value;
};

/* Adds page @i with @value to @rb; false if it ends @rb's run. */
static bool run_extend(struct run_builder *rb, uint64_t i, int64_t value)
{
	if (rb->n && rb->first + rb->n == i && rb->value == value) {
		rb->n++;
		return true;
	}
	return false;
}

/* smaps of the region, then every page of it (kpagecount, pagemap bit 56,
 * the order of the folio mapped there), in runs of equal values: one walk
 * of the pages builds the runs of the three keys side by side. */
static void collect_region(void *arg, const char *name)
{
	struct region_walk *w = arg;
	struct run_builder rb[3];	/* VK_R_KPAGECOUNT .. VK_R_ORDER */
	struct dval *runs[3] = { NULL, NULL, NULL };
	size_t nruns[3] = { 0, 0, 0 }, cap[3] = { 0, 0, 0 };
	struct fsim_smaps_kb kb;
	struct fsim_smaps raw;
	uint64_t bytes, pages, i;
	int k;

	if (w->err || fsim_process_smaps_kb(w->p, name, &kb) ||
	    fsim_process_smaps(w->p, name, &raw) ||
	    fsim_process_region_size(w->p, name, &bytes)) {
		w->region++;
		return;
	}
	consumer_inputs_add_raw(&w->in, &raw);
	consumer_inputs_add_kb(&w->in, &kb);
	{
		const uint64_t smaps[] = { kb.rss, kb.pss, kb.private_total, kb.shared_total,
					   kb.anon_huge, kb.mapmax, kb.shared_hugetlb,
					   kb.private_hugetlb };

		for (k = VK_RSS; !w->err && k <= VK_PRIVATE_HUGETLB; k++)
			w->err = put_value(w->v, w->subject, w->region, name, (enum vkey)k,
					   0, 0, (int64_t)smaps[k - VK_RSS]);
	}
	memset(rb, 0, sizeof(rb));
	pages = bytes >> w->page_shift;
	for (i = 0; !w->err && i < pages; i++) {
		const struct fsim_page_view *pv = &w->views[i % PAGE_BATCH];

		if (i % PAGE_BATCH == 0 &&
		    fsim_process_pages(w->p, name, i, pages - i < PAGE_BATCH ?
				       pages - i : PAGE_BATCH, w->views)) {
			w->err = -EINVAL;	/* the region changed under the walk: a bug */
			break;
		}
		consumer_inputs_add_page(&w->in, pv);
		for (k = 0; k < 3 && !w->err; k++) {
			const int64_t val = page_value((enum vkey)(VK_R_KPAGECOUNT + k), pv);

			if (run_extend(&rb[k], i, val))
				continue;
			if (rb[k].n)
				w->err = save_run(&runs[k], &nruns[k], &cap[k], w, name,
						  (enum vkey)(VK_R_KPAGECOUNT + k), &rb[k]);
			rb[k].first = i;
			rb[k].n = 1;
			rb[k].value = val;
		}
	}
	for (k = 0; k < 3; k++) {
		size_t j;

		if (!w->err && rb[k].n)
			w->err = save_run(&runs[k], &nruns[k], &cap[k], w, name,
					  (enum vkey)(VK_R_KPAGECOUNT + k), &rb[k]);
		for (j = 0; !w->err && j < nruns[k]; j++)
			w->err = put(w->v, &runs[k][j]);
		free(runs[k]);
	}
	w->region++;
}

/* Keeps a finished run of one key until the walk ends (the values hold
 * all runs of a key together, in page order). */
static int save_run(struct dval **runs, size_t *n, size_t *cap,
		    const struct region_walk *w, const char *name, enum vkey key,
		    const struct run_builder *rb)
{
	const struct dval d = { w->subject, w->region, (uint32_t)key, 0, rb->first,
				rb->n, rb->value, name };

	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 16;
		void *mem = realloc(*runs, c * sizeof(**runs));

		if (!mem)
			return -ENOMEM;
		*runs = mem;
		*cap = c;
	}
	(*runs)[(*n)++] = d;
	return 0;
}

/* The figures of the per-process consumers, from what the walk gathered. */
static int put_consumers(struct values *v, uint32_t subject,
			 const struct consumer_inputs *in)
{
	size_t c;
	int err = 0;

	for (c = 0; !err && c < fsim_consumer_count(); c++)
		if (fsim_consumer_at(c)->per_process)
			err = put_value(v, subject, UINT32_MAX, NULL, VK_CONSUMER,
					(uint32_t)c, 0, consumer_compute(c, in));
	return err;
}

static int collect_system(struct run *r, struct values *v)
{
	const unsigned int pmd_order = fsim_ctx_arch(r->ctx)->pmd_order;
	unsigned int o;
	size_t c;
	int st, err = 0;

	for (st = 0; !err && st < FSIM_NR_STATS; st++)
		err = put_value(v, UINT32_MAX, 0, NULL, VK_STAT, (uint32_t)st, 0,
				fsim_ctx_stat(r->ctx, (enum fsim_stat)st));
	if (!err)
		err = put_value(v, UINT32_MAX, 0, NULL, VK_ANON_PAGES_KB, 0, 0,
				anon_pages_kb(r));
	for (o = 2; !err && o <= pmd_order; o++)
		err = put_value(v, UINT32_MAX, 0, NULL, VK_THP_PARTIAL, o, 0,
				fsim_ctx_thp_counter(r->ctx, o,
						     FSIM_THP_NR_ANON_PARTIALLY_MAPPED));
	for (c = 0; !err && c < fsim_consumer_count(); c++) {
		int64_t val;

		if (fsim_consumer_at(c)->per_process ||
		    fsim_consumer_system_value(c, r->ctx, &val))
			continue;
		err = put_value(v, UINT32_MAX, UINT32_MAX, NULL, VK_CONSUMER, (uint32_t)c,
				0, val);
	}
	return err;
}

int collect_values(struct run *r, struct values *v)
{
	size_t k;
	int err = 0;

	v->n = 0;
	for (k = 0; !err && k < r->nsyms; k++) {
		struct sym *s = &r->syms[k];

		if (s->dead)
			continue;
		if (s->kind == SYM_FOLIO) {
			err = collect_folio(v, (uint32_t)k, s->obj);
		} else if (s->kind == SYM_PROCESS) {
			struct region_walk *w = calloc(1, sizeof(*w));

			if (!w)
				return -ENOMEM;
			w->v = v;
			w->p = s->obj;
			w->page_shift = fsim_ctx_arch(r->ctx)->page_shift;
			w->subject = (uint32_t)k;
			consumer_inputs_init(&w->in, r->ctx);
			fsim_process_regions(s->obj, collect_region, w);
			err = w->err;
			if (!err)
				err = put_consumers(v, (uint32_t)k, &w->in);
			free(w);
		}
	}
	return err ? err : collect_system(r, v);
}

void values_free(struct values *v)
{
	free(v->v);
	v->v = NULL;
	v->n = v->cap = 0;
}
