// SPDX-License-Identifier: MIT
/*
 * foliosim-guest: replays the process statements of scenario files with
 * real system calls and checks every `expect` against what the running
 * kernel shows in /proc and sysfs.
 *
 *   foliosim-guest [--mode legacy|base|rfc] [--verbose]
 *                  [--gfuzz STEPS [--gfuzz-seed SEED]] FILE...
 *
 * --gfuzz then runs the differential fuzzer of gfuzz.c for STEPS random
 * system calls.  ("--worker DIR NAME" is internal: the fuzzer's workers
 * exec this program to start from a small address space.)
 *
 * Each scenario process is a real process (a worker) that obeys commands
 * sent by this controller over a pair of FIFOs; `P fork C` makes P's
 * worker fork() for real, so C shares P's folios exactly as the kernel
 * sets them up.  The controller reads /proc/PID/smaps, numa_maps, pagemap,
 * /proc/kpagecount, /proc/kpageflags, /proc/meminfo, /proc/vmstat and the
 * per-size THP counters.  The same statements also run in the libfoliosim
 * model of the kernel's mode, only to tell when the kernel fell back to a
 * smaller folio than the scenario asked for: such a scenario is skipped
 * with the reason, never passed.
 *
 * Output follows `foliosim check`: "ok NAME", "skip NAME: reason",
 * "FAIL NAME: FILE:LINE: expected KEY=V, got W", then "N passed, M failed,
 * K skipped".  The mode defaults to foliosim.mode= on the kernel command
 * line (legacy if absent).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25	/* Linux 6.1 uapi; older libc headers lack it */
#endif

#include "foliosim/foliosim.h"
#include "foliosim/process.h"
#include "foliosim/scenario.h"
#include "guest.h"
#include "procfs.h"
#include "snapcheck.h"

#define MAX_PROCS 600

/* ---------------------------------------------------------------- */
/* The controller                                                    */
/* ---------------------------------------------------------------- */

struct cregion {
	char name[32];
	uintptr_t addr;
	uint64_t size;
};

struct cproc {
	char name[32];
	pid_t pid;
	FILE *cmd, *rsp;
	bool exited;
	struct cregion region[MAX_REGIONS];
	int nregions;
	struct fsim_process *model;
};

/* The x86_64 machine the guest runs on: scenarios of another arch skip. */
#define MACHINE_PMD_ORDER 9

/* The node statistics the guest reads (stat_vmstat[], meminfo_stat[]). */
#define NR_NODE_STATS 6

struct scenario_run {
	const struct fsim_script *script;
	size_t index;
	enum fsim_mode mode;
	char dir[64];
	struct cproc procs[MAX_PROCS];
	int nprocs;
	struct fsim_ctx *model;
	long long anon0, split0, thp0[MACHINE_PMD_ORDER + 1][3];
	long long stat0[NR_NODE_STATS];	/* node statistics at the start (stat_vmstat[]) */
	long long hugetlb_prev;	/* vm.nr_hugepages to restore, or -1 */
	unsigned int mounted;	/* bit k: file_systems[k] is mounted in dir */
	char message[512];
	int outcome;		/* FSIM_PASS/FAIL/SKIP */
	unsigned int line;
	bool verbose;
	bool kernel_detect;	/* the kernel carries the detect part */
};

static bool fail(struct scenario_run *s, int outcome, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	s->outcome = outcome;
	if (outcome == FSIM_SKIP)
		snprintf(s->message, sizeof(s->message), "%s", msg);
	else
		snprintf(s->message, sizeof(s->message), "%s:%u: %s",
			 fsim_script_file(s->script), s->line, msg);
	return false;
}

static struct cproc *find_proc(struct scenario_run *s, const char *name)
{
	int i;

	for (i = 0; i < s->nprocs; i++)
		if (!strcmp(s->procs[i].name, name) && !s->procs[i].exited)
			return &s->procs[i];
	return NULL;
}

static struct cregion *find_cregion(struct cproc *p, const char *name)
{
	int i;

	for (i = 0; i < p->nregions; i++)
		if (!strcmp(p->region[i].name, name))
			return &p->region[i];
	return NULL;
}

static long long read_ll(const char *path)
{
	FILE *f = fopen(path, "r");
	long long v = -1;

	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

int write_str(const char *path, const char *value)
{
	FILE *f = fopen(path, "w");
	int err = 0;

	if (!f)
		return -errno;
	if (fputs(value, f) < 0)
		err = -EIO;
	if (fclose(f))
		err = -errno;
	return err;
}

static long long meminfo_kb(const char *key)
{
	FILE *f;

	/* NR_ANON_MAPPED has per-CPU deltas that /proc/meminfo only sees after
	 * vmstat_update(); vm.stat_refresh folds them now. */
	write_str("/proc/sys/vm/stat_refresh", "1");
	f = fopen("/proc/meminfo", "r");
	char line[256];
	long long v = -1;
	size_t n = strlen(key);

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':')
			v = atoll(line + n + 1);
	if (f)
		fclose(f);
	return v;
}

static long long vmstat(const char *key)
{
	FILE *f = fopen("/proc/vmstat", "r");
	char name[128];
	long long v, found = -1;

	while (f && fscanf(f, "%127s %lld", name, &v) == 2)
		if (!strcmp(name, key))
			found = v;
	if (f)
		fclose(f);
	return found;
}

/* The node statistics of `expect stats` (the model's enum fsim_stat, by
 * key name, in pages) and the /proc/vmstat counter of each; anon_mapped is
 * read as the scenario's own AnonPages instead (region_anon_kb()).  vmstat
 * prints the THP counters in PMD-sized THPs (vmstat_item_print_in_thp()). */
static const struct {
	const char *key, *vmstat;
	bool in_thps;
} stat_vmstat[NR_NODE_STATS] = {
	{ "anon_mapped", "nr_anon_pages", false },
	{ "file_mapped", "nr_mapped", false },
	{ "anon_thps", "nr_anon_transparent_hugepages", true },
	{ "file_pmdmapped", "nr_file_pmdmapped", true },
	{ "shmem_pmdmapped", "nr_shmem_pmdmapped", true },
	{ "shmem", "nr_shmem", false },
};

/* The meminfo keys by the same index: each line of /proc/meminfo is the
 * vmstat counter above in kB (meminfo_proc_show()). */
static const char *const meminfo_stat[NR_NODE_STATS] = {
	"anon_pages_kb", "mapped_kb", "anon_huge_pages_kb", "file_pmd_mapped_kb",
	"shmem_pmd_mapped_kb", "shmem_kb",
};

/* /proc/vmstat sums per-CPU counters only past a threshold or once a
 * second (vmstat_update()): a change of 4 pages may not show yet.  Writing
 * vm.stat_refresh folds every CPU's delta in (refresh_vm_stats()). */
static long long vmstat_now(const char *key)
{
	write_str("/proc/sys/vm/stat_refresh", "1");
	return vmstat(key);
}

/* A counter since the scenario started, read until two readings 20 ms
 * apart agree (a worker's exit may still be unmapping). */
static long long stat_delta(int k, long long base)
{
	long long prev = vmstat_now(stat_vmstat[k].vmstat), cur = prev;
	int i;

	for (i = 0; i < 50; i++) {
		usleep(20000);
		cur = vmstat_now(stat_vmstat[k].vmstat);
		if (cur == prev)
			break;
		prev = cur;
	}
	return (cur - base) * (stat_vmstat[k].in_thps ? 1LL << MACHINE_PMD_ORDER : 1);
}

static const char *const thp_stat_names[3] = { "nr_anon", "nr_anon_partially_mapped",
					       "split_deferred" };

