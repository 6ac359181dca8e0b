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

/*
 * The observation is kept small, as `foliosim snapshot` promises (at most
 * 32 bytes per resident page): 8 bytes per folio, 4 per folio page for
 * kpagecount, and mappings as runs.  A run is consecutive pages of one
 * region mapping consecutive pages of one folio (a PMD is one run), or
 * (step) consecutive pages each mapping page 0 of the next small folio:
 * how a process's private 4 KiB pages are seen, one new folio per page.
 */
#define NO_COUNT UINT32_MAX
#define RUN_MAX ((1u << 30) - 1)

struct snap_folio {
	uint32_t count;		/* its kpagecount in s->counts[], or NO_COUNT */
	uint8_t order, kind;
	uint8_t precise;	/* kpagecount is per page */
	uint8_t runs;		/* runs mapping it, saturating at 255 */
};

struct snap_run {
	uint64_t page;		/* first page in the region */
	uint32_t region, folio;	/* the folio of the first page */
	uint32_t fpage;		/* its page in that folio */
	uint32_t len : 30, pmd : 1, step : 1;
};

struct snap_region {
	unsigned int proc;
	uint64_t npages;
};

struct fsim_snapshot {
	struct fsim_arch arch;
	struct snap_folio *folio;
	size_t nfolios, cap_folios;
	uint32_t *counts;
	size_t ncounts, cap_counts;
	struct snap_region *region;
	size_t nregions, cap_regions;
	struct snap_run *run;
	size_t nruns, cap_runs;
	unsigned int nprocs;
};

/* Grows @v (of @size-byte items) to hold @n + @more; false without memory. */
static bool grow(void **v, size_t *cap, size_t n, size_t more, size_t size)
{
	size_t c = *cap ? *cap : 64;
	void *p;

	if (n + more <= *cap)
		return true;
	while (c < n + more)
		c += c / 2;
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
	if (!s)
		return;
	free(s->folio);
	free(s->counts);
	free(s->region);
	free(s->run);
	free(s);
}

int fsim_snapshot_add_folio(struct fsim_snapshot *s, unsigned int order,
			    enum fsim_kind kind, const uint64_t *kpagecount,
			    bool kpagecount_precise, size_t *index)
{
	const size_t nr = (size_t)1 << (order < 32 ? order : 0);
	struct snap_folio *f;
	size_t i;

	if (!s || !index || order > s->arch.pud_order || (unsigned int)kind > FSIM_KIND_SHMEM)
		return -EINVAL;
	if (s->nfolios >= UINT32_MAX || (kpagecount && s->ncounts + nr >= NO_COUNT))
		return -E2BIG;
	if (!grow((void **)&s->folio, &s->cap_folios, s->nfolios, 1, sizeof(*s->folio)) ||
	    (kpagecount &&
	     !grow((void **)&s->counts, &s->cap_counts, s->ncounts, nr, sizeof(*s->counts))))
		return -ENOMEM;
	f = &s->folio[s->nfolios];
	memset(f, 0, sizeof(*f));
	f->count = NO_COUNT;
	if (kpagecount) {
		f->count = (uint32_t)s->ncounts;
		for (i = 0; i < nr; i++)	/* more than 4G mappings: saturate */
			s->counts[s->ncounts++] = kpagecount[i] < NO_COUNT ?
						  (uint32_t)kpagecount[i] : NO_COUNT;
	}
	f->order = (uint8_t)order;
	f->kind = (uint8_t)kind;
	f->precise = kpagecount_precise;
	*index = s->nfolios++;
	return 0;
}

int fsim_snapshot_add_region(struct fsim_snapshot *s, unsigned int proc, uint64_t npages,
			     size_t *index)
{
	if (!s || !index || !npages)
		return -EINVAL;
	if (s->nregions >= UINT32_MAX)
		return -E2BIG;
	if (!grow((void **)&s->region, &s->cap_regions, s->nregions, 1, sizeof(*s->region)))
		return -ENOMEM;
	s->region[s->nregions].proc = proc;
	s->region[s->nregions].npages = npages;
	if (proc + 1 > s->nprocs)
		s->nprocs = proc + 1;
	*index = s->nregions++;
	return 0;
}

