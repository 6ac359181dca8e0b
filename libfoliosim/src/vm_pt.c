// SPDX-License-Identifier: MIT
/*
 * The process layer's page tables: regions and their entries, the 6.12
 * primitives that fill and empty them (set_pte_range(), zap_pte_range(),
 * __split_huge_pmd_locked(), the anon and page-cache fault helpers), used
 * by vm.c (the public address-space calls), vm_file.c, vm_vma.c and
 * vm_collapse.c.  It calls none of them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm_internal.h"

unsigned long pmd_nr(const struct fsim_process *p)
{
	return 1ul << p->ctx->arch.pmd_order;
}

/* Pages one entry maps: 1, or a whole PMD or PUD. */
unsigned long entry_pages(const struct fsim_process *p, const struct pte_entry *e)
{
	if (e->level == FSIM_LEVEL_PUD)
		return 1ul << p->ctx->arch.pud_order;
	return e->level == FSIM_LEVEL_PMD ? pmd_nr(p) : 1;
}

struct region *find_region(const struct fsim_process *p, const char *name)
{
	struct region *r;

	for (r = p->regions; r; r = r->next)
		if (!strcmp(r->name, name))
			return r;
	return NULL;
}

/* Page range of a byte range: page-aligned and inside the region. */
int page_range(const struct fsim_process *p, const struct region *r,
		      uint64_t off, uint64_t len, unsigned long *a, unsigned long *b)
{
	const unsigned int shift = p->ctx->arch.page_shift;
	const uint64_t mask = ((uint64_t)1 << shift) - 1;

	if (!r || (off & mask) || (len & mask) || !len ||
	    off >> shift > r->npages || len >> shift > r->npages - (off >> shift))
		return -EINVAL;
	*a = (unsigned long)(off >> shift);
	*b = *a + (unsigned long)(len >> shift);
	return 0;
}

struct region *region_alloc(const char *name, unsigned long npages,
				   unsigned long pmd_pages)
{
	struct region *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->name = malloc(strlen(name) + 1);
	r->live = calloc(npages, 1);
	r->e = calloc(npages, sizeof(*r->e));
	r->pte_table = calloc(npages / pmd_pages + 1, 1);
	if (!r->name || !r->live || !r->e || !r->pte_table) {
		free(r->name);
		free(r->live);
		free(r->e);
		free(r->pte_table);
		free(r);
		return NULL;
	}
	strcpy(r->name, name);
	r->npages = npages;
	return r;
}

static void shm_put(struct shm_object *shm)
{
	unsigned long i;

	if (!shm || --shm->refs || shm->name)
		return;	/* a named file stays (vm_files_destroy() frees it) */
	/* The last mapping is gone: the shmem file and its folios go. */
	for (i = 0; i < shm->npages; i++) {
		struct fsim_folio *f = shm->folio[i];

		if (f && shm->fpage[i] == fsim_folio_nr_pages(f) - 1)
			fsim_folio_free(f);
	}
	free(shm->folio);
	free(shm->fpage);
	free(shm);
}

void region_free(struct region *r)
{
	shm_put(r->shm);
	free(r->name);
	free(r->live);
	free(r->e);
	free(r->pte_table);
	free(r);
}

/* The new region @r becomes live in @p: every page inside its VMA. */
void region_link(struct fsim_process *p, struct region *r, unsigned int order)
{
	r->order = order;
	r->pmd_shift = p->ctx->arch.pmd_order;
	memset(r->live, VMA_LIVE | FSIM_PROT_READ | FSIM_PROT_WRITE, r->npages);
	r->next = p->regions;
	p->regions = r;
}

/* folio_put() of the page-table references: free an anon folio whose last
 * mapping is gone. */
int vm_rmap_result(struct fsim_process *p, const char *call, int err)
{
	struct fsim_ctx *ctx = p->ctx;

	if (err && !ctx->vm_refused) {
		ctx->vm_refused = err;
		snprintf(ctx->vm_refused_call, sizeof(ctx->vm_refused_call), "%s", call);
	}
	return err;
}

void put_if_unused(struct fsim_folio *f)
{
	if (f && fsim_folio_kind(f) == FSIM_KIND_ANON && fsim_folio_refcount(f) == 0)
		fsim_folio_free(f);
}

