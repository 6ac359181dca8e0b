// SPDX-License-Identifier: MIT
/*
 * The contention benchmark (issue 15): T threads (1, 2, 4), each in its own
 * mm, add and remove one PTE of their own page of one shared order-9 file
 * folio (fsim_ctx_set_concurrent()), against T threads running the floor
 * pair (bench.h) on one shared lock word.  Throughput is pairs per wall
 * second over all threads; a figure is the model's throughput divided by
 * the floor's at the same T (higher is better; issue 15's target at T=2:
 * >= 0.8).
 *
 *   bench_threads [--rounds R] [--quick] [--mode legacy|base|rfc]
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "foliosim/foliosim.h"

#define MAX_THREADS 4

struct shared {
	bool floor;
	struct bench_floor fl;
	struct fsim_folio *folio;
	struct fsim_mm *mm[MAX_THREADS];
	_Atomic bool stop;
	_Atomic unsigned int ready;
	_Atomic bool go;
};

struct worker {
	struct shared *sh;
	unsigned int index;
	unsigned long pairs;
	int err;
};

static void *run_worker(void *arg)
{
	struct worker *w = arg;
	struct shared *sh = w->sh;
	const unsigned long page = w->index;

	atomic_fetch_add(&sh->ready, 1);
	while (!atomic_load(&sh->go))
		;
	while (!atomic_load_explicit(&sh->stop, memory_order_relaxed)) {
		if (sh->floor) {
			bench_floor_pair(&sh->fl);
		} else {
			w->err = fsim_folio_add_file_rmap(sh->folio, sh->mm[w->index],
							  FSIM_LEVEL_PTE, page, 1);
			if (!w->err)
				w->err = fsim_folio_remove_rmap(sh->folio, sh->mm[w->index],
								FSIM_LEVEL_PTE, page, 1);
			if (w->err)
				break;
		}
		w->pairs++;
	}
	return NULL;
}

/* Pairs per second of @threads threads over @ns of wall time. */
static double measure(struct shared *sh, unsigned int threads, double ns)
{
	struct worker w[MAX_THREADS];
	pthread_t tid[MAX_THREADS];
	struct timespec pause = { (time_t)(ns / 1e9), (long)((long long)ns % 1000000000) };
	unsigned long total = 0;
	double t0, t1;
	unsigned int i;

	atomic_store(&sh->stop, false);
	atomic_store(&sh->ready, 0);
	atomic_store(&sh->go, false);
	for (i = 0; i < threads; i++) {
		w[i] = (struct worker){ .sh = sh, .index = i };
		if (pthread_create(&tid[i], NULL, run_worker, &w[i]))
			bench_die("pthread_create", -1);
	}
	while (atomic_load(&sh->ready) < threads)
		;
	t0 = bench_wall_ns();
	atomic_store(&sh->go, true);
	nanosleep(&pause, NULL);
	atomic_store(&sh->stop, true);
	for (i = 0; i < threads; i++) {
		pthread_join(tid[i], NULL);
		if (w[i].err)
			bench_die("rmap call in a worker", w[i].err);
		total += w[i].pairs;
	}
	t1 = bench_wall_ns();
	return (double)total / ((t1 - t0) / 1e9);
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: bench_threads [--rounds R] [--quick] [--mode legacy|base|rfc]\n"
		"  1, 2 and 4 threads adding and removing PTEs of one folio (each its\n"
		"  own mm and page) against the floor pair on one lock, in pairs per\n"
		"  second.  --rounds R (default 9), --quick: 20 ms per measurement\n"
		"  instead of 200, --mode (default rfc).\n");
}

int main(int argc, char **argv)
{
	static const unsigned int nthreads[] = { 1, 2, MAX_THREADS };
	struct bench_series model_s[3], floor_s[3];
	enum fsim_mode mode = FSIM_MODE_RFC;
	unsigned int rounds = 9, r, t;
	double ns = 200e6;
	struct shared sh;
	struct fsim_ctx *ctx;
	int a;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--rounds") && a + 1 < argc) {
			rounds = (unsigned int)strtoul(argv[++a], NULL, 10);
		} else if (!strcmp(argv[a], "--quick")) {
			ns = 20e6;
		} else if (!strcmp(argv[a], "--mode") && a + 1 < argc) {
			if (fsim_mode_from_name(argv[++a], &mode)) {
				fprintf(stderr, "bench_threads: unknown mode '%s'\n", argv[a]);
				return 2;
			}
		} else if (!strcmp(argv[a], "-h") || !strcmp(argv[a], "--help")) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (rounds < 1 || rounds > BENCH_MAX_ROUNDS) {
		fprintf(stderr, "bench_threads: --rounds must be 1..%d\n", BENCH_MAX_ROUNDS);
		return 2;
	}
	memset(&sh, 0, sizeof(sh));
	memset(model_s, 0, sizeof(model_s));
	memset(floor_s, 0, sizeof(floor_s));
	if (fsim_ctx_create(mode, NULL, &ctx) ||
	    fsim_folio_create(ctx, 9, FSIM_KIND_FILE, &sh.folio))
		bench_die("setup", -1);
	fsim_ctx_set_concurrent(ctx, true);
	for (t = 0; t < MAX_THREADS; t++)
		if (fsim_mm_create(ctx, 0, &sh.mm[t]))
			bench_die("mm_create", -1);
	for (r = 0; r < rounds; r++) {
		for (t = 0; t < 3; t++) {
			sh.floor = true;
			bench_series_add(&floor_s[t], measure(&sh, nthreads[t], ns));
			sh.floor = false;
			bench_series_add(&model_s[t], measure(&sh, nthreads[t], ns));
		}
	}
	for (t = 0; t < 3; t++) {
		char name[64], a_label[64], b_label[32];
		struct bench_figure f = {
			.bench = "threads", .name = name, .unit = "pairs/s",
			.a_label = a_label, .b_label = b_label,
			.a = &model_s[t], .b = &floor_s[t],
			.target = nthreads[t] == 2 ? 0.8 : 0, .at_most = false,
		};

		snprintf(name, sizeof(name), "%s %u threads / floor", fsim_mode_name(mode),
			 nthreads[t]);
		snprintf(a_label, sizeof(a_label), "%s x%u", fsim_mode_name(mode), nthreads[t]);
		snprintf(b_label, sizeof(b_label), "floor x%u", nthreads[t]);
		bench_report(&f);
	}
	fsim_ctx_destroy(ctx);
	return 0;
}
