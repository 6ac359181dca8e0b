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
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "foliosim/foliosim.h"
#include "guest.h"
#include "procfs.h"

/* include/uapi/linux/fs.h of 6.7+, spelled out: the build host's headers
 * may predate PAGEMAP_SCAN. */
struct gf_page_region {
	uint64_t start, end, categories;
};

struct gf_pm_scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};

#define GF_PAGEMAP_SCAN _IOWR('f', 16, struct gf_pm_scan_arg)
#define GF_PAGE_IS_PRESENT (1ull << 3)
#define GF_PAGE_IS_HUGE (1ull << 6)

#define PMD_ORDER 9
#define PMD_PAGES (1ul << PMD_ORDER)

#define GF_MAX_PROCS 6
#define GF_MAX_REG 12		/* < the worker's MAX_REGIONS */
#define GF_MAX_REGION_PAGES 1024
#define GF_MAX_LIVE_PAGES 6144	/* region pages over every live process */
#define GF_HISTORY 24
#define GF_MAX_REPORTED 20

/* ---------------------------------------------------------------- */
/* State                                                             */
/* ---------------------------------------------------------------- */

struct gf_region {
	char name[12];
	uintptr_t addr;
	uint64_t size;
	bool gone[GF_MAX_REGION_PAGES];	/* munmap()ed or mremap()ed away */
};

struct gf_proc {
	char name[16];
	pid_t pid;
	FILE *cmd, *rsp;
	bool live;
	struct fsim_mm *mm;
	struct gf_region reg[GF_MAX_REG];
	int nreg;
};

/* A folio the kernel showed us, by head PFN and order, and its model. */
struct gf_folio {
	uint64_t head;
	unsigned int order;
	struct fsim_folio *f;
	bool live;
	bool fresh;		/* first seen in this step */
};

/* One page-table entry mapping a folio: the rmap state, kernel and model. */
struct gf_map {
	int proc;
	uint32_t folio;		/* index into folios */
	uint8_t level;		/* FSIM_LEVEL_PTE or FSIM_LEVEL_PMD */
	uint32_t page;		/* first page in the folio */
};

/* One present page of a region, as observed. */
struct gf_page {
	int proc;
	uintptr_t va;
	uint64_t pfn;
	uint32_t folio;		/* UINT32_MAX: the zeropage */
	uint32_t fpage;		/* page index in the folio */
	bool pmd;		/* mapped by a PMD (PAGEMAP_SCAN PAGE_IS_HUGE) */
	bool kexcl;		/* pagemap bit 56 */
	uint64_t kcount;	/* /proc/kpagecount */
};

/* kpageflags and kpagecount of one PFN, and its folio's head and order
 * (head UINT64_MAX: no folio of order <= 9 found). */
struct gf_pfn {
	uint64_t pfn, flags, count, head;
	unsigned int order;
};

#define VEC(T) struct { T *v; size_t n, cap; }

/* What a mismatch is about; counted per kind for the summary. */
enum gf_what { MM_OBSERVE, MM_RMAP_CALL, MM_ORACLE, MM_KPAGECOUNT, MM_EXCLUSIVE,
	       MM_EXCLUSIVE_ZERO, MM_SMAPS, MM_NR };
static const char *const what_names[MM_NR] = {
	"observation", "refused rmap call", "oracle", "kpagecount", "bit 56",
	"bit 56 of the zeropage", "smaps",
};

enum gf_kind { OP_SPAWN, OP_MMAP, OP_TOUCH, OP_READ, OP_FORK, OP_MUNMAP,
	       OP_DONTNEED, OP_MREMAP, OP_EXIT, OP_NR };
static const char *const op_names[OP_NR] = { "spawn", "mmap", "touch", "read", "fork",
					     "munmap", "dontneed", "mremap", "exit" };

struct gfuzz {
	enum fsim_mode mode;
	uint64_t seed, rng;
	bool verbose;
	char dir[64];
	struct fsim_ctx *ctx;
	struct fsim_folio *zero, *huge_zero;	/* never mapped: the zeropages */
	struct gf_proc procs[64];
	int nprocs;
	unsigned int next_region, next_proc;
	VEC(struct gf_folio) folios;
	VEC(uint32_t) free_folios;
	VEC(struct gf_map) prev, cur, adds, removes;
	VEC(struct gf_page) pages;
	VEC(struct gf_pfn) pfns;
	uint32_t *hash;		/* open addressing: folio index + 1, 0 empty */
	size_t hash_size;
	int pagemap_fd[64];
	char *smaps;
	size_t smaps_cap;
	/* the step being checked */
	unsigned long step;
	char op[160];
	char history[GF_HISTORY][200];
	int fork_parent, fork_child;
	/* figures */
	unsigned long ops[OP_NR], refused[OP_NR];
	unsigned long long pages_checked, vmas_checked, rmap_calls, folios_seen;
	unsigned long long pmd_pages, zero_pages, huge_zero_pages;	/* coverage */
	unsigned long long max_mapped_pages;
	long mismatches, by_what[MM_NR];
	bool fatal;
};

#define VEC_PUSH(g, vec, item)                                                  \
	do {                                                                    \
		if ((vec).n == (vec).cap) {                                     \
			size_t cap_ = (vec).cap ? 2 * (vec).cap : 256;          \
			void *p_ = realloc((vec).v, cap_ * sizeof(*(vec).v));   \
			if (!p_) {                                              \
				gf_fatal(g, "out of memory");                   \
				break;                                          \
			}                                                       \
			(vec).v = p_;                                           \
			(vec).cap = cap_;                                       \
		}                                                               \
		(vec).v[(vec).n++] = (item);                                    \
	} while (0)