void clear_entry(struct pte_entry *e)
{
	memset(e, 0, sizeof(*e));
}

/* __split_huge_pmd_locked(): a PMD becomes PTEs (anon: add the PTEs, then
 * remove the PMD), the huge zeropage becomes zeropage PTEs, a shmem PMD is
 * simply zapped (refaulted later). */
void split_pmd(struct fsim_process *p, struct region *r, unsigned long s)
{
	struct pte_entry *e = &r->e[s];
	struct fsim_folio *f = e->folio;
	const unsigned long n = pmd_nr(p), fpage = e->fpage;
	unsigned long i;

	if (e->zero) {
		for (i = s; i < s + n; i++)
			r->e[i].level = FSIM_LEVEL_PTE;
		r->pte_table[s / n] = 1;	/* the deposited table */
		return;
	}
	if (fsim_folio_kind(f) != FSIM_KIND_ANON) {	/* zapped, no table is left */
		vm_rmap_result(p, "split_pmd: remove_rmap(file PMD)",
			       fsim_folio_remove_rmap(f, p->mm, FSIM_LEVEL_PMD, fpage, n));
		for (i = s; i < s + n; i++)
			clear_entry(&r->e[i]);
		return;
	}
	vm_rmap_result(p, "split_pmd: add_anon_rmap(PTEs)",
		       fsim_folio_add_anon_rmap(f, p->mm, FSIM_LEVEL_PTE, fpage, n,
						fsim_folio_anon_exclusive(f, fpage)));
	vm_rmap_result(p, "split_pmd: remove_rmap(PMD)",
		       fsim_folio_remove_rmap(f, p->mm, FSIM_LEVEL_PMD, fpage, n));
	for (i = s; i < s + n; i++)
		r->e[i].level = FSIM_LEVEL_PTE;
	r->pte_table[s / n] = 1;	/* pmd_populate() of the deposited table */
}

/* The entry level of a hugetlb region's huge pages. */
enum fsim_level hugetlb_entry_level(const struct fsim_process *p,
					   const struct region *r)
{
	return r->order == p->ctx->arch.pmd_order ? FSIM_LEVEL_PMD : FSIM_LEVEL_PUD;
}

/* __unmap_hugepage_range() over aligned pages [a, b): hugetlb_remove_rmap()
 * of every huge page mapped there; a private page is freed with its last
 * mapping, a shared one stays in the page cache. */
static void zap_hugetlb(struct fsim_process *p, struct region *r, unsigned long a,
			unsigned long b)
{
	const unsigned long n = 1ul << r->order;
	unsigned long i, k;

	for (i = a; i < b; i += n) {
		struct fsim_folio *f = r->e[i].folio;

		if (!f)
			continue;
		if (fsim_folio_remove_rmap(f, p->mm, hugetlb_entry_level(p, r), 0, n))
			continue;	/* the oracle refused: keep the entries */
		for (k = i; k < i + n; k++)
			clear_entry(&r->e[k]);
		put_if_unused(f);
	}
}

/* zap_pte_range()/zap_huge_pmd() over pages [a, b): PMDs cut in part are
 * split first; consecutive PTEs of one folio go in one batched call. */
void zap_range(struct fsim_process *p, struct region *r, unsigned long a,
		      unsigned long b)
{
	const unsigned long n = pmd_nr(p);
	unsigned long i, j;

	if (r->hugetlb) {
		zap_hugetlb(p, r, a, b);
		return;
	}
	for (i = a - a % n; i < b; i += n) {
		if (i >= r->npages || r->e[i].level != FSIM_LEVEL_PMD ||
		    (!r->e[i].folio && !r->e[i].zero))
			continue;
		if (i < a || i + n > b)
			split_pmd(p, r, i);
	}
	for (i = a; i < b; i = j) {
		struct pte_entry *e = &r->e[i];
		struct fsim_folio *f = e->folio;

		j = i + 1;
		if (e->zero && e->level == FSIM_LEVEL_PMD) {
			for (j = i; j < i + n; j++)
				clear_entry(&r->e[j]);
			continue;
		}
		if (!f) {
			clear_entry(e);
			continue;
		}
		if (e->level == FSIM_LEVEL_PMD) {
			vm_rmap_result(p, "zap_range: remove_rmap(PMD)",
				       fsim_folio_remove_rmap(f, p->mm, FSIM_LEVEL_PMD,
							      e->fpage, n));
			for (j = i; j < i + n; j++)
				clear_entry(&r->e[j]);
			put_if_unused(f);
			continue;
		}
		while (j < b && r->e[j].folio == f && r->e[j].level == FSIM_LEVEL_PTE &&
		       r->e[j].fpage == e->fpage + (j - i))
			j++;
		vm_rmap_result(p, "zap_range: remove_rmap(PTEs)",
			       fsim_folio_remove_rmap(f, p->mm, FSIM_LEVEL_PTE, e->fpage,
						      j - i));
		for (unsigned long k = i; k < j; k++)
			clear_entry(&r->e[k]);
		put_if_unused(f);
	}
}

