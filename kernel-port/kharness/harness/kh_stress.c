// SPDX-License-Identifier: GPL-2.0
/*
 * kh-stress: threads mapping and unmapping one folio through the tree's
 * own mm/rmap.c at once, the model's oracle checking at quiescent points.
 *
 *   kh-stress [--threads N] [--rounds N] [--ops N] [--seed S]
 *
 * Each round: every thread (its own mm) makes --ops random adds of PTE
 * ranges (and, in trees with arbitrary mappings or for a PMD-sized folio,
 * PMD entries) of one order-9 anon folio that a base mm maps throughout,
 * concurrently with the others; at the barrier the main thread replays
 * every thread's adds in the model, serially, and compares what does not
 * depend on the order the threads took the folio's lock in: the mapcount,
 * the total of mapped pages, every page's precise mapcount, kpagecount and
 * numa_maps count where the tree has per-page mapcounts, the node
 * statistics.  Then the threads remove their mappings concurrently, and
 * the folio must be back where it started, in both.  A difference aborts
 * naming the round and the value.
 *
 * What it shows: the tree's atomics and its large-mapcount bit spinlock
 * keep the counters exact under contention (here as real locked x86
 * instructions; ThreadSanitizer cannot see them without an overlay of the
 * tree's atomics, which kharness does not have yet).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kh_harness.h"

#define MAX_THREADS 8
#define MAX_OPS 4096

struct op {
	int level;
	unsigned long page, nr;
};

struct worker {
	struct kh_folio *kf;
	struct kh_mm *kmm;
	unsigned int ops, id;
	uint64_t rng;
	struct op op[MAX_OPS];
	pthread_barrier_t *bar;
	unsigned int rounds;
};

static unsigned int pmd_nr;

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	unsigned int r, i;

	for (r = 0; r < w->rounds; r++) {
		for (i = 0; i < w->ops; i++) {
			struct op *o = &w->op[i];

			if (next(&w->rng) % 8 == 0) {
				o->level = KH_LEVEL_PMD;
				o->page = 0;
				o->nr = pmd_nr;
			} else {
				o->level = KH_LEVEL_PTE;
				o->page = next(&w->rng) % pmd_nr;
				o->nr = 1 + next(&w->rng) % (pmd_nr - o->page < 32 ?
							     pmd_nr - o->page : 32);
			}
			kh_add_anon(w->kf, w->kmm, o->level, o->page, o->nr, false);
		}
		pthread_barrier_wait(w->bar);	/* added: main compares */
		pthread_barrier_wait(w->bar);	/* compared: remove */
		for (i = 0; i < w->ops; i++)
			kh_remove(w->kf, w->kmm, w->op[i].level, w->op[i].page, w->op[i].nr);
		pthread_barrier_wait(w->bar);	/* removed: main compares */
		pthread_barrier_wait(w->bar);	/* next round */
	}
	return NULL;
}

static void compare(const char *when, unsigned int round, struct fsim_ctx *ctx,
		    struct fsim_folio *f, struct kh_folio *kf)
{
	struct kh_folio_state k;
	unsigned long p;
	char why[256];
	int64_t total;

	kh_folio_state(kf, &k);
	total = k.total_mapped_pages >= 0 ? k.total_mapped_pages :
		(int64_t)k.large_mapcount - k.entire_mapcount +
		(int64_t)k.entire_mapcount * (int64_t)fsim_folio_nr_pages(f);
	if (k.mapcount != fsim_folio_mapcount(f) ||
	    total != (int64_t)fsim_folio_total_mapped_pages(f)) {
		fprintf(stderr, "kh-stress: round %u, %s: mapcount model %d kernel %d, total "
			"model %llu kernel %lld\n", round, when, fsim_folio_mapcount(f), k.mapcount,
			(unsigned long long)fsim_folio_total_mapped_pages(f), (long long)total);
		abort();
	}
	for (p = 0; p < fsim_folio_nr_pages(f); p++) {
		struct fsim_page_info mp;
		struct kh_page_state kp;

		fsim_folio_page_info(f, p, &mp);
		kh_page_state(kf, p, &kp);
		if (kp.mapcount != mp.precise_mapcount || kp.kpagecount != mp.kpagecount ||
		    kp.mapmax != mp.numa_mapmax) {
			fprintf(stderr, "kh-stress: round %u, %s: page %lu: mapcount model %d "
				"kernel %d, kpagecount %llu/%llu\n", round, when, p,
				mp.precise_mapcount, kp.mapcount,
				(unsigned long long)mp.kpagecount, (unsigned long long)kp.kpagecount);
			abort();
		}
	}
	if (kh_compare_stats(ctx, why, sizeof(why))) {
		fprintf(stderr, "kh-stress: round %u, %s: %s\n", round, when, why);
		abort();
	}
	if (kh_events()->warnings || kh_events()->bugs) {
		fprintf(stderr, "kh-stress: round %u, %s: the kernel code warned at %s:%d\n",
			round, when, kh_events()->last.file, kh_events()->last.line);
		abort();
	}
}

