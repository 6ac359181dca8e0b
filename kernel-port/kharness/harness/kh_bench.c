// SPDX-License-Identifier: GPL-2.0
/*
 * kh-bench: what one rmap call costs in this tree's own mm/rmap.c.
 *
 *   kh-bench --list
 *   kh-bench --cell NAME [--reps N]
 *
 * A cell is a pair of calls that leaves the folio as it found it (an add
 * and its removal, a dup and the child's removal, a new-anon and the
 * removal of the whole folio), on one folio of one order, by 1, 2 or 4
 * threads at once (each its own mm, the same folio).  --cell prints
 * "NAME NS" (nanoseconds per pair, per thread: the wall time of the loop
 * divided by the pairs one thread made).  No model runs here: the kernel
 * code alone.  What the harness stubs out (memcg and lruvec statistics:
 * one atomic add per changed statistic; the deferred split queue's lock
 * only when a folio is queued) is in docs/kharness.md.  The ratios between
 * trees come from tests/bench/bench_kharness.sh, which runs the trees'
 * binaries interleaved and takes medians of rounds.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kh_harness.h"

enum cell_op { PAIR_ANON, PAIR_FILE, PAIR_DUP, PAIR_NEW_ANON };

struct cell {
	const char *name;
	enum cell_op op;
	unsigned int order;
	int level;
	unsigned long nr;
	unsigned int threads;
	unsigned int features;	/* KH_HAS_* the tree must have */
};

static const struct cell cells[] = {
	{ "anon-pte-o9-nr1", PAIR_ANON, 9, KH_LEVEL_PTE, 1, 1, 0 },
	{ "anon-pte-o9-nr16", PAIR_ANON, 9, KH_LEVEL_PTE, 16, 1, 0 },
	{ "anon-pte-o9-nr64", PAIR_ANON, 9, KH_LEVEL_PTE, 64, 1, 0 },
	{ "anon-pte-o9-nr512", PAIR_ANON, 9, KH_LEVEL_PTE, 512, 1, 0 },
	{ "anon-pmd-o9", PAIR_ANON, 9, KH_LEVEL_PMD, 512, 1, 0 },
	{ "anon-pte-o0", PAIR_ANON, 0, KH_LEVEL_PTE, 1, 1, 0 },
	{ "anon-pte-o4-nr16", PAIR_ANON, 4, KH_LEVEL_PTE, 16, 1, 0 },
	{ "file-pte-o9-nr1", PAIR_FILE, 9, KH_LEVEL_PTE, 1, 1, 0 },
	{ "file-pte-o9-nr512", PAIR_FILE, 9, KH_LEVEL_PTE, 512, 1, 0 },
	{ "file-pmd-o9", PAIR_FILE, 9, KH_LEVEL_PMD, 512, 1, 0 },
	{ "file-pud-o18", PAIR_FILE, 18, KH_LEVEL_PUD, 262144, 1, KH_HAS_PUD_RMAP },
	{ "dup-pte-o9-nr512", PAIR_DUP, 9, KH_LEVEL_PTE, 512, 1, 0 },
	{ "dup-pmd-o9", PAIR_DUP, 9, KH_LEVEL_PMD, 512, 1, 0 },
	{ "new-anon-o9", PAIR_NEW_ANON, 9, KH_LEVEL_PMD, 512, 1, 0 },
	{ "new-anon-o4", PAIR_NEW_ANON, 4, KH_LEVEL_PTE, 16, 1, 0 },
	{ "anon-pte-o9-nr1-2threads", PAIR_ANON, 9, KH_LEVEL_PTE, 1, 2, 0 },
	{ "anon-pte-o9-nr1-4threads", PAIR_ANON, 9, KH_LEVEL_PTE, 1, 4, 0 },
	{ "file-pte-o9-nr16-2threads", PAIR_FILE, 9, KH_LEVEL_PTE, 16, 2, 0 },
	{ "file-pte-o9-nr16-4threads", PAIR_FILE, 9, KH_LEVEL_PTE, 16, 4, 0 },
};
#define NCELLS (sizeof(cells) / sizeof(cells[0]))

struct worker {
	const struct cell *c;
	struct kh_folio *f;
	struct kh_mm *mm, *src;
	unsigned long reps, page;
	pthread_barrier_t *start;
	double t0, t1;		/* the worker's own clock: the main thread may
				 * run late after the barrier */
};

static double now_ns(void);

