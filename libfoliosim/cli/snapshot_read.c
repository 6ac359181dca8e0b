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
#include <time.h>
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
#define CHUNK 4096		/* pagemap entries read at once: 32 KiB */
#define WINDOW 64		/* kpageflags/kpagecount entries read at once */
#define SCAN_VEC 256		/* PAGEMAP_SCAN ranges per call */

/* A folio: its head PFN, pages and index in the snapshot. */
struct known_folio {
	uint64_t head;
	uint32_t index;
	uint32_t nr;
};

/*
 * The folios that may be seen again, open-addressed by head PFN: a small
 * folio whose kpagecount is 1 is mapped once and never enters it.  12
 * bytes a slot (key: head PFN << 6 | order + 1, 0 free; and the index),
 * at most 3/4 full, grown by half: the table and its growth stay under
 * 24 bytes a page when every page is shared by two processes (the
 * fork of a process of small folios; tests/bench).
 */
struct known_table {
	uint64_t *key;
	uint32_t *index;
	size_t n, cap;
};

/* /proc/kpageflags or kpagecount entries, WINDOW at a time: neighbouring
 * pages are often neighbouring PFNs, and one pread per page is what makes
 * a naive reader slow. */
struct pfn_window {
	int fd;
	uint64_t base;
	uint64_t v[WINDOW];
	bool valid;
};