static void gf_fatal(struct gfuzz *g, const char *fmt, ...)
{
	va_list ap;

	if (g->fatal)
		return;
	g->fatal = true;
	printf("gfuzz: ERROR at step %lu (%s): ", g->step, g->op);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* splitmix64: small, seedable, the same stream on every build. */
static uint64_t gf_rand(struct gfuzz *g)
{
	uint64_t z = (g->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t gf_below(struct gfuzz *g, uint64_t n)
{
	return n ? gf_rand(g) % n : 0;
}

/* ---------------------------------------------------------------- */
/* Workers                                                           */
/* ---------------------------------------------------------------- */

static bool gf_send(struct gfuzz *g, struct gf_proc *p, char *reply, size_t len,
		    const char *fmt, ...)
{
	va_list ap;
	int ok;

	va_start(ap, fmt);
	ok = worker_vsend(p->cmd, p->rsp, reply, len, fmt, ap);
	va_end(ap);
	if (ok < 0)
		gf_fatal(g, "worker %s (pid %d) died", p->name, (int)p->pid);
	return ok > 0;
}

static struct gf_proc *gf_new_proc(struct gfuzz *g)
{
	struct gf_proc *p;
	int i, err;

	/* the slot of a process whose exit has been replayed, else a new one */
	for (i = 0; i < g->nprocs && (g->procs[i].live || g->procs[i].mm); i++)
		;
	if (i == (int)(sizeof(g->procs) / sizeof(g->procs[0]))) {
		gf_fatal(g, "more than %d processes at once", i);
		return NULL;
	}
	p = &g->procs[i];
	if (i < g->nprocs)
		worker_fifos_remove(g->dir, p->name);
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "p%u", g->next_proc++);
	err = worker_fifos_create(g->dir, p->name);
	if (err) {
		gf_fatal(g, "mkfifo: %s", strerror(-err));
		return NULL;
	}
	g->pagemap_fd[i] = -1;
	if (i == g->nprocs)
		g->nprocs++;
	return p;
}

static bool gf_connect(struct gfuzz *g, struct gf_proc *p)
{
	char reply[64], path[64];

	if (!worker_fifos_open(g->dir, p->name, &p->cmd, &p->rsp)) {
		gf_fatal(g, "cannot talk to worker %s", p->name);
		return false;
	}
	if (!gf_send(g, p, reply, sizeof(reply), "ping"))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)p->pid);
	g->pagemap_fd[p - g->procs] = open(path, O_RDONLY);
	if (g->pagemap_fd[p - g->procs] < 0) {
		gf_fatal(g, "open %s: %s", path, strerror(errno));
		return false;
	}
	if (fsim_mm_create(g->ctx, 0, &p->mm)) {
		gf_fatal(g, "the model has no mm id left");
		return false;
	}
	p->live = true;
	return true;
}

static int gf_live(const struct gfuzz *g, int *idx, int max)
{
	int i, n = 0;

	for (i = 0; i < g->nprocs; i++)
		if (g->procs[i].live && n < max)
			idx[n++] = i;
	return n;
}

static uint64_t gf_live_pages(const struct gfuzz *g)
{
	uint64_t n = 0;
	int i, k;

	for (i = 0; i < g->nprocs; i++)
		for (k = 0; g->procs[i].live && k < g->procs[i].nreg; k++)
			n += g->procs[i].reg[k].size / PAGE;
	return n;
}

/* ---------------------------------------------------------------- */
/* One random step                                                   */
/* ---------------------------------------------------------------- */

static void gf_record(struct gfuzz *g, enum gf_kind kind, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(g->op, sizeof(g->op), "%s ", op_names[kind]);
	va_start(ap, fmt);
	vsnprintf(g->op + n, sizeof(g->op) - (size_t)n, fmt, ap);
	va_end(ap);
	memmove(g->history[1], g->history[0], sizeof(g->history[0]) * (GF_HISTORY - 1));
	snprintf(g->history[0], sizeof(g->history[0]), "%lu: %s", g->step, g->op);
	g->ops[kind]++;
	if (g->verbose)
		fprintf(stderr, "gfuzz %lu: %s\n", g->step, g->op);
}

/* A page range of @r: a whole folio-aligned chunk or a few random pages. */
static void gf_range(struct gfuzz *g, const struct gf_region *r, uint64_t *off, uint64_t *len)
{
	const uint64_t pages = r->size / PAGE;
	uint64_t first, n;

	switch (gf_below(g, 3)) {
	case 0:		/* the whole region */
		first = 0;
		n = pages;
		break;
	case 1: {	/* an aligned chunk of 2^k pages */
		unsigned int k = (unsigned int)gf_below(g, 10);

		while ((1ull << k) > pages)
			k--;
		first = gf_below(g, pages >> k) << k;
		n = 1ull << k;
		break;
	}
	default:	/* a few pages anywhere */
		first = gf_below(g, pages);
		n = 1 + gf_below(g, 16);
		break;
	}
	if (first + n > pages)
		n = pages - first;
	*off = first * PAGE;
	*len = n * PAGE;
}

static unsigned int gf_pick_order(struct gfuzz *g)
{
	static const unsigned int orders[] = { 0, 0, 2, 3, 4, 4, 5, 6, 7, 8, 9, 9, 9 };

	return orders[gf_below(g, sizeof(orders) / sizeof(orders[0]))];
}

static void gf_spawn(struct gfuzz *g)
{
	struct gf_proc *p = gf_new_proc(g);
	pid_t pid;

	if (!p)
		return;
	gf_record(g, OP_SPAWN, "%s", p->name);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		/* A fresh image: smaps of a worker then walks its regions and
		 * little else, not a copy of this controller's heap. */
		execl("/proc/self/exe", "foliosim-guest", "--worker", g->dir, p->name,
		      (char *)NULL);
		worker_loop(g->dir, p->name);
	}
	if (pid < 0) {
		gf_fatal(g, "fork: %s", strerror(errno));
		return;
	}
	p->pid = pid;
	gf_connect(g, p);
}

static void gf_mmap(struct gfuzz *g, struct gf_proc *p)
{
	const unsigned int order = gf_pick_order(g);
	uint64_t pages, room = GF_MAX_LIVE_PAGES - gf_live_pages(g);
	struct gf_region *r;
	char reply[64];

	if (order == PMD_ORDER)
		pages = PMD_PAGES << gf_below(g, 2);
	else if (order)
		pages = (1ull << order) * (1 + gf_below(g, 8));
	else
		pages = 1 + gf_below(g, 64);
	if (pages > GF_MAX_REGION_PAGES)
		pages = GF_MAX_REGION_PAGES;
	if (p->nreg == GF_MAX_REG || pages > room) {
		gf_record(g, OP_MMAP, "%s: no room (%d regions, %" PRIu64 " pages left)",
			  p->name, p->nreg, room);
		g->refused[OP_MMAP]++;
		return;
	}
	r = &p->reg[p->nreg];
	snprintf(r->name, sizeof(r->name), "r%u", g->next_region++);
	r->size = pages * PAGE;
	memset(r->gone, 0, sizeof(r->gone));
	gf_record(g, OP_MMAP, "%s %s pages=%" PRIu64 " order=%u", p->name, r->name, pages, order);
	if (!gf_send(g, p, reply, sizeof(reply), "mmap %s %" PRIu64 " %u 0 1", r->name,
		     r->size, order)) {
		if (!g->fatal)
			gf_fatal(g, "mmap refused: %s", reply);
		return;
	}
	r->addr = (uintptr_t)strtoull(reply + 3, NULL, 16);
	p->nreg++;
	if (g->verbose)
		fprintf(stderr, "gfuzz %lu: %s at %#lx\n", g->step, r->name, (unsigned long)r->addr);
}

