// SPDX-License-Identifier: MIT
/*
 * kbench: the kernel benchmark of issue 15, run as the guest program
 * (/bin/foliosim-guest) of a benchmark boot (kernel-port/scripts/run-bench).
 * Times, with clock_gettime(CLOCK_MONOTONIC) in the guest, what the series
 * changes on the rmap paths:
 *
 *   fork-mthp64k        fork + child exit + wait, 512 MiB of 64 KiB mTHP
 *   fork-thp            the same with PMD-mapped THP
 *   thp-fault-munmap    fault 64 MiB of PMD THP (one byte per 2 MiB), munmap
 *   dontneed-half-mthp  MADV_DONTNEED of the first half of every 64 KiB
 *                       mTHP of 128 MiB
 *   cow-mthp            after fork, write one byte to every 64 KiB mTHP of
 *                       128 MiB (a COW fault each)
 *   munmap-shared-thp   munmap of 64 MiB of PMD THP that a child also maps
 *   detect-dontneed-{on,off}  the detect part (issue 16): 32 THPs shared
 *                       with a child that dropped their upper halves;
 *                       MADV_DONTNEED of the same halves in the parent (the
 *                       removals that queue candidates), with the part's
 *                       switch (transparent_hugepage/detect_partially_mapped)
 *                       on and off
 *   detect-scan-{on,off}  then "echo 2 > drop_caches" (the deferred split
 *                       shrinker among the others): with the part it walks
 *                       and splits the 32 folios; per folio: the difference
 *                       divided by 32.  Skipped on kernels without the part.
 *   detect-walk-{on,off}  the walk alone: 32 THPs, PTE-mapped, shared by the
 *                       parent and two children; one child exits (its
 *                       removals leave every folio mapped and shared: a
 *                       candidate each), then "echo 2 > drop_caches": with
 *                       the part the scan walks each candidate, finds every
 *                       page mapped and splits nothing.
 *
 * Each is repeated --reps times (default 15); one line per benchmark:
 *   kbench: NAME reps=N median_us=M min_us=L max_us=H large=F
 * where F is the fraction of the region the kernel backed with the folio
 * size asked for (from /proc/self/smaps' AnonHugePages or the mTHP
 * counters), so that a kernel that fell back to small pages is seen.
 * Before anything it checks the clock: TCG guests often run on the
 * "refined-jiffies" clock (4 ms steps); a clock source that is not the TSC
 * or a resolution coarser than 10 us ends the run with "kbench: FAIL".
 * Accepts and ignores --mode X (the init passes it to every guest program).
 *
 * It writes the THP knobs, so outside the guest (no FOLIOSIM_SCENARIO_DIR,
 * which the guest's init exports) it refuses to run unless --no-knobs
 * (the kernel's settings stay as they are; a smoke test on a host) and
 * --no-clock-check are given.
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MIB (1024ul * 1024)
#define PMD_SIZE (2 * MIB)
#define MTHP_SIZE (64 * 1024ul)
#define MAX_REPS 101
#define THP "/sys/kernel/mm/transparent_hugepage"

static unsigned int reps = 15;
static bool knobs = true;
static const char *only;	/* --only PREFIX: the benchmarks named so */

static bool wanted(const char *name)
{
	return !only || !strncmp(name, only, strlen(only));
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void die(const char *what)
{
	printf("kbench: FAIL %s: %s\n", what, strerror(errno));
	exit(1);
}

static bool write_file(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, value, strlen(value)) == (ssize_t)strlen(value);
	close(fd);
	return ok;
}

static bool read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

/* The clock must be fine enough for millisecond-scale figures. */
static void check_clock(void)
{
	char src[64] = "?";
	double best = 1e9;
	int i;

	read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		  src, sizeof(src));
	for (i = 0; i < 50; i++) {
		double t0 = now_us(), t1;

		while ((t1 = now_us()) == t0)
			;
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	printf("kbench: clocksource=%s resolution_us=%.3f\n", src, best);
	if (strncmp(src, "tsc", 3) || best > 10) {
		printf("kbench: FAIL clock source %s with a resolution of %.0f us: the figures "
		       "would be steps of the clock (boot with tsc=reliable clocksource=tsc)\n",
		       src, best);
		exit(1);
	}
}