static long long thp_stat(unsigned int order, int which)
{
	char path[160];

	snprintf(path, sizeof(path), THP_DIR "/hugepages-%lukB/stats/%s",
		 (PAGE << order) >> 10, thp_stat_names[which]);
	return read_ll(path);
}

#define NR_HUGEPAGES "/proc/sys/vm/nr_hugepages"


/* The pool as it was before reserve_hugetlb(). */
static void restore_hugetlb(struct scenario_run *s)
{
	char n[24];

	if (s->hugetlb_prev < 0)
		return;
	snprintf(n, sizeof(n), "%lld", s->hugetlb_prev);
	write_str(NR_HUGEPAGES, n);
	s->hugetlb_prev = -1;
}

/* Statement @k of the scenario as an op: 1, 0 past the last, or -errno,
 * which fails the scenario (-ENOMEM: fsim_script_op() parses the statement
 * again from its text).  A loop that stopped at an error as at the end
 * would pass the scenario with statements left unrun. */
static int scenario_op(struct scenario_run *s, size_t k, struct fsim_stmt_op *op)
{
	int err;

	if (k >= fsim_script_statements(s->script, s->index))
		return 0;
	err = fsim_script_op(s->script, s->index, k, op);
	if (!err)
		return 1;
	fail(s, FSIM_FAIL, "statement %zu: %s", k + 1, fsim_errname(err));
	return err;
}

/* A scenario that maps hugetlb memory gets twice the huge pages its
 * regions span (a private page may be copied once per fork), reserved in
 * the pool for the run; a skip if the kernel cannot find them. */
static bool reserve_hugetlb(struct scenario_run *s)
{
	const uint64_t huge = PAGE << fsim_script_arch(s->script, s->index)->pmd_order;
	struct fsim_stmt_op op;
	long long want = 0, got;
	char n[24];
	size_t k;
	int more;

	s->hugetlb_prev = -1;
	for (k = 0; (more = scenario_op(s, k, &op)) > 0; k++)
		if (op.op == FSIM_OP_MMAP && op.hugetlb)
			want += (long long)(2 * ((op.size + huge - 1) / huge));
	if (more < 0)
		return false;
	if (!want)
		return true;
	s->hugetlb_prev = read_ll(NR_HUGEPAGES);
	snprintf(n, sizeof(n), "%lld", want + (s->hugetlb_prev > 0 ? s->hugetlb_prev : 0));
	write_str(NR_HUGEPAGES, n);
	got = read_ll(NR_HUGEPAGES) - (s->hugetlb_prev > 0 ? s->hugetlb_prev : 0);
	if (got < want)
		return fail(s, FSIM_SKIP, "the kernel found %lld of the %lld hugetlb pages "
			    "the scenario needs", got < 0 ? 0 : got, want);
	return true;
}

/* The THP sizes the scenario's regions ask for on madvise, every other
 * size never (procfs.c).  false (the scenario failed) if a statement
 * cannot be read. */
static bool set_knobs(struct scenario_run *s)
{
	unsigned int anon = 0, shmem = 0;
	struct fsim_stmt_op op;
	size_t k;
	int got;

	for (k = 0; (got = scenario_op(s, k, &op)) > 0; k++) {
		if (op.op != FSIM_OP_MMAP || op.order > MACHINE_PMD_ORDER || op.hugetlb || op.file)
			continue;
		if (op.kind == FSIM_KIND_SHMEM)
			shmem |= 1u << op.order;
		else
			anon |= 1u << op.order;
	}
	thp_set_knobs(anon, shmem);
	return got == 0;
}

static bool send(struct scenario_run *s, struct cproc *p, char *reply, size_t len,
		 const char *fmt, ...)
{
	va_list ap;
	int ok;

	va_start(ap, fmt);
	ok = worker_vsend(p->cmd, p->rsp, reply, len, fmt, ap);
	va_end(ap);
	if (ok < 0)
		return fail(s, FSIM_FAIL, "process %s died", p->name);
	if (!ok)
		return fail(s, FSIM_FAIL, "process %s: %s", p->name, reply);
	return true;
}

static bool open_fifos(struct scenario_run *s, struct cproc *p)
{
	if (!worker_fifos_open(s->dir, p->name, &p->cmd, &p->rsp))
		return fail(s, FSIM_FAIL, "cannot talk to process %s", p->name);
	return true;
}

static struct cproc *new_proc(struct scenario_run *s, const char *name)
{
	struct cproc *p;
	int err;

	if (s->nprocs == MAX_PROCS) {
		fail(s, FSIM_SKIP, "more than %d processes", MAX_PROCS);
		return NULL;
	}
	p = &s->procs[s->nprocs++];
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	err = worker_fifos_create(s->dir, name);
	if (err) {
		fail(s, FSIM_FAIL, "mkfifo: %s", strerror(-err));
		return NULL;
	}
	return p;
}

/* The folio order of the page at addr in process pid, or -1 if none. */
static int kernel_order(pid_t pid, uintptr_t addr, uint64_t *pfn_out)
{
	char path[64];
	uint64_t pme, flags, pfn;
	int fd, order = 0;
	long n = 1;

	snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0 || pread(fd, &pme, 8, (off_t)(addr / PAGE * 8)) != 8) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	if (!pm_present(pme) || !(pfn = pm_pfn(pme)))
		return -1;
	*pfn_out = pfn;
	fd = open("/proc/kpageflags", O_RDONLY);
	if (fd < 0)
		return -1;
	/* Back to the head page. */
	while (pread(fd, &flags, 8, (off_t)(pfn * 8)) == 8 && kpf(flags, KPF_COMPOUND_TAIL) && pfn)
		pfn--;
	if (pread(fd, &flags, 8, (off_t)(pfn * 8)) == 8 && kpf(flags, KPF_COMPOUND_HEAD))
		while (n < 1 << 18 &&
		       pread(fd, &flags, 8, (off_t)((pfn + (uint64_t)n) * 8)) == 8 &&
		       kpf(flags, KPF_COMPOUND_TAIL))
			n++;
	close(fd);
	while ((1l << order) < n)
		order++;
	return order;
}

static uint64_t pagemap_entry(pid_t pid, uintptr_t addr)
{
	char path[64];
	uint64_t pme = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
	fd = open(path, O_RDONLY);
	if (fd >= 0) {
		if (pread(fd, &pme, 8, (off_t)(addr / PAGE * 8)) != 8)
			pme = 0;
		close(fd);
	}
	return pme;
}

static uint64_t kpagecount(uint64_t pfn)
{
	uint64_t v = 0;
	int fd = open("/proc/kpagecount", O_RDONLY);

	if (fd >= 0) {
		if (pread(fd, &v, 8, (off_t)(pfn * 8)) != 8)
			v = 0;
		close(fd);
	}
	return v;
}

/*
 * AnonPages is system-wide: the controller's and the workers' own stacks,
 * heaps and copied-on-write data count too, and so does every other
 * process.  So every reading subtracts the anon pages (KPF_ANON in
 * /proc/kpageflags) mapped by every process outside the scenario's
 * regions, each page frame once (a page shared after fork() is one page in
 * NR_ANON_MAPPED).
 */
struct pfnset {
	uint64_t *pfn;
	size_t n, cap;
};

static void pfn_add(struct pfnset *set, uint64_t pfn)
{
	if (set->n == set->cap) {
		size_t cap = set->cap ? 2 * set->cap : 4096;
		uint64_t *p = realloc(set->pfn, cap * sizeof(*p));

		if (!p)
			return;
		set->pfn = p;
		set->cap = cap;
	}
	set->pfn[set->n++] = pfn;
}