static struct gf_region *gf_pick_region(struct gfuzz *g, struct gf_proc *p)
{
	return p->nreg ? &p->reg[gf_below(g, (uint64_t)p->nreg)] : NULL;
}

/* touch, read, munmap, dontneed: a range of a region. */
static void gf_range_op(struct gfuzz *g, struct gf_proc *p, enum gf_kind kind)
{
	static const char *const verbs[OP_NR] = {
		[OP_TOUCH] = "touch", [OP_READ] = "read",
		[OP_MUNMAP] = "munmap", [OP_DONTNEED] = "dontneed",
	};
	struct gf_region *r = gf_pick_region(g, p);
	uint64_t off, len;
	char reply[64];

	if (!r) {
		gf_mmap(g, p);
		return;
	}
	gf_range(g, r, &off, &len);
	{
		/* The first run of the range that is still this region's: an
		 * access to a hole would be SIGSEGV, and a later mmap() may
		 * have put another region into it. */
		uint64_t first = off / PAGE, last = (off + len) / PAGE, i;

		while (first < last && r->gone[first])
			first++;
		for (i = first; i < last && !r->gone[i]; i++)
			;
		off = first * PAGE;
		len = (i - first) * PAGE;
	}
	gf_record(g, kind, "%s %s +%#" PRIx64 " len %#" PRIx64, p->name, r->name, off, len);
	if (!len) {
		g->refused[kind]++;
		return;
	}
	if (kind == OP_MUNMAP)
		memset(&r->gone[off / PAGE], 1, len / PAGE);
	if (!gf_send(g, p, reply, sizeof(reply), "%s %s %" PRIu64 " %" PRIu64, verbs[kind],
		     r->name, off, len))
		g->refused[kind]++;
}

static void gf_fork(struct gfuzz *g, struct gf_proc *p)
{
	struct gf_proc *c;
	char reply[64];
	int pi = (int)(p - g->procs), k;
	uint64_t pages = 0;

	for (k = 0; k < p->nreg; k++)
		pages += p->reg[k].size / PAGE;
	if (gf_live_pages(g) + pages > GF_MAX_LIVE_PAGES) {
		gf_record(g, OP_FORK, "%s: no room (%" PRIu64 " pages more)", p->name, pages);
		g->refused[OP_FORK]++;
		return;
	}
	c = gf_new_proc(g);
	if (!c)
		return;
	p = &g->procs[pi];
	gf_record(g, OP_FORK, "%s -> %s", p->name, c->name);
	if (!gf_send(g, p, reply, sizeof(reply), "fork %s", c->name)) {
		if (!g->fatal)
			gf_fatal(g, "fork refused: %s", reply);
		return;
	}
	c->pid = (pid_t)atoi(reply + 3);
	memcpy(c->reg, p->reg, sizeof(p->reg));
	c->nreg = p->nreg;
	if (gf_connect(g, c)) {
		g->fork_parent = pi;
		g->fork_child = (int)(c - g->procs);
	}
}

static void gf_mremap(struct gfuzz *g, struct gf_proc *p)
{
	struct gf_region *r = gf_pick_region(g, p), *d;
	const int keep = (int)gf_below(g, 2);
	uint64_t off, len;
	char reply[64];

	if (!r || p->nreg == GF_MAX_REG) {
		gf_range_op(g, p, OP_MUNMAP);
		return;
	}
	gf_range(g, r, &off, &len);
	/* 6.12 refuses a range with a hole (EFAULT); newer kernels move
	 * every VMA in it, which the hole bookkeeping does not follow. */
	if (memchr(&r->gone[off / PAGE], 1, len / PAGE)) {
		gf_record(g, OP_MREMAP, "%s %s +%#" PRIx64 " len %#" PRIx64 ": has a hole",
			  p->name, r->name, off, len);
		g->refused[OP_MREMAP]++;
		return;
	}
	d = &p->reg[p->nreg];
	memset(d->gone, 0, sizeof(d->gone));
	snprintf(d->name, sizeof(d->name), "r%u", g->next_region++);
	gf_record(g, OP_MREMAP, "%s %s +%#" PRIx64 " len %#" PRIx64 " -> %s (%s PMD offset)",
		  p->name, r->name, off, len, d->name, keep ? "same" : "other");
	if (!gf_send(g, p, reply, sizeof(reply), "mremap %s %" PRIu64 " %" PRIu64 " %s %d",
		     r->name, off, len, d->name, keep)) {
		g->refused[OP_MREMAP]++;	/* e.g. EFAULT: the range has a hole */
		return;
	}
	d->addr = (uintptr_t)strtoull(reply + 3, NULL, 16);
	d->size = len;
	memset(&r->gone[off / PAGE], 1, len / PAGE);
	p->nreg++;
	if (g->verbose)
		fprintf(stderr, "gfuzz %lu: %s at %#lx\n", g->step, d->name, (unsigned long)d->addr);
}

static void gf_exit(struct gfuzz *g, struct gf_proc *p)
{
	char reply[64];

	gf_record(g, OP_EXIT, "%s", p->name);
	fprintf(p->cmd, "exit\n");
	fflush(p->cmd);
	if (!fgets(reply, sizeof(reply), p->rsp))
		reply[0] = '\0';
	fclose(p->cmd);
	fclose(p->rsp);
	close(g->pagemap_fd[p - g->procs]);
	g->pagemap_fd[p - g->procs] = -1;
	p->live = false;
	wait_mm_gone(p->pid);
	waitpid(p->pid, NULL, 0);
}

static void gf_random_step(struct gfuzz *g)
{
	/* weights of spawn, mmap, touch, read, fork, munmap, dontneed, mremap, exit */
	static const unsigned int weight[OP_NR] = { 1, 12, 30, 6, 7, 9, 9, 7, 4 };
	int live[GF_MAX_PROCS * 2], n = gf_live(g, live, GF_MAX_PROCS * 2);
	unsigned int total = 0, pick, k;
	struct gf_proc *p;

	g->fork_parent = g->fork_child = -1;
	if (n == 0) {
		gf_spawn(g);
		return;
	}
	for (k = 0; k < OP_NR; k++)
		total += weight[k];
	pick = (unsigned int)gf_below(g, total);
	for (k = 0; pick >= weight[k]; k++)
		pick -= weight[k];
	p = &g->procs[live[gf_below(g, (uint64_t)n)]];
	switch ((enum gf_kind)k) {
	case OP_SPAWN:
		if (n < GF_MAX_PROCS)
			gf_spawn(g);
		else
			gf_exit(g, p);
		break;
	case OP_MMAP:
		gf_mmap(g, p);
		break;
	case OP_FORK:
		if (n < GF_MAX_PROCS)
			gf_fork(g, p);
		else
			gf_exit(g, p);
		break;
	case OP_MREMAP:
		gf_mremap(g, p);
		break;
	case OP_EXIT:
		if (n > 1)
			gf_exit(g, p);
		else
			gf_range_op(g, p, OP_TOUCH);
		break;
	default:
		gf_range_op(g, p, (enum gf_kind)k);
		break;
	}
}

