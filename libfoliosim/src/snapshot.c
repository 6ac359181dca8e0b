// SPDX-License-Identifier: MIT
/*
 * A snapshot of a running system replayed into the model (snapshot.h).
 * The replay of one folio: its first mapper faults it in
 * (folio_add_new_anon_rmap(), exclusive when no other process maps it),
 * every observed mapping is added (folio_add_{anon,file}_rmap_*()), the
 * fault's own mapping is removed where the observation does not have it,
 * and pages the kernel counts more mappings of than the snapshot saw are
 * mapped by one "others" mm.  Then each region's entries are accounted as
 * smaps_pte_range() does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "foliosim/snapshot.h"
#include "internal.h"

struct snap_folio {
	unsigned int order;
	enum fsim_kind kind;
	uint64_t *kpagecount;	/* NULL: unknown */
	bool precise;
};

struct snap_map {
	size_t region, folio;
	uint64_t page;		/* in the region */
	unsigned long fpage;	/* in the folio */
	enum fsim_level level;
};

struct snap_region {
	unsigned int proc;
	uint64_t npages;
};

struct fsim_snapshot {
	struct fsim_arch arch;
	struct snap_folio *folio;
	size_t nfolios, cap_folios;
	struct snap_region *region;
	size_t nregions, cap_regions;
	struct snap_map *map;
	size_t nmaps, cap_maps;
	unsigned int nprocs;
};

/* Grows @v (of @size-byte items) to hold @n + 1; false without memory. */
static bool grow(void **v, size_t *cap, size_t n, size_t size)
{
	size_t c;
	void *p;

	if (n < *cap)
		return true;
	c = *cap ? 2 * *cap : 64;
	p = realloc(*v, c * size);
	if (!p)
		return false;
	*v = p;
	*cap = c;
	return true;
}

int fsim_snapshot_create(const struct fsim_arch *arch, struct fsim_snapshot **out)
{
	struct fsim_snapshot *s;

	if (!out)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->arch = arch ? *arch : FSIM_ARCH_X86_64;
	*out = s;
	return 0;
}

void fsim_snapshot_destroy(struct fsim_snapshot *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nfolios; i++)
		free(s->folio[i].kpagecount);
	free(s->folio);
	free(s->region);
	free(s->map);
	free(s);
}

int fsim_snapshot_add_folio(struct fsim_snapshot *s, unsigned int order,
			    enum fsim_kind kind, const uint64_t *kpagecount,
			    bool kpagecount_precise, size_t *index)
{
	struct snap_folio *f;

	if (!s || !index || order > s->arch.pud_order || (unsigned int)kind > FSIM_KIND_SHMEM)
		return -EINVAL;
	if (!grow((void **)&s->folio, &s->cap_folios, s->nfolios, sizeof(*s->folio)))
		return -ENOMEM;
	f = &s->folio[s->nfolios];
	memset(f, 0, sizeof(*f));
	if (kpagecount) {
		f->kpagecount = malloc(sizeof(uint64_t) << order);
		if (!f->kpagecount)
			return -ENOMEM;
		memcpy(f->kpagecount, kpagecount, sizeof(uint64_t) << order);
	}
	f->order = order;
	f->kind = kind;
	f->precise = kpagecount_precise;
	*index = s->nfolios++;
	return 0;
}

int fsim_snapshot_add_region(struct fsim_snapshot *s, unsigned int proc, uint64_t npages,
			     size_t *index)
{
	if (!s || !index || !npages)
		return -EINVAL;
	if (!grow((void **)&s->region, &s->cap_regions, s->nregions, sizeof(*s->region)))
		return -ENOMEM;
	s->region[s->nregions].proc = proc;
	s->region[s->nregions].npages = npages;
	if (proc + 1 > s->nprocs)
		s->nprocs = proc + 1;
	*index = s->nregions++;
	return 0;
}

int fsim_snapshot_map(struct fsim_snapshot *s, size_t region, uint64_t page, size_t folio,
		      unsigned long fpage, enum fsim_level level)
{
	if (!s || region >= s->nregions || folio >= s->nfolios ||
	    page >= s->region[region].npages ||
	    fpage >= (1ul << s->folio[folio].order) ||
	    (level != FSIM_LEVEL_PTE && level != FSIM_LEVEL_PMD) ||
	    (level == FSIM_LEVEL_PMD && s->folio[folio].order != s->arch.pmd_order))
		return -EINVAL;
	if (!grow((void **)&s->map, &s->cap_maps, s->nmaps, sizeof(*s->map)))
		return -ENOMEM;
	s->map[s->nmaps++] = (struct snap_map){ region, folio, page, fpage, level };
	return 0;
}

