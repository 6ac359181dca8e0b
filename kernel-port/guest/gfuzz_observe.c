// SPDX-License-Identifier: MIT
/* gfuzz: observing the kernel (pagemap, PAGEMAP_SCAN, kpageflags,
 * kpagecount) and the folios of the model it shows. */
#define _GNU_SOURCE
#include "gfuzz.h"

/* ---------------------------------------------------------------- */
/* Observing the kernel                                              */
/* ---------------------------------------------------------------- */

void gf_mismatch(struct gfuzz *g, const struct gf_page *pg, enum gf_what what,
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
void gf_qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

static int gf_cmp_page(const void *a, const void *b)
{
	const struct gf_page *x = a, *y = b;

	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	return x->va < y->va ? -1 : x->va > y->va;
}

static int gf_cmp_pfn(const void *a, const void *b)
{
	const uint64_t x = ((const struct gf_pfn *)a)->pfn, y = ((const struct gf_pfn *)b)->pfn;

	return x < y ? -1 : x > y;
}

static struct gf_pfn *gf_pfn_info(struct gfuzz *g, uint64_t pfn)
{
	struct gf_pfn key = { pfn, 0, 0, 0, 0 };

	return g->pfns.n ? bsearch(&key, g->pfns.v, g->pfns.n, sizeof(key), gf_cmp_pfn) : NULL;
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
	gf_qsort(g->pfns.v, g->pfns.n, sizeof(*g->pfns.v), gf_cmp_pfn);
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
void gf_rehash(struct gfuzz *g)
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

bool gf_observe(struct gfuzz *g)
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
		gf_qsort(g->pages.v, g->pages.n, sizeof(*g->pages.v), gf_cmp_page);
		if (!g->fatal)
			gf_entries(g);
	}
	if (kflags >= 0)
		close(kflags);
	if (kcount >= 0)
		close(kcount);
	return !g->fatal;
}