/* ---------------------------------------------------------------- */
/* Observing the kernel                                              */
/* ---------------------------------------------------------------- */

static void gf_mismatch(struct gfuzz *g, const struct gf_page *pg, enum gf_what what,
			const char *fmt, ...);

/* PAGEMAP_SCAN: marks the pages of [addr, addr + size) that a PMD maps. */
static bool gf_scan_huge(struct gfuzz *g, int fd, uintptr_t addr, uint64_t size, bool *pmd)
{
	struct gf_page_region vec[GF_MAX_REGION_PAGES / PMD_PAGES + 4];
	struct gf_pm_scan_arg arg;
	long n, i;

	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.start = addr;
	arg.end = addr + size;
	arg.vec = (uintptr_t)vec;
	arg.vec_len = sizeof(vec) / sizeof(vec[0]);
	/* pmd_none() also reports PAGE_IS_HUGE: ask for present ones only */
	arg.category_mask = GF_PAGE_IS_HUGE | GF_PAGE_IS_PRESENT;
	arg.return_mask = GF_PAGE_IS_HUGE | GF_PAGE_IS_PRESENT;
	n = ioctl(fd, GF_PAGEMAP_SCAN, &arg);
	if (n < 0) {
		gf_fatal(g, "PAGEMAP_SCAN: %s (the kernel needs 6.7 or later)", strerror(errno));
		return false;
	}
	for (i = 0; i < n; i++) {
		uintptr_t a;

		for (a = vec[i].start; a < vec[i].end; a += PAGE)
			if (a >= addr && a < addr + size)
				pmd[(a - addr) / PAGE] = true;
	}
	return true;
}

static void gf_observe_region(struct gfuzz *g, int pi, const struct gf_region *r)
{
	static uint64_t pme[GF_MAX_REGION_PAGES];
	static bool pmd[GF_MAX_REGION_PAGES];
	const int fd = g->pagemap_fd[pi];
	const size_t npages = r->size / PAGE;
	size_t i;

	memset(pmd, 0, npages);
	if (pread(fd, pme, npages * 8, (off_t)(r->addr / PAGE * 8)) != (ssize_t)(npages * 8)) {
		gf_fatal(g, "pagemap of %s: %s", g->procs[pi].name, strerror(errno));
		return;
	}
	if (!gf_scan_huge(g, fd, r->addr, r->size, pmd))
		return;
	for (i = 0; i < npages; i++) {
		struct gf_page pg = { pi, r->addr + i * PAGE, 0, UINT32_MAX, 0, pmd[i],
				      false, 0 };

		/* munmap()ed or moved away: a later mmap() may reuse the
		 * addresses for another region, which observes them */
		if (r->gone[i])
			continue;
		if (pm_bit(pme[i], PM_SWAP_BIT)) {
			gf_mismatch(g, &pg, MM_OBSERVE, "a swapped-out page (the fuzzer does not model swap)");
			continue;
		}
		if (!pm_present(pme[i]))
			continue;
		pg.pfn = pm_pfn(pme[i]);
		pg.kexcl = pm_bit(pme[i], PM_MMAP_EXCLUSIVE_BIT);
		if (!pg.pfn) {
			gf_fatal(g, "pagemap shows no PFNs (needs CAP_SYS_ADMIN)");
			return;
		}
		VEC_PUSH(g, g->pages, pg);
	}
}

/* qsort() of a vector that may still be empty (NULL). */
static void gf_qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

static int cmp_page(const void *a, const void *b)
{
	const struct gf_page *x = a, *y = b;

	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	return x->va < y->va ? -1 : x->va > y->va;
}

static int cmp_pfn(const void *a, const void *b)
{
	const uint64_t x = ((const struct gf_pfn *)a)->pfn, y = ((const struct gf_pfn *)b)->pfn;

	return x < y ? -1 : x > y;
}

static struct gf_pfn *gf_pfn_info(struct gfuzz *g, uint64_t pfn)
{
	struct gf_pfn key = { pfn, 0, 0, 0, 0 };

	return g->pfns.n ? bsearch(&key, g->pfns.v, g->pfns.n, sizeof(key), cmp_pfn) : NULL;
}

/* The head and order of the folio of page @j of a 512-page window of
 * kpageflags starting at PFN @w: back to the COMPOUND_HEAD, then on over
 * its COMPOUND_TAILs. */
static void gf_folio_in_window(const uint64_t *flags, size_t j, uint64_t w, struct gf_pfn *out)
{
	size_t h = j, n;

	out->head = UINT64_MAX;
	if (!kpf(flags[j], KPF_COMPOUND_HEAD) && !kpf(flags[j], KPF_COMPOUND_TAIL)) {
		out->head = w + j;
		out->order = 0;
		return;
	}
	while (h > 0 && kpf(flags[h], KPF_COMPOUND_TAIL))
		h--;
	if (!kpf(flags[h], KPF_COMPOUND_HEAD))
		return;		/* a folio above order 9 */
	for (n = 1; h + n < PMD_PAGES && kpf(flags[h + n], KPF_COMPOUND_TAIL); n++)
		;
	for (out->order = 0; (1ul << out->order) < n; out->order++)
		;
	if ((1ul << out->order) == n)
		out->head = w + h;
}

/* pread() of the 8-byte entries [@pfn, @pfn + @n) of a /proc/kpage* file. */
static bool gf_pread_pfns(int fd, uint64_t *buf, uint64_t pfn, size_t n)
{
	return pread(fd, buf, n * 8, (off_t)(pfn * 8)) == (ssize_t)(n * 8);
}

/*
 * kpageflags and kpagecount of every PFN seen: one pread() per run of
 * consecutive PFNs (each entry costs the kernel a page-flags computation,
 * so no more is read than needed), then for the pages of large folios the
 * 512-page window around them, once per window: a folio of order <= 9
 * never straddles one, so its head and all its tails are in it.
 */