static void own_anon_pfns(pid_t pid, const struct cproc *p, struct pfnset *set)
{
	char path[64], line[512];
	unsigned long a, b;
	uint64_t buf[512];
	int pm, i;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
	pm = open(path, O_RDONLY);
	while (f && pm >= 0 && fgets(line, sizeof(line), f)) {
		bool region = false;

		if (sscanf(line, "%lx-%lx", &a, &b) != 2 || strstr(line, "[vsyscall]"))
			continue;
		for (i = 0; p && i < p->nregions; i++)
			region |= a >= p->region[i].addr &&
				  b <= p->region[i].addr + p->region[i].size;
		if (region)
			continue;
		while (a < b) {
			size_t n = (b - a) / PAGE, k;
			ssize_t got;

			if (n > 512)
				n = 512;
			got = pread(pm, buf, n * 8, (off_t)(a / PAGE * 8));
			if (got <= 0)
				break;
			for (k = 0; k < (size_t)got / 8; k++)
				if (pm_present(buf[k]))
					pfn_add(set, pm_pfn(buf[k]));
			a += n * PAGE;
		}
	}
	if (pm >= 0)
		close(pm);
	if (f)
		fclose(f);
}

static int cmp_u64(const void *x, const void *y)
{
	const uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

static long long own_anon_kb(struct scenario_run *s)
{
	struct pfnset set = { NULL, 0, 0 };
	struct dirent *de;
	long long kb = 0;
	DIR *dir;
	size_t i;
	int fd, w;

	/* Every process, not only ours: after the selftests something else
	 * may still map or free anon pages (the 6.12 underused-THP shrinker
	 * remapping zero-filled pages, swap-in, a late exit), and CI saw
	 * AnonPages move by -148..+60 kB under the first scenario. */
	dir = opendir("/proc");
	while (dir && (de = readdir(dir))) {
		const struct cproc *owner = NULL;
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0)
			continue;
		for (w = 0; w < s->nprocs; w++)
			if (!s->procs[w].exited && s->procs[w].pid == (pid_t)pid)
				owner = &s->procs[w];
		own_anon_pfns((pid_t)pid, owner, &set);
	}
	if (dir)
		closedir(dir);
	qsort(set.pfn, set.n, sizeof(*set.pfn), cmp_u64);
	fd = open("/proc/kpageflags", O_RDONLY);
	for (i = 0; fd >= 0 && i < set.n; i++) {
		uint64_t flags;

		if (i && set.pfn[i] == set.pfn[i - 1])
			continue;
		/* anon, not the zeropage */
		if (pread(fd, &flags, 8, (off_t)(set.pfn[i] * 8)) == 8 &&
		    kpf(flags, KPF_ANON) && !kpf(flags, KPF_ZERO_PAGE))
			kb += (long long)(PAGE >> 10);
	}
	if (fd >= 0)
		close(fd);
	free(set.pfn);
	return kb;
}

/* AnonPages of the scenario's regions since the scenario started. */
static long long region_anon_kb_once(struct scenario_run *s)
{
	long long total;

	/* A first walk grows the controller's heap to the size the second
	 * one needs, so that no page appears between the two readings. */
	own_anon_kb(s);
	total = meminfo_kb("AnonPages");
	return total - own_anon_kb(s) - s->anon0;
}

/* Something else may still be mapping or freeing anon memory (a selftest's
 * leftovers, a reaped worker): read until two readings 20 ms apart agree. */
static long long region_anon_kb(struct scenario_run *s)
{
	long long prev = region_anon_kb_once(s), cur = prev;
	int i;

	for (i = 0; i < 100; i++) {
		usleep(20000);
		cur = region_anon_kb_once(s);
		if (cur == prev)
			break;
		prev = cur;
	}
	return cur;
}

/*
 * Before the first scenario: map every page of this program's own file.
 * The workers are this program too (--worker): a worker that runs code no
 * process had mapped yet (the child's side of a fork, an operation the
 * runner never ran) faulted that text page in for the first time and
 * raised the system's Mapped by a page while the scenario counted it
 * ("expected file_mapped=4, got 5" in proc-shmem.scn, "mapped_kb=320, got
 * 324" in proc-files.scn, a few runs in ten).  With the runner mapping
 * every page of the file, a worker's fault on it is never the first.
 */
static void map_own_file(void)
{
	char exe[512], line[1024];
	FILE *maps;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return;
	exe[n] = '\0';
	maps = fopen("/proc/self/maps", "r");
	if (!maps)
		return;
	while (fgets(line, sizeof(line), maps)) {
		unsigned long start, end, a;
		char perms[8] = "", path[512] = "";

		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %511s", &start, &end, perms,
			   path) < 4 || strcmp(path, exe) || perms[0] != 'r')
			continue;
		for (a = start; a < end; a += PAGE)
			(void)*(volatile const char *)a;
	}
	fclose(maps);
}

/* Before the first scenario: wait (up to 10 s) until the system's
 * AnonPages has not moved for half a second. */
static void settle_anon_pages(void)
{
	long long prev = meminfo_kb("AnonPages");
	int stable = 0, i;

	for (i = 0; i < 200 && stable < 10; i++) {
		long long cur;

		usleep(50000);
		cur = meminfo_kb("AnonPages");
		stable = cur == prev ? stable + 1 : 0;
		prev = cur;
	}
}

/* After a fault: the kernel's folio orders against the model's. */
static bool check_orders(struct scenario_run *s, struct cproc *p, const char *region,
			 uint64_t off, uint64_t len)
{
	struct cregion *r = find_cregion(p, region);
	uint64_t o;

	for (o = off; r && o < off + len; o += PAGE) {
		struct fsim_page_view v;
		uint64_t pfn;
		int k = kernel_order(p->pid, r->addr + o, &pfn), m;

		if (fsim_process_page(p->model, region, o, &v) || !v.present)
			continue;
		m = (int)fsim_folio_order(v.folio);
		if (k == m)
			continue;
		if (k >= 0 && k < m)
			return fail(s, FSIM_SKIP, "the kernel fell back to an order-%d folio "
				    "at %s %s+%#llx (asked for order %d)", k, p->name, region,
				    (unsigned long long)o, m);
		return fail(s, FSIM_FAIL, "folio order at %s %s+%#llx: kernel %d, model %d",
			    p->name, region, (unsigned long long)o, k, m);
	}
	return true;
}

/*
 * Where a scenario's named files live: the guest has no file system whose
 * page cache holds large folios but tmpfs (huge=always: PMD-sized), so a
 * file=F of kind file is on ramfs (small folios), one of kind shmem on
 * tmpfs; each is mounted under the scenario's directory on first use and
 * unmounted at its end, which empties the page cache for the next one.
 */
static const struct file_system {
	const char *dir, *type, *options;
	enum fsim_kind kind;
	unsigned int order;	/* of its page cache's folios */
} file_systems[] = {
	{ "ramfs", "ramfs", NULL, FSIM_KIND_FILE, 0 },
	{ "tmpfs", "tmpfs", "huge=never", FSIM_KIND_SHMEM, 0 },
	{ "tmpfs-huge", "tmpfs", "huge=always", FSIM_KIND_SHMEM, MACHINE_PMD_ORDER },
};

#define NR_FILE_SYSTEMS (sizeof(file_systems) / sizeof(file_systems[0]))

static void unmount_files(struct scenario_run *s)
{
	char path[128];
	size_t k;

	for (k = 0; k < NR_FILE_SYSTEMS; k++) {
		if (!(s->mounted & (1u << k)))
			continue;
		snprintf(path, sizeof(path), "%s/%s", s->dir, file_systems[k].dir);
		umount2(path, MNT_DETACH);
		rmdir(path);
	}
	s->mounted = 0;
}