/* Whether the mapping extends run @r. */
static bool extends(const struct fsim_snapshot *s, const struct snap_run *r, size_t region,
		    uint64_t page, size_t folio, unsigned long fpage, bool pmd)
{
	if (r->region != region || r->page + r->len != page || r->pmd != pmd ||
	    r->len >= RUN_MAX)
		return false;
	if (!r->step && r->folio == folio)
		return r->fpage + r->len == fpage;
	/* a step run: page i maps page 0 of small folio folio + i */
	return !pmd && fpage == 0 && s->folio[folio].order == 0 && r->fpage == 0 &&
	       r->folio + r->len == folio && (r->step || s->folio[r->folio].order == 0);
}

int fsim_snapshot_map(struct fsim_snapshot *s, size_t region, uint64_t page, size_t folio,
		      unsigned long fpage, enum fsim_level level)
{
	struct snap_run *last;

	if (!s || region >= s->nregions || folio >= s->nfolios ||
	    page >= s->region[region].npages ||
	    fpage >= (1ul << s->folio[folio].order) ||
	    (level != FSIM_LEVEL_PTE && level != FSIM_LEVEL_PMD) ||
	    (level == FSIM_LEVEL_PMD && s->folio[folio].order != s->arch.pmd_order))
		return -EINVAL;
	last = s->nruns ? &s->run[s->nruns - 1] : NULL;
	if (last && extends(s, last, region, page, folio, fpage, level == FSIM_LEVEL_PMD)) {
		last->step |= last->folio != folio;
		last->len++;
		if (last->step && s->folio[folio].runs < 255)
			s->folio[folio].runs++;
		return 0;
	}
	if (!grow((void **)&s->run, &s->cap_runs, s->nruns, 1, sizeof(*s->run)))
		return -ENOMEM;
	s->run[s->nruns++] = (struct snap_run){ .page = page, .region = (uint32_t)region,
		.folio = (uint32_t)folio, .fpage = (uint32_t)fpage, .len = 1,
		.pmd = level == FSIM_LEVEL_PMD };
	if (s->folio[folio].runs < 255)
		s->folio[folio].runs++;
	return 0;
}

uint64_t fsim_snapshot_kpagecount(const struct fsim_snapshot *s, size_t folio,
				  unsigned long fpage)
{
	if (!s || folio >= s->nfolios || fpage >= (1ul << s->folio[folio].order) ||
	    s->folio[folio].count == NO_COUNT)
		return 0;
	return s->counts[s->folio[folio].count + fpage];
}

size_t fsim_snapshot_bytes(const struct fsim_snapshot *s)
{
	if (!s)
		return 0;
	return sizeof(*s) + s->cap_folios * sizeof(*s->folio) +
	       s->cap_counts * sizeof(*s->counts) + s->cap_regions * sizeof(*s->region) +
	       s->cap_runs * sizeof(*s->run);
}

size_t fsim_snapshot_regions(const struct fsim_snapshot *s)
{
	return s ? s->nregions : 0;
}

/* ------------------------------------------------------------------ */
/* The replay                                                          */
/* ------------------------------------------------------------------ */

/* One mapping of the folio being replayed: @len pages from @page of
 * @region map its pages from @fpage (a PMD: the whole folio). */
struct mapping {
	uint64_t page;
	uint32_t region, fpage, len;
	bool pmd;
};

/* What a region has read so far. */
struct region_acc {
	struct fsim_smaps raw;
	uint64_t kpagecount_sum, exclusive_pages, history_pages;
};

/*
 * Order-0 folios are most of a system's folios, and the replay of one
 * mapped by up to SHAPE_MAPPINGS PTEs in distinct regions depends only on
 * its shape: what the snapshot records of the folio (kind, kpagecount,
 * whether that is per page), how many map it and which of them belong to
 * the faulting process (a small folio has no MM-id slots, so which other
 * processes they are does not matter).  Each shape is replayed once per
 * prediction and its figures added again for the next folio of that
 * shape.  Direct mapped: a collision only costs a replay.
 */