int live_range(const struct region *r, unsigned long a, unsigned long b)
{
	unsigned long i;

	for (i = a; i < b; i++)
		if (!r->live[i])
			return -EFAULT;
	return 0;
}

/* pmd_none(): no PMD and no PTE table over the chunk of page a. */
bool pmd_none(const struct region *r, unsigned long a)
{
	return !r->pte_table[a >> r->pmd_shift];
}

/* Are pages [a, a + n) all unmapped (pte_none) and inside the VMA? */
bool range_none(const struct region *r, unsigned long a, unsigned long n)
{
	unsigned long i;

	if (a + n > r->npages)
		return false;
	for (i = a; i < a + n; i++)
		if (r->live[i] != r->live[a] || r->e[i].folio || r->e[i].zero)
			return false;
	return r->live[a] != 0;
}

void set_entries(struct region *r, unsigned long a, unsigned long n,
			struct fsim_folio *f, unsigned long fpage,
			enum fsim_level level, bool writable, bool dirty)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		if (level == FSIM_LEVEL_PTE)
			r->pte_table[(a + i) >> r->pmd_shift] = 1;
		r->e[a + i].folio = f;
		r->e[a + i].fpage = fpage + i;
		r->e[a + i].level = (unsigned char)level;
		r->e[a + i].zero = false;
		r->e[a + i].swap = false;
		r->e[a + i].writable = writable;
		r->e[a + i].dirty = dirty;
	}
}

/* folio_add_new_anon_rmap() of the new anon folio @f at page a, by
 * entries of @level; the folio is freed if the call is refused. */
int map_new_folio(struct fsim_process *p, struct region *r, unsigned long a,
			 struct fsim_folio *f, enum fsim_level level, bool writable,
			 bool dirty)
{
	int err = fsim_folio_add_new_anon_rmap(f, p->mm, true);

	if (err) {
		fsim_folio_free(f);
		return err;
	}
	set_entries(r, a, fsim_folio_nr_pages(f), f, 0, level, writable, dirty);
	return 0;
}

/* A new anon folio of 2^order pages mapped at page a (do_anonymous_page(),
 * do_huge_pmd_anonymous_page(), wp_page_copy()). */
int map_new_anon(struct fsim_process *p, struct region *r, unsigned long a,
			unsigned int order)
{
	struct fsim_folio *f;
	int err = fsim_folio_create(p->ctx, order, FSIM_KIND_ANON, &f);

	r->anon_vma = true;	/* anon_vma_prepare() */
	return err ? err : map_new_folio(p, r, a, f,
			order == p->ctx->arch.pmd_order ? FSIM_LEVEL_PMD : FSIM_LEVEL_PTE,
			true, true);
}

/* shmem_fault() + finish_fault()/do_set_pmd(): find or allocate the page
 * cache folio, then map the whole folio if it fits, else the page. */
/* fault_around_bytes of mm/memory.c (64 kB by default): in pages. */
static unsigned long fault_around_pages(const struct fsim_process *p)
{
	const unsigned int shift = p->ctx->arch.page_shift;

	return shift < 16 ? (65536ul >> shift) : 1;
}

