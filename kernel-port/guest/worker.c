// SPDX-License-Identifier: MIT
/*
 * The worker side of the guest programs (guest.h): one real process per
 * scenario process, obeying one-line commands over a pair of FIFOs, and
 * the controller's end of that protocol (worker_fifos_*, worker_vsend(),
 * wait_mm_gone()).  The scenario runner (foliosim-guest.c) and the
 * differential fuzzer (gfuzz_gen.c) both drive workers through it; it
 * calls neither.
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
#include "guest.h"
#include "procfs.h"


/* ---------------------------------------------------------------- */
/* Workers: one real process per scenario process                    */
/* ---------------------------------------------------------------- */

struct wregion {
	char name[32];
	char *addr;
	size_t size;
};

static struct wregion wregions[MAX_REGIONS];
static int nwregions;

static struct wregion *wfind(const char *name)
{
	int i;

	for (i = 0; i < nwregions; i++)
		if (!strcmp(wregions[i].name, name))
			return &wregions[i];
	return NULL;
}

static void fifo_names(const char *dir, const char *proc, char *cmd, char *rsp)
{
	snprintf(cmd, 256, "%s/%s.cmd", dir, proc);
	snprintf(rsp, 256, "%s/%s.rsp", dir, proc);
}

int worker_fifos_create(const char *dir, const char *name)
{
	char cmd[256], rsp[256];

	worker_fifos_remove(dir, name);
	fifo_names(dir, name, cmd, rsp);
	if (mkfifo(cmd, 0600) || mkfifo(rsp, 0600))
		return -errno;
	return 0;
}

bool worker_fifos_open(const char *dir, const char *name, FILE **cmd, FILE **rsp)
{
	char c[256], r[256];

	fifo_names(dir, name, c, r);
	*cmd = fopen(c, "w");
	*rsp = *cmd ? fopen(r, "r") : NULL;
	if (*cmd && !*rsp) {
		fclose(*cmd);
		*cmd = NULL;
	}
	return *rsp != NULL;
}

void worker_fifos_remove(const char *dir, const char *name)
{
	char cmd[256], rsp[256];

	fifo_names(dir, name, cmd, rsp);
	unlink(cmd);
	unlink(rsp);
}

int worker_vsend(FILE *cmd, FILE *rsp, char *reply, size_t len, const char *fmt,
		 va_list ap)
{
	vfprintf(cmd, fmt, ap);
	fputc('\n', cmd);
	fflush(cmd);
	if (!fgets(reply, (int)len, rsp))
		return -1;
	reply[strcspn(reply, "\n")] = '\0';
	return !strncmp(reply, "ok", 2);
}

/*
 * An address aligned to @align with @size bytes free after it, between two
 * PROT_NONE guard mappings of at least a page each: a mapping placed there
 * cannot merge with a neighbour, so every VMA stays inside its region.
 */