static void *work(void *arg)
{
	struct worker *w = arg;
	const struct cell *c = w->c;
	unsigned long i;

	pthread_barrier_wait(w->start);
	w->t0 = now_ns();
	for (i = 0; i < w->reps; i++) {
		switch (c->op) {
		case PAIR_ANON:
			kh_add_anon(w->f, w->mm, c->level, w->page, c->nr, false);
			kh_remove(w->f, w->mm, c->level, w->page, c->nr);
			break;
		case PAIR_FILE:
			kh_add_file(w->f, w->mm, c->level, w->page, c->nr);
			kh_remove(w->f, w->mm, c->level, w->page, c->nr);
			break;
		case PAIR_DUP:
			kh_dup(w->f, w->mm, w->src, c->level, w->page, c->nr);
			kh_remove(w->f, w->mm, c->level, w->page, c->nr);
			break;
		case PAIR_NEW_ANON:
			break;	/* serial only: main() */
		}
	}
	w->t1 = now_ns();
	return NULL;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int run_cell(const struct cell *c, unsigned long reps)
{
	const int kind = c->op == PAIR_FILE ? KH_KIND_FILE : KH_KIND_ANON;
	struct worker w[4];
	pthread_t tid[4];
	pthread_barrier_t start;
	struct kh_folio *f;
	struct kh_mm *base, *src;
	double t0, t1;
	unsigned int i;
	unsigned long r;

	if ((kh_tree()->features & c->features) != c->features) {
		printf("%s n/a\n", c->name);
		return 0;
	}
	base = kh_mm_create(1);
	if (c->op == PAIR_NEW_ANON) {
		/* a fresh folio per pair is the allocation's cost, not rmap's:
		 * one folio, new-anon, then the removal that unmaps it all and
		 * lets the next new-anon treat it as new again */
		f = kh_folio_alloc(c->order, kind, false);
		if (!f)
			return -ENOMEM;
		t0 = now_ns();
		for (r = 0; r < reps; r++) {
			kh_add_new_anon(f, base, true);
			kh_remove(f, base, c->level, 0, c->nr);
		}
		t1 = now_ns();
		printf("%s %.1f\n", c->name, (t1 - t0) / (double)reps);
		kh_mm_destroy(base);
		return kh_events()->warnings ? -EIO : 0;
	}
	f = kh_folio_alloc(c->order, kind, false);
	if (!f)
		return -ENOMEM;
	/* A mapping that stays, not exclusive (so that the adds of the cell
	 * map no AnonExclusive page twice: the kernel warns about that). */
	if (kind == KH_KIND_ANON)
		kh_add_new_anon(f, base, false);
	else
		kh_add_file(f, base, KH_LEVEL_PTE, 0, 1UL << c->order);
	/* a dup copies the source's entries of its level: PTEs of a source
	 * that maps the folio by PTEs (as after a split), or the base's PMD */
	src = base;
	if (c->op == PAIR_DUP && c->level == KH_LEVEL_PTE) {
		src = kh_mm_create(9);
		kh_add_anon(f, src, KH_LEVEL_PTE, 0, 1UL << c->order, false);
	}
	pthread_barrier_init(&start, NULL, c->threads + 1);
	for (i = 0; i < c->threads; i++) {
		w[i] = (struct worker){ c, f, kh_mm_create(2 + i), base, reps,
					c->level == KH_LEVEL_PTE ? (i * c->nr) % (1UL << c->order) : 0,
					&start, 0, 0 };
		if (c->op == PAIR_DUP)
			w[i].src = src;
		pthread_create(&tid[i], NULL, work, &w[i]);
	}
	pthread_barrier_wait(&start);
	for (i = 0; i < c->threads; i++)
		pthread_join(tid[i], NULL);
	/* from the first thread's start to the last one's end */
	t0 = w[0].t0;
	t1 = w[0].t1;
	for (i = 1; i < c->threads; i++) {
		t0 = w[i].t0 < t0 ? w[i].t0 : t0;
		t1 = w[i].t1 > t1 ? w[i].t1 : t1;
	}
	printf("%s %.1f\n", c->name, (t1 - t0) / (double)reps);
	/* the folio stays mapped: its struct pages are the harness's map,
	 * not the heap */
	for (i = 0; i < c->threads; i++)
		kh_mm_destroy(w[i].mm);
	if (src != base)
		kh_mm_destroy(src);
	kh_mm_destroy(base);
	pthread_barrier_destroy(&start);
	return kh_events()->warnings ? -EIO : 0;
}

int main(int argc, char **argv)
{
	const char *name = NULL;
	unsigned long reps = 100000;
	size_t i;
	int a;

	if (kh_init())
		return 2;
	kh_report_quiet(false);
	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--list")) {
			for (i = 0; i < NCELLS; i++)
				printf("%s\n", cells[i].name);
			return 0;
		} else if (!strcmp(argv[a], "--cell") && a + 1 < argc) {
			name = argv[++a];
		} else if (!strcmp(argv[a], "--reps") && a + 1 < argc) {
			reps = strtoul(argv[++a], NULL, 10);
		} else {
			fprintf(stderr, "usage: kh-bench --list | --cell NAME [--reps N]\n"
				"  (%s)\n", kh_tree_label());
			return !strcmp(argv[a], "-h") || !strcmp(argv[a], "--help") ? 0 : 2;
		}
	}
	if (!name || !reps) {
		fprintf(stderr, "kh-bench: --cell NAME (see --list)\n");
		return 2;
	}
	for (i = 0; i < NCELLS; i++)
		if (!strcmp(cells[i].name, name)) {
			int err = run_cell(&cells[i], reps);

			if (err) {
				fprintf(stderr, "kh-bench: %s: %s\n", name, err == -EIO ?
					"the kernel code warned" : "cannot set the cell up");
				return 1;
			}
			return 0;
		}
	fprintf(stderr, "kh-bench: no cell '%s' (see --list)\n", name);
	return 2;
}
