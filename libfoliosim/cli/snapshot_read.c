// SPDX-License-Identifier: MIT
/* `foliosim snapshot`: reading a live system's /proc (snapshot_read.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "snapshot_read.h"

#define PM_PFN_MASK ((1ull << 55) - 1)
#define PM_EXCLUSIVE (1ull << 56)
#define PM_PRESENT (1ull << 63)
/* include/uapi/linux/kernel-page-flags.h */
#define KPF_ANON 12
#define KPF_SWAPBACKED 14
#define KPF_COMPOUND_HEAD 15
#define KPF_COMPOUND_TAIL 16
#define KPF_HUGE 17
#define KPF_KSM 21
#define KPF_ZERO_PAGE 24
/* include/uapi/linux/fs.h (6.7): PAGEMAP_SCAN */
struct pm_scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};
struct page_region {
	uint64_t start, end, categories;
};
#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg)
#define PAGE_IS_PRESENT (1ull << 3)
#define PAGE_IS_HUGE (1ull << 6)

#define BATCH 512
#define MAX_ORDER_PAGES (1ul << 18)

/* A folio already added: [head, head + nr) and its index. */
struct known_folio {
	uint64_t head, nr;
	size_t index;
};

struct snap_reader {
	struct fsim_snapshot *s;
	struct read_stats *st;
	int flags_fd, count_fd;
	uint64_t page_size;
	struct known_folio *known;	/* open-addressed by head PFN */
	size_t nknown, cap;
	struct known_folio last;	/* the folio of the previous page */
	bool have_last;
	bool ksm_possible;	/* KSM shares pages now: trust KPF_KSM */
};

static bool pread_u64(int fd, uint64_t index, uint64_t *v, size_t n)
{
	return pread(fd, v, n * 8, (off_t)(index * 8)) == (ssize_t)(n * 8);
}

static bool bit(uint64_t flags, int b)
{
	return (flags >> b) & 1;
}

/* Kernels before 6.15 always had per-page mapcounts; later ones only with
 * CONFIG_PAGE_MAPCOUNT, which /boot/config-RELEASE may say. */
static void precise_kpagecount(struct read_stats *st)
{
	struct utsname u;
	char path[160], line[128];
	unsigned int major = 0, minor = 0;
	bool piped;
	FILE *f;

	st->kpagecount_precise = false;
	st->precise_why = "unknown (no /boot/config or /proc/config.gz): large folios' "
			  "kpagecount not used to find other mappers";
	if (uname(&u) || sscanf(u.release, "%u.%u", &major, &minor) != 2)
		return;
	if (major < 6 || (major == 6 && minor < 15)) {
		st->kpagecount_precise = true;
		st->precise_why = "yes (a kernel before 6.15)";
		return;
	}
	snprintf(path, sizeof(path), "/boot/config-%s", u.release);
	f = fopen(path, "r");
	piped = !f;
	if (piped)	/* CONFIG_IKCONFIG_PROC */
		f = popen("gzip -dc /proc/config.gz 2>/dev/null", "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "CONFIG_PAGE_MAPCOUNT=y", 22)) {
			st->kpagecount_precise = true;
			st->precise_why = "yes (CONFIG_PAGE_MAPCOUNT=y)";
		} else if (!strncmp(line, "CONFIG_NO_PAGE_MAPCOUNT=y", 25)) {
			st->precise_why = "no (CONFIG_NO_PAGE_MAPCOUNT=y: kpagecount is an average)";
		}
	}
	if (f && piped)
		pclose(f);
	else if (f)
		fclose(f);
}

/*
 * 6.12's stable_page_flags() tests "mapping & PAGE_MAPPING_KSM", which is
 * true for every anonymous page (PAGE_MAPPING_KSM is ANON | MOVABLE), so
 * KPF_KSM alone cannot be trusted.  No page is KSM while ksmd shares none
 * (/sys/kernel/mm/ksm/pages_shared 0, or no KSM at all).
 */
static bool ksm_shares_pages(void)
{
	FILE *f = fopen("/sys/kernel/mm/ksm/pages_shared", "r");
	long long n = 0;

	if (f) {
		if (fscanf(f, "%lld", &n) != 1)
			n = 0;
		fclose(f);
	}
	return n > 0;
}

