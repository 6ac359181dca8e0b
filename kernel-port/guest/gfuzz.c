// SPDX-License-Identifier: MIT
/*
 * gfuzz: differential fuzzing of the rmap accounting against a running
 * kernel (foliosim-guest --gfuzz STEPS [--gfuzz-seed SEED]).
 *
 * A seeded generator picks system calls for a few worker processes: mmap
 * of anonymous regions whose faults get folios of various orders, writes
 * and reads, fork, munmap, MADV_DONTNEED, mremap (keeping or breaking PMD
 * alignment) and exit.  After every step the controller reads each live
 * process's page tables for its regions, as user space can see them:
 *
 *   - /proc/PID/pagemap: the PFN of each present page, and bit 56;
 *   - PAGEMAP_SCAN with PAGE_IS_HUGE: which pages a PMD maps;
 *   - /proc/kpageflags: folio heads and tails (so each page's folio and
 *     order), the zeropage; /proc/kpagecount: what the kernel reports.
 *
 * It does not predict what the kernel does.  It derives the rmap calls that
 * must have happened from the difference between two observations (a new
 * folio: folio_add_new_anon_rmap(); a mapping in a new child: the fork's
 * folio_try_dup_anon_rmap_*(); any other new mapping: folio_add_anon_rmap_*();
 * a vanished one: folio_remove_rmap_*()), replays them into libfoliosim in
 * the kernel's accounting mode, runs the oracle check, and then compares
 * what the model says /proc must show with what the kernel showed:
 * kpagecount and bit 56 of every page, and Rss, Pss, Private, Shared and
 * AnonHugePages of every VMA in smaps.
 *
 * Output: progress every 1000 steps, each mismatch on one line (the first
 * in full, with the recent steps and the folio's model state), and
 * "gfuzz: N steps, M mismatches, ..." last.
 */
#define _GNU_SOURCE
#include "gfuzz.h"

/* ---------------------------------------------------------------- */
/* The run                                                           */
/* ---------------------------------------------------------------- */

/* Every mTHP size on madvise, so each region's MADV_HUGEPAGE decides;
 * nothing splits, collapses or reclaims behind the fuzzer's back. */
static void gf_knobs(void)
{
	thp_set_knobs(0x3fcu, 0);	/* orders 2..9 */
}

static void gf_teardown(struct gfuzz *g)
{
	int p;

	for (p = 0; p < g->nprocs; p++) {
		if (g->procs[p].live)
			gf_exit(g, &g->procs[p]);
		worker_fifos_remove(g->dir, g->procs[p].name);
	}
	rmdir(g->dir);
	fsim_ctx_destroy(g->ctx);
	free(g->folios.v);
	free(g->free_folios.v);
	free(g->prev.v);
	free(g->cur.v);
	free(g->adds.v);
	free(g->removes.v);
	free(g->pages.v);
	free(g->pfns.v);
	free(g->hash);
	free(g->smaps);
}

static void gf_summary(struct gfuzz *g, double secs)
{
	int k;

	printf("# gfuzz ops:");
	for (k = 0; k < OP_NR; k++)
		printf(" %s %lu%s", gf_op_names[k], g->ops[k], k + 1 < OP_NR ? "," : "\n");
	printf("# gfuzz ops the kernel refused or that had nothing to act on:");
	for (k = 0; k < OP_NR; k++)
		printf(" %s %lu%s", gf_op_names[k], g->refused[k], k + 1 < OP_NR ? "," : "\n");
	printf("# gfuzz mismatches by kind:");
	for (k = 0; k < MM_NR; k++)
		printf(" %s %ld%s", gf_what_names[k], g->by_what[k], k + 1 < MM_NR ? "," : "\n");
	printf("# gfuzz page comparisons: %llu of PMD-mapped pages, %llu of zeropage PTEs, %llu of "
	       "huge-zeropage PMDs\n", g->pmd_pages, g->zero_pages, g->huge_zero_pages);
	printf("# gfuzz: %llu rmap calls replayed, %llu folios seen, at most %llu pages mapped "
	       "at once, %.1f steps/s\n", g->rmap_calls, g->folios_seen, g->max_mapped_pages,
	       secs > 0 ? (double)g->step / secs : 0.0);
	printf("gfuzz: %lu steps, %ld mismatches (%s mode, seed %" PRIu64 "; %llu page and "
	       "%llu VMA comparisons)%s\n", g->step, g->mismatches, fsim_mode_name(g->mode),
	       g->seed, g->pages_checked, g->vmas_checked, g->fatal ? ", stopped by an error" : "");
}

long gfuzz_run(enum fsim_mode mode, unsigned long steps, uint64_t seed, bool verbose)
{
	static struct gfuzz g;
	struct timespec t0, t1;
	long result;
	int p;

	memset(&g, 0, sizeof(g));
	g.mode = mode;
	g.seed = g.rng = seed;
	g.verbose = verbose;
	g.fork_parent = g.fork_child = -1;
	snprintf(g.dir, sizeof(g.dir), "/tmp/gfz.XXXXXX");
	printf("# gfuzz: %lu steps, seed %" PRIu64 ", %s mode\n", steps, seed,
	       fsim_mode_name(mode));
	fflush(stdout);
	if (!mkdtemp(g.dir) || fsim_ctx_create(mode, NULL, &g.ctx) ||
	    fsim_folio_create(g.ctx, 0, FSIM_KIND_ANON, &g.zero) ||
	    fsim_folio_create(g.ctx, PMD_ORDER, FSIM_KIND_ANON, &g.huge_zero)) {
		printf("gfuzz: ERROR: cannot set up (%s)\n", strerror(errno));
		return -1;
	}
	gf_knobs();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (g.step = 1; g.step <= steps && !g.fatal; g.step++) {
		gf_random_step(&g);
		if (g.fatal || !gf_observe(&g))
			break;
		gf_replay(&g);
		gf_compare_pages(&g);
		for (p = 0; p < g.nprocs && !g.fatal; p++)
			if (g.procs[p].live)
				gf_compare_smaps(&g, p);
		if (g.step % 1000 == 0) {
			printf("# gfuzz: step %lu, %ld mismatches\n", g.step, g.mismatches);
			fflush(stdout);
		}
	}
	g.step--;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	gf_summary(&g, (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	result = g.fatal ? (g.mismatches ? g.mismatches : 1) : g.mismatches;
	gf_teardown(&g);
	fflush(stdout);
	return result;
}
