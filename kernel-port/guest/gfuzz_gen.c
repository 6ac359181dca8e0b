// SPDX-License-Identifier: MIT
/* gfuzz: the workers and the random steps (generation). */
#define _GNU_SOURCE
#include "gfuzz.h"

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

	n = snprintf(g->op, sizeof(g->op), "%s ", gf_op_names[kind]);
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

void gf_exit(struct gfuzz *g, struct gf_proc *p)
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

void gf_random_step(struct gfuzz *g)
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