struct snap_reader *snap_reader_open(struct fsim_snapshot *s, struct read_stats *st)
{
	struct snap_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->s = s;
	r->st = st;
	r->page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	r->flags_fd = open("/proc/kpageflags", O_RDONLY);
	r->count_fd = open("/proc/kpagecount", O_RDONLY);
	if (r->flags_fd < 0 || r->count_fd < 0) {
		fprintf(stderr, "foliosim snapshot: cannot open /proc/kpageflags or "
			"/proc/kpagecount (%s): they, and the PFNs in /proc/PID/pagemap, "
			"need root (CAP_SYS_ADMIN)\n", strerror(errno));
		snap_reader_close(r);
		return NULL;
	}
	precise_kpagecount(st);
	r->ksm_possible = ksm_shares_pages();
	return r;
}

void snap_reader_close(struct snap_reader *r)
{
	if (!r)
		return;
	if (r->flags_fd >= 0)
		close(r->flags_fd);
	if (r->count_fd >= 0)
		close(r->count_fd);
	free(r->known);
	free(r);
}

/* The hash table of folios by head PFN. */
static struct known_folio *known_slot(struct snap_reader *r, uint64_t head)
{
	size_t i = (size_t)(head * 0x9e3779b97f4a7c15ull) & (r->cap - 1);

	while (r->known[i].nr && r->known[i].head != head)
		i = (i + 1) & (r->cap - 1);
	return &r->known[i];
}

static bool known_grow(struct snap_reader *r)
{
	struct known_folio *old = r->known;
	size_t i, oldcap = r->cap;

	if (2 * (r->nknown + 1) <= r->cap)
		return true;
	r->cap = r->cap ? 2 * r->cap : 1024;
	r->known = calloc(r->cap, sizeof(*r->known));
	if (!r->known) {
		r->known = old;
		r->cap = oldcap;
		return false;
	}
	for (i = 0; i < oldcap; i++)
		if (old[i].nr)
			*known_slot(r, old[i].head) = old[i];
	free(old);
	return true;
}

/* The head of the folio holding @pfn (flags @f): back over the tails. */
static bool find_head(struct snap_reader *r, uint64_t pfn, uint64_t f, uint64_t *head)
{
	uint64_t buf[BATCH], lo;
	long i;

	if (!bit(f, KPF_COMPOUND_TAIL)) {
		*head = pfn;
		return true;
	}
	for (lo = pfn; pfn - lo < MAX_ORDER_PAGES && lo > 0; ) {
		uint64_t n = lo >= BATCH ? BATCH : lo;

		lo -= n;
		if (!pread_u64(r->flags_fd, lo, buf, (size_t)n))
			return false;
		for (i = (long)n - 1; i >= 0; i--)
			if (bit(buf[i], KPF_COMPOUND_HEAD)) {
				*head = lo + (uint64_t)i;
				return true;
			}
	}
	return false;
}

/* The number of pages of the folio at @head: the head and its tails. */
static uint64_t folio_pages(struct snap_reader *r, uint64_t head, uint64_t head_flags)
{
	uint64_t buf[BATCH], n = 1, i, got;

	if (!bit(head_flags, KPF_COMPOUND_HEAD))
		return 1;
	while (n < MAX_ORDER_PAGES) {
		if (!pread_u64(r->flags_fd, head + n, buf, BATCH))
			break;
		for (i = 0, got = 0; i < BATCH && bit(buf[i], KPF_COMPOUND_TAIL) &&
				     !bit(buf[i], KPF_COMPOUND_HEAD); i++)
			got++;
		n += got;
		if (got < BATCH)
			break;
	}
	return n;
}

static unsigned int order_of(uint64_t n)
{
	unsigned int o = 0;

	while ((1ull << o) < n)
		o++;
	return o;
}