/* The path of the scenario's file for @op in @path, its file system
 * mounted and the file created with the size of its first mmap. */
static bool file_path(struct scenario_run *s, const struct fsim_stmt_op *op, char *path,
		      size_t len)
{
	size_t k;
	int fd;

	for (k = 0; k < NR_FILE_SYSTEMS; k++)
		if (file_systems[k].kind == op->kind && file_systems[k].order == op->order)
			break;
	if (k == NR_FILE_SYSTEMS)
		return fail(s, FSIM_SKIP, "file=%s of order %llu: no file system in the guest "
			    "gives such page-cache folios (ramfs: small; tmpfs: small or, with "
			    "huge=always, PMD-sized on shmem)", op->file,
			    (unsigned long long)op->order);
	snprintf(path, len, "%s/%s", s->dir, file_systems[k].dir);
	if (!(s->mounted & (1u << k))) {
		if ((mkdir(path, 0700) && errno != EEXIST) ||
		    mount("fsim", path, file_systems[k].type, 0, file_systems[k].options))
			return fail(s, FSIM_FAIL, "mount %s on %s: %s", file_systems[k].type,
				    path, strerror(errno));
		s->mounted |= 1u << k;
	}
	snprintf(path + strlen(path), len - strlen(path), "/%s", op->file);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0 && errno == EEXIST)
		return true;
	if (fd < 0 || ftruncate(fd, (off_t)op->size)) {
		if (fd >= 0)
			close(fd);
		return fail(s, FSIM_FAIL, "create %s: %s", path, strerror(errno));
	}
	close(fd);
	return true;
}

/* P mmap R size=S file=F: the worker maps the file MAP_PRIVATE. */
static bool mmap_file(struct scenario_run *s, struct cproc *p, const struct fsim_stmt_op *op)
{
	char path[192], reply[128];
	struct cregion *r;
	int err;

	if (!file_path(s, op, path, sizeof(path)) ||
	    !send(s, p, reply, sizeof(reply), "mmapf %s %llu %llu %s", op->region,
		  (unsigned long long)op->size, (unsigned long long)op->order, path))
		return false;
	r = &p->region[p->nregions++];
	snprintf(r->name, sizeof(r->name), "%s", op->region);
	r->addr = (uintptr_t)strtoull(reply + 3, NULL, 16);
	r->size = op->size;
	err = fsim_process_mmap_file(p->model, op->region, op->size, op->file,
				     op->kind == FSIM_KIND_SHMEM, (unsigned int)op->order);
	if (err)
		return fail(s, FSIM_FAIL, "the model refused mmap: %s", fsim_errname(err));
	return true;
}

/* The length of @op's range of @r: len=, or to the region's end. */
static uint64_t range_len(const struct cregion *r, const struct fsim_stmt_op *op)
{
	if (op->len != FSIM_LEN_TO_END)
		return op->len;
	return r->size > op->off ? r->size - op->off : 0;
}

/* P collapse R [off] [len] [fails=E]: madvise(MADV_COLLAPSE), whose
 * error the model must predict; a kernel that found no free huge page
 * (ENOMEM) skips the scenario. */
static bool do_collapse(struct scenario_run *s, struct cproc *p, const struct fsim_stmt_op *op)
{
	struct cregion *r = find_cregion(p, op->region ? op->region : "");
	char reply[128];
	uint64_t len;
	int kerr = 0, merr;

	if (!r)
		return fail(s, FSIM_FAIL, "unknown region %s", op->region);
	len = range_len(r, op);
	fprintf(p->cmd, "collapse %s %llu %llu\n", op->region, (unsigned long long)op->off,
		(unsigned long long)len);
	fflush(p->cmd);
	if (!fgets(reply, sizeof(reply), p->rsp))
		return fail(s, FSIM_FAIL, "process %s died", p->name);
	if (!strncmp(reply, "err ", 4))
		kerr = -atoi(reply + 4);
	if (kerr == -ENOMEM)
		return fail(s, FSIM_SKIP, "MADV_COLLAPSE: the kernel found no free huge page");
	merr = fsim_process_collapse(p->model, op->region, op->off, len);
	if (kerr != merr)
		return fail(s, FSIM_FAIL, "collapse: kernel %s, model %s", strerror(-kerr),
			    fsim_errname(merr));
	if (kerr != op->fails)
		return fail(s, FSIM_FAIL, "collapse: expected %s, got %s",
			    fsim_errname(op->fails), fsim_errname(kerr));
	return true;
}

/* One process operation, from its resolved form (the library filled in
 * the defaults: hugetlb regions of the PMD order, touch to the region's end). */
static bool do_process_op(struct scenario_run *s, const struct fsim_stmt_op *op,
			  const char *verb)
{
	struct cproc *p = find_proc(s, op->name), *c;
	const char *region = op->region ? op->region : "";
	const bool shmem = op->kind == FSIM_KIND_SHMEM;
	const unsigned int order = (unsigned int)op->order;
	char reply[128];
	struct cregion *r;
	uint64_t len;
	int err = 0;

	if (!p)
		return fail(s, FSIM_FAIL, "unknown process %s", op->name);
	switch (op->op) {
	case FSIM_OP_MMAP:
		if (op->hugetlb && op->order != MACHINE_PMD_ORDER)
			return fail(s, FSIM_SKIP, "hugetlb pages of order %llu: the guest "
				    "reserves PMD-sized ones only",
				    (unsigned long long)op->order);
		if (!op->hugetlb && op->order > MACHINE_PMD_ORDER)
			return fail(s, FSIM_FAIL, "mmap order=%llu: no such THP size",
				    (unsigned long long)op->order);
		if (p->nregions == MAX_REGIONS)
			return fail(s, FSIM_FAIL, "more than %d regions in %s", MAX_REGIONS,
				    op->name);
		if (op->file)
			return mmap_file(s, p, op);
		if (!send(s, p, reply, sizeof(reply), "mmap %s %llu %u %u", region,
			  (unsigned long long)op->size, order,
			  (shmem ? MAP_REQ_SHMEM : 0) | (op->hugetlb ? MAP_REQ_HUGETLB : 0)))
			return false;
		r = &p->region[p->nregions++];
		snprintf(r->name, sizeof(r->name), "%s", region);
		r->addr = (uintptr_t)strtoull(reply + 3, NULL, 16);
		r->size = op->size;
		err = op->hugetlb ?
		      fsim_process_mmap_hugetlb(p->model, region, op->size, shmem, order) :
		      fsim_process_mmap(p->model, region, op->size, shmem, order);
		break;
	case FSIM_OP_FORK:
		if (!(c = new_proc(s, op->child)))
			return false;
		if (!send(s, p, reply, sizeof(reply), "fork %s", op->child))
			return false;
		c->pid = (pid_t)atoi(reply + 3);
		if (!open_fifos(s, c) || !send(s, c, reply, sizeof(reply), "ping"))
			return false;

		memcpy(c->region, p->region, sizeof(p->region));
		c->nregions = p->nregions;
		err = fsim_process_fork(p->model, &c->model);
		break;
	case FSIM_OP_MPROTECT:
		if (!find_cregion(p, region))
			return fail(s, FSIM_FAIL, "unknown region %s", region);
		if (!send(s, p, reply, sizeof(reply), "mprotect %s %llu %llu %llu", region,
			  (unsigned long long)op->off, (unsigned long long)op->len,
			  (unsigned long long)op->prot))
			return false;
		err = fsim_process_mprotect(p->model, region, op->off, op->len,
					    (unsigned int)op->prot);
		break;
	case FSIM_OP_MREMAP:
		if (!(r = find_cregion(p, region)))
			return fail(s, FSIM_FAIL, "unknown region %s", region);
		if (p->nregions == MAX_REGIONS)
			return fail(s, FSIM_FAIL, "more than %d regions in %s", MAX_REGIONS,
				    op->name);
		len = r->size;
		if (!send(s, p, reply, sizeof(reply), "mremap %s 0 %llu %s %d", region,
			  (unsigned long long)len, op->to, op->keep_pmd ? 1 : 0))
			return false;
		r = &p->region[p->nregions++];
		snprintf(r->name, sizeof(r->name), "%s", op->to);
		r->addr = (uintptr_t)strtoull(reply + 3, NULL, 16);
		r->size = len;
		err = fsim_process_mremap(p->model, region, op->to, op->keep_pmd);
		break;
	case FSIM_OP_COLLAPSE:
		return do_collapse(s, p, op);
	case FSIM_OP_EXIT:
		if (!send(s, p, reply, sizeof(reply), "exit"))
			return false;
		fclose(p->cmd);
		fclose(p->rsp);
		p->exited = true;
		if (p->pid > 0)
			wait_mm_gone(p->pid);
		err = fsim_process_exit(p->model);
		break;
	default:	/* touch, read, munmap, dontneed, pageout: a range of a region */
		if (!(r = find_cregion(p, region)))
			return fail(s, FSIM_FAIL, "unknown region %s", region);
		len = range_len(r, op);
		if (!send(s, p, reply, sizeof(reply), "%s %s %llu %llu", verb, region,
			  (unsigned long long)op->off, (unsigned long long)len))
			return false;
		if (op->op == FSIM_OP_TOUCH || op->op == FSIM_OP_READ) {
			err = fsim_process_access(p->model, region, op->off, len,
						  op->op == FSIM_OP_TOUCH);
			if (!err)
				return check_orders(s, p, region, op->off, len);
		} else if (op->op == FSIM_OP_MUNMAP) {
			err = fsim_process_munmap(p->model, region, op->off, len);
		} else if (op->op == FSIM_OP_PAGEOUT) {
			err = fsim_process_pageout(p->model, region, op->off, len);
		} else {
			err = fsim_process_dontneed(p->model, region, op->off, len);
		}
	}
	if (err)
		return fail(s, FSIM_FAIL, "the model refused %s: %s", verb, fsim_errname(err));
	return true;
}

