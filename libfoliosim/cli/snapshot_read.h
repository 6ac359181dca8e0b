/* SPDX-License-Identifier: MIT */
/*
 * `foliosim snapshot`'s reading of a live Linux system: /proc/PID/maps,
 * smaps (the kernel's own figures), pagemap (PFN, bit 56), PAGEMAP_SCAN
 * (which pages a PMD maps), /proc/kpageflags (folio head and tails, anon,
 * hugetlb, KSM, zero page) and /proc/kpagecount, turned into a
 * struct fsim_snapshot.
 */
#ifndef FOLIOSIM_CLI_SNAPSHOT_READ_H
#define FOLIOSIM_CLI_SNAPSHOT_READ_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "foliosim/snapshot.h"

/* What the kernel itself shows of one VMA. */
struct kernel_vma {
	uint64_t start, end;
	char name[80];
	long long rss, pss, private_kb, shared_kb, anon_huge;
	uint64_t kpagecount_sum, exclusive_pages;
	size_t region;		/* its region in the snapshot */
	bool resident;		/* any page the snapshot replays */
	bool changed;		/* smaps changed while its pages were read */
};

struct snap_process {
	pid_t pid;
	char comm[32];
	struct kernel_vma *vma;
	size_t nvma;
};

/* What the reading saw or lost, for the report. */
struct read_stats {
	uint64_t pages, folios;
	uint64_t skipped_zero, skipped_hugetlb, skipped_ksm, skipped_unknown;
	bool no_pagemap_scan;	/* PMD mappings told from smaps' alignment */
	bool kpagecount_precise;	/* per-page mapcounts (CONFIG_PAGE_MAPCOUNT) */
	const char *precise_why;
};

struct snap_reader;

/* Opens /proc/kpageflags and /proc/kpagecount; NULL with a message naming
 * what needs root. */
struct snap_reader *snap_reader_open(struct fsim_snapshot *s, struct read_stats *st);
void snap_reader_close(struct snap_reader *r);
/* From now on read only the VMAs that meet one of [start[i], end[i])
 * (n 0: all); the arrays must outlive the reads. */
void snap_reader_only(struct snap_reader *r, const uint64_t *start, const uint64_t *end,
		      size_t n);
/* Reading process @proc of @total: for the progress line on stderr, shown
 * once a second when a snapshot takes longer than one. */
void snap_reader_progress(struct snap_reader *r, size_t proc, size_t total);
/* What a kernel value may read beyond a prediction (snapshot.h,
 * history_pages): Private lower, Shared higher and bit-56 pages fewer by
 * at most the pages of large anon folios one process maps. */
enum snap_history_field { SNAP_PRIVATE_KB, SNAP_SHARED_KB, SNAP_EXCLUSIVE_PAGES };
/* Whether @kernel differs from @model only within that bound. */
bool snap_within_history(enum snap_history_field field, long long kernel, long long model,
			 const struct fsim_snapshot_values *pred);
/* Reads process @pid as snapshot process @proc into @out (allocated);
 * false with a message if it vanished or cannot be read. */
bool snap_read_process(struct snap_reader *r, pid_t pid, unsigned int proc,
		       struct snap_process *out);

#endif /* FOLIOSIM_CLI_SNAPSHOT_READ_H */