static void gf_read_pfns(struct gfuzz *g, int kflags, int kcount)
{
	static uint64_t flags[PMD_PAGES], count[PMD_PAGES];
	uint64_t window = UINT64_MAX;
	size_t i, j, n = 0;

	g->pfns.n = 0;
	for (i = 0; i < g->pages.n; i++) {
		struct gf_pfn p = { g->pages.v[i].pfn, 0, 0, 0, 0 };

		VEC_PUSH(g, g->pfns, p);
	}
	gf_qsort(g->pfns.v, g->pfns.n, sizeof(*g->pfns.v), cmp_pfn);
	for (i = 0; i < g->pfns.n; i++)
		if (!n || g->pfns.v[n - 1].pfn != g->pfns.v[i].pfn)
			g->pfns.v[n++] = g->pfns.v[i];
	g->pfns.n = n;
	for (i = 0; i < n; i = j) {
		const uint64_t first = g->pfns.v[i].pfn;

		for (j = i + 1; j < n && j - i < PMD_PAGES &&
		     g->pfns.v[j].pfn == first + (j - i); j++)
			;
		if (!gf_pread_pfns(kflags, flags, first, j - i) ||
		    !gf_pread_pfns(kcount, count, first, j - i)) {
			gf_fatal(g, "kpageflags/kpagecount: %s", strerror(errno));
			return;
		}
		for (size_t k = i; k < j; k++) {
			g->pfns.v[k].flags = flags[k - i];
			g->pfns.v[k].count = count[k - i];
		}
	}
	for (i = 0; i < n; i++) {
		const uint64_t w = g->pfns.v[i].pfn & ~(uint64_t)(PMD_PAGES - 1);
		const uint64_t f = g->pfns.v[i].flags;

		if (!kpf(f, KPF_COMPOUND_HEAD) && !kpf(f, KPF_COMPOUND_TAIL)) {
			g->pfns.v[i].head = g->pfns.v[i].pfn;	/* order 0 */
			g->pfns.v[i].order = 0;
			continue;
		}
		if (w != window) {
			window = w;
			if (!gf_pread_pfns(kflags, flags, w, PMD_PAGES)) {
				gf_fatal(g, "kpageflags: %s", strerror(errno));
				return;
			}
		}
		gf_folio_in_window(flags, g->pfns.v[i].pfn - w, w, &g->pfns.v[i]);
	}
}

/* ---------------------------------------------------------------- */
/* Folios of the model                                               */
/* ---------------------------------------------------------------- */

static uint64_t gf_hash_key(uint64_t head, unsigned int order)
{
	return (head * 0x9e3779b97f4a7c15ull) ^ order;
}

static uint32_t *gf_hash_slot(struct gfuzz *g, uint64_t head, unsigned int order)
{
	size_t i = (size_t)(gf_hash_key(head, order) >> 20) & (g->hash_size - 1);

	for (;; i = (i + 1) & (g->hash_size - 1)) {
		uint32_t v = g->hash[i];

		if (!v || (g->folios.v[v - 1].head == head && g->folios.v[v - 1].order == order))
			return &g->hash[i];
	}
}

/* Rebuilds the folio hash from the live folios (a few thousand). */
static void gf_rehash(struct gfuzz *g)
{
	size_t i, need = 1024;

	while (need < 4 * g->folios.n)
		need *= 2;
	if (need != g->hash_size) {
		free(g->hash);
		g->hash = calloc(need, sizeof(*g->hash));
		g->hash_size = need;
		if (!g->hash) {
			g->hash_size = 0;
			gf_fatal(g, "out of memory");
			return;
		}
	} else {
		memset(g->hash, 0, need * sizeof(*g->hash));
	}
	for (i = 0; i < g->folios.n; i++)
		if (g->folios.v[i].live)
			*gf_hash_slot(g, g->folios.v[i].head, g->folios.v[i].order) = (uint32_t)i + 1;
}

static uint32_t gf_folio_get(struct gfuzz *g, uint64_t head, unsigned int order)
{
	uint32_t *slot, idx;
	struct gf_folio nf = { head, order, NULL, true, true };

	if (4 * (g->folios.n + 1) > g->hash_size)
		gf_rehash(g);
	if (g->fatal)
		return UINT32_MAX;
	slot = gf_hash_slot(g, head, order);
	if (*slot)
		return *slot - 1;
	if (fsim_folio_create(g->ctx, order, FSIM_KIND_ANON, &nf.f)) {
		gf_fatal(g, "the model cannot create an order-%u folio", order);
		return UINT32_MAX;
	}
	if (g->free_folios.n) {
		idx = g->free_folios.v[--g->free_folios.n];
		g->folios.v[idx] = nf;
	} else {
		idx = (uint32_t)g->folios.n;
		VEC_PUSH(g, g->folios, nf);
	}
	*slot = idx + 1;
	g->folios_seen++;
	return idx;
}

/* Turns the observed pages into page-table entries (g->cur), and gives
 * each page its kpagecount. */
static void gf_entries(struct gfuzz *g)
{
	size_t i;

	g->cur.n = 0;
	for (i = 0; i < g->pages.n && !g->fatal; i++) {
		struct gf_page *pg = &g->pages.v[i];
		const struct gf_pfn *info = gf_pfn_info(g, pg->pfn);
		struct gf_map m;
		uint64_t head;
		unsigned int order;

		pg->kcount = info->count;
		if (kpf(info->flags, KPF_ZERO_PAGE))
			continue;	/* folio stays UINT32_MAX */
		if (!kpf(info->flags, KPF_ANON)) {
			gf_mismatch(g, pg, MM_OBSERVE, "not an anon page: kpageflags %#" PRIx64, info->flags);
			continue;
		}
		head = info->head;
		order = info->order;
		if (head == UINT64_MAX) {
			gf_mismatch(g, pg, MM_OBSERVE, "cannot find the folio head in kpageflags");
			continue;
		}
		pg->folio = gf_folio_get(g, head, order);
		pg->fpage = (uint32_t)(pg->pfn - head);
		if (pg->folio == UINT32_MAX)
			return;
		if (pg->pmd) {
			if (order != PMD_ORDER || (pg->va & (PMD_BYTES - 1)) / PAGE != pg->fpage) {
				gf_mismatch(g, pg, MM_OBSERVE, "a PMD maps page %u of an order-%u folio",
					    pg->fpage, order);
				continue;
			}
			if (pg->fpage)
				continue;	/* one entry per PMD */
		}
		m.proc = pg->proc;
		m.folio = pg->folio;
		m.level = pg->pmd ? FSIM_LEVEL_PMD : FSIM_LEVEL_PTE;
		m.page = pg->fpage;
		VEC_PUSH(g, g->cur, m);
	}
}