/* The folio holding @pfn: found or added; false (counted) if skipped. */
static bool folio_of(struct snap_reader *r, uint64_t pfn, struct known_folio *out)
{
	uint64_t f, head, hf, nr, *count;
	struct known_folio *k;
	enum fsim_kind kind;
	int err;

	if (r->have_last && pfn >= r->last.head && pfn < r->last.head + r->last.nr) {
		*out = r->last;
		return true;
	}
	if (!pread_u64(r->flags_fd, pfn, &f, 1) || !find_head(r, pfn, f, &head) ||
	    !pread_u64(r->flags_fd, head, &hf, 1)) {
		r->st->skipped_unknown++;
		return false;
	}
	if (bit(hf, KPF_ZERO_PAGE)) {
		r->st->skipped_zero++;	/* not vm_normal_page(): smaps skips it */
		return false;
	}
	if (bit(hf, KPF_HUGE) || (bit(hf, KPF_KSM) && r->ksm_possible)) {
		if (bit(hf, KPF_HUGE))
			r->st->skipped_hugetlb++;
		else
			r->st->skipped_ksm++;
		return false;
	}
	if (!known_grow(r)) {
		r->st->skipped_unknown++;
		return false;
	}
	k = known_slot(r, head);
	if (!k->nr) {
		nr = folio_pages(r, head, hf);
		count = calloc(nr, sizeof(*count));
		if (!count || nr != (1ull << order_of(nr)) ||
		    !pread_u64(r->count_fd, head, count, (size_t)nr)) {
			free(count);
			r->st->skipped_unknown++;
			return false;
		}
		kind = bit(hf, KPF_ANON) ? FSIM_KIND_ANON :
		       bit(hf, KPF_SWAPBACKED) ? FSIM_KIND_SHMEM : FSIM_KIND_FILE;
		/* a small folio's kpagecount is its mapcount on every kernel */
		err = fsim_snapshot_add_folio(r->s, order_of(nr), kind, count,
					      r->st->kpagecount_precise || nr == 1, &k->index);
		free(count);
		if (err) {
			r->st->skipped_unknown++;
			return false;
		}
		k->head = head;
		k->nr = nr;
		r->nknown++;
		r->st->folios++;
	}
	r->last = *k;
	r->have_last = true;
	*out = *k;
	return true;
}

/* PAGEMAP_SCAN: @pmd[i] for the pages of [start, end) a PMD maps. */
static bool scan_huge(int fd, uint64_t start, uint64_t end, uint64_t page, bool *pmd)
{
	struct page_region vec[64];
	struct pm_scan_arg arg;
	uint64_t from = start;
	long n, i;

	while (from < end) {
		memset(&arg, 0, sizeof(arg));
		arg.size = sizeof(arg);
		arg.start = from;
		arg.end = end;
		arg.vec = (uintptr_t)vec;
		arg.vec_len = 64;
		/* pmd_none() also says PAGE_IS_HUGE: present ones only */
		arg.category_mask = PAGE_IS_HUGE | PAGE_IS_PRESENT;
		arg.return_mask = PAGE_IS_HUGE | PAGE_IS_PRESENT;
		n = ioctl(fd, PAGEMAP_SCAN, &arg);
		if (n < 0)
			return false;
		for (i = 0; i < n; i++)
			for (uint64_t a = vec[i].start; a < vec[i].end; a += page)
				if (a >= start && a < end)
					pmd[(a - start) / page] = true;
		if (n < 64 || arg.walk_end <= from)
			break;
		from = arg.walk_end;
	}
	return true;
}

/* /proc/PID/maps: the VMAs. */
static bool read_maps(pid_t pid, struct snap_process *p)
{
	char path[64], line[512];
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b;
		struct kernel_vma *v;
		int off = 0;

		if (sscanf(line, "%llx-%llx %*s %*s %*s %*s %n", &a, &b, &off) < 2)
			continue;
		if (p->nvma == cap) {
			void *m = realloc(p->vma, (cap ? 2 * cap : 64) * sizeof(*p->vma));

			if (!m)
				break;
			p->vma = m;
			cap = cap ? 2 * cap : 64;
		}
		v = &p->vma[p->nvma++];
		memset(v, 0, sizeof(*v));
		v->start = a;
		v->end = b;
		snprintf(v->name, sizeof(v->name), "%s", off ? line + off : "");
		v->name[strcspn(v->name, "\n")] = '\0';
		if (!v->name[0])
			snprintf(v->name, sizeof(v->name), "[anon]");
	}
	fclose(f);
	return p->nvma > 0;
}

/* /proc/PID/smaps: the kernel's own figures of each VMA. */
static void read_smaps(pid_t pid, struct snap_process *p)
{
	char path[64], line[256], key[32];
	struct kernel_vma *v = NULL;
	unsigned long long a, b;
	long long kb;
	size_t i;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx ", &a, &b) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			v = NULL;
			for (i = 0; i < p->nvma; i++)
				if (p->vma[i].start == a)
					v = &p->vma[i];
			continue;
		}
		if (!v || sscanf(line, "%31[^:]: %lld kB", key, &kb) != 2)
			continue;
		if (!strcmp(key, "Rss"))
			v->rss = kb;
		else if (!strcmp(key, "Pss"))
			v->pss = kb;
		else if (!strncmp(key, "Private_", 8) && strcmp(key, "Private_Hugetlb"))
			v->private_kb += kb;
		else if (!strncmp(key, "Shared_", 7) && strcmp(key, "Shared_Hugetlb"))
			v->shared_kb += kb;
		else if (!strcmp(key, "AnonHugePages"))
			v->anon_huge = kb;
	}
	if (f)
		fclose(f);
}

