// SPDX-License-Identifier: MIT
/* gfuzz: the rmap calls two observations imply, replayed into the model. */
#define _GNU_SOURCE
#include "gfuzz.h"

/* ---------------------------------------------------------------- */
/* Replaying the rmap calls                                          */
/* ---------------------------------------------------------------- */

static int gf_cmp_map(const void *a, const void *b)
{
	const struct gf_map *x = a, *y = b;

	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	if (x->folio != y->folio)
		return x->folio < y->folio ? -1 : 1;
	if (x->level != y->level)
		return x->level < y->level ? -1 : 1;
	return x->page < y->page ? -1 : x->page > y->page;
}

static void gf_call_failed(struct gfuzz *g, const char *call, const struct gf_map *m,
			   unsigned long nr, int err)
{
	const struct gf_folio *gf = &g->folios.v[m->folio];

	g->mismatches++;
	g->by_what[MM_RMAP_CALL]++;
	printf("gfuzz: MISMATCH at step %lu (%s): the model refused %s(folio %#" PRIx64
	       " order %u, %s, %s, page %u, nr %lu): %s\n", g->step, g->op, call, gf->head,
	       gf->order, g->procs[m->proc].name, fsim_level_name((enum fsim_level)m->level),
	       m->page, nr, fsim_errname(err));
}

/* The length of the run of entries starting at v[i] that one batched call
 * covers: PTEs of one folio in one mm at consecutive pages (PMDs: one). */
static size_t gf_run(const struct gf_map *v, size_t n, size_t i)
{
	size_t j = i + 1;

	if (v[i].level != FSIM_LEVEL_PTE)
		return 1;
	while (j < n && v[j].proc == v[i].proc && v[j].folio == v[i].folio &&
	       v[j].level == v[i].level && v[j].page == v[j - 1].page + 1)
		j++;
	return j - i;
}

static unsigned long gf_nr(const struct gf_map *m)
{
	return m->level == FSIM_LEVEL_PMD ? PMD_PAGES : 1;
}

static bool gf_prev_has(struct gfuzz *g, int proc, const struct gf_map *m, size_t run)
{
	size_t k;

	for (k = 0; k < run; k++) {
		struct gf_map key = m[k];

		key.proc = proc;
		if (!g->prev.n || !bsearch(&key, g->prev.v, g->prev.n, sizeof(key), gf_cmp_map))
			return false;
	}
	return true;
}

/*
 * A folio seen for the first time was just faulted in: the fault mapped it
 * whole with folio_add_new_anon_rmap() (do_anonymous_page(),
 * do_huge_pmd_anonymous_page(), wp_page_copy()).  Replays that for the
 * first mm that maps it and puts the entries it made into g->prev, so the
 * diff then sees only what happened after (none, in practice).
 */
static void gf_new_folios(struct gfuzz *g)
{
	size_t i, k;

	for (i = 0; i < g->cur.n && !g->fatal; i++) {
		const struct gf_map *m = &g->cur.v[i];
		struct gf_folio *gf = &g->folios.v[m->folio];
		int err;

		if (!gf->fresh)
			continue;
		gf->fresh = false;
		err = fsim_folio_add_new_anon_rmap(gf->f, g->procs[m->proc].mm, true);
		g->rmap_calls++;
		if (err) {
			gf_call_failed(g, "folio_add_new_anon_rmap", m, 1ul << gf->order, err);
			continue;
		}
		if (gf->order >= PMD_ORDER) {
			struct gf_map e = { m->proc, m->folio, FSIM_LEVEL_PMD, 0 };

			VEC_PUSH(g, g->prev, e);
		} else {
			for (k = 0; k < (1ul << gf->order); k++) {
				struct gf_map e = { m->proc, m->folio, FSIM_LEVEL_PTE, (uint32_t)k };

				VEC_PUSH(g, g->prev, e);
			}
		}
	}
	gf_qsort(g->prev.v, g->prev.n, sizeof(*g->prev.v), gf_cmp_map);
}

/* prev - cur and cur - prev, as multisets (both sorted). */
static void gf_diff(struct gfuzz *g)
{
	size_t i = 0, j = 0;

	g->adds.n = g->removes.n = 0;
	while (i < g->prev.n || j < g->cur.n) {
		int c = i == g->prev.n ? 1 : j == g->cur.n ? -1 :
			gf_cmp_map(&g->prev.v[i], &g->cur.v[j]);

		if (c < 0)
			VEC_PUSH(g, g->removes, g->prev.v[i++]);
		else if (c > 0)
			VEC_PUSH(g, g->adds, g->cur.v[j++]);
		else
			i++, j++;
	}
}