static bool gf_observe(struct gfuzz *g)
{
	int kflags = open("/proc/kpageflags", O_RDONLY);
	int kcount = open("/proc/kpagecount", O_RDONLY);
	int i, k;

	g->pages.n = 0;
	if (kflags < 0 || kcount < 0) {
		gf_fatal(g, "/proc/kpageflags, /proc/kpagecount: %s", strerror(errno));
	} else {
		for (i = 0; i < g->nprocs && !g->fatal; i++)
			for (k = 0; g->procs[i].live && k < g->procs[i].nreg && !g->fatal; k++)
				gf_observe_region(g, i, &g->procs[i].reg[k]);
		if (!g->fatal)
			gf_read_pfns(g, kflags, kcount);
		gf_qsort(g->pages.v, g->pages.n, sizeof(*g->pages.v), cmp_page);
		if (!g->fatal)
			gf_entries(g);
	}
	if (kflags >= 0)
		close(kflags);
	if (kcount >= 0)
		close(kcount);
	return !g->fatal;
}

/* ---------------------------------------------------------------- */
/* Replaying the rmap calls                                          */
/* ---------------------------------------------------------------- */

static int cmp_map(const void *a, const void *b)
{
	const struct gf_map *x = a, *y = b;

	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	if (x->folio != y->folio)
		return x->folio < y->folio ? -1 : 1;
	if (x->level != y->level)
		return x->level < y->level ? -1 : 1;
	return x->page < y->page ? -1 : x->page > y->page;
}

static void gf_call_failed(struct gfuzz *g, const char *call, const struct gf_map *m,
			   unsigned long nr, int err)
{
	const struct gf_folio *gf = &g->folios.v[m->folio];

	g->mismatches++;
	g->by_what[MM_RMAP_CALL]++;
	printf("gfuzz: MISMATCH at step %lu (%s): the model refused %s(folio %#" PRIx64
	       " order %u, %s, %s, page %u, nr %lu): %s\n", g->step, g->op, call, gf->head,
	       gf->order, g->procs[m->proc].name, fsim_level_name((enum fsim_level)m->level),
	       m->page, nr, fsim_errname(err));
}

/* The length of the run of entries starting at v[i] that one batched call
 * covers: PTEs of one folio in one mm at consecutive pages (PMDs: one). */
static size_t gf_run(const struct gf_map *v, size_t n, size_t i)
{
	size_t j = i + 1;

	if (v[i].level != FSIM_LEVEL_PTE)
		return 1;
	while (j < n && v[j].proc == v[i].proc && v[j].folio == v[i].folio &&
	       v[j].level == v[i].level && v[j].page == v[j - 1].page + 1)
		j++;
	return j - i;
}

static unsigned long gf_nr(const struct gf_map *m)
{
	return m->level == FSIM_LEVEL_PMD ? PMD_PAGES : 1;
}

static bool gf_prev_has(struct gfuzz *g, int proc, const struct gf_map *m, size_t run)
{
	size_t k;

	for (k = 0; k < run; k++) {
		struct gf_map key = m[k];

		key.proc = proc;
		if (!g->prev.n || !bsearch(&key, g->prev.v, g->prev.n, sizeof(key), cmp_map))
			return false;
	}
	return true;
}

/*
 * A folio seen for the first time was just faulted in: the fault mapped it
 * whole with folio_add_new_anon_rmap() (do_anonymous_page(),
 * do_huge_pmd_anonymous_page(), wp_page_copy()).  Replays that for the
 * first mm that maps it and puts the entries it made into g->prev, so the
 * diff then sees only what happened after (none, in practice).
 */
static void gf_new_folios(struct gfuzz *g)
{
	size_t i, k;

	for (i = 0; i < g->cur.n && !g->fatal; i++) {
		const struct gf_map *m = &g->cur.v[i];
		struct gf_folio *gf = &g->folios.v[m->folio];
		int err;

		if (!gf->fresh)
			continue;
		gf->fresh = false;
		err = fsim_folio_add_new_anon_rmap(gf->f, g->procs[m->proc].mm, true);
		g->rmap_calls++;
		if (err) {
			gf_call_failed(g, "folio_add_new_anon_rmap", m, 1ul << gf->order, err);
			continue;
		}
		if (gf->order >= PMD_ORDER) {
			struct gf_map e = { m->proc, m->folio, FSIM_LEVEL_PMD, 0 };

			VEC_PUSH(g, g->prev, e);
		} else {
			for (k = 0; k < (1ul << gf->order); k++) {
				struct gf_map e = { m->proc, m->folio, FSIM_LEVEL_PTE, (uint32_t)k };

				VEC_PUSH(g, g->prev, e);
			}
		}
	}
	gf_qsort(g->prev.v, g->prev.n, sizeof(*g->prev.v), cmp_map);
}

/* prev - cur and cur - prev, as multisets (both sorted). */
static void gf_diff(struct gfuzz *g)
{
	size_t i = 0, j = 0;

	g->adds.n = g->removes.n = 0;
	while (i < g->prev.n || j < g->cur.n) {
		int c = i == g->prev.n ? 1 : j == g->cur.n ? -1 :
			cmp_map(&g->prev.v[i], &g->cur.v[j]);

		if (c < 0)
			VEC_PUSH(g, g->removes, g->prev.v[i++]);
		else if (c > 0)
			VEC_PUSH(g, g->adds, g->cur.v[j++]);
		else
			i++, j++;
	}
}

static void gf_replay_adds(struct gfuzz *g)
{
	const struct gf_map *v = g->adds.v;
	size_t i, run;

	for (i = 0; i < g->adds.n; i += run) {
		const struct gf_folio *gf = &g->folios.v[v[i].folio];
		const unsigned long nr = gf_nr(&v[i]) * (run = gf_run(v, g->adds.n, i));
		struct fsim_mm *mm = g->procs[v[i].proc].mm;
		int err;

		g->rmap_calls++;
		if (v[i].proc == g->fork_child && gf_prev_has(g, g->fork_parent, &v[i], run)) {
			/* copy_present_ptes() / copy_huge_pmd() */
			err = fsim_folio_try_dup_anon_rmap(gf->f, mm, g->procs[g->fork_parent].mm,
							   (enum fsim_level)v[i].level, v[i].page, nr);
			if (err)
				gf_call_failed(g, "folio_try_dup_anon_rmap", &v[i], nr, err);
			continue;
		}
		/*
		 * Any other new mapping of a folio that was already mapped:
		 * __split_huge_pmd_locked() (PTEs before the PMD goes), or
		 * remove_migration_pte().  Not RMAP_EXCLUSIVE: AnonExclusive
		 * changes nothing /proc shows, and the model rightly refuses it
		 * for a page another mm maps.
		 */
		err = fsim_folio_add_anon_rmap(gf->f, mm, (enum fsim_level)v[i].level, v[i].page,
					       nr, false);
		if (err)
			gf_call_failed(g, "folio_add_anon_rmap", &v[i], nr, err);
	}
}