/*
 * Where the guest reads each region key of the library's key table that
 * smaps sums (the names are the table's: check_smaps_fields() at start-up
 * refuses a name the table does not have, so the two cannot drift apart).
 */
static const struct smaps_field {
	const char *key;
	size_t offset;		/* of a long long in struct smaps_vma */
} smaps_fields[] = {
	{ "rss_kb", offsetof(struct smaps_vma, rss) },
	{ "pss_kb", offsetof(struct smaps_vma, pss) },
	{ "private_kb", offsetof(struct smaps_vma, private_kb) },
	{ "shared_kb", offsetof(struct smaps_vma, shared_kb) },
	{ "anon_huge_kb", offsetof(struct smaps_vma, anon_huge) },
	{ "shared_hugetlb_kb", offsetof(struct smaps_vma, shared_hugetlb) },
	{ "private_hugetlb_kb", offsetof(struct smaps_vma, private_hugetlb) },
	{ "pss_dirty_kb", offsetof(struct smaps_vma, pss_dirty) },
	{ "private_dirty_kb", offsetof(struct smaps_vma, private_dirty) },
	{ "anonymous_kb", offsetof(struct smaps_vma, anonymous) },
	{ "pss_anon_kb", offsetof(struct smaps_vma, pss_anon) },
	{ "pss_file_kb", offsetof(struct smaps_vma, pss_file) },
	{ "pss_shmem_kb", offsetof(struct smaps_vma, pss_shmem) },
	{ "shmem_pmd_kb", offsetof(struct smaps_vma, shmem_pmd) },
	{ "file_pmd_kb", offsetof(struct smaps_vma, file_pmd) },
	{ "swap_kb", offsetof(struct smaps_vma, swap) },
};

static const struct smaps_field *smaps_field(const char *key)
{
	size_t i;

	for (i = 0; i < sizeof(smaps_fields) / sizeof(smaps_fields[0]); i++)
		if (!strcmp(smaps_fields[i].key, key))
			return &smaps_fields[i];
	return NULL;
}

/* False (with a message) if a smaps field names no region key, or a
 * vmstat counter no stats key, of libfoliosim's key table. */
static bool check_smaps_fields(void)
{
	size_t i;

	for (i = 0; i < sizeof(meminfo_stat) / sizeof(meminfo_stat[0]); i++)
		if (!fsim_expect_key_find(FSIM_EXPECT_MEMINFO, meminfo_stat[i])) {
			fprintf(stderr, "foliosim-guest: '%s' is not a meminfo key of "
				"libfoliosim's key table\n", meminfo_stat[i]);
			return false;
		}
	for (i = 0; i < sizeof(stat_vmstat) / sizeof(stat_vmstat[0]); i++)
		if (!fsim_expect_key_find(FSIM_EXPECT_STATS, stat_vmstat[i].key)) {
			fprintf(stderr, "foliosim-guest: '%s' is not a stats key of "
				"libfoliosim's key table\n", stat_vmstat[i].key);
			return false;
		}

	for (i = 0; i < sizeof(smaps_fields) / sizeof(smaps_fields[0]); i++)
		if (!fsim_expect_key_find(FSIM_EXPECT_REGION, smaps_fields[i].key) &&
		    !fsim_expect_key_find(FSIM_EXPECT_ROLLUP, smaps_fields[i].key)) {
			fprintf(stderr, "foliosim-guest: '%s' is not a region or rollup key "
				"of libfoliosim's key table\n", smaps_fields[i].key);
			return false;
		}
	return true;
}

/* Sums smaps fields over the VMAs inside [start, end). */
static bool region_value(struct scenario_run *s, struct cproc *p, struct cregion *r,
			 const char *key, char *buf, size_t len)
{
	const char *at = strchr(key, '@');
	const struct smaps_field *field;
	struct smaps_vma sm;

	if (at) {
		unsigned long long off;
		uint64_t pme, pfn = 0;

		if (!fsim_parse_size(at + 1, &off) || off >= r->size)
			return fail(s, FSIM_FAIL, "%s: offset outside the region", key);
		pme = pagemap_entry(p->pid, r->addr + off);
		if (!strncmp(key, "kpagecount@", 11))
			snprintf(buf, len, "%llu", pm_present(pme) ?
				 (unsigned long long)kpagecount(pm_pfn(pme)) : 0ull);
		else if (!strncmp(key, "exclusive@", 10))
			snprintf(buf, len, "%s", pm_exclusive(pme) ? "yes" : "no");
		else {
			int o = kernel_order(p->pid, r->addr + off, &pfn);

			if (o < 0)
				snprintf(buf, len, "none");
			else
				snprintf(buf, len, "%d", o);
		}
		return true;
	}
	if (!strcmp(key, "mapmax")) {
		snprintf(buf, len, "%lld", numa_maps_mapmax(p->pid, r->addr, r->addr + r->size));
		return true;
	}
	smaps_sum(p->pid, r->addr, r->addr + r->size, &sm);
	field = smaps_field(key);
	if (field)
		snprintf(buf, len, "%lld", *(const long long *)(const void *)
					   ((const char *)&sm + field->offset));
	else if (fsim_expect_key_find(FSIM_EXPECT_REGION, key))
		return fail(s, FSIM_FAIL, "region key %s: the guest runner cannot read it "
			    "yet", key);
	else
		return fail(s, FSIM_FAIL, "unknown region key %s", key);
	return true;
}