struct snap_reader {
	struct fsim_snapshot *s;
	struct read_stats *st;
	struct pfn_window flags, count;
	uint64_t page_size;
	struct known_table known;
	struct known_folio last;	/* the folio of the previous page */
	bool have_last;
	bool ksm_possible;	/* KSM shares pages now: trust KPF_KSM */
	const uint64_t *only_start, *only_end;	/* read only VMAs meeting these */
	size_t nonly;
	struct timespec started, shown;	/* progress on stderr */
	size_t proc_at, proc_total;
	bool progress_shown;
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

static long scan_present(int fd, uint64_t start, uint64_t end, struct page_region *vec,
			 uint64_t *done);

/* PAGEMAP_SCAN (6.7) on our own stack: ENOTTY (or EINVAL) before it. */
static bool has_pagemap_scan(void)
{
	struct page_region vec[SCAN_VEC];
	const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	const uint64_t at = (uint64_t)(uintptr_t)vec & ~(page - 1);
	int fd = open("/proc/self/pagemap", O_RDONLY);
	uint64_t done;
	bool ok;

	if (fd < 0)
		return false;
	ok = scan_present(fd, at, at + page, vec, &done) >= 0;
	close(fd);
	return ok;
}

struct snap_reader *snap_reader_open(struct fsim_snapshot *s, struct read_stats *st)
{
	struct snap_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->s = s;
	r->st = st;
	r->page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	r->flags.fd = open("/proc/kpageflags", O_RDONLY);
	r->count.fd = open("/proc/kpagecount", O_RDONLY);
	if (r->flags.fd < 0 || r->count.fd < 0) {
		fprintf(stderr, "foliosim snapshot: cannot open /proc/kpageflags or "
			"/proc/kpagecount (%s): they, and the PFNs in /proc/PID/pagemap, "
			"need root (CAP_SYS_ADMIN)\n", strerror(errno));
		snap_reader_close(r);
		return NULL;
	}
	precise_kpagecount(st);
	st->no_pagemap_scan = !has_pagemap_scan();
	r->ksm_possible = ksm_shares_pages();
	clock_gettime(CLOCK_MONOTONIC, &r->started);
	return r;
}

void snap_reader_close(struct snap_reader *r)
{
	if (!r)
		return;
	if (r->progress_shown)
		fputc('\n', stderr);
	if (r->flags.fd >= 0)
		close(r->flags.fd);
	if (r->count.fd >= 0)
		close(r->count.fd);
	free(r->known.key);
	free(r->known.index);
	free(r);
}

void snap_reader_only(struct snap_reader *r, const uint64_t *start, const uint64_t *end,
		      size_t n)
{
	r->only_start = start;
	r->only_end = end;
	r->nonly = n;
}

void snap_reader_progress(struct snap_reader *r, size_t proc, size_t total)
{
	r->proc_at = proc;
	r->proc_total = total;
}

static double seconds_since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

/* A line on stderr once a second, after the first second, for a caller
 * that said where it is (snap_reader_progress()). */
static void show_progress(struct snap_reader *r)
{
	if (!r->proc_total || seconds_since(&r->started) < 1.0 ||
	    (r->progress_shown && seconds_since(&r->shown) < 1.0))
		return;
	clock_gettime(CLOCK_MONOTONIC, &r->shown);
	r->progress_shown = true;
	fprintf(stderr, "\rfoliosim snapshot: process %zu of %zu, %llu pages in %llu folios read",
		r->proc_at, r->proc_total, (unsigned long long)r->st->pages,
		(unsigned long long)r->st->folios);
}

/* Entry @pfn of the window's file. */
static bool window_get(struct pfn_window *w, uint64_t pfn, uint64_t *v)
{
	const uint64_t base = pfn & ~(uint64_t)(WINDOW - 1);

	if (!w->valid || w->base != base) {
		w->valid = pread_u64(w->fd, base, w->v, WINDOW);
		w->base = base;
		if (!w->valid)	/* the end of the file: this entry alone */
			return pread_u64(w->fd, pfn, v, 1);
	}
	*v = w->v[pfn - base];
	return true;
}

static unsigned int order_of(uint64_t n)
{
	unsigned int o = 0;

	while ((1ull << o) < n)
		o++;
	return o;
}

static uint64_t known_key(uint64_t head, uint32_t nr)
{
	return head << 6 | (order_of(nr) + 1);
}

/* The slot of @key: where it is, or the free slot it would take. */
static size_t known_slot(const struct known_table *t, uint64_t key)
{
	/* multiply-shift onto [0, cap) (Lemire): cap need not be a power of 2 */
	const uint64_t h = ((key >> 6) * 0x9e3779b97f4a7c15ull) >> 32;	/* the head only */
	size_t i = (size_t)((h * t->cap) >> 32);

	while (t->key[i] && t->key[i] >> 6 != key >> 6)
		i = i + 1 == t->cap ? 0 : i + 1;
	return i;
}

static void known_put(struct known_table *t, uint64_t key, uint32_t index)
{
	const size_t i = known_slot(t, key);

	t->n += !t->key[i];
	t->key[i] = key;
	t->index[i] = index;
}

/* Room for one more entry at a load of at most 3/4. */
static bool known_grow(struct known_table *t)
{
	struct known_table old = *t;
	size_t i;

	if (4 * (t->n + 1) <= 3 * t->cap)
		return true;
	t->cap = t->cap ? t->cap + t->cap / 2 : 1024;
	if (t->cap >= (1ull << 32)) {
		*t = old;
		return false;
	}
	t->key = calloc(t->cap, sizeof(*t->key));
	t->index = malloc(t->cap * sizeof(*t->index));
	t->n = 0;
	if (!t->key || !t->index) {
		free(t->key);
		free(t->index);
		*t = old;
		return false;
	}
	for (i = 0; i < old.cap; i++)
		if (old.key[i])
			known_put(t, old.key[i], old.index[i]);
	free(old.key);
	free(old.index);
	return true;
}

/* The folio with head @head, if the table has it. */
static bool known_get(const struct known_table *t, uint64_t head, struct known_folio *out)
{
	size_t i;

	if (!t->cap)
		return false;
	i = known_slot(t, head << 6);
	if (!t->key[i])
		return false;
	out->head = head;
	out->nr = (uint32_t)1 << ((t->key[i] & 63) - 1);
	out->index = t->index[i];
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
		if (!pread_u64(r->flags.fd, lo, buf, (size_t)n))
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
		if (!pread_u64(r->flags.fd, head + n, buf, BATCH))
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

/* Whether the snapshot leaves out the folio with head flags @hf: the zero
 * page (not vm_normal_page(): smaps skips it), hugetlb, KSM (counted). */
static bool left_out(struct snap_reader *r, uint64_t hf)
{
	if (bit(hf, KPF_ZERO_PAGE))
		r->st->skipped_zero++;
	else if (bit(hf, KPF_HUGE))
		r->st->skipped_hugetlb++;
	else if (bit(hf, KPF_KSM) && r->ksm_possible)
		r->st->skipped_ksm++;
	else
		return false;
	return true;
}

/* Adds the folio of @nr pages at @head (head flags @hf) to the snapshot. */
static bool add_folio(struct snap_reader *r, uint64_t head, uint64_t hf, uint64_t nr,
		      struct known_folio *out)
{
	uint64_t one, *count = nr == 1 ? &one : calloc(nr, sizeof(*count));
	enum fsim_kind kind = bit(hf, KPF_ANON) ? FSIM_KIND_ANON :
			      bit(hf, KPF_SWAPBACKED) ? FSIM_KIND_SHMEM : FSIM_KIND_FILE;
	size_t index;
	bool ok;

	ok = count && nr == (1ull << order_of(nr)) && nr <= UINT32_MAX &&
	     (nr == 1 ? window_get(&r->count, head, count)
		      : pread_u64(r->count.fd, head, count, (size_t)nr));
	/* a small folio's kpagecount is its mapcount on every kernel */
	ok = ok && !fsim_snapshot_add_folio(r->s, order_of(nr), kind, count,
					    r->st->kpagecount_precise || nr == 1, &index) &&
	     index <= UINT32_MAX;
	if (count != &one)
		free(count);
	if (!ok)
		return false;
	out->head = head;
	out->nr = (uint32_t)nr;
	out->index = (uint32_t)index;
	r->st->folios++;
	return true;
}

/* The folio holding @pfn: found or added; false (counted) if skipped. */
static bool folio_of(struct snap_reader *r, uint64_t pfn, struct known_folio *out)
{
	uint64_t f, head, hf, nr;

	if (r->have_last && pfn >= r->last.head && pfn < r->last.head + r->last.nr) {
		*out = r->last;
		return true;
	}
	if (!window_get(&r->flags, pfn, &f) || !find_head(r, pfn, f, &head) ||
	    !window_get(&r->flags, head, &hf)) {
		r->st->skipped_unknown++;
		return false;
	}
	if (left_out(r, hf))
		return false;
	if (!known_get(&r->known, head, &r->last)) {
		nr = folio_pages(r, head, hf);
		if (!known_grow(&r->known) || !add_folio(r, head, hf, nr, &r->last)) {
			r->have_last = false;
			r->st->skipped_unknown++;
			return false;
		}
		if (nr > 1 || fsim_snapshot_kpagecount(r->s, r->last.index, 0) != 1)
			known_put(&r->known, known_key(head, (uint32_t)nr), r->last.index);
	}
	r->have_last = true;
	*out = r->last;
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
 * looks like).  Chunks are CHUNK-aligned, so such a folio lies in one. */
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

/* How a chunk's pages are known to be PMD-mapped. */
enum pmd_source { PMD_NO, PMD_YES, PMD_GUESS };

/* One chunk of the VMA: pages [at, at + n) (VMA page indexes), @pme their
 * pagemap entries.  False on a hard error (no PFNs: not root). */
static bool add_chunk(struct snap_reader *r, struct kernel_vma *v, unsigned int proc,
		      uint64_t at, const uint64_t *pme, size_t n, enum pmd_source src)
{
	const uint64_t page = r->page_size;
	size_t i, pmd_until = 0;

	for (i = 0; i < n; i++) {
		const uint64_t pfn = pme[i] & PM_PFN_MASK;
		struct known_folio kf;
		enum fsim_level level;
		uint64_t fpage;

		if (!(pme[i] & PM_PRESENT))
			continue;
		if (!pfn) {
			fprintf(stderr, "foliosim snapshot: pagemap shows no PFNs: that needs "
				"root (CAP_SYS_ADMIN)\n");
			return false;
		}
		if (!folio_of(r, pfn, &kf))
			continue;
		if (!v->resident) {
			if (fsim_snapshot_add_region(r->s, proc, (v->end - v->start) / page,
						     &v->region))
				return false;
			v->resident = true;
		}
		fpage = pfn - kf.head;
		if (src == PMD_GUESS && fpage == 0 &&
		    looks_pmd_mapped(pme, i, n, v->start + (at + i) * page, page, kf.nr))
			pmd_until = i + kf.nr;
		level = kf.nr == 512 && (src == PMD_YES || i < pmd_until) ? FSIM_LEVEL_PMD
									   : FSIM_LEVEL_PTE;
		if (fsim_snapshot_map(r->s, v->region, at + i, kf.index, (unsigned long)fpage,
				      level))
			r->st->skipped_unknown++;
		r->st->pages++;
		v->exclusive_pages += (pme[i] & PM_EXCLUSIVE) != 0;
		v->kpagecount_sum += fsim_snapshot_kpagecount(r->s, kf.index, fpage);
	}
	show_progress(r);
	return true;
}

/* Pages [from, to) (addresses) of the VMA, CHUNK-aligned pieces at a time. */
static bool read_range(struct snap_reader *r, int pagemap_fd, struct kernel_vma *v,
		       unsigned int proc, uint64_t from, uint64_t to, enum pmd_source src,
		       uint64_t *pme)
{
	const uint64_t page = r->page_size;

	while (from < to) {
		uint64_t next = (from / page / CHUNK + 1) * CHUNK * page;
		size_t n;

		if (next > to)
			next = to;
		n = (size_t)((next - from) / page);
		if (!pread_u64(pagemap_fd, from / page, pme, n))
			return true;	/* [vsyscall] and the like: nothing to read */
		if (!add_chunk(r, v, proc, (from - v->start) / page, pme, n, src))
			return false;
		from = next;
	}
	return true;
}

/*
 * PAGEMAP_SCAN (6.7): the present ranges of [start, end), each with
 * whether a PMD maps it; @done: how far it got.  -1 with errno on error.
 */
static long scan_present(int fd, uint64_t start, uint64_t end, struct page_region *vec,
			 uint64_t *done)
{
	struct pm_scan_arg arg;
	long n;

	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.start = start;
	arg.end = end;
	arg.vec = (uintptr_t)vec;
	arg.vec_len = SCAN_VEC;
	arg.category_mask = PAGE_IS_PRESENT;
	arg.return_mask = PAGE_IS_PRESENT | PAGE_IS_HUGE;
	n = ioctl(fd, PAGEMAP_SCAN, &arg);
	*done = arg.walk_end > start ? arg.walk_end : end;
	return n;
}

/* The pages of one VMA: the present ranges PAGEMAP_SCAN lists (a sparse
 * VMA of terabytes costs little), or without it the whole VMA. */
static bool read_vma(struct snap_reader *r, int pagemap_fd, struct kernel_vma *v,
		     unsigned int proc)
{
	struct page_region vec[SCAN_VEC];
	uint64_t *pme = malloc(CHUNK * sizeof(*pme)), from = v->start, done;
	bool ok = true;
	long n, i;

	if (!pme)
		return false;
	while (ok && !r->st->no_pagemap_scan && from < v->end) {
		n = scan_present(pagemap_fd, from, v->end, vec, &done);
		if (n < 0) {	/* e.g. [vsyscall]: read what pagemap has */
			ok = read_range(r, pagemap_fd, v, proc, from, v->end, PMD_NO, pme);
			from = v->end;
			break;
		}
		for (i = 0; ok && i < n; i++)
			ok = read_range(r, pagemap_fd, v, proc, vec[i].start, vec[i].end,
					vec[i].categories & PAGE_IS_HUGE ? PMD_YES : PMD_NO, pme);
		from = n < SCAN_VEC ? v->end : done;
	}
	if (ok && from < v->end)
		ok = read_range(r, pagemap_fd, v, proc, from, v->end, PMD_GUESS, pme);
	free(pme);
	return ok;
}

/*
 * smaps again: a VMA whose figures moved while its pages were read (other
 * processes mapped or unmapped the same pages: a shared library on a busy
 * machine) is marked, and its comparison means nothing.
 */
static void mark_changed(pid_t pid, struct snap_process *p)
{
	struct snap_process again = { .vma = malloc(p->nvma * sizeof(*p->vma) + 1),
				      .nvma = p->nvma };
	size_t i;

	if (!again.vma)
		return;
	for (i = 0; i < p->nvma; i++) {
		again.vma[i] = p->vma[i];
		again.vma[i].rss = again.vma[i].pss = -1;
	}
	read_smaps(pid, &again);
	for (i = 0; i < p->nvma; i++) {
		const struct kernel_vma *a = &p->vma[i], *b = &again.vma[i];

		p->vma[i].changed = a->rss != b->rss || a->pss != b->pss ||
				    a->anon_huge != b->anon_huge;
	}
	free(again.vma);
}

/* Whether the reader is to read VMA @v (snap_reader_only()). */
static bool wanted(const struct snap_reader *r, const struct kernel_vma *v)
{
	size_t i;

	if (!r->nonly)
		return true;
	for (i = 0; i < r->nonly; i++)
		if (v->start < r->only_end[i] && r->only_start[i] < v->end)
			return true;
	return false;
}

bool snap_within_history(enum snap_history_field field, long long kernel, long long model,
			 const struct fsim_snapshot_values *pred)
{
	const long long pages = (long long)pred->history_pages;
	const long long kb = pages * (sysconf(_SC_PAGESIZE) / 1024);

	switch (field) {
	case SNAP_PRIVATE_KB:
		return kernel >= model - kb && kernel < model;
	case SNAP_SHARED_KB:
		return kernel > model && kernel <= model + kb;
	case SNAP_EXCLUSIVE_PAGES:
		return kernel >= model - pages && kernel < model;
	}
	return false;
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
		if (wanted(r, &out->vma[i]))
			ok = read_vma(r, fd, &out->vma[i], proc);
	close(fd);
	if (ok)
		mark_changed(pid, out);
	return ok;
}