static void gf_replay_removes(struct gfuzz *g)
{
	const struct gf_map *v = g->removes.v;
	size_t i, run;

	for (i = 0; i < g->removes.n; i += run) {
		const struct gf_folio *gf = &g->folios.v[v[i].folio];
		const unsigned long nr = gf_nr(&v[i]) * (run = gf_run(v, g->removes.n, i));
		int err;

		g->rmap_calls++;
		/* zap_present_ptes(), zap_huge_pmd(), __split_huge_pmd_locked() */
		err = fsim_folio_remove_rmap(gf->f, g->procs[v[i].proc].mm,
					     (enum fsim_level)v[i].level, v[i].page, nr);
		if (err)
			gf_call_failed(g, "folio_remove_rmap", &v[i], nr, err);
	}
}

/* Frees what nothing maps any more, and the mms of exited processes. */
static void gf_release(struct gfuzz *g)
{
	size_t i;
	int p;

	for (i = 0; i < g->folios.n; i++) {
		struct gf_folio *gf = &g->folios.v[i];

		if (!gf->live || fsim_folio_mapped(gf->f))
			continue;
		if (fsim_folio_free(gf->f)) {
			g->mismatches++;
			g->by_what[MM_ORACLE]++;
			printf("gfuzz: MISMATCH at step %lu (%s): the model cannot free folio %#"
			       PRIx64 " (order %u) after its last unmap\n", g->step, g->op,
			       gf->head, gf->order);
		}
		gf->live = false;
		gf->f = NULL;
		VEC_PUSH(g, g->free_folios, (uint32_t)i);
	}
	gf_rehash(g);
	for (p = 0; p < g->nprocs; p++)
		if (!g->procs[p].live && g->procs[p].mm) {
			if (fsim_mm_destroy(g->procs[p].mm))
				gf_fatal(g, "the model's mm of exited %s still maps something",
					 g->procs[p].name);
			g->procs[p].mm = NULL;
		}
}

static void gf_replay(struct gfuzz *g)
{
	struct fsim_violation v;
	unsigned long long mapped = 0;
	size_t i;

	gf_qsort(g->cur.v, g->cur.n, sizeof(*g->cur.v), cmp_map);
	gf_new_folios(g);
	gf_diff(g);
	gf_replay_adds(g);
	gf_replay_removes(g);
	gf_release(g);
	if (fsim_check_ctx(g->ctx, &v)) {
		g->mismatches++;
		g->by_what[MM_ORACLE]++;
		printf("gfuzz: MISMATCH at step %lu (%s): oracle check: %s: %s\n", g->step,
		       g->op, v.invariant, v.detail);
	}
	/* the state the next step's diff starts from */
	g->prev.n = 0;
	for (i = 0; i < g->cur.n; i++) {
		VEC_PUSH(g, g->prev, g->cur.v[i]);
		mapped += gf_nr(&g->cur.v[i]);
	}
	if (mapped > g->max_mapped_pages)
		g->max_mapped_pages = mapped;
}

/* ---------------------------------------------------------------- */
/* Comparing what /proc shows                                        */
/* ---------------------------------------------------------------- */

static void gf_dump_folio(struct gfuzz *g, uint32_t idx)
{
	const struct gf_folio *gf = &g->folios.v[idx];
	struct fsim_slot slots[2];
	bool shared_bit;
	size_t i, n;

	printf("#   model folio %#" PRIx64 " order %u: mapcount %d, total mapped pages %" PRIu64
	       ", maybe shared %s, refcount %" PRId64 "\n", gf->head, gf->order,
	       fsim_folio_mapcount(gf->f), fsim_folio_total_mapped_pages(gf->f),
	       fsim_folio_maybe_mapped_shared(gf->f) ? "yes" : "no", fsim_folio_refcount(gf->f));
	if (!fsim_folio_slots(gf->f, slots, &shared_bit))
		printf("#   slots: [%u: %d] [%u: %d], shared bit %d\n", slots[0].mm_id,
		       slots[0].mapcount, slots[1].mm_id, slots[1].mapcount, shared_bit);
	printf("#   entries observed:");
	for (i = 0, n = 0; i < g->cur.n; i++)
		if (g->cur.v[i].folio == idx && n++ < 64)
			printf(" %s:%s@%u", g->procs[g->cur.v[i].proc].name,
			       fsim_level_name((enum fsim_level)g->cur.v[i].level),
			       g->cur.v[i].page);
	printf(n > 64 ? " ... (%zu in all)\n" : "\n", n);
}

static void gf_mismatch(struct gfuzz *g, const struct gf_page *pg, enum gf_what what,
			const char *fmt, ...)
{
	const struct gf_proc *p = &g->procs[pg->proc];
	const struct gf_region *r = NULL;
	va_list ap;
	int k;

	g->mismatches++;
	g->by_what[what]++;
	if (g->mismatches > GF_MAX_REPORTED)
		return;
	for (k = 0; k < p->nreg; k++)
		if (pg->va >= p->reg[k].addr && pg->va < p->reg[k].addr + p->reg[k].size)
			r = &p->reg[k];
	printf("gfuzz: MISMATCH at step %lu (%s): %s %s+%#lx", g->step, g->op, p->name,
	       r ? r->name : "?", r ? (unsigned long)(pg->va - r->addr) : 0ul);
	if (pg->pfn)	/* a page, not a VMA */
		printf(" pfn %#" PRIx64 " (%s)", pg->pfn, pg->pmd ? "pmd" : "pte");
	printf(": ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (g->mismatches == 1) {
		printf("# the first mismatch in full: steps before it, newest first:\n");
		for (k = 0; k < GF_HISTORY && g->history[k][0]; k++)
			printf("#   %s\n", g->history[k]);
		if (pg->folio != UINT32_MAX)
			gf_dump_folio(g, pg->folio);
	}
}