static bool compare(struct scenario_run *s, const char *key, const char *want,
		    const char *got)
{
	if (!strcmp(want, got))
		return true;
	return fail(s, FSIM_FAIL, "expected %s=%s, got %s", key, want, got);
}

/*
 * A worker's smaps_rollup also counts the worker's own memory (its program,
 * libc, stack), which the scenario does not model.  Fields that are whole
 * kB in every VMA (sizes) come out exact as the rollup minus what smaps
 * shows in the VMAs outside the scenario's regions.  Pss and Pss_Dirty do
 * not: smaps_rollup shifts one sum, smaps each VMA, so the difference lies
 * between the scenario's figure - 1 and that figure + the number of
 * outside VMAs that have any; that bound is what is compared.  Pss_Anon,
 * Pss_File and Pss_Shmem are not in smaps at all: reported, not compared.
 */
static const char *const rollup_pss_keys[] = {
	"pss_anon_kb", "pss_file_kb", "pss_shmem_kb" };
static const char *const rollup_bounded_keys[] = { "pss_kb", "pss_dirty_kb" };

static void take_rollup(void *arg, const struct smaps_vma *v)
{
	*(struct smaps_vma *)arg = *v;
}

struct outside_arg {
	const struct cproc *p;
	long long sum;
	size_t offset;
	int vmas;	/* outside VMAs with a nonzero field */
};

/* Adds the field of a VMA that lies outside every region of the worker. */
static void add_outside(void *arg, const struct smaps_vma *v)
{
	struct outside_arg *o = arg;
	int i;

	for (i = 0; i < o->p->nregions; i++) {
		const struct cregion *r = &o->p->region[i];

		if (v->start >= r->addr && v->end <= r->addr + r->size)
			return;
	}
	o->sum += *(const long long *)(const void *)((const char *)v + o->offset);
	o->vmas += *(const long long *)(const void *)((const char *)v + o->offset) != 0;
}

/* The field at @offset of smaps_rollup, less the VMAs outside the regions;
 * false if a file cannot be read. */
static bool rollup_field(const struct cproc *p, size_t offset, long long *out,
			 int *outside_vmas)
{
	struct outside_arg o = { p, 0, offset, 0 };
	char path[64], *text = NULL;
	struct smaps_vma sm;
	size_t cap = 0;

	memset(&sm, 0, sizeof(sm));
	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)p->pid);
	if (!read_whole_file(path, &text, &cap))
		return false;
	smaps_parse(text, take_rollup, &sm);
	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)p->pid);
	if (!read_whole_file(path, &text, &cap)) {
		free(text);
		return false;
	}
	smaps_parse(text, add_outside, &o);
	free(text);
	*out = *(const long long *)(const void *)((const char *)&sm + offset) - o.sum;
	*outside_vmas = o.vmas;
	return true;
}

/* Compares one key of expect P ...; a Pss key is printed as not compared. */
static bool expect_rollup_key(struct scenario_run *s, const struct cproc *p,
			      const char *key, const char *want)
{
	const struct smaps_field *field = smaps_field(key);
	char got[32];
	long long v, w;
	int n;
	size_t i;

	for (i = 0; i < sizeof(rollup_pss_keys) / sizeof(rollup_pss_keys[0]); i++)
		if (!strcmp(key, rollup_pss_keys[i])) {
			printf("note: line %u: smaps_rollup %s=%s not compared (the worker's "
			       "own shared pages are in it)\n", s->line, key, want);
			return true;
		}
	if (!field)
		return fail(s, FSIM_FAIL, "smaps_rollup key %s: the guest runner cannot "
			    "read it yet", key);
	if (!rollup_field(p, field->offset, &v, &n))
		return fail(s, FSIM_FAIL, "cannot read the smaps_rollup of %s", p->name);
	for (i = 0; i < sizeof(rollup_bounded_keys) / sizeof(rollup_bounded_keys[0]); i++) {
		if (strcmp(key, rollup_bounded_keys[i]))
			continue;
		w = atoll(want);
		printf("note: line %u: smaps_rollup %s=%s compared within [%lld, %lld] "
		       "(%d other VMAs rounded apart): %lld\n", s->line, key, want, w - 1,
		       w + n, n, v);
		if (v >= w - 1 && v <= w + n)
			return true;
		return fail(s, FSIM_FAIL, "expected smaps_rollup %s=%s (within [%lld, %lld]), "
			    "got %lld", key, want, w - 1, w + n, v);
	}
	snprintf(got, sizeof(got), "%lld", v);
	return compare(s, key, want, got);
}


static bool do_expect(struct scenario_run *s, const struct fsim_stmt_op *op,
		      const struct fsim_stmt_view *v)
{
	char got[64];
	size_t i;

	if (op->expect_mode >= 0 && op->expect_mode != (int)s->mode)
		return true;
	switch (op->target) {
	case FSIM_EXPECT_MEMINFO:
		for (i = 0; i < v->nargs; i++) {
			int k;

			for (k = 0; k < NR_NODE_STATS && strcmp(v->args[i].key, meminfo_stat[k]); k++)
				;
			if (k == NR_NODE_STATS)
				return fail(s, FSIM_FAIL, "meminfo key %s: the guest cannot "
					    "read it", v->args[i].key);
			/* AnonPages: the scenario's own; the others: the
			 * vmstat counter behind the meminfo line, in kB */
			snprintf(got, sizeof(got), "%lld", k == 0 ? region_anon_kb(s) :
				 stat_delta(k, s->stat0[k]) * (long long)(PAGE >> 10));
			if (!compare(s, v->args[i].key, v->args[i].value, got))
				return false;
		}
		return true;
	case FSIM_EXPECT_VMSTAT:
		snprintf(got, sizeof(got), "%lld",
			 vmstat("thp_deferred_split_page") - s->split0);
		return compare(s, v->args[0].key, v->args[0].value, got);
	case FSIM_EXPECT_STATS:
		for (i = 0; i < v->nargs; i++) {
			int k;

			for (k = 0; k < NR_NODE_STATS && strcmp(v->args[i].key, stat_vmstat[k].key); k++)
				;
			if (k == NR_NODE_STATS)
				return fail(s, FSIM_FAIL, "stats key %s: the guest cannot "
					    "read it", v->args[i].key);
			snprintf(got, sizeof(got), "%lld", k == 0 ?
				 region_anon_kb(s) / (long long)(PAGE >> 10) :
				 stat_delta(k, s->stat0[k]));
			if (!compare(s, v->args[i].key, v->args[i].value, got))
				return false;
		}
		return true;
	case FSIM_EXPECT_THP:
		if (op->order < 2 || op->order > MACHINE_PMD_ORDER)
			return fail(s, FSIM_FAIL, "thp order=%llu: no such THP size here",
				    (unsigned long long)op->order);
		for (i = 0; i < v->nargs; i++) {
			const unsigned int order = (unsigned int)op->order;
			int w;

			for (w = 0; w < 3 && strcmp(v->args[i].key, thp_stat_names[w]); w++)
				;
			if (w == 3)
				continue;	/* order= */
			snprintf(got, sizeof(got), "%lld", thp_stat(order, w) - s->thp0[order][w]);
			if (!compare(s, v->args[i].key, v->args[i].value, got))
				return false;
		}
		return true;
	case FSIM_EXPECT_REGION: {
		struct cproc *p = find_proc(s, op->name);
		struct cregion *r = p ? find_cregion(p, op->region) : NULL;

		if (!r)
			return fail(s, FSIM_FAIL, "unknown process or region %s %s",
				    op->name, op->region);
		for (i = 0; i < v->nargs; i++)
			if (!region_value(s, p, r, v->args[i].key, got, sizeof(got)) ||
			    !compare(s, v->args[i].key, v->args[i].value, got))
				return false;
		return true;
	}
	case FSIM_EXPECT_ROLLUP: {
		struct cproc *p = find_proc(s, op->name);

		if (!p || p->exited)
			return fail(s, FSIM_FAIL, "no live process %s", op->name);
		for (i = 0; i < v->nargs; i++)
			if (!expect_rollup_key(s, p, v->args[i].key, v->args[i].value))
				return false;
		return true;
	}
	default:
		return fail(s, FSIM_SKIP, "folio-level expectations need the KUnit executor");
	}
}

