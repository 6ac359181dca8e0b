// SPDX-License-Identifier: MIT
/*
 * The snapshot benchmark (issue 13): what `foliosim snapshot` costs on a
 * process with N MiB resident, against the least any reader must do.
 *
 *   bench_snapshot [--mib N] [--rounds R] [--workload small|thp|forked|all]
 *                  [--baseline-max-vma-mib M]
 *
 * For each workload a child maps N MiB of anonymous memory and touches it
 * (small: MADV_NOHUGEPAGE, 4 KiB folios; thp: MADV_HUGEPAGE; forked: small
 * folios, then the child forks and both are read).  Then, alternating, R
 * rounds of:
 *
 *   baseline  read /proc/PID/pagemap in 4096-entry chunks and, for every
 *             present page, its /proc/kpageflags and /proc/kpagecount
 *             entry (one pread each: what procrank does per page);
 *   batched   the same, but the two files read 64 aligned entries at a
 *             time and kept while the next PFN falls in them (the least
 *             a reader must do; the snapshot reads the same way);
 *   snapshot  snapshot_read.c's reader (what `foliosim snapshot PID`
 *             reads) and fsim_snapshot_predict() in legacy, base and rfc.
 *
 * Each measurement runs in a forked process, so that its peak RSS is its
 * own.  Prints the medians, their ratio (issue 13: at most 3), and the
 * snapshot's memory per resident page: fsim_snapshot_bytes() and the
 * measurer's peak RSS above the baseline measurer's (at most 32 B).
 * Needs root (PFNs, kpageflags); exits 77 without.
 *
 * --baseline-max-vma-mib M: the baselines skip VMAs of more than M MiB.
 * For the smoke test only: built with ASan, the workload inherits 20 TiB
 * of shadow and allocator reservations (VMAs of 56 GiB to 14 TiB, none
 * present), whose pagemap (40 GiB of empty entries) took each baseline
 * 25-67 s and the test 245 s; the snapshot's PAGEMAP_SCAN passes over them
 * in microseconds.  With 16 GiB the test takes 1.5 s.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "foliosim/snapshot.h"
#include "snapshot_read.h"

#define PM_PRESENT (1ull << 63)
#define PM_PFN_MASK ((1ull << 55) - 1)
#define CHUNK 4096
#define MAX_ROUNDS 64

/* --baseline-max-vma-mib, in pages; UINT64_MAX: every VMA (procrank) */
static uint64_t baseline_max_vma_pages = UINT64_MAX;

struct workload {
	const char *name;
	pid_t pid[2];		/* the processes read; pid[1] 0 unless forked */
	int hold;		/* closing it ends the workload */
};