size_t fsim_snapshot_regions(const struct fsim_snapshot *s)
{
	return s ? s->nregions : 0;
}

/* ------------------------------------------------------------------ */
/* The replay                                                          */
/* ------------------------------------------------------------------ */

struct replay {
	const struct fsim_snapshot *s;
	struct fsim_ctx *ctx;
	struct fsim_mm **mm;	/* per process, then [nprocs]: the others */
	struct fsim_folio **f;	/* per snapshot folio */
	struct fsim_snapshot_notes *notes;
};

static int by_folio(const void *a, const void *b)
{
	const struct snap_map *x = a, *y = b;

	if (x->folio != y->folio)
		return x->folio < y->folio ? -1 : 1;
	if (x->region != y->region)
		return x->region < y->region ? -1 : 1;
	if (x->level != y->level)
		return x->level < y->level ? -1 : 1;
	return x->fpage < y->fpage ? -1 : x->fpage > y->fpage;
}

static int by_region(const void *a, const void *b)
{
	const struct snap_map *x = a, *y = b;

	if (x->region != y->region)
		return x->region < y->region ? -1 : 1;
	return x->page < y->page ? -1 : x->page > y->page;
}

/* The run of PTEs of one folio in one region at consecutive folio pages
 * starting at v[i] (one batched call); a PMD is one entry of its pages. */
static size_t run_of(const struct snap_map *v, size_t n, size_t i)
{
	size_t j = i + 1;

	while (j < n && v[j].folio == v[i].folio && v[j].region == v[i].region &&
	       v[j].level == v[i].level && v[j].fpage == v[j - 1].fpage + 1)
		j++;
	return j - i;
}

static int add_rmap(struct fsim_folio *f, struct fsim_mm *mm, enum fsim_level level,
		    unsigned long page, unsigned long nr)
{
	if (fsim_folio_kind(f) != FSIM_KIND_ANON)
		return fsim_folio_add_file_rmap(f, mm, level, page, nr);
	return fsim_folio_add_anon_rmap(f, mm, level, page, nr,
					fsim_folio_anon_exclusive(f, page));
}

/* Whether the kernel counts more mappings of some page of folio @sf than
 * the snapshot saw (@seen: the snapshot's mappings per page). */
static bool mapped_elsewhere(const struct snap_folio *sf, const unsigned long *seen)
{
	unsigned long i;

	if (!sf->kpagecount || !sf->precise)
		return false;
	for (i = 0; i < (1ul << sf->order); i++)
		if (sf->kpagecount[i] > seen[i])
			return true;
	return false;
}

/* Mappings of folio @k are v[0 .. n-1] (sorted by region, level, page). */
static void replay_folio(struct replay *rp, size_t k, const struct snap_map *v, size_t n)
{
	const struct snap_folio *sf = &rp->s->folio[k];
	const unsigned long nr = 1ul << sf->order;
	const bool pmd_order = sf->order == rp->s->arch.pmd_order;
	struct fsim_mm *first = rp->mm[rp->s->region[v[0].region].proc];
	bool one_mm = true, first_pmd = false, elsewhere;
	unsigned long *seen = calloc(nr, sizeof(*seen)), *mine = calloc(nr, sizeof(*mine));
	struct fsim_folio *f;
	size_t i, len;

	if (!seen || !mine || fsim_folio_create(rp->ctx, sf->order, sf->kind, &f)) {
		free(seen);
		free(mine);
		return;
	}
	rp->f[k] = f;
	rp->notes->folios++;
	for (i = 0; i < n; i++) {
		const bool by_first = rp->mm[rp->s->region[v[i].region].proc] == first;

		one_mm &= by_first;
		first_pmd |= by_first && v[i].level == FSIM_LEVEL_PMD;
		seen[v[i].fpage]++;
		mine[v[i].fpage] += by_first;
	}
	elsewhere = mapped_elsewhere(sf, seen);
	rp->notes->folios_shared_elsewhere += elsewhere;
	if (sf->kind == FSIM_KIND_ANON) {
		/* exclusive only if nobody else maps it, here or elsewhere */
		if (fsim_folio_add_new_anon_rmap(f, first, one_mm && !elsewhere))
			rp->notes->refused++;
		if (one_mm && !elsewhere && sf->order > 0)
			rp->notes->folios_history_dependent++;
	}
	/* every observed mapping but the fault's own (the first mm's PMD, or
	 * the first mm's PTEs of a smaller folio) */
	for (i = 0; i < n; i += len) {
		const bool by_first = rp->mm[rp->s->region[v[i].region].proc] == first;
		struct fsim_mm *mm = rp->mm[rp->s->region[v[i].region].proc];

		len = run_of(v, n, i);
		if (sf->kind == FSIM_KIND_ANON && by_first &&
		    (pmd_order ? v[i].level == FSIM_LEVEL_PMD : true))
			continue;
		if (add_rmap(f, mm, v[i].level, v[i].level == FSIM_LEVEL_PMD ? 0 : v[i].fpage,
			     v[i].level == FSIM_LEVEL_PMD ? nr : len))
			rp->notes->refused++;
		else
			rp->notes->mappings++;
	}
	/* the fault's mapping the first mm no longer has */
	if (sf->kind == FSIM_KIND_ANON && pmd_order && !first_pmd &&
	    fsim_folio_remove_rmap(f, first, FSIM_LEVEL_PMD, 0, nr))
		rp->notes->refused++;
	for (i = 0; sf->kind == FSIM_KIND_ANON && !pmd_order && i < nr; i++)
		if (!mine[i] && fsim_folio_remove_rmap(f, first, FSIM_LEVEL_PTE, i, 1))
			rp->notes->refused++;
	/* what the kernel counts beyond the snapshot: other address spaces */
	for (i = 0; elsewhere && i < nr; i++)
		for (uint64_t c = seen[i]; c < sf->kpagecount[i]; c++)
			if (add_rmap(f, rp->mm[rp->s->nprocs], FSIM_LEVEL_PTE, i, 1))
				rp->notes->refused++;
	free(seen);
	free(mine);
}