/*
 * deferred-split-scan: drop_slab() runs every shrinker, the deferred split
 * shrinker (SHRINKER_NONSLAB) included, at priority 0, until it frees
 * little: the whole queue is scanned.  Only the "2" (slab) half of
 * drop_caches: unmapped page cache stays.  The model runs the same scan.
 */
static bool deferred_split_scan(struct scenario_run *s)
{
	int err = write_str("/proc/sys/vm/drop_caches", "2");

	if (err)
		return fail(s, FSIM_FAIL, "deferred-split-scan: drop_caches: %s",
			    strerror(-err));
	if (fsim_ctx_deferred_split_scan(s->model, NULL))
		return fail(s, FSIM_FAIL, "deferred-split-scan: the model refused");
	return true;
}

/*
 * The detect part's switch: a scenario runs without the part unless it
 * says "part detect" (the series as posted is what the others describe);
 * run_scenario() turns it back on, the kernel's default, at the end.
 */
#define DETECT_KNOB "/sys/kernel/mm/transparent_hugepage/detect_partially_mapped"

static bool set_detect_knob(struct scenario_run *s, bool on)
{
	int err = write_str(DETECT_KNOB, on ? "1" : "0");

	if (err)
		return fail(s, FSIM_FAIL, "%s: %s", DETECT_KNOB, strerror(-err));
	return true;
}

static void stop_all(struct scenario_run *s)
{
	char reply[64];
	int i;

	for (i = 0; i < s->nprocs; i++) {
		struct cproc *p = &s->procs[i];

		if (!p->exited && p->cmd) {
			fprintf(p->cmd, "exit\n");
			fflush(p->cmd);
			if (p->rsp && !fgets(reply, sizeof(reply), p->rsp))
				reply[0] = '\0';	/* it died already */
		}
		if (!p->exited) {
			if (p->cmd)
				fclose(p->cmd);
			if (p->rsp)
				fclose(p->rsp);
			if (p->model)
				fsim_process_exit(p->model);
		}
		if (p->pid > 0)
			waitpid(p->pid, NULL, 0);	/* ECHILD for grandchildren */
		worker_fifos_remove(s->dir, p->name);
	}
	unmount_files(s);
	rmdir(s->dir);
}

static bool snapshot_check;	/* --snapshot-check */

/*
 * Steps with more live workers than this are checked one in
 * SNAPSHOT_SAMPLE (and the others counted): the 511-fork scenarios would
 * read some 130 million page mappings per kernel under TCG otherwise.
 */
#define SNAPSHOT_MANY 64
#define SNAPSHOT_SAMPLE 32

/* --snapshot-check after a step: the scenario's live workers. */
static void snapshot_step(struct scenario_run *s, unsigned int line)
{
	static unsigned long many;
	struct snapcheck_proc procs[MAX_PROCS];
	char where[160];
	size_t n = 0;
	int i, k;

	for (i = 0; i < s->nprocs; i++)
		n += !s->procs[i].exited && s->procs[i].pid > 0;
	if (n > SNAPSHOT_MANY && many++ % SNAPSHOT_SAMPLE) {
		snapcheck_sampled_out();
		return;
	}
	n = 0;

	for (i = 0; i < s->nprocs; i++) {
		const struct cproc *p = &s->procs[i];

		if (p->exited || p->pid <= 0)
			continue;
		procs[n].name = p->name;
		procs[n].pid = p->pid;
		procs[n].nregions = 0;
		for (k = 0; k < p->nregions && k < 16; k++) {
			procs[n].start[k] = p->region[k].addr;
			procs[n].end[k] = p->region[k].addr + p->region[k].size;
			procs[n].nregions++;
		}
		n++;
	}
	snprintf(where, sizeof(where), "%s:%u", fsim_script_name(s->script, s->index), line);
	snapcheck_step(s->mode, where, procs, n);
}

static int run_scenario(struct scenario_run *s)
{
	struct fsim_stmt_view v;
	struct fsim_stmt_op op;
	size_t k;
	unsigned int o;
	int w;

	if (fsim_script_error(s->script, s->index)) {
		snprintf(s->message, sizeof(s->message), "%s",
			 fsim_script_error(s->script, s->index));
		return FSIM_FAIL;
	}
	if (!fsim_script_runs_in(s->script, s->index, s->mode))
		return fail(s, FSIM_SKIP, "not a %s-mode scenario", fsim_mode_name(s->mode)),
		       FSIM_SKIP;
	if (!fsim_script_has_processes(s->script, s->index))
		return fail(s, FSIM_SKIP, "rmap-level scenario (the KUnit executor runs it)"),
		       FSIM_SKIP;
	{
		const struct fsim_arch *a = fsim_script_arch(s->script, s->index);

		if (a->bits != 64 || a->page_shift != 12 || a->pmd_order != MACHINE_PMD_ORDER)
			return fail(s, FSIM_SKIP, "arch is not this machine's"), FSIM_SKIP;
	}
	s->mounted = 0;
	snprintf(s->dir, sizeof(s->dir), "/tmp/fsg.XXXXXX");
	if (!mkdtemp(s->dir))
		return fail(s, FSIM_FAIL, "mkdtemp: %s", strerror(errno)), FSIM_FAIL;
	if (fsim_ctx_create(s->mode, NULL, &s->model)) {
		rmdir(s->dir);
		return fail(s, FSIM_FAIL, "cannot create the model"), FSIM_FAIL;
	}
	if (!set_knobs(s) || !reserve_hugetlb(s)) {
		restore_hugetlb(s);
		fsim_ctx_destroy(s->model);
		rmdir(s->dir);
		return s->outcome;	/* a skip, or the statement that failed */
	}
	s->anon0 = 0;
	s->anon0 = region_anon_kb(s);
	s->split0 = vmstat("thp_deferred_split_page");
	for (w = 0; w < NR_NODE_STATS; w++)
		s->stat0[w] = vmstat_now(stat_vmstat[w].vmstat);
	for (o = 2; o <= MACHINE_PMD_ORDER; o++)
		for (w = 0; w < 3; w++)
			s->thp0[o][w] = thp_stat(o, w);
	s->outcome = FSIM_PASS;
	if (s->kernel_detect && !set_detect_knob(s, false)) {
		fsim_ctx_destroy(s->model);
		restore_hugetlb(s);
		return s->outcome;
	}
	for (k = 0; scenario_op(s, k, &op) > 0; k++) {
		bool ok = true;
		unsigned long rep;
		int err = fsim_script_statement(s->script, s->index, k, &v);

		if (err) {
			fail(s, FSIM_FAIL, "statement %zu: %s", k + 1, fsim_errname(err));
			break;
		}

		s->line = op.line;
		if (s->verbose)
			fprintf(stderr, "  line %u: %s\n", op.line, v.keyword);
		switch (op.op) {
		case FSIM_OP_PROCESS: {
			struct cproc *p = new_proc(s, op.name);
			char reply[32];
			pid_t pid;

			if (!p)
				break;
			pid = fork();
			if (pid == 0)
				worker_loop(s->dir, op.name);
			p->pid = pid;
			ok = pid > 0 && open_fifos(s, p) &&
			     send(s, p, reply, sizeof(reply), "ping") &&
			     !fsim_process_create(s->model, &p->model);
			break;
		}
		case FSIM_OP_EXPECT:
			ok = do_expect(s, &op, &v);
			break;
		case FSIM_OP_MODE:
		case FSIM_OP_ARCH:
			break;
		case FSIM_OP_PART:
			/* 6.12 and the base tree run such a scenario as it is */
			if (!fsim_mode_has(s->mode, FSIM_HAS_DETECT_PART))
				break;
			if (!s->kernel_detect)
				ok = fail(s, FSIM_SKIP, "part detect: this kernel "
					  "does not carry the detect part");
			else
				ok = set_detect_knob(s, true) &&
				     !fsim_ctx_set_detect(s->model, true);
			break;
		case FSIM_OP_SPLIT_SCAN:
			for (rep = 0; ok && rep < op.repeat; rep++)
				ok = deferred_split_scan(s);
			break;
		case FSIM_OP_MMAP:
		case FSIM_OP_TOUCH:
		case FSIM_OP_READ:
		case FSIM_OP_FORK:
		case FSIM_OP_MUNMAP:
		case FSIM_OP_DONTNEED:
		case FSIM_OP_MPROTECT:
		case FSIM_OP_MREMAP:
		case FSIM_OP_COLLAPSE:
		case FSIM_OP_PAGEOUT:
		case FSIM_OP_EXIT:
			for (rep = 0; ok && rep < op.repeat; rep++)
				ok = do_process_op(s, &op, v.keyword);
			break;
		default:
			ok = fail(s, FSIM_SKIP, "rmap statement '%s' in a process scenario",
				  v.keyword);
		}
		if (!ok)
			break;
		if (snapshot_check && op.op != FSIM_OP_MODE && op.op != FSIM_OP_ARCH)
			snapshot_step(s, op.line);
	}
	stop_all(s);
	if (s->kernel_detect)
		write_str(DETECT_KNOB, "1");
	fsim_ctx_destroy(s->model);
	restore_hugetlb(s);
	return s->outcome;
}

