// SPDX-License-Identifier: MIT
/*
 * foliosim-guest --snapshot-check: after every step of a process scenario,
 * `foliosim snapshot`'s reader and replay (libfoliosim/cli/snapshot_read.c,
 * foliosim/snapshot.h) run over the scenario's live workers, and the
 * prediction for the kernel's own mode must equal what the kernel shows in
 * every VMA inside the scenario's regions: Rss, Pss, Private, Shared,
 * AnonHugePages, the kpagecount sum and the bit-56 pages.  (The workers'
 * own program and libc are shared with processes outside the snapshot;
 * only a kernel with per-page kpagecount would let the replay count those
 * mappings, so they are neither read nor compared.)  Values that differ
 * within the bounds MM-id history allows are counted, not failed.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "snapcheck.h"
#include "snapshot_read.h"

static struct snapcheck_totals totals;

const struct snapcheck_totals *snapcheck_totals(void)
{
	return &totals;
}

void snapcheck_sampled_out(void)
{
	totals.sampled_out++;
}

/* Steps with at most this many workers print their values for the
 * cross-kernel comparison (kernel-port/scripts/compare-snapshots). */
#define CROSS_MAX_PROCS 8

static void print_values(const char *who, const long long v[7])
{
	printf(" %s %lld %lld %lld %lld %lld %lld %lld", who, v[0], v[1], v[2], v[3], v[4],
	       v[5], v[6]);
}

/*
 * "snapval WHERE PROC REGION OFFSET kernel 7 values rfc 7 values HISTORY":
 * the kernel's figures of one VMA (REGION: the scenario region holding it,
 * OFFSET: its start in it, in pages, so that runs on two kernels match
 * up) and, on a kernel of another mode, the rfc prediction.  The rfc
 * kernel's "kernel" figures are what a 6.12 run's rfc prediction is to
 * equal.
 */
static void print_cross(const char *where, const struct snapcheck_proc *p,
			const struct kernel_vma *v, const long long kernel[7],
			const struct fsim_snapshot_values *rfc)
{
	size_t k;

	for (k = 0; k < p->nregions; k++)
		if (v->start >= p->start[k] && v->end <= p->end[k])
			break;
	printf("snapval %s %s %zu %llu", where, p->name, k,
	       (unsigned long long)((v->start - p->start[k]) / (uint64_t)sysconf(_SC_PAGESIZE)));
	print_values("kernel", kernel);
	if (rfc) {
		const long long m[7] = { (long long)rfc->kb.rss, (long long)rfc->kb.pss,
					 (long long)rfc->kb.private_total,
					 (long long)rfc->kb.shared_total, (long long)rfc->kb.anon_huge,
					 (long long)rfc->kpagecount_sum,
					 (long long)rfc->exclusive_pages };

		print_values("rfc", m);
		printf(" %llu", (unsigned long long)rfc->history_pages);
	}
	putchar('\n');
}

static bool inside(const struct kernel_vma *v, const struct snapcheck_proc *p)
{
	size_t i;

	for (i = 0; i < p->nregions; i++)
		if (v->start >= p->start[i] && v->end <= p->end[i])
			return true;
	return false;
}

/* Whether value @k (Private 2, Shared 3, bit-56 pages 6) differs only as
 * far as MM-id history allows (snap_within_history()). */
static bool within_history(int k, long long kernel, long long model,
			   const struct fsim_snapshot_values *m)
{
	return (k == 2 && snap_within_history(SNAP_PRIVATE_KB, kernel, model, m)) ||
	       (k == 3 && snap_within_history(SNAP_SHARED_KB, kernel, model, m)) ||
	       (k == 6 && snap_within_history(SNAP_EXCLUSIVE_PAGES, kernel, model, m));
}