#define SHAPE_SLOTS 256
#define SHAPE_MAPPINGS 4

struct shape {
	uint32_t count;		/* kpagecount of page 0, or NO_COUNT */
	uint8_t kind, precise;
	uint8_t nm;		/* mappings */
	uint8_t by_first;	/* bit j: mapping j is the faulting process's */
};

struct shape_memo {
	bool valid;
	struct shape shape;
	struct region_acc delta[SHAPE_MAPPINGS];	/* per mapping's region */
	struct fsim_snapshot_notes notes;
};

struct replay {
	const struct fsim_snapshot *s;
	struct shape_memo *memo;	/* SHAPE_SLOTS */
	struct fsim_ctx *ctx;
	struct fsim_mm **mm;	/* per process, then [nprocs]: the others */
	struct region_acc *acc;	/* per region */
	struct fsim_snapshot_notes *notes;
	struct mapping *m;	/* the current folio's mappings */
	size_t nm, cap_m;
	unsigned long *seen, *mine;	/* per page of the current folio */
};

static struct fsim_mm *mm_of(const struct replay *rp, uint32_t region)
{
	return rp->mm[rp->s->region[region].proc];
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
static bool mapped_elsewhere(const struct fsim_snapshot *s, const struct snap_folio *sf,
			     const unsigned long *seen)
{
	unsigned long i;

	if (sf->count == NO_COUNT || !sf->precise)
		return false;
	for (i = 0; i < (1ul << sf->order); i++)
		if (s->counts[sf->count + i] > seen[i])
			return true;
	return false;
}

/* smaps_pte_range() over the folio's mappings, into their regions. */
static void account_folio(struct replay *rp, const struct fsim_folio *f, bool history)
{
	size_t i;
	uint32_t k;

	for (i = 0; i < rp->nm; i++) {
		const struct mapping *m = &rp->m[i];
		struct region_acc *a = &rp->acc[m->region];

		for (k = 0; k < m->len; k++) {
			a->kpagecount_sum += fsim_kpagecount(f, m->fpage + k);
			a->exclusive_pages += fsim_pagemap_exclusive(f, m->fpage + k);
			if (!m->pmd)
				fsim_smaps_account(f, FSIM_LEVEL_PTE, m->fpage + k, false, &a->raw);
		}
		if (m->pmd)
			fsim_smaps_account(f, FSIM_LEVEL_PMD, 0, false, &a->raw);
		if (history)
			a->history_pages += m->len;
	}
}

/* The fault, the observed mappings, the other address spaces' mappings. */
static void map_folio(struct replay *rp, const struct snap_folio *sf, struct fsim_folio *f,
		      bool one_mm, bool first_pmd, bool elsewhere)
{
	const unsigned long nr = 1ul << sf->order;
	const bool pmd_order = sf->order == rp->s->arch.pmd_order;
	struct fsim_mm *first = mm_of(rp, rp->m[0].region);
	unsigned long i;
	size_t j;

	if (sf->kind == FSIM_KIND_ANON &&	/* exclusive only if nobody else maps it */
	    fsim_folio_add_new_anon_rmap(f, first, one_mm && !elsewhere))
		rp->notes->refused++;
	/* every observed mapping but the fault's own (the first mm's PMD, or
	 * the first mm's PTEs of a smaller folio) */
	for (j = 0; j < rp->nm; j++) {
		const struct mapping *m = &rp->m[j];
		struct fsim_mm *mm = mm_of(rp, m->region);

		if (sf->kind == FSIM_KIND_ANON && mm == first && (!pmd_order || m->pmd)) {
			rp->notes->mappings++;	/* the fault made it */
			continue;
		}
		if (add_rmap(f, mm, m->pmd ? FSIM_LEVEL_PMD : FSIM_LEVEL_PTE,
			     m->pmd ? 0 : m->fpage, m->pmd ? nr : m->len))
			rp->notes->refused++;
		else
			rp->notes->mappings++;
	}
	/* the fault's mapping the first mm no longer has */
	if (sf->kind == FSIM_KIND_ANON && pmd_order && !first_pmd &&
	    fsim_folio_remove_rmap(f, first, FSIM_LEVEL_PMD, 0, nr))
		rp->notes->refused++;
	for (i = 0; sf->kind == FSIM_KIND_ANON && !pmd_order && i < nr; i++)
		if (!rp->mine[i] && fsim_folio_remove_rmap(f, first, FSIM_LEVEL_PTE, i, 1))
			rp->notes->refused++;
	/* what the kernel counts beyond the snapshot: other address spaces */
	for (i = 0; elsewhere && i < nr; i++)
		for (uint64_t c = rp->seen[i]; c < rp->s->counts[sf->count + i]; c++)
			if (add_rmap(f, rp->mm[rp->s->nprocs], FSIM_LEVEL_PTE, i, 1))
				rp->notes->refused++;
}

/* Replays folio @k with the mappings rp->m[0 .. nm-1] (sorted by region,
 * level, page), accounts them, and drops the folio: the model holds one
 * folio at a time. */
static int replay_one(struct replay *rp, size_t k)
{
	const struct snap_folio *sf = &rp->s->folio[k];
	const unsigned long nr = 1ul << sf->order;
	struct fsim_mm *first = mm_of(rp, rp->m[0].region);
	bool one_mm = true, first_pmd = false, elsewhere, history;
	struct fsim_folio *f;
	size_t i;
	uint32_t p;

	if (fsim_folio_create(rp->ctx, sf->order, sf->kind, &f))
		return -ENOMEM;
	memset(rp->seen, 0, nr * sizeof(*rp->seen));
	memset(rp->mine, 0, nr * sizeof(*rp->mine));
	for (i = 0; i < rp->nm; i++) {
		const bool by_first = mm_of(rp, rp->m[i].region) == first;

		one_mm &= by_first;
		first_pmd |= by_first && rp->m[i].pmd;
		for (p = 0; p < rp->m[i].len; p++) {
			rp->seen[rp->m[i].fpage + p]++;
			rp->mine[rp->m[i].fpage + p] += by_first;
		}
	}
	elsewhere = mapped_elsewhere(rp->s, sf, rp->seen);
	/* base and rfc read a large anon folio one process maps as shared
	 * if an earlier sharer left the MM-id shared bit set: /proc cannot say */
	history = sf->kind == FSIM_KIND_ANON && one_mm && !elsewhere && sf->order > 0;
	rp->notes->folios++;
	rp->notes->folios_shared_elsewhere += elsewhere;
	rp->notes->folios_history_dependent += history;
	map_folio(rp, sf, f, one_mm, first_pmd, elsewhere);
	account_folio(rp, f, history && fsim_mode_has(fsim_ctx_mode(rp->ctx), FSIM_HAS_MM_SLOTS));
	folio_discard(f);
	return 0;
}

/* @to += @sign * @from, counter by counter: struct fsim_smaps, region_acc
 * and fsim_snapshot_notes are nothing but uint64_t counters (byte copies
 * keep it well defined without naming each field). */
static void add_counters(void *to, const void *from, size_t size, int sign)
{
	uint64_t a, b;
	size_t i;

	for (i = 0; i + sizeof(a) <= size; i += sizeof(a)) {
		memcpy(&a, (char *)to + i, sizeof(a));
		memcpy(&b, (const char *)from + i, sizeof(b));
		a = sign > 0 ? a + b : a - b;
		memcpy((char *)to + i, &a, sizeof(a));
	}
}

_Static_assert(sizeof(struct region_acc) % sizeof(uint64_t) == 0, "region_acc: counters");
_Static_assert(sizeof(struct fsim_snapshot_notes) % sizeof(uint64_t) == 0,
	       "fsim_snapshot_notes: counters");

/* The memo slot of folio @sf if its replay depends only on its shape
 * (filled into @sh). */
static struct shape_memo *shape_slot(const struct replay *rp, const struct snap_folio *sf,
				     struct shape *sh)
{
	const struct fsim_mm *first = mm_of(rp, rp->m[0].region);
	size_t i, j;