static char *reserve_guarded(size_t size, size_t align)
{
	char *raw = mmap(NULL, size + align + 2 * PAGE, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (raw == MAP_FAILED)
		return NULL;
	return (char *)(((uintptr_t)raw + PAGE + align - 1) & ~(uintptr_t)(align - 1));
}

/* mmap() aligned to the folio size, as the scenario format asks; @guard
 * keeps PROT_NONE guards on both sides (the differential fuzzer's regions). */

static char *map_aligned_fd(size_t size, unsigned int req, unsigned int order, bool guard,
			    int fd)
{
	/* At least PMD-aligned, as the model places every region: its page
	 * tables, fault-around windows and MADV_COLLAPSE chunks start at the
	 * region's start. */
	const size_t align = order > 9 ? PAGE << order : PMD_BYTES;
	const int flags = ((req & MAP_REQ_SHMEM) ? MAP_SHARED : MAP_PRIVATE) |
			  (fd < 0 ? MAP_ANONYMOUS : 0) |
			  ((req & MAP_REQ_HUGETLB) ? MAP_HUGETLB : 0);
	char *raw, *p;
	size_t head;

	if (guard) {
		p = reserve_guarded(size, align);
		if (!p || mmap(p, size, PROT_READ | PROT_WRITE, flags | MAP_FIXED, fd, 0) == MAP_FAILED)
			return NULL;
	} else {
		/* Find an aligned hole, then map there (a file's offset 0 must
		 * land on the aligned address). */
		raw = mmap(NULL, size + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (raw == MAP_FAILED)
			return NULL;
		p = (char *)(((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1));
		head = (size_t)(p - raw);
		if (head)
			munmap(raw, head);
		if (align - head)
			munmap(p + size, align - head);
		if (mmap(p, size, PROT_READ | PROT_WRITE, flags | MAP_FIXED, fd, 0) == MAP_FAILED) {
			munmap(p, size);
			return NULL;
		}
	}
	/* Large folios only where asked; order 0 regions must not get THPs
	 * (hugetlb VMAs take no THP advice). */
	if (!(req & MAP_REQ_HUGETLB))
		madvise(p, size, order >= 2 ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	return p;
}

static char *map_aligned(size_t size, unsigned int req, unsigned int order, bool guard)
{
	return map_aligned_fd(size, req, order, guard, -1);
}

/* "mmapf NAME SIZE ORDER PATH": MAP_PRIVATE of the first SIZE bytes of the
 * file at PATH (the controller created it), aligned to 2^ORDER pages. */
static void worker_mmap_file(const char *line, char *reply, size_t len)
{
	char name[32] = "", path[256] = "";
	unsigned long long size = 0, order = 0;
	struct wregion *r;
	int fd;

	if (sscanf(line, "%*s %31s %llu %llu %255s", name, &size, &order, path) != 4 ||
	    nwregions == MAX_REGIONS || wfind(name)) {
		snprintf(reply, len, "err %d", EINVAL);
		return;
	}
	fd = open(path, O_RDWR);
	r = &wregions[nwregions];
	r->addr = fd < 0 ? NULL : map_aligned_fd((size_t)size, 0, (unsigned int)order, false, fd);
	if (!r->addr) {
		snprintf(reply, len, "err %d", errno);
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->size = (size_t)size;
	nwregions++;
	snprintf(reply, len, "ok %p", (void *)r->addr);
}

/*
 * "mremap SRC OFF LEN DST KEEP": moves [OFF, OFF+LEN) of region SRC to a new
 * guarded place, which becomes region DST.  KEEP 1 keeps the offset within
 * a PMD (so PMD mappings can move whole: move_huge_pmd()), 0 shifts it by a
 * page (so they must be split).
 */
static void worker_mremap(const char *line, char *reply, size_t len)
{
	char src[32] = "", dst[32] = "";
	unsigned long long off = 0, n = 0, keep = 0;
	struct wregion *r, *d;
	char *to, *got;
	uintptr_t pmd_off;

	if (sscanf(line, "%*s %31s %llu %llu %31s %llu", src, &off, &n, dst, &keep) != 5 ||
	    !(r = wfind(src)) || off + n > r->size || !n || wfind(dst) ||
	    nwregions == MAX_REGIONS) {
		snprintf(reply, len, "err %d", EINVAL);
		return;
	}
	pmd_off = ((uintptr_t)r->addr + off) & (PMD_BYTES - 1);
	to = reserve_guarded((size_t)n + PMD_BYTES, PMD_BYTES);
	if (!to) {
		snprintf(reply, len, "err %d", errno);
		return;
	}
	to += keep ? pmd_off : (pmd_off + PAGE) & (PMD_BYTES - 1);
	got = mremap(r->addr + off, (size_t)n, (size_t)n, MREMAP_MAYMOVE | MREMAP_FIXED, to);
	if (got == MAP_FAILED) {
		snprintf(reply, len, "err %d", errno);
		return;
	}
	d = &wregions[nwregions++];
	snprintf(d->name, sizeof(d->name), "%s", dst);
	d->addr = got;
	d->size = (size_t)n;
	snprintf(reply, len, "ok %p", (void *)got);
}

static int worker_command(char *line, char *reply, size_t len, const char *dir);

/* Workers run on CPU 0 only: MADV_PAGEOUT's lru_add_drain() drains this
 * CPU's batch of new folios, so every folio a worker faulted is on the LRU
 * when it asks (a folio still in another CPU's batch would be skipped). */
static void pin_to_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* The worker's own FIFOs; a forked child closes its parent's first. */
static FILE *worker_in, *worker_out;

void worker_loop(const char *dir, const char *name)
{
	char cmd[256], rsp[256], line[512], reply[128];

	if (worker_in)
		fclose(worker_in);
	if (worker_out)
		fclose(worker_out);
	/* Children of workers are reaped by the kernel: no zombies pile up. */
	signal(SIGCHLD, SIG_IGN);
	pin_to_cpu0();
	fifo_names(dir, name, cmd, rsp);
	worker_in = fopen(cmd, "r");
	worker_out = worker_in ? fopen(rsp, "w") : NULL;
	if (!worker_in || !worker_out)
		_exit(111);
	setvbuf(worker_out, NULL, _IOLBF, 0);
	while (fgets(line, sizeof(line), worker_in)) {
		int quit = worker_command(line, reply, sizeof(reply), dir);

		fprintf(worker_out, "%s\n", reply);
		if (quit)
			break;
	}
	_exit(0);
}

static int worker_command(char *line, char *reply, size_t len, const char *dir)
{
	char verb[16] = "", region[32] = "";
	unsigned long long a = 0, b = 0, c = 0, d = 0;
	struct wregion *r;
	size_t i;

	sscanf(line, "%15s %31s %llu %llu %llu %llu", verb, region, &a, &b, &c, &d);
	snprintf(reply, len, "ok");
	if (!strcmp(verb, "exit"))
		return 1;
	if (!strcmp(verb, "ping"))
		return 0;
	if (!strcmp(verb, "fork")) {
		pid_t pid = fork();

		if (pid == 0)
			worker_loop(dir, region);	/* region holds the child's name */
		snprintf(reply, len, pid < 0 ? "err %d" : "ok %d", pid < 0 ? errno : pid);
		return 0;
	}
	if (!strcmp(verb, "mmap")) {
		if (nwregions == MAX_REGIONS || wfind(region)) {
			snprintf(reply, len, "err %d", EEXIST);
			return 0;
		}
		r = &wregions[nwregions];
		r->addr = map_aligned((size_t)a, (unsigned int)c, (unsigned int)b, d != 0);
		if (!r->addr) {
			snprintf(reply, len, "err %d", errno);
			return 0;
		}
		snprintf(r->name, sizeof(r->name), "%s", region);
		r->size = (size_t)a;
		nwregions++;
		snprintf(reply, len, "ok %p", (void *)r->addr);
		return 0;
	}
	if (!strcmp(verb, "mremap")) {
		worker_mremap(line, reply, len);
		return 0;
	}
	if (!strcmp(verb, "mmapf")) {
		worker_mmap_file(line, reply, len);
		return 0;
	}
	r = wfind(region);
	if (!r || a + b > r->size) {
		snprintf(reply, len, "err %d", EINVAL);
		return 0;
	}
	if (!strcmp(verb, "touch")) {
		for (i = 0; i < b; i += PAGE)
			((volatile char *)r->addr)[a + i] = 1;
	} else if (!strcmp(verb, "read")) {
		for (i = 0; i < b; i += PAGE)
			(void)((volatile char *)r->addr)[a + i];
	} else if (!strcmp(verb, "munmap")) {
		if (munmap(r->addr + a, (size_t)b))
			snprintf(reply, len, "err %d", errno);
	} else if (!strcmp(verb, "dontneed")) {
		if (madvise(r->addr + a, (size_t)b, MADV_DONTNEED))
			snprintf(reply, len, "err %d", errno);
	} else if (!strcmp(verb, "pageout")) {
		if (madvise(r->addr + a, (size_t)b, MADV_PAGEOUT))
			snprintf(reply, len, "err %d", errno);
	} else if (!strcmp(verb, "collapse")) {
		if (madvise(r->addr + a, (size_t)b, MADV_COLLAPSE))
			snprintf(reply, len, "err %d", errno);
	} else if (!strcmp(verb, "mprotect")) {	/* c: FSIM_PROT_* bits */
		const int prot = ((c & FSIM_PROT_READ) ? PROT_READ : 0) |
				 ((c & FSIM_PROT_WRITE) ? PROT_READ | PROT_WRITE : 0);

		if (mprotect(r->addr + a, (size_t)b, prot))
			snprintf(reply, len, "err %d", errno);
	} else {
		snprintf(reply, len, "err %d", ENOSYS);
	}
	return 0;
}

/*
 * Waits until the kernel has torn @pid's mm down: exit_mm() runs before
 * exit_notify(), so a zombie ("Z") or a reaped task (gone from /proc) has
 * no mappings left.  An empty smaps is not enough: it is empty from
 * mm_users == 0, while exit_mmap() still zaps.  Reaps it if it is ours.
 */
void wait_mm_gone(pid_t pid)
{
	char path[64], stat[256];

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	for (int i = 0; i < 5000; i++) {
		FILE *f = fopen(path, "r");
		char *rp = NULL;

		if (!f)
			break;
		if (fgets(stat, sizeof(stat), f))
			rp = strrchr(stat, ')');
		fclose(f);
		if (!rp || rp[1] != ' ' || rp[2] == 'Z' || rp[2] == 'X')
			break;
		usleep(1000);
	}
	waitpid(pid, NULL, WNOHANG);
}