/* Compares one VMA; prints the first differences. */
static void compare_vma(const char *where, const struct snapcheck_proc *p,
			const struct kernel_vma *v, const struct fsim_snapshot_values *m,
			const struct read_stats *st, bool cross, const struct fsim_snapshot_values *rfc)
{
	const long long kernel[7] = { v->rss, v->pss, v->private_kb, v->shared_kb,
				      v->anon_huge, (long long)v->kpagecount_sum,
				      (long long)v->exclusive_pages };
	const long long model[7] = { (long long)m->kb.rss, (long long)m->kb.pss,
				     (long long)m->kb.private_total,
				     (long long)m->kb.shared_total, (long long)m->kb.anon_huge,
				     (long long)m->kpagecount_sum, (long long)m->exclusive_pages };
	static const char *const name[7] = { "Rss", "Pss", "Private", "Shared",
					     "AnonHugePages", "kpagecount", "bit56" };
	int k;

	if (cross)
		print_cross(where, p, v, kernel, rfc);
	totals.regions++;
	for (k = 0; k < 7; k++) {
		totals.values++;
		if (kernel[k] == model[k])
			continue;
		if (within_history(k, kernel[k], model[k], m)) {
			totals.history++;
			continue;
		}
		if (totals.differences++ < 20)
			printf("snapshot-check: DIFFERS at %s: %s %llx-%llx %s kernel %lld, "
			       "snapshot %lld (left out: %llu zero, %llu hugetlb, %llu KSM, "
			       "%llu unreadable)\n", where, p->name, (unsigned long long)v->start,
			       (unsigned long long)v->end, name[k], kernel[k], model[k],
			       (unsigned long long)st->skipped_zero,
			       (unsigned long long)st->skipped_hugetlb,
			       (unsigned long long)st->skipped_ksm,
			       (unsigned long long)st->skipped_unknown);
	}
}

void snapcheck_step(enum fsim_mode mode, const char *where,
		    const struct snapcheck_proc *procs, size_t nprocs)
{
	struct snap_process *sp = calloc(nprocs + 1, sizeof(*sp));
	struct fsim_snapshot_values *vals = NULL, *rfc = NULL;
	const bool cross = nprocs <= CROSS_MAX_PROCS;
	struct fsim_snapshot_notes notes;
	struct fsim_snapshot *snap = NULL;
	struct read_stats st;
	struct snap_reader *r;
	size_t i, j, read = 0;

	memset(&st, 0, sizeof(st));
	if (!sp || fsim_snapshot_create(NULL, &snap) || !(r = snap_reader_open(snap, &st))) {
		totals.errors++;
		goto out;
	}
	/* the model's kernel says whether kpagecount is per page */
	st.kpagecount_precise = fsim_mode_has(mode, FSIM_HAS_PRECISE_KPAGECOUNT);
	for (i = 0; i < nprocs; i++) {
		/* the scenario's regions only: not the workers' program and libc */
		snap_reader_only(r, procs[i].start, procs[i].end, procs[i].nregions);
		if (snap_read_process(r, procs[i].pid, (unsigned int)i, &sp[i]))
			read++;
		else
			totals.errors++;
	}
	snap_reader_close(r);
	vals = calloc(fsim_snapshot_regions(snap) + 1, sizeof(*vals));
	if (!vals || fsim_snapshot_predict(snap, mode, vals, &notes)) {
		totals.errors++;
		goto out;
	}
	/* on a kernel that still has the per-page mapcount, what the series
	 * (which has none) would show */
	if (cross && fsim_mode_has(mode, FSIM_HAS_PAGE_MAPCOUNT) &&
	    (!(rfc = calloc(fsim_snapshot_regions(snap) + 1, sizeof(*rfc))) ||
	     fsim_snapshot_predict(snap, FSIM_MODE_RFC, rfc, NULL))) {
		totals.errors++;
		goto out;
	}
	totals.steps++;
	totals.processes += read;
	totals.refused += notes.refused;
	/* every VMA of the scenario's regions the kernel shows anything of,
	 * against zeros if the snapshot replayed none of its pages */
	for (i = 0; i < nprocs; i++)
		for (j = 0; j < sp[i].nvma; j++) {
			const struct kernel_vma *v = &sp[i].vma[j];
			static const struct fsim_snapshot_values none;

			if (!inside(v, &procs[i]) || (!v->resident && !v->rss))
				continue;
			compare_vma(where, &procs[i], v, v->resident ? &vals[v->region] : &none,
				    &st, cross, !rfc ? NULL : v->resident ? &rfc[v->region] : &none);
		}
out:
	for (i = 0; sp && i < nprocs; i++)
		free(sp[i].vma);
	free(sp);
	free(vals);
	free(rfc);
	fsim_snapshot_destroy(snap);
}
