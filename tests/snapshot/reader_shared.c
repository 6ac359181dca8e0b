// SPDX-License-Identifier: MIT
/*
 * The snapshot reader on one THP that a parent and its forked children
 * all map by a PMD (the guest's 511-fork scenarios in small): the reader
 * must find one folio, mapped by every process and by nobody else, and
 * the replay must cost one rmap call per process.  (A folio table that
 * hashed head and order but looked up by head alone once made it one
 * folio per process, each "mapped elsewhere", and the replay quadratic.)
 *
 *   reader_shared [CHILDREN]    exit 0 pass, 1 fail, 77 skipped (no root/THP)
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "foliosim/snapshot.h"
#include "snapshot_read.h"

#define THP (2ul << 20)

static pid_t pids[1 + 64];

static void stop_children(int n)
{
	for (int i = 1; i <= n; i++)
		kill(pids[i], SIGKILL);
	while (wait(NULL) > 0)
		;
}

/* @p's VMA holding @start. */
static const struct kernel_vma *vma_at(const struct snap_process *p, uint64_t start)
{
	for (size_t i = 0; i < p->nvma; i++)
		if (p->vma[i].start <= start && start < p->vma[i].end)
			return &p->vma[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const int n = argc > 1 ? atoi(argv[1]) : 16;
	struct fsim_snapshot_notes notes;
	struct fsim_snapshot_values *vals;
	struct snap_process sp[1 + 64];
	struct fsim_snapshot *s;
	struct read_stats st = { 0 };
	struct snap_reader *r;
	const struct kernel_vma *v;
	uint64_t start, end;
	char *p;
	int i, fail = 0;

	if (n < 1 || n > 64) {
		fprintf(stderr, "usage: reader_shared [CHILDREN 1-64]\n");
		return 2;
	}
	if (geteuid() != 0) {
		printf("SKIP: not root (pagemap PFNs and /proc/kpageflags)\n");
		return 77;
	}
	p = mmap(NULL, 2 * THP, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	p = (char *)(((uintptr_t)p + THP - 1) & ~(THP - 1));
	madvise(p, THP, MADV_HUGEPAGE);
	memset(p, 1, THP);
	start = (uint64_t)(uintptr_t)p;
	end = start + THP;
	pids[0] = getpid();
	for (i = 1; i <= n; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			pause();
			_exit(0);
		}
	}
	if (fsim_snapshot_create(NULL, &s) || !(r = snap_reader_open(s, &st))) {
		stop_children(n);
		return 1;
	}
	snap_reader_only(r, &start, &end, 1);
	memset(sp, 0, sizeof(sp));
	for (i = 0; i <= n; i++)
		fail |= !snap_read_process(r, pids[i], (unsigned int)i, &sp[i]);
	snap_reader_close(r);
	stop_children(n);
	v = vma_at(&sp[0], start);
	if (!v || v->anon_huge < 2048) {
		printf("SKIP: the kernel gave no PMD-mapped THP\n");
		return 77;
	}
	vals = calloc(fsim_snapshot_regions(s) + 1, sizeof(*vals));
	fail |= !vals || fsim_snapshot_predict(s, FSIM_MODE_LEGACY, vals, &notes);
	if (!fail) {
		printf("%llu folios, %llu mappings, %llu mapped elsewhere, %llu refused\n",
		       (unsigned long long)notes.folios, (unsigned long long)notes.mappings,
		       (unsigned long long)notes.folios_shared_elsewhere,
		       (unsigned long long)notes.refused);
		fail = notes.folios != 1 || notes.mappings != (uint64_t)n + 1 ||
		       notes.folios_shared_elsewhere || notes.refused ||
		       !v->resident || vals[v->region].kb.pss != (uint64_t)v->pss ||
		       vals[v->region].kpagecount_sum != 512 * (uint64_t)(n + 1);
	}
	printf("%s: one THP, %d processes\n", fail ? "FAIL" : "ok", n + 1);
	for (i = 0; i <= n; i++)
		free(sp[i].vma);
	free(vals);
	fsim_snapshot_destroy(s);
	return fail;
}