int main(int argc, char **argv)
{
	unsigned int threads = 4, rounds = 50, ops = 256, i, r, j;
	unsigned long seed = 1;
	struct worker *w;
	pthread_t tid[MAX_THREADS];
	pthread_barrier_t bar;
	struct fsim_ctx *ctx;
	struct fsim_mm *base, *mm[MAX_THREADS];
	struct fsim_folio *f;
	struct kh_folio *kf;
	struct kh_mm *kbase;
	int a;

	for (a = 1; a + 1 < argc; a += 2) {
		if (!strcmp(argv[a], "--threads"))
			threads = (unsigned int)strtoul(argv[a + 1], NULL, 10);
		else if (!strcmp(argv[a], "--rounds"))
			rounds = (unsigned int)strtoul(argv[a + 1], NULL, 10);
		else if (!strcmp(argv[a], "--ops"))
			ops = (unsigned int)strtoul(argv[a + 1], NULL, 10);
		else if (!strcmp(argv[a], "--seed"))
			seed = strtoul(argv[a + 1], NULL, 10);
		else
			break;
	}
	if (a < argc || !threads || threads > MAX_THREADS || !ops || ops > MAX_OPS) {
		fprintf(stderr, "usage: kh-stress [--threads 1..%d] [--rounds N] [--ops 1..%d] "
			"[--seed S]\n", MAX_THREADS, MAX_OPS);
		return 2;
	}
	if (kh_init() || fsim_ctx_create(kh_tree_mode(), NULL, &ctx))
		return 2;
	fsim_ctx_set_concurrent(ctx, false);
	kh_set_detect(false);	/* the model's context runs without the part */
	pmd_nr = 1u << kh_tree()->pmd_order;
	kh_compare_baseline(ctx);
	if (fsim_mm_create(ctx, 0, &base) ||
	    fsim_folio_create(ctx, kh_tree()->pmd_order, FSIM_KIND_ANON, &f) ||
	    fsim_folio_add_new_anon_rmap(f, base, false))
		return 2;
	kf = kh_folio_alloc(kh_tree()->pmd_order, KH_KIND_ANON, false);
	kbase = kh_mm_create(fsim_mm_id(base));
	kh_add_new_anon(kf, kbase, false);
	w = calloc(threads, sizeof(*w));
	pthread_barrier_init(&bar, NULL, threads + 1);
	for (i = 0; i < threads; i++) {
		if (fsim_mm_create(ctx, 0, &mm[i]))
			return 2;
		w[i].kf = kf;
		w[i].kmm = kh_mm_create(fsim_mm_id(mm[i]));
		w[i].ops = ops;
		w[i].id = i;
		w[i].rng = seed * 0x9e3779b97f4a7c15ull + i + 1;
		w[i].bar = &bar;
		w[i].rounds = rounds;
		pthread_create(&tid[i], NULL, work, &w[i]);
	}
	for (r = 0; r < rounds; r++) {
		pthread_barrier_wait(&bar);	/* the threads' adds are done */
		for (i = 0; i < threads; i++)
			for (j = 0; j < ops; j++)
				if (fsim_folio_add_anon_rmap(f, mm[i], w[i].op[j].level,
							     w[i].op[j].page, w[i].op[j].nr, false)) {
					fprintf(stderr, "kh-stress: the model refuses thread %u's "
						"add %u: %s\n", i, j, fsim_last_refusal());
					return 1;
				}
		compare("after the adds", r, ctx, f, kf);
		pthread_barrier_wait(&bar);	/* go remove */
		pthread_barrier_wait(&bar);	/* removed */
		for (i = 0; i < threads; i++)
			for (j = 0; j < ops; j++)
				if (fsim_folio_remove_rmap(f, mm[i], w[i].op[j].level,
							   w[i].op[j].page, w[i].op[j].nr)) {
					fprintf(stderr, "kh-stress: the model refuses thread %u's "
						"removal %u\n", i, j);
					return 1;
				}
		compare("after the removals", r, ctx, f, kf);
		pthread_barrier_wait(&bar);
	}
	for (i = 0; i < threads; i++) {
		pthread_join(tid[i], NULL);
		kh_mm_destroy(w[i].kmm);
	}
	kh_remove(kf, kbase, fsim_folio_order(f) == kh_tree()->pmd_order ? KH_LEVEL_PMD :
		  KH_LEVEL_PTE, 0, fsim_folio_nr_pages(f));
	if (kh_folio_free(kf)) {
		fprintf(stderr, "kh-stress: the folio is still mapped after the last round\n");
		return 1;
	}
	kh_mm_destroy(kbase);
	pthread_barrier_destroy(&bar);
	free(w);
	fsim_ctx_destroy(ctx);
	printf("kh-stress: %u threads, %u rounds of %u adds and removals each on one "
	       "order-%u folio, compared at %u quiescent points: no difference (%s)\n",
	       threads, rounds, ops, kh_tree()->pmd_order, 2 * rounds, kh_tree_label());
	return 0;
}