/* Without PAGEMAP_SCAN: a PMD-sized folio mapped whole at a PMD-aligned
 * address in one VMA is taken as PMD-mapped (what a PTE-mapped one rarely
 * looks like). */
static bool looks_pmd_mapped(const uint64_t *pme, size_t i, size_t n, uint64_t addr,
			     uint64_t page, uint64_t nr)
{
	const uint64_t head = pme[i] & PM_PFN_MASK;
	size_t k;

	if (nr != 512 || (addr / page) % nr || i + nr > n)
		return false;
	for (k = 0; k < nr; k++)
		if (!(pme[i + k] & PM_PRESENT) || (pme[i + k] & PM_PFN_MASK) != head + k)
			return false;
	return true;
}

/* The pages of one VMA: pagemap, then each present page's folio. */
static bool read_vma(struct snap_reader *r, int pagemap_fd, struct kernel_vma *v,
		     unsigned int proc)
{
	const uint64_t page = r->page_size, n = (v->end - v->start) / page;
	uint64_t *pme = malloc(n * sizeof(*pme) + 1);
	bool *pmd = calloc(n + 1, 1), ok = true;
	size_t i, k;

	if (!pme || !pmd) {
		free(pme);
		free(pmd);
		return false;
	}
	if (!pread_u64(pagemap_fd, v->start / page, pme, (size_t)n)) {
		free(pme);
		free(pmd);
		return true;	/* [vsyscall] and the like: nothing to read */
	}
	if (!r->st->no_pagemap_scan && !scan_huge(pagemap_fd, v->start, v->end, page, pmd))
		r->st->no_pagemap_scan = true;
	for (i = 0; ok && i < n; i++) {
		struct known_folio kf;
		uint64_t pfn = pme[i] & PM_PFN_MASK, fpage, cnt;
		enum fsim_level level;

		if (!(pme[i] & PM_PRESENT))
			continue;
		if (!pfn) {
			fprintf(stderr, "foliosim snapshot: pagemap shows no PFNs: that needs "
				"root (CAP_SYS_ADMIN)\n");
			ok = false;
			break;
		}
		if (!folio_of(r, pfn, &kf))
			continue;
		if (!v->resident) {
			ok = !fsim_snapshot_add_region(r->s, proc, n, &v->region);
			v->resident = true;
		}
		fpage = pfn - kf.head;
		if (r->st->no_pagemap_scan && fpage == 0 &&
		    looks_pmd_mapped(pme, i, (size_t)n, v->start + i * page, page, kf.nr))
			for (k = 0; k < kf.nr; k++)
				pmd[i + k] = true;
		level = pmd[i] && kf.nr == 512 ? FSIM_LEVEL_PMD : FSIM_LEVEL_PTE;
		if (ok && fsim_snapshot_map(r->s, v->region, i, kf.index, (unsigned long)fpage,
					    level))
			r->st->skipped_unknown++;
		r->st->pages++;
		v->exclusive_pages += (pme[i] & PM_EXCLUSIVE) != 0;
		if (pread_u64(r->count_fd, pfn, &cnt, 1))
			v->kpagecount_sum += cnt;
	}
	free(pme);
	free(pmd);
	return ok;
}

bool snap_read_process(struct snap_reader *r, pid_t pid, unsigned int proc,
		       struct snap_process *out)
{
	char path[64];
	size_t i;
	FILE *f;
	int fd;
	bool ok = true;

	memset(out, 0, sizeof(*out));
	out->pid = pid;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "r");
	if (!f || !fgets(out->comm, sizeof(out->comm), f)) {
		if (f)
			fclose(f);
		fprintf(stderr, "foliosim snapshot: no process %d (skipped)\n", (int)pid);
		return false;
	}
	fclose(f);
	out->comm[strcspn(out->comm, "\n")] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0 || !read_maps(pid, out)) {
		if (fd >= 0)
			close(fd);
		fprintf(stderr, "foliosim snapshot: process %d: cannot read its maps or "
			"pagemap (%s; skipped)\n", (int)pid, strerror(errno));
		free(out->vma);
		out->vma = NULL;
		return false;
	}
	read_smaps(pid, out);
	r->have_last = false;
	for (i = 0; ok && i < out->nvma; i++)
		ok = read_vma(r, fd, &out->vma[i], proc);
	close(fd);
	return ok;
}