/* The mode named at @s + @skip (up to a blank); legacy if none or unknown. */
static enum fsim_mode mode_named(const char *s, size_t skip)
{
	enum fsim_mode mode;
	char name[16];

	if (!s || sscanf(s + skip, "%15[a-z]", name) != 1 ||
	    fsim_mode_from_name(name, &mode))
		return fsim_mode_at(0);
	return mode;
}

/* run-guest passes the model's mode as foliosim.mode= (the kernel's own by
 * default: legacy on 6.12, base on the prep part, rfc on the series). */
static void read_cmdline(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cmdline", "r");

	buf[0] = '\0';
	if (f) {
		if (!fgets(buf, (int)len, f))
			buf[0] = '\0';
		fclose(f);
	}
}

static enum fsim_mode mode_from_cmdline(void)
{
	char buf[4096];

	read_cmdline(buf, sizeof(buf));
	return mode_named(strstr(buf, "foliosim.mode="), strlen("foliosim.mode="));
}

/* run-guest passes foliosim.parts=detect when the series' detect part
 * (beyond the RFC) is applied. */
static bool detect_from_cmdline(void)
{
	char buf[4096];
	const char *p;

	read_cmdline(buf, sizeof(buf));
	p = strstr(buf, "foliosim.parts=");
	return p && !strncmp(p + strlen("foliosim.parts="), "detect", 6);
}

int main(int argc, char **argv)
{
	static struct scenario_run s;
	enum fsim_mode mode = mode_from_cmdline();
	bool kernel_detect;
	unsigned long passed = 0, failed = 0, skipped = 0, gfuzz_steps = 0;
	uint64_t gfuzz_seed = 1;
	bool verbose = false;
	long mismatches = 0;
	int i;

	/* gfuzz's workers: a fresh process image of this program */
	if (argc == 4 && !strcmp(argv[1], "--worker"))
		worker_loop(argv[2], argv[3]);
	signal(SIGPIPE, SIG_IGN);
	if (!check_smaps_fields())
		return 2;
	{
		/* Two FIFOs per process: 511 children need more than 1024 fds. */
		struct rlimit rl;

		if (!getrlimit(RLIMIT_NOFILE, &rl)) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
	}
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--mode") && i + 1 < argc) {
			if (fsim_mode_from_name(argv[++i], &mode)) {
				fprintf(stderr, "foliosim-guest: unknown mode '%s'\n", argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--verbose")) {
			verbose = true;
		} else if (!strcmp(argv[i], "--gfuzz") && i + 1 < argc) {
			gfuzz_steps = strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--gfuzz-seed") && i + 1 < argc) {
			gfuzz_seed = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--snapshot-check")) {
			snapshot_check = true;
		} else {
			fprintf(stderr, "usage: foliosim-guest [--mode legacy|base|rfc] [--verbose] "
				"[--gfuzz STEPS [--gfuzz-seed SEED]] [--snapshot-check] FILE...\n");
			return 2;
		}
	}
	kernel_detect = detect_from_cmdline();
	printf("# foliosim-guest: %s mode%s\n", fsim_mode_name(mode),
	       kernel_detect ? ", the kernel carries the detect part" : "");
	map_own_file();
	settle_anon_pages();
	for (; i < argc; i++) {
		struct fsim_script *script;
		char err[512];
		size_t k;

		if (fsim_script_load(argv[i], &script, err, sizeof(err))) {
			printf("FAIL %s: %s\n", argv[i], err);
			failed++;
			continue;
		}
		for (k = 0; k < fsim_script_count(script); k++) {
			int outcome;

			memset(&s, 0, sizeof(s));
			s.script = script;
			s.index = k;
			s.mode = mode;
			s.kernel_detect = kernel_detect;
			s.verbose = verbose;
			outcome = run_scenario(&s);
			if (outcome == FSIM_PASS) {
				printf("ok %s\n", fsim_script_name(script, k));
				passed++;
			} else if (outcome == FSIM_SKIP) {
				printf("skip %s: %s\n", fsim_script_name(script, k), s.message);
				skipped++;
			} else {
				printf("FAIL %s: %s\n", fsim_script_name(script, k), s.message);
				failed++;
			}
			fflush(stdout);
		}
		fsim_script_free(script);
	}
	printf("%lu passed, %lu failed, %lu skipped\n", passed, failed, skipped);
	if (snapshot_check) {
		const struct snapcheck_totals *t = snapcheck_totals();

		printf("snapshot-check: %llu steps, %llu process snapshots, %llu regions, "
		       "%llu values compared, %llu differ, %llu within MM-id history bounds, "
		       "%llu mappings refused, %llu steps of more than %d workers sampled out, "
		       "%llu errors\n",
		       t->steps, t->processes, t->regions, t->values, t->differences,
		       t->history, t->refused, t->sampled_out, SNAPSHOT_MANY, t->errors);
		failed += t->differences || t->errors;
	}
	fflush(stdout);
	/* After the scenarios, so that their AnonPages readings stay quiet. */
	if (gfuzz_steps)
		mismatches = gfuzz_run(mode, gfuzz_steps, gfuzz_seed, verbose);
	return failed || mismatches ? 1 : 0;
}