/* One measurement, sent back by the measuring process. */
struct result {
	double seconds, read_seconds;	/* all; the reading part of a snapshot */
	long maxrss_kb;
	unsigned long long pages, snapshot_bytes;
	bool ok;
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The workload's process: maps and touches @bytes, optionally forks, says
 * "ready" with its pids on @ready and waits for @hold to close. */
static void run_workload(size_t bytes, int advice, bool fork_too, int ready, int hold)
{
	char *p = mmap(NULL, bytes + (2u << 20), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pid_t pids[2] = { getpid(), 0 };
	char c;

	if (p == MAP_FAILED)
		_exit(1);
	p = (char *)(((unsigned long)p + (2u << 20) - 1) & ~((2ul << 20) - 1));
	madvise(p, bytes, advice);
	for (size_t i = 0; i < bytes; i += 4096)
		p[i] = (char)i | 1;
	if (fork_too) {
		pids[1] = fork();
		if (pids[1] == 0) {
			if (read(hold, &c, 1) < 0)
				_exit(1);
			_exit(0);
		}
	}
	if (write(ready, pids, sizeof(pids)) != sizeof(pids))
		_exit(1);
	if (read(hold, &c, 1) < 0)
		_exit(1);
	if (pids[1] > 0)
		waitpid(pids[1], NULL, 0);
	_exit(0);
}

static bool start_workload(struct workload *w, size_t bytes)
{
	const bool forked = !strcmp(w->name, "forked");
	const int advice = !strcmp(w->name, "thp") ? MADV_HUGEPAGE : MADV_NOHUGEPAGE;
	int ready[2], hold[2];
	pid_t pid;

	if (pipe(ready) || pipe(hold))
		return false;
	pid = fork();
	if (pid < 0)
		return false;
	if (pid == 0) {
		close(ready[0]);
		close(hold[1]);
		run_workload(bytes, advice, forked, ready[1], hold[0]);
	}
	close(ready[1]);
	close(hold[0]);
	w->hold = hold[1];
	if (read(ready[0], w->pid, sizeof(w->pid)) != sizeof(w->pid)) {
		close(ready[0]);
		return false;
	}
	close(ready[0]);
	return true;
}

static void stop_workload(struct workload *w)
{
	close(w->hold);
	while (wait(NULL) > 0)
		;
}

/* kpageflags or kpagecount, WINDOW entries at a time (the batched baseline). */
#define WINDOW 64
struct window {
	int fd;
	uint64_t base, v[WINDOW];
	bool valid;
};

static bool window_read(struct window *w, uint64_t pfn)
{
	const uint64_t base = pfn & ~(uint64_t)(WINDOW - 1);

	if (w->valid && w->base == base)
		return true;
	w->base = base;
	w->valid = pread(w->fd, w->v, sizeof(w->v), (off_t)(base * 8)) == sizeof(w->v);
	return w->valid || pread(w->fd, w->v, 8, (off_t)(pfn * 8)) == 8;
}

/* Each present page's two entries: one pread each, or by windows. */
static bool read_entries(bool batched, int kf, int kc, struct window *wf, struct window *wc,
			 uint64_t pfn)
{
	uint64_t v;

	if (batched)
		return window_read(wf, pfn) && window_read(wc, pfn);
	return pread(kf, &v, 8, (off_t)(pfn * 8)) == 8 && pread(kc, &v, 8, (off_t)(pfn * 8)) == 8;
}

/* The baselines: pagemap in chunks, each present page's two entries. */
static bool baseline_read(pid_t pid, bool batched, struct result *res)
{
	char path[64], line[512];
	uint64_t *pme = malloc(CHUNK * 8);
	int pm, kf = open("/proc/kpageflags", O_RDONLY), kc = open("/proc/kpagecount", O_RDONLY);
	struct window wf = { .fd = kf }, wc = { .fd = kc };
	FILE *maps;
	bool ok = pme && kf >= 0 && kc >= 0;

	snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)pid);
	pm = open(path, O_RDONLY);
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	maps = fopen(path, "r");
	ok = ok && pm >= 0 && maps;
	while (ok && fgets(line, sizeof(line), maps)) {
		unsigned long long a, b;

		if (sscanf(line, "%llx-%llx", &a, &b) != 2 ||
		    b / 4096 - a / 4096 > baseline_max_vma_pages)
			continue;
		for (uint64_t at = a / 4096; at < b / 4096; at += CHUNK) {
			size_t n = b / 4096 - at < CHUNK ? (size_t)(b / 4096 - at) : CHUNK;

			if (pread(pm, pme, n * 8, (off_t)(at * 8)) != (ssize_t)(n * 8))
				break;
			for (size_t i = 0; i < n; i++) {
				uint64_t pfn = pme[i] & PM_PFN_MASK;

				if (!(pme[i] & PM_PRESENT))
					continue;
				ok = read_entries(batched, kf, kc, &wf, &wc, pfn);
				res->pages++;
			}
		}
	}
	if (maps)
		fclose(maps);
	if (pm >= 0)
		close(pm);
	if (kf >= 0)
		close(kf);
	if (kc >= 0)
		close(kc);
	free(pme);
	return ok;
}

static bool baseline(const struct workload *w, struct result *res)
{
	return baseline_read(w->pid[0], false, res) &&
	       (!w->pid[1] || baseline_read(w->pid[1], false, res));
}

static bool batched(const struct workload *w, struct result *res)
{
	return baseline_read(w->pid[0], true, res) &&
	       (!w->pid[1] || baseline_read(w->pid[1], true, res));
}

/* What `foliosim snapshot PIDS` does before it prints. */
static bool snapshot(const struct workload *w, struct result *res)
{
	static const enum fsim_mode modes[] = { FSIM_MODE_LEGACY, FSIM_MODE_BASE,
						FSIM_MODE_RFC };
	struct snap_process p[2] = { 0 };
	struct fsim_snapshot_values *vals = NULL;
	struct fsim_snapshot_notes notes;
	struct fsim_snapshot *s = NULL;
	struct read_stats st = { 0 };
	struct snap_reader *r;
	bool ok = false;
	size_t i;

	if (fsim_snapshot_create(NULL, &s) || !(r = snap_reader_open(s, &st)))
		goto out;
	for (i = 0, ok = true; i < 2 && w->pid[i]; i++)
		ok = ok && snap_read_process(r, w->pid[i], (unsigned int)i, &p[i]);
	snap_reader_close(r);
	res->read_seconds = now();	/* made relative in measure() */
	vals = calloc(fsim_snapshot_regions(s) + 1, sizeof(*vals));
	ok = ok && vals;
	for (i = 0; ok && i < 3; i++)
		ok = !fsim_snapshot_predict(s, modes[i], vals, &notes);
	res->pages = st.pages;
	res->snapshot_bytes = fsim_snapshot_bytes(s);
out:
	free(p[0].vma);
	free(p[1].vma);
	free(vals);
	fsim_snapshot_destroy(s);
	return ok;
}