/* smaps of one region: its entries accounted, one VMA printed in kB. */
static void region_values(struct replay *rp, const struct snap_map *v, size_t n,
			  struct fsim_snapshot_values *out)
{
	struct fsim_smaps raw;
	size_t i;

	memset(&raw, 0, sizeof(raw));
	memset(out, 0, sizeof(*out));
	for (i = 0; i < n; i++) {
		struct fsim_folio *f = rp->f[v[i].folio];

		if (!f)
			continue;
		out->kpagecount_sum += fsim_kpagecount(f, v[i].fpage);
		out->exclusive_pages += fsim_pagemap_exclusive(f, v[i].fpage);
		if (v[i].level == FSIM_LEVEL_PTE)
			fsim_smaps_account(f, FSIM_LEVEL_PTE, v[i].fpage, false, &raw);
		else if (v[i].fpage == 0)	/* the PMD, once */
			fsim_smaps_account(f, FSIM_LEVEL_PMD, 0, false, &raw);
	}
	smaps_kb_add(&out->kb, &raw);
	out->kb.vmas = 1;
}

static int replay_all(struct replay *rp, struct fsim_snapshot_values *out)
{
	const struct fsim_snapshot *s = rp->s;
	struct snap_map *v = malloc((s->nmaps + 1) * sizeof(*v));
	size_t i, j;

	if (!v)
		return -ENOMEM;
	if (s->nmaps)
		memcpy(v, s->map, s->nmaps * sizeof(*v));
	qsort(v, s->nmaps, sizeof(*v), by_folio);
	for (i = 0; i < s->nmaps; i = j) {
		for (j = i + 1; j < s->nmaps && v[j].folio == v[i].folio; j++)
			;
		replay_folio(rp, v[i].folio, v + i, j - i);
	}
	qsort(v, s->nmaps, sizeof(*v), by_region);
	for (i = 0, j = 0; i < s->nregions; i++) {
		size_t k = j;

		while (k < s->nmaps && v[k].region == i)
			k++;
		region_values(rp, v + j, k - j, &out[i]);
		j = k;
	}
	free(v);
	return 0;
}

int fsim_snapshot_predict(const struct fsim_snapshot *s, enum fsim_mode mode,
			  struct fsim_snapshot_values *out,
			  struct fsim_snapshot_notes *notes)
{
	struct fsim_snapshot_notes local;
	struct replay rp;
	unsigned int i;
	int err;

	if (!s || !out)
		return -EINVAL;
	memset(&rp, 0, sizeof(rp));
	rp.s = s;
	rp.notes = notes ? notes : &local;
	memset(rp.notes, 0, sizeof(*rp.notes));
	err = fsim_ctx_create(mode, &s->arch, &rp.ctx);
	if (err)
		return err;
	rp.mm = calloc(s->nprocs + 1, sizeof(*rp.mm));
	rp.f = calloc(s->nfolios + 1, sizeof(*rp.f));
	err = rp.mm && rp.f ? 0 : -ENOMEM;
	for (i = 0; !err && i <= s->nprocs; i++)
		err = fsim_mm_create(rp.ctx, 0, &rp.mm[i]);
	if (!err)
		err = replay_all(&rp, out);
	free(rp.mm);
	free(rp.f);
	fsim_ctx_destroy(rp.ctx);
	return err;
}