/* The VMA around page @i: the run [*s, *e) of pages with its live value. */
void vma_bounds(const struct region *r, unsigned long i, unsigned long *s,
		       unsigned long *e)
{
	for (*s = i; *s > 0 && r->live[*s - 1] == r->live[i]; (*s)--)
		;
	for (*e = i + 1; *e < r->npages && r->live[*e] == r->live[i]; (*e)++)
		;
}

/* filemap_map_folio_range(): the none PTEs of [a, b) that map pages of
 * folio @f (page cache index j -> folio page shm->fpage[j]), batch by
 * batch (set_pte_range() -> folio_add_file_rmap_ptes()). */
static int map_folio_ptes(struct fsim_process *p, struct region *r, struct fsim_folio *f,
			  unsigned long a, unsigned long b)
{
	unsigned long j = a, k;
	int err = 0;

	while (!err && j < b) {
		if (r->shm->folio[j] != f || r->e[j].folio || r->e[j].zero) {
			j++;
			continue;
		}
		for (k = j; k < b && r->shm->folio[k] == f && !r->e[k].folio &&
			    !r->e[k].zero; k++)
			;
		err = fsim_folio_add_file_rmap(f, p->mm, FSIM_LEVEL_PTE, r->shm->fpage[j],
					       k - j);
		if (!err)
			set_entries(r, j, k - j, f, r->shm->fpage[j], FSIM_LEVEL_PTE, true,
				    false);
		j = k;
	}
	return err;
}

/*
 * do_fault_around() -> filemap_map_pages() of a read fault at page @i: the
 * fault_around_pages-aligned window around it, clamped to the VMA and to
 * the page table, maps the page-cache pages already there (a PMD for a
 * PMD-sized folio whose PMD range the VMA covers, filemap_map_pmd()).
 * The fault is done when page @i got mapped; else __do_fault() allocates.
 */
int fault_around(struct fsim_process *p, struct region *r, unsigned long i)
{
	const unsigned long nr = fault_around_pages(p), pmd = pmd_nr(p);
	const unsigned long base = i - i % pmd, pte_off = i - base;
	unsigned long s, e, from, to, j;
	struct fsim_folio *f;
	int err = 0;

	if (nr <= 1)
		return 0;	/* should_fault_around() */
	vma_bounds(r, i, &s, &e);
	from = pte_off - pte_off % nr;
	if (pte_off - from > i - s)
		from = pte_off - (i - s);
	to = from + nr;
	if (to > pmd)
		to = pmd;
	if (to > pte_off + (e - i))
		to = pte_off + (e - i);
	from += base;
	to += base;
	f = r->shm->folio[from];
	if (f && fsim_folio_order(f) == p->ctx->arch.pmd_order && pmd_none(r, base) &&
	    s <= base && base + pmd <= e && r->shm->fpage[base] == 0 &&
	    range_none(r, base, pmd)) {
		err = fsim_folio_add_file_rmap(f, p->mm, FSIM_LEVEL_PMD, 0, pmd);
		if (!err)
			set_entries(r, base, pmd, f, 0, FSIM_LEVEL_PMD, true, false);
		return err;
	}
	for (j = from; !err && j < to; j++) {
		f = r->shm->folio[j];
		if (!f)
			continue;
		err = map_folio_ptes(p, r, f, j, to);
		while (j + 1 < to && r->shm->folio[j + 1] == f)
			j++;
	}
	return err;
}

/* shmem_get_folio() / filemap_fault(): the page cache's folio at index
 * @i, or a new one of @order over the aligned range when that range is
 * free and inside the file, else of order 0.  NULL with *@err on error. */
struct fsim_folio *page_cache_get(struct fsim_process *p, struct shm_object *shm,
				  unsigned long i, unsigned int order,
				  enum fsim_kind kind, int *err)
{
	const unsigned long n = 1ul << order;
	unsigned long base = i - i % n, k;
	struct fsim_folio *f = shm->folio[i];

	*err = 0;
	if (f)
		return f;
	for (k = base; order && k < base + n; k++)
		if (k >= shm->npages || shm->folio[k])
			order = 0;
	if (!order)
		base = i;
	*err = fsim_folio_create(p->ctx, order, kind, &f);
	if (*err)
		return NULL;
	for (k = 0; k < (1ul << order); k++) {
		shm->folio[base + k] = f;
		shm->fpage[base + k] = k;
	}
	return f;
}