static void gf_replay_adds(struct gfuzz *g)
{
	const struct gf_map *v = g->adds.v;
	size_t i, run;

	for (i = 0; i < g->adds.n; i += run) {
		const struct gf_folio *gf = &g->folios.v[v[i].folio];
		const unsigned long nr = gf_nr(&v[i]) * (run = gf_run(v, g->adds.n, i));
		struct fsim_mm *mm = g->procs[v[i].proc].mm;
		int err;

		g->rmap_calls++;
		if (v[i].proc == g->fork_child && gf_prev_has(g, g->fork_parent, &v[i], run)) {
			/* copy_present_ptes() / copy_huge_pmd() */
			err = fsim_folio_try_dup_anon_rmap(gf->f, mm, g->procs[g->fork_parent].mm,
							   (enum fsim_level)v[i].level, v[i].page, nr);
			if (err)
				gf_call_failed(g, "folio_try_dup_anon_rmap", &v[i], nr, err);
			continue;
		}
		/*
		 * Any other new mapping of a folio that was already mapped:
		 * __split_huge_pmd_locked() (PTEs before the PMD goes), or
		 * remove_migration_pte().  Not RMAP_EXCLUSIVE: AnonExclusive
		 * changes nothing /proc shows, and the model rightly refuses it
		 * for a page another mm maps.
		 */
		err = fsim_folio_add_anon_rmap(gf->f, mm, (enum fsim_level)v[i].level, v[i].page,
					       nr, false);
		if (err)
			gf_call_failed(g, "folio_add_anon_rmap", &v[i], nr, err);
	}
}

static void gf_replay_removes(struct gfuzz *g)
{
	const struct gf_map *v = g->removes.v;
	size_t i, run;

	for (i = 0; i < g->removes.n; i += run) {
		const struct gf_folio *gf = &g->folios.v[v[i].folio];
		const unsigned long nr = gf_nr(&v[i]) * (run = gf_run(v, g->removes.n, i));
		int err;

		g->rmap_calls++;
		/* zap_present_ptes(), zap_huge_pmd(), __split_huge_pmd_locked() */
		err = fsim_folio_remove_rmap(gf->f, g->procs[v[i].proc].mm,
					     (enum fsim_level)v[i].level, v[i].page, nr);
		if (err)
			gf_call_failed(g, "folio_remove_rmap", &v[i], nr, err);
	}
}

/* Frees what nothing maps any more, and the mms of exited processes. */
static void gf_release(struct gfuzz *g)
{
	size_t i;
	int p;

	for (i = 0; i < g->folios.n; i++) {
		struct gf_folio *gf = &g->folios.v[i];

		if (!gf->live || fsim_folio_mapped(gf->f))
			continue;
		if (fsim_folio_free(gf->f)) {
			g->mismatches++;
			g->by_what[MM_ORACLE]++;
			printf("gfuzz: MISMATCH at step %lu (%s): the model cannot free folio %#"
			       PRIx64 " (order %u) after its last unmap\n", g->step, g->op,
			       gf->head, gf->order);
		}
		gf->live = false;
		gf->f = NULL;
		VEC_PUSH(g, g->free_folios, (uint32_t)i);
	}
	gf_rehash(g);
	for (p = 0; p < g->nprocs; p++)
		if (!g->procs[p].live && g->procs[p].mm) {
			if (fsim_mm_destroy(g->procs[p].mm))
				gf_fatal(g, "the model's mm of exited %s still maps something",
					 g->procs[p].name);
			g->procs[p].mm = NULL;
		}
}

void gf_replay(struct gfuzz *g)
{
	struct fsim_violation v;
	unsigned long long mapped = 0;
	size_t i;

	gf_qsort(g->cur.v, g->cur.n, sizeof(*g->cur.v), gf_cmp_map);
	gf_new_folios(g);
	gf_diff(g);
	gf_replay_adds(g);
	gf_replay_removes(g);
	gf_release(g);
	if (fsim_check_ctx(g->ctx, &v)) {
		g->mismatches++;
		g->by_what[MM_ORACLE]++;
		printf("gfuzz: MISMATCH at step %lu (%s): oracle check: %s: %s\n", g->step,
		       g->op, v.invariant, v.detail);
	}
	/* the state the next step's diff starts from */
	g->prev.n = 0;
	for (i = 0; i < g->cur.n; i++) {
		VEC_PUSH(g, g->prev, g->cur.v[i]);
		mapped += gf_nr(&g->cur.v[i]);
	}
	if (mapped > g->max_mapped_pages)
		g->max_mapped_pages = mapped;
}
