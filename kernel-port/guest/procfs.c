// SPDX-License-Identifier: MIT
/* The /proc observation layer of the guest programs (procfs.h). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procfs.h"

#define PAGE_KB 4

/* Writes @value into a sysfs knob; a knob the kernel lacks is skipped. */
static void knob(const char *path, const char *value)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return;
	fputs(value, f);
	fclose(f);
}

void thp_set_knobs(unsigned int anon_orders, unsigned int shmem_orders)
{
	char path[160];
	unsigned int o;

	knob(THP_DIR "/enabled", "madvise");
	knob(THP_DIR "/defrag", "madvise");
	knob(THP_DIR "/use_zero_page", "1");
	knob(THP_DIR "/shrink_underused", "0");
	knob(THP_DIR "/shmem_enabled", (shmem_orders >> 9) & 1 ? "advise" : "never");
	knob(THP_DIR "/khugepaged/scan_sleep_millisecs", "3600000");
	knob(THP_DIR "/khugepaged/max_ptes_none", "0");
	for (o = 2; o <= 9; o++) {
		snprintf(path, sizeof(path), THP_DIR "/hugepages-%ukB/enabled",
			 PAGE_KB << o);
		knob(path, (anon_orders >> o) & 1 ? (o == 9 ? "inherit" : "madvise") : "never");
		snprintf(path, sizeof(path), THP_DIR "/hugepages-%ukB/shmem_enabled",
			 PAGE_KB << o);
		knob(path, (shmem_orders >> o) & 1 ? (o == 9 ? "inherit" : "advise") : "never");
	}
}

bool read_whole_file(const char *path, char **buf, size_t *cap)
{
	int fd = open(path, O_RDONLY);
	size_t n = 0;
	ssize_t got;

	if (fd < 0)
		return false;
	for (;;) {
		if (n + 4096 >= *cap) {
			size_t ncap = *cap ? 2 * *cap : 65536;
			char *p = realloc(*buf, ncap);

			if (!p)
				break;
			*buf = p;
			*cap = ncap;
		}
		got = read(fd, *buf + n, *cap - n - 1);
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	if (*buf)
		(*buf)[n] = '\0';
	return *buf != NULL;
}

/* A VMA header: "start-end perms offset dev inode [path]". */
static bool vma_header(const char *line, unsigned long *a, unsigned long *b)
{
	const char *dash = strchr(line, '-'), *space = strchr(line, ' ');

	return sscanf(line, "%lx-%lx ", a, b) == 2 && dash && space && dash < space;
}

/* The smaps lines read into one field each of struct smaps_vma; the
 * Private_* and Shared_* lines are summed too (private_kb, shared_kb). */
static const struct {
	const char *name;
	size_t offset;
} smaps_lines[] = {
	{ "Rss", offsetof(struct smaps_vma, rss) },
	{ "Pss", offsetof(struct smaps_vma, pss) },
	{ "Pss_Dirty", offsetof(struct smaps_vma, pss_dirty) },
	{ "Pss_Anon", offsetof(struct smaps_vma, pss_anon) },
	{ "Pss_File", offsetof(struct smaps_vma, pss_file) },
	{ "Pss_Shmem", offsetof(struct smaps_vma, pss_shmem) },
	{ "Private_Dirty", offsetof(struct smaps_vma, private_dirty) },
	{ "Anonymous", offsetof(struct smaps_vma, anonymous) },
	{ "AnonHugePages", offsetof(struct smaps_vma, anon_huge) },
	{ "ShmemPmdMapped", offsetof(struct smaps_vma, shmem_pmd) },
	{ "FilePmdMapped", offsetof(struct smaps_vma, file_pmd) },
	{ "Shared_Hugetlb", offsetof(struct smaps_vma, shared_hugetlb) },
	{ "Private_Hugetlb", offsetof(struct smaps_vma, private_hugetlb) },
	{ "Swap", offsetof(struct smaps_vma, swap) },
};

#define NR_SMAPS_LINES (sizeof(smaps_lines) / sizeof(smaps_lines[0]))

static long long *vma_field(struct smaps_vma *v, size_t offset)
{
	return (long long *)((char *)v + offset);
}

static void smaps_field(struct smaps_vma *v, const char *key, long long kb)
{
	size_t i;

	for (i = 0; i < NR_SMAPS_LINES; i++)
		if (!strcmp(key, smaps_lines[i].name))
			*vma_field(v, smaps_lines[i].offset) = kb;
	if (!strcmp(key, "Private_Clean") || !strcmp(key, "Private_Dirty"))
		v->private_kb += kb;
	else if (!strcmp(key, "Shared_Clean") || !strcmp(key, "Shared_Dirty"))
		v->shared_kb += kb;
}

void smaps_parse(char *text, void (*fn)(void *arg, const struct smaps_vma *vma),
		 void *arg)
{
	struct smaps_vma v;
	bool in = false;
	char *line, *next;

	memset(&v, 0, sizeof(v));
	for (line = text; line && *line; line = next) {
		unsigned long a, b;
		char key[32];
		long long kb;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (vma_header(line, &a, &b)) {
			if (in)
				fn(arg, &v);	/* a VMA's fields end at the next header */
			memset(&v, 0, sizeof(v));
			v.start = a;
			v.end = b;
			in = true;
			continue;
		}
		if (in && sscanf(line, "%31[^:]: %lld kB", key, &kb) == 2)
			smaps_field(&v, key, kb);
	}
	if (in)
		fn(arg, &v);
}

struct sum_arg {
	uintptr_t start, end;
	struct smaps_vma *out;
};

static void add_vma(void *arg, const struct smaps_vma *v)
{
	struct sum_arg *s = arg;
	size_t i;

	if (v->start < s->start || v->end > s->end)
		return;
	for (i = 0; i < NR_SMAPS_LINES; i++)
		*vma_field(s->out, smaps_lines[i].offset) +=
			*(const long long *)((const char *)v + smaps_lines[i].offset);
	s->out->private_kb += v->private_kb;
	s->out->shared_kb += v->shared_kb;
}

void smaps_sum(pid_t pid, uintptr_t start, uintptr_t end, struct smaps_vma *out)
{
	struct sum_arg s = { start, end, out };
	char path[64], *buf = NULL;
	size_t cap = 0;

	memset(out, 0, sizeof(*out));
	out->start = start;
	out->end = end;
	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)pid);
	if (read_whole_file(path, &buf, &cap))
		smaps_parse(buf, add_vma, &s);
	free(buf);
}

long long numa_maps_mapmax(pid_t pid, uintptr_t start, uintptr_t end)
{
	char path[64], line[1024];
	long long max = 0;
	unsigned long a;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/numa_maps", (int)pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		char *m = strstr(line, "mapmax="), *pages = strstr(line, " anon=");

		if (sscanf(line, "%lx", &a) != 1 || a < start || a >= end)
			continue;
		if (!pages)
			pages = strstr(line, " mapped=");
		if (m && atoll(m + 7) > max)
			max = atoll(m + 7);
		else if (!m && pages && max < 1)
			max = 1;
	}
	if (f)
		fclose(f);
	return max;
}