	if (sf->order != 0 || rp->nm > SHAPE_MAPPINGS)
		return NULL;
	memset(sh, 0, sizeof(*sh));	/* compared with memcmp() */
	for (i = 0; i < rp->nm; i++) {
		for (j = 0; j < i; j++)
			if (rp->m[j].region == rp->m[i].region)
				return NULL;	/* one region's delta would count twice */
		if (mm_of(rp, rp->m[i].region) == first)
			sh->by_first |= (uint8_t)(1u << i);
	}
	sh->count = sf->count == NO_COUNT ? NO_COUNT : rp->s->counts[sf->count];
	sh->kind = sf->kind;
	sh->precise = sf->precise;
	sh->nm = (uint8_t)rp->nm;
	return &rp->memo[(sh->count * 31u + sh->kind * 7u + sh->precise * 3u +
			  sh->nm * 101u + sh->by_first * 409u) % SHAPE_SLOTS];
}

/* replay_one(), or the figures of an earlier folio of the same shape. */
static int replay_folio(struct replay *rp, size_t k)
{
	struct region_acc before[SHAPE_MAPPINGS];
	struct fsim_snapshot_notes before_notes;
	struct shape_memo *slot;
	struct shape sh;
	size_t j;
	int err;

	slot = shape_slot(rp, &rp->s->folio[k], &sh);
	if (slot && slot->valid && !memcmp(&slot->shape, &sh, sizeof(sh))) {
		for (j = 0; j < rp->nm; j++)
			add_counters(&rp->acc[rp->m[j].region], &slot->delta[j],
				     sizeof(slot->delta[j]), 1);
		add_counters(rp->notes, &slot->notes, sizeof(*rp->notes), 1);
		return 0;
	}
	for (j = 0; slot && j < rp->nm; j++)
		before[j] = rp->acc[rp->m[j].region];
	before_notes = *rp->notes;
	err = replay_one(rp, k);
	if (err || !slot)
		return err;
	for (j = 0; j < rp->nm; j++) {
		slot->delta[j] = rp->acc[rp->m[j].region];
		add_counters(&slot->delta[j], &before[j], sizeof(before[j]), -1);
	}
	slot->notes = *rp->notes;
	add_counters(&slot->notes, &before_notes, sizeof(before_notes), -1);
	slot->shape = sh;
	slot->valid = true;
	return 0;
}

/* A mapping reference: run @run, page @off of it (a step run's page maps
 * its own folio) or the whole run (@off = UINT32_MAX). */
struct ref {
	uint32_t run, off;
};

static uint32_t ref_folio(const struct fsim_snapshot *s, struct ref r)
{
	const struct snap_run *run = &s->run[r.run];

	return run->step ? run->folio + r.off : run->folio;
}

static bool push_mapping(struct replay *rp, const struct snap_run *run, uint32_t off)
{
	struct mapping *m;

	if (!grow((void **)&rp->m, &rp->cap_m, rp->nm, 1, sizeof(*rp->m)))
		return false;
	m = &rp->m[rp->nm++];
	m->region = run->region;
	m->pmd = run->pmd;
	if (run->step) {
		m->page = run->page + off;
		m->fpage = 0;
		m->len = 1;
	} else {
		m->page = run->page;
		m->fpage = run->fpage;
		m->len = run->len;
	}
	return true;
}

/* Calls @fn for every mapping of a folio mapped by more than one run, in
 * reading order. */
static void each_shared_ref(const struct fsim_snapshot *s,
			    void (*fn)(uint32_t folio, struct ref r, void *arg), void *arg)
{
	size_t i;
	uint32_t k;

	for (i = 0; i < s->nruns; i++) {
		const struct snap_run *run = &s->run[i];

		for (k = 0; k < (run->step ? run->len : 1); k++) {
			const uint32_t folio = run->step ? run->folio + k : run->folio;

			if (s->folio[folio].runs >= 2)
				fn(folio, (struct ref){ (uint32_t)i, run->step ? k : UINT32_MAX },
				   arg);
		}
	}
}

struct bucket_fill {
	uint32_t *next;		/* per folio: where its next reference goes */
	struct ref *v;
	size_t n;
};

static void count_ref(uint32_t folio, struct ref r, void *arg)
{
	struct bucket_fill *b = arg;

	(void)r;
	b->next[folio]++;
	b->n++;
}

static void place_ref(uint32_t folio, struct ref r, void *arg)
{
	struct bucket_fill *b = arg;

	b->v[b->next[folio]++] = r;
}

/*
 * The references of every mapping of a folio mapped by more than one run,
 * grouped by folio and in reading order within it (the first run's
 * process faulted it); the others are replayed on their own.  A counting
 * sort: 8 bytes a reference and 4 a folio, no sort buffer (the largest
 * allocations of a replay).
 */
static struct ref *shared_refs(const struct fsim_snapshot *s, size_t *n)
{
	struct bucket_fill b = { calloc(s->nfolios + 1, sizeof(*b.next)), NULL, 0 };
	uint32_t sum = 0, c;
	size_t f;