static void gf_compare_pages(struct gfuzz *g)
{
	size_t i;

	for (i = 0; i < g->pages.n; i++) {
		const struct gf_page *pg = &g->pages.v[i];
		const struct fsim_folio *f;
		uint64_t count;
		bool excl;

		if (pg->folio == UINT32_MAX) {
			/* The zeropages: never rmap-mapped folios.  kpagecount
			 * reads their mapcount; pte_to_pagemap_entry() gives no
			 * bit 56 (vm_normal_page() is NULL), pagemap_pmd_range()
			 * asks the huge zero folio: the library's one rule. */
			f = pg->pmd ? g->huge_zero : g->zero;
			count = fsim_kpagecount(f, pg->pmd ? (pg->va & (PMD_BYTES - 1)) / PAGE : 0);
			excl = pg->pmd && fsim_huge_zero_pmd_exclusive(g->ctx);
		} else {
			f = g->folios.v[pg->folio].f;
			count = fsim_kpagecount(f, pg->fpage);
			excl = fsim_pagemap_exclusive(f, pg->fpage);
		}
		g->pages_checked++;
		g->pmd_pages += pg->pmd && pg->folio != UINT32_MAX;
		g->zero_pages += pg->folio == UINT32_MAX && !pg->pmd;
		g->huge_zero_pages += pg->folio == UINT32_MAX && pg->pmd;
		if (count != pg->kcount)
			gf_mismatch(g, pg, MM_KPAGECOUNT, "kpagecount: kernel %" PRIu64 ", model %" PRIu64,
				    pg->kcount, count);
		if (excl != pg->kexcl)
			gf_mismatch(g, pg, pg->folio == UINT32_MAX ? MM_EXCLUSIVE_ZERO : MM_EXCLUSIVE,
				    "pagemap bit 56 (PM_MMAP_EXCLUSIVE): kernel %d, model %d",
				    pg->kexcl, excl);
	}
}

static void gf_model_vma(struct gfuzz *g, int proc, uintptr_t a, uintptr_t b,
			 struct smaps_vma *out)
{
	struct fsim_smaps acc;
	size_t i;

	memset(&acc, 0, sizeof(acc));
	/* g->pages is sorted by process and address: find the first page */
	{
		size_t lo = 0, hi = g->pages.n;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			const struct gf_page *m = &g->pages.v[mid];

			if (m->proc < proc || (m->proc == proc && m->va < a))
				lo = mid + 1;
			else
				hi = mid;
		}
		i = lo;
	}
	for (; i < g->pages.n && g->pages.v[i].proc == proc && g->pages.v[i].va < b; i++) {
		const struct gf_page *pg = &g->pages.v[i];

		/* smaps_pte_entry()/smaps_pmd_entry(): the zeropages are not
		 * vm_normal_page(); a PMD counts once, at its first page */
		if (pg->proc != proc || pg->va < a || pg->va >= b || pg->folio == UINT32_MAX ||
		    (pg->pmd && pg->fpage))
			continue;
		fsim_smaps_account(g->folios.v[pg->folio].f,
				   pg->pmd ? FSIM_LEVEL_PMD : FSIM_LEVEL_PTE, pg->fpage, true, &acc);
	}
	/* __show_smap(): SEQ_PUT_DEC() prints bytes >> 10 */
	out->rss = (long long)(acc.resident >> 10);
	out->pss = (long long)(acc.pss >> (FSIM_PSS_SHIFT + 10));
	out->private_kb = (long long)((acc.private_clean >> 10) + (acc.private_dirty >> 10));
	out->shared_kb = (long long)((acc.shared_clean >> 10) + (acc.shared_dirty >> 10));
	out->anon_huge = (long long)(acc.anonymous_thp >> 10);
}

static bool gf_in_region(const struct gf_proc *p, uintptr_t a, uintptr_t b)
{
	int k;

	for (k = 0; k < p->nreg; k++)
		if (a >= p->reg[k].addr && b <= p->reg[k].addr + p->reg[k].size)
			return true;
	return false;
}

static void gf_compare_vma(struct gfuzz *g, int proc, uintptr_t a, uintptr_t b,
			   const struct smaps_vma *k)
{
	struct smaps_vma m;
	struct gf_page pg = { proc, a, 0, UINT32_MAX, 0, false, false, 0 };

	gf_model_vma(g, proc, a, b, &m);
	g->vmas_checked++;
	if (m.rss != k->rss || m.pss != k->pss || m.private_kb != k->private_kb ||
	    m.shared_kb != k->shared_kb || m.anon_huge != k->anon_huge)
		gf_mismatch(g, &pg, MM_SMAPS, "smaps of VMA %#lx-%#lx: kernel Rss %lld Pss %lld Private %lld "
			    "Shared %lld AnonHugePages %lld kB, model %lld %lld %lld %lld %lld kB",
			    (unsigned long)a, (unsigned long)b, k->rss, k->pss, k->private_kb,
			    k->shared_kb, k->anon_huge, m.rss, m.pss, m.private_kb, m.shared_kb,
			    m.anon_huge);
}

struct smaps_cmp {
	struct gfuzz *g;
	int proc;
};

static void gf_smaps_vma(void *arg, const struct smaps_vma *k)
{
	struct smaps_cmp *c = arg;

	if (gf_in_region(&c->g->procs[c->proc], k->start, k->end))
		gf_compare_vma(c->g, c->proc, k->start, k->end, k);
}

static void gf_compare_smaps(struct gfuzz *g, int proc)
{
	struct smaps_cmp c = { g, proc };
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)g->procs[proc].pid);
	if (!read_whole_file(path, &g->smaps, &g->smaps_cap)) {
		gf_fatal(g, "cannot read %s", path);
		return;
	}
	smaps_parse(g->smaps, gf_smaps_vma, &c);
}

/* ---------------------------------------------------------------- */
/* The run                                                           */
/* ---------------------------------------------------------------- */

/* Every mTHP size on madvise, so each region's MADV_HUGEPAGE decides;
 * nothing splits, collapses or reclaims behind the fuzzer's back. */
static void gf_knobs(void)
{
	char path[160];
	unsigned int o;

	write_str(THP_DIR "/enabled", "madvise");
	write_str(THP_DIR "/defrag", "madvise");
	write_str(THP_DIR "/use_zero_page", "1");
	write_str(THP_DIR "/shrink_underused", "0");
	write_str(THP_DIR "/khugepaged/scan_sleep_millisecs", "3600000");
	write_str(THP_DIR "/khugepaged/max_ptes_none", "0");
	for (o = 2; o <= PMD_ORDER; o++) {
		snprintf(path, sizeof(path), THP_DIR "/hugepages-%lukB/enabled",
			 (PAGE << o) >> 10);
		write_str(path, o == PMD_ORDER ? "inherit" : "madvise");
	}
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
		printf(" %s %lu%s", op_names[k], g->ops[k], k + 1 < OP_NR ? "," : "\n");
	printf("# gfuzz ops the kernel refused or that had nothing to act on:");
	for (k = 0; k < OP_NR; k++)
		printf(" %s %lu%s", op_names[k], g->refused[k], k + 1 < OP_NR ? "," : "\n");
	printf("# gfuzz mismatches by kind:");
	for (k = 0; k < MM_NR; k++)
		printf(" %s %ld%s", what_names[k], g->by_what[k], k + 1 < MM_NR ? "," : "\n");
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
