/* SPDX-License-Identifier: MIT */
/* foliosim-guest --snapshot-check (snapcheck.c). */
#ifndef FOLIOSIM_GUEST_SNAPCHECK_H
#define FOLIOSIM_GUEST_SNAPCHECK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "foliosim/foliosim.h"

/* A live worker and its scenario regions [start[i], end[i]). */
struct snapcheck_proc {
	const char *name;
	pid_t pid;
	uint64_t start[16], end[16];
	size_t nregions;
};

struct snapcheck_totals {
	unsigned long long steps, processes, regions, values, differences;
	unsigned long long refused, errors;
	unsigned long long history;	/* differ within MM-id history bounds */
	unsigned long long sampled_out;	/* steps not snapshotted (too many workers) */
};

/* Snapshots @procs after the step @where ("file:line") and compares. */
void snapcheck_step(enum fsim_mode mode, const char *where,
		    const struct snapcheck_proc *procs, size_t nprocs);
const struct snapcheck_totals *snapcheck_totals(void);
/* A step left out (snapshot_step() samples steps with many workers). */
void snapcheck_sampled_out(void);

#endif /* FOLIOSIM_GUEST_SNAPCHECK_H */