	if (!b.next)
		return NULL;
	each_shared_ref(s, count_ref, &b);
	for (f = 0; f < s->nfolios; f++) {	/* counts into starts */
		c = b.next[f];
		b.next[f] = sum;
		sum += c;
	}
	b.v = malloc(b.n ? b.n * sizeof(*b.v) : 1);
	if (b.v)
		each_shared_ref(s, place_ref, &b);
	free(b.next);
	*n = b.n;
	return b.v;
}

static int replay_all(struct replay *rp)
{
	const struct fsim_snapshot *s = rp->s;
	size_t n, i, j;
	struct ref *v;
	uint32_t k;
	int err = 0;

	/* folios one run maps: straight from the runs */
	for (i = 0; !err && i < s->nruns; i++) {
		const struct snap_run *run = &s->run[i];

		for (k = 0; !err && k < (run->step ? run->len : 1); k++) {
			const uint32_t folio = run->step ? run->folio + k : run->folio;

			if (s->folio[folio].runs >= 2)
				continue;
			rp->nm = 0;
			err = push_mapping(rp, run, k) ? replay_folio(rp, folio) : -ENOMEM;
		}
	}
	v = err ? NULL : shared_refs(s, &n);
	if (!v)
		return err ? err : -ENOMEM;
	for (i = 0; !err && i < n; i = j) {
		const uint32_t folio = ref_folio(s, v[i]);

		rp->nm = 0;
		for (j = i; !err && j < n && ref_folio(s, v[j]) == folio; j++)
			if (!push_mapping(rp, &s->run[v[j].run], v[j].off))
				err = -ENOMEM;
		if (!err)
			err = replay_folio(rp, folio);
	}
	free(v);
	return err;
}

static void region_values(const struct region_acc *a, struct fsim_snapshot_values *out)
{
	memset(out, 0, sizeof(*out));
	smaps_kb_add(&out->kb, &a->raw);
	out->kb.vmas = 1;
	out->kpagecount_sum = a->kpagecount_sum;
	out->exclusive_pages = a->exclusive_pages;
	out->history_pages = a->history_pages;
}

int fsim_snapshot_predict(const struct fsim_snapshot *s, enum fsim_mode mode,
			  struct fsim_snapshot_values *out,
			  struct fsim_snapshot_notes *notes)
{
	const unsigned long max_nr = 1ul << (s ? s->arch.pud_order : 0);
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
	rp.acc = calloc(s->nregions + 1, sizeof(*rp.acc));
	rp.seen = calloc(max_nr, sizeof(*rp.seen));
	rp.mine = calloc(max_nr, sizeof(*rp.mine));
	rp.memo = calloc(SHAPE_SLOTS, sizeof(*rp.memo));
	err = rp.mm && rp.acc && rp.seen && rp.mine && rp.memo ? 0 : -ENOMEM;
	for (i = 0; !err && i <= s->nprocs; i++)
		err = fsim_mm_create(rp.ctx, 0, &rp.mm[i]);
	if (!err)
		err = replay_all(&rp);
	for (i = 0; !err && i < s->nregions; i++)
		region_values(&rp.acc[i], &out[i]);
	free(rp.mm);
	free(rp.acc);
	free(rp.seen);
	free(rp.mine);
	free(rp.memo);
	free(rp.m);
	fsim_ctx_destroy(rp.ctx);
	return err;
}
