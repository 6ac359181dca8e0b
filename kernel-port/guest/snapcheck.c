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
 * mappings, so they are not compared.)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapcheck.h"
#include "snapshot_read.h"

static struct snapcheck_totals totals;

const struct snapcheck_totals *snapcheck_totals(void)
{
	return &totals;
}

static bool inside(const struct kernel_vma *v, const struct snapcheck_proc *p)
{
	size_t i;

	for (i = 0; i < p->nregions; i++)
		if (v->start >= p->start[i] && v->end <= p->end[i])
			return true;
	return false;
}

/* Compares one VMA; prints the first differences. */
static void compare_vma(const char *where, const struct snapcheck_proc *p,
			const struct kernel_vma *v, const struct fsim_snapshot_values *m,
			const struct read_stats *st)
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

	totals.regions++;
	for (k = 0; k < 7; k++) {
		totals.values++;
		if (kernel[k] == model[k])
			continue;
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
	struct fsim_snapshot_values *vals = NULL;
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
	/* the model's mode says whether kpagecount is per page */
	st.kpagecount_precise = mode != FSIM_MODE_RFC;
	for (i = 0; i < nprocs; i++)
		if (snap_read_process(r, procs[i].pid, (unsigned int)i, &sp[i]))
			read++;
		else
			totals.errors++;
	snap_reader_close(r);
	vals = calloc(fsim_snapshot_regions(snap) + 1, sizeof(*vals));
	if (!vals || fsim_snapshot_predict(snap, mode, vals, &notes)) {
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
				    &st);
		}
out:
	for (i = 0; sp && i < nprocs; i++)
		free(sp[i].vma);
	free(sp);
	free(vals);
	fsim_snapshot_destroy(snap);
}