/* Runs @fn in a forked process: its time and its own peak RSS. */
static struct result measure(bool (*fn)(const struct workload *, struct result *),
			     const struct workload *w)
{
	struct result res = { 0 };
	int fds[2];
	pid_t pid;

	if (pipe(fds) || (pid = fork()) < 0)
		return res;
	if (pid == 0) {
		struct rusage ru;
		double t0 = now();

		close(fds[0]);
		res.ok = fn(w, &res);
		res.seconds = now() - t0;
		if (res.read_seconds)
			res.read_seconds -= t0;
		getrusage(RUSAGE_SELF, &ru);
		res.maxrss_kb = ru.ru_maxrss;
		if (write(fds[1], &res, sizeof(res)) != sizeof(res))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	if (read(fds[0], &res, sizeof(res)) != sizeof(res))
		res.ok = false;
	close(fds[0]);
	waitpid(pid, NULL, 0);
	return res;
}

static int cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int bench(const char *name, size_t mib, int rounds)
{
	double tb[MAX_ROUNDS], tw[MAX_ROUNDS], ts[MAX_ROUNDS], tr[MAX_ROUNDS], rss[MAX_ROUNDS];
	struct workload w = { .name = name };
	struct result b = { 0 }, bw = { 0 }, s = { 0 };
	int i;

	if (!start_workload(&w, mib << 20)) {
		fprintf(stderr, "bench_snapshot: the %s workload did not start\n", name);
		return 1;
	}
	for (i = 0; i < rounds; i++) {
		b = measure(baseline, &w);
		bw = measure(batched, &w);
		s = measure(snapshot, &w);
		if (!b.ok || !bw.ok || !s.ok) {
			fprintf(stderr, "bench_snapshot: %s: a measurement failed\n", name);
			stop_workload(&w);
			return 1;
		}
		tb[i] = b.seconds;
		tw[i] = bw.seconds;
		ts[i] = s.seconds;
		tr[i] = s.read_seconds;
		rss[i] = (double)(s.maxrss_kb - b.maxrss_kb) * 1024.0;
	}
	stop_workload(&w);
	{
		const double mb = median(tb, rounds), mw = median(tw, rounds),
			     ms = median(ts, rounds);

		printf("%-7s %5zu MiB %7llu pages  baseline %6.3f s  batched %6.3f s  "
		       "snapshot %6.3f s (read %6.3f s)  ratio %4.2f (batched %4.2f)  "
		       "snapshot %4.1f B/page  peak RSS %+5.1f B/page\n",
		       name, mib, s.pages, mb, mw, ms, median(tr, rounds), ms / mb, ms / mw,
		       (double)s.snapshot_bytes / (double)s.pages,
		       median(rss, rounds) / (double)s.pages);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const all[] = { "small", "thp", "forked" };
	const char *which = "all";
	size_t mib = 1024;
	unsigned long long max_vma_mib = 0;
	int rounds = 5, rc = 0, i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--mib") && i + 1 < argc)
			mib = strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--workload") && i + 1 < argc)
			which = argv[++i];
		else if (!strcmp(argv[i], "--baseline-max-vma-mib") && i + 1 < argc &&
			 (max_vma_mib = strtoull(argv[++i], NULL, 10)) > 0 &&
			 max_vma_mib <= UINT64_MAX >> 8)
			baseline_max_vma_pages = max_vma_mib << 8;
		else {
			fprintf(stderr, "usage: bench_snapshot [--mib N] [--rounds R (1-%d)] "
				"[--workload small|thp|forked|all] [--baseline-max-vma-mib M]\n",
				MAX_ROUNDS);
			return 2;
		}
	}
	if (!mib || rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "bench_snapshot: --mib must be positive, --rounds 1-%d\n",
			MAX_ROUNDS);
		return 2;
	}
	if (geteuid() != 0 || access("/proc/kpageflags", R_OK)) {
		printf("SKIP: needs root and /proc/kpageflags (PFNs in pagemap)\n");
		return 77;
	}
	printf("# medians of %d rounds, baseline, batched and snapshot alternating; "
	       "snapshot = read + predict legacy, base, rfc; peak RSS above the baseline's\n",
	       rounds);
	if (baseline_max_vma_pages != UINT64_MAX)
		printf("# the baselines skip VMAs of more than %llu MiB\n", max_vma_mib);
	for (i = 0; i < 3; i++)
		if (!strcmp(which, "all") || !strcmp(which, all[i]))
			rc |= bench(all[i], mib, rounds);
	return rc;
}