/* PMD THP and 64 KiB mTHP: "always" or "never" each. */
static void set_thp(const char *pmd, const char *mthp64)
{
	if (!knobs)
		return;
	if (!write_file(THP "/enabled", pmd[0] == 'a' ? "always" : "never") ||
	    !write_file(THP "/hugepages-2048kB/enabled", pmd[0] == 'a' ? "inherit" : "never") ||
	    !write_file(THP "/hugepages-64kB/enabled", mthp64))
		die("setting the THP knobs");
}

static unsigned long mthp64_allocs(void)
{
	char buf[64];

	return read_line(THP "/hugepages-64kB/stats/anon_fault_alloc", buf, sizeof(buf)) ?
	       strtoul(buf, NULL, 10) : 0;
}

/* An anonymous region aligned to 2 MiB, touched one byte per @step. */
static char *map_touched(size_t len, size_t step)
{
	char *p = mmap(NULL, len + PMD_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *a;
	size_t off;

	if (p == MAP_FAILED)
		die("mmap");
	a = (char *)(((unsigned long)p + PMD_SIZE - 1) & ~(PMD_SIZE - 1));
	if (a > p)
		munmap(p, (size_t)(a - p));
	munmap(a + len, (size_t)(p + PMD_SIZE - a));
	for (off = 0; off < len; off += step)
		a[off] = 1;
	return a;
}

/* @len of 64 KiB mTHP, touched; *large: the fraction the kernel backed
 * with 64 KiB folios (the mTHP fault counter's rise). */
static char *map_mthp(size_t len, double *large)
{
	unsigned long before = mthp64_allocs();
	char *a = map_touched(len, 4096);

	*large = (double)(mthp64_allocs() - before) * MTHP_SIZE / (double)len;
	return a;
}

/* AnonHugePages of this process in kB (PMD-mapped THP). */
static unsigned long anon_huge_kb(void)
{
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	char line[256];
	unsigned long kb = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %lu kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* @len of PMD THP, touched one byte per @step; *large: the fraction this
 * process has PMD-mapped (AnonHugePages: nothing else of it is THP). */
static char *map_thp(size_t len, size_t step, double *large)
{
	char *a = map_touched(len, step);

	*large = (double)anon_huge_kb() * 1024 / (double)len;
	return a;
}

static int cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void report(const char *name, double *t, unsigned int n, double large)
{
	qsort(t, n, sizeof(*t), cmp_double);
	printf("kbench: %s reps=%u median_us=%.1f min_us=%.1f max_us=%.1f large=%.2f\n",
	       name, n, t[n / 2], t[0], t[n - 1], large);
	fflush(stdout);
}

static pid_t fork_waiting_child(int *release)
{
	int fds[2];
	pid_t pid;
	char c;

	if (pipe(fds))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		close(fds[1]);
		if (read(fds[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(fds[0]);
	*release = fds[1];
	return pid;
}

static void release_child(pid_t pid, int release)
{
	close(release);
	waitpid(pid, NULL, 0);
}

/* fork + exit + wait of a process with @len of anon memory in @folio. */
static void bench_fork(const char *name, bool pmd)
{
	const size_t len = 512 * MIB;
	double t[MAX_REPS], large;
	unsigned int i;
	char *a;

	set_thp(pmd ? "always" : "never", pmd ? "never" : "always");
	a = pmd ? map_thp(len, 4096, &large) : map_mthp(len, &large);
	for (i = 0; i < reps; i++) {
		double t0 = now_us();
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (!pid)
			_exit(0);
		waitpid(pid, NULL, 0);
		t[i] = now_us() - t0;
	}
	munmap(a, len);
	report(name, t, reps, large);
}

static void bench_thp_fault_munmap(void)
{
	const size_t len = 64 * MIB;
	double t[MAX_REPS], large = 0;
	unsigned int i;

	set_thp("always", "never");
	for (i = 0; i < reps; i++) {
		double t0 = now_us(), t1, t2;
		char *a = map_touched(len, PMD_SIZE);

		t1 = now_us();
		large = (double)anon_huge_kb() * 1024 / (double)len;	/* untimed */
		t2 = now_us();
		munmap(a, len);
		t[i] = (t1 - t0) + (now_us() - t2);
	}
	report("thp-fault-munmap", t, reps, large);
}

static void bench_dontneed_half_mthp(void)
{
	const size_t len = 128 * MIB;
	double t[MAX_REPS], large = 0;
	unsigned int i;

	set_thp("never", "always");
	for (i = 0; i < reps; i++) {
		char *a = map_mthp(len, &large);
		double t0 = now_us();
		size_t off;

		for (off = 0; off < len; off += MTHP_SIZE)
			if (madvise(a + off, MTHP_SIZE / 2, MADV_DONTNEED))
				die("madvise");
		t[i] = now_us() - t0;
		munmap(a, len);
	}
	report("dontneed-half-mthp", t, reps, large);
}

static void bench_cow_mthp(void)
{
	const size_t len = 128 * MIB;
	double t[MAX_REPS], large = 0;
	unsigned int i;

	set_thp("never", "always");
	for (i = 0; i < reps; i++) {
		char *a = map_mthp(len, &large);
		int release;
		pid_t pid;
		double t0;
		size_t off;

		pid = fork_waiting_child(&release);
		t0 = now_us();
		for (off = 0; off < len; off += MTHP_SIZE)
			a[off] = 2;
		t[i] = now_us() - t0;
		release_child(pid, release);
		munmap(a, len);
	}
	report("cow-mthp", t, reps, large);
}

static void bench_munmap_shared_thp(void)
{
	const size_t len = 64 * MIB;
	double t[MAX_REPS], large = 0;
	unsigned int i;

	set_thp("always", "never");
	for (i = 0; i < reps; i++) {
		char *a = map_thp(len, PMD_SIZE, &large);
		int release;
		pid_t pid;
		double t0;

		pid = fork_waiting_child(&release);
		t0 = now_us();
		munmap(a, len);
		t[i] = now_us() - t0;
		release_child(pid, release);
	}
	report("munmap-shared-thp", t, reps, large);
}

#define DETECT_KNOB THP "/detect_partially_mapped"

/* A child that drops the upper half of every THP of [a, a + len), then
 * says so on @ready and waits for @release. */
static pid_t fork_unmapping_child(char *a, size_t len, int *release)
{
	int go[2], back[2];
	pid_t pid;
	char c = 0;

	if (pipe(go) || pipe(back))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		close(go[1]);
		close(back[0]);
		for (size_t off = 0; off < len; off += PMD_SIZE)
			madvise(a + off + PMD_SIZE / 2, PMD_SIZE / 2, MADV_DONTNEED);
		if (write(back[1], &c, 1) != 1 || read(go[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(go[0]);
	close(back[1]);
	if (read(back[0], &c, 1) != 1)
		die("child");
	close(back[0]);
	*release = go[1];
	return pid;
}

/* "echo 2 > drop_caches" (the deferred split shrinker among the others),
 * timed. */
static double timed_drop_caches(void)
{
	double t0 = now_us();

	if (!write_file("/proc/sys/vm/drop_caches", "2"))
		die("drop_caches");
	return now_us() - t0;
}

/* report() of detect-WHAT-on or detect-WHAT-off. */
static void report_detect(const char *what, bool on, double *t, double large)
{
	char name[32];

	snprintf(name, sizeof(name), "detect-%s-%s", what, on ? "on" : "off");
	report(name, t, reps, large);
}

/* Example (A) of 01/13 on 32 THPs, with the detect part on or off. */
static void bench_detect(bool on)
{
	const size_t len = 64 * MIB;
	double td[MAX_REPS], ts[MAX_REPS], large = 0;
	unsigned int i;

	if (!write_file(DETECT_KNOB, on ? "1" : "0")) {
		printf("kbench: detect-%s skipped: no %s (a kernel without the detect part)\n",
		       on ? "on" : "off", DETECT_KNOB);
		return;
	}
	set_thp("always", "never");
	for (i = 0; i < reps; i++) {
		char *a = map_thp(len, 4096, &large);
		int release;
		pid_t pid = fork_unmapping_child(a, len, &release);
		double t0 = now_us();

		for (size_t off = 0; off < len; off += PMD_SIZE)
			madvise(a + off + PMD_SIZE / 2, PMD_SIZE / 2, MADV_DONTNEED);
		td[i] = now_us() - t0;
		ts[i] = timed_drop_caches();
		release_child(pid, release);
		munmap(a, len);
	}
	report_detect("dontneed", on, td, large);
	report_detect("scan", on, ts, large);
	write_file(DETECT_KNOB, "1");
}

/* The walk alone, on 32 PTE-mapped THPs that no one maps partially. */
static void bench_detect_walk(bool on)
{
	const size_t len = 64 * MIB;
	double t[MAX_REPS], large = 0;
	unsigned int i;

	if (!write_file(DETECT_KNOB, on ? "1" : "0"))
		return;	/* bench_detect() said why */
	set_thp("always", "never");
	for (i = 0; i < reps; i++) {
		char *a = map_thp(len, 4096, &large);
		int release1, release2;
		pid_t pid1, pid2;

		/* PTE-map each THP: a partial mprotect() splits the PMD and
		 * leaves the folio whole. */
		for (size_t off = 0; off < len; off += PMD_SIZE)
			if (mprotect(a + off, 4096, PROT_READ))
				die("mprotect");
		/* The child forked second inherits the first one's release
		 * pipe: fork the one that stays first, or the other never
		 * sees its pipe close. */
		pid2 = fork_waiting_child(&release2);
		pid1 = fork_waiting_child(&release1);
		release_child(pid1, release1);
		t[i] = timed_drop_caches();
		release_child(pid2, release2);
		munmap(a, len);
	}
	report_detect("walk", on, t, large);
	write_file(DETECT_KNOB, "1");
}

int main(int argc, char **argv)
{
	bool clock_check = true;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--mode") && i + 1 < argc) {
			i++;	/* the init passes the model's mode; not ours */
		} else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
			reps = (unsigned int)strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
			only = argv[++i];
		} else if (!strcmp(argv[i], "--no-knobs")) {
			knobs = false;
		} else if (!strcmp(argv[i], "--no-clock-check")) {
			clock_check = false;
		} else if (!strcmp(argv[i], "--help")) {
			printf("usage: kbench [--reps N (1..%d, default 15)] [--only PREFIX] "
			       "[--no-knobs] [--no-clock-check]\n"
			       "  --only PREFIX: only the benchmarks whose name starts so\n"
			       "  the guest program of kernel-port/scripts/run-bench; outside\n"
			       "  the guest only with --no-knobs --no-clock-check (a smoke test)\n",
			       MAX_REPS);
			return 0;
		} else {
			fprintf(stderr, "kbench: unknown argument '%s'\n", argv[i]);
			return 2;
		}
	}
	if (reps < 1 || reps > MAX_REPS) {
		fprintf(stderr, "kbench: --reps must be 1..%d\n", MAX_REPS);
		return 2;
	}
	if (!getenv("FOLIOSIM_SCENARIO_DIR") && (knobs || clock_check)) {
		fprintf(stderr, "kbench: not in the benchmark guest: it would change this "
			"machine's THP settings (--no-knobs --no-clock-check for a smoke test)\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (clock_check)
		check_clock();
	if (wanted("fork-mthp64k"))
		bench_fork("fork-mthp64k", false);
	if (wanted("fork-thp"))
		bench_fork("fork-thp", true);
	if (wanted("thp-fault-munmap"))
		bench_thp_fault_munmap();
	if (wanted("dontneed-half-mthp"))
		bench_dontneed_half_mthp();
	if (wanted("cow-mthp"))
		bench_cow_mthp();
	if (wanted("munmap-shared-thp"))
		bench_munmap_shared_thp();
	if (knobs && wanted("detect")) {
		bench_detect(false);
		bench_detect(true);
		bench_detect_walk(false);
		bench_detect_walk(true);
	}
	printf("kbench: done\n");
	return 0;
}
