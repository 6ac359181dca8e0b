// SPDX-License-Identifier: MIT
/*
 * split_folio() of a partially mapped anonymous folio, for the deferred
 * split scan (detect.c): split_huge_page_to_list_to_order() of 6.12 in its
 * effect on page tables and rmap.  unmap_folio() replaces every PTE by a
 * migration entry (folio_remove_rmap_ptes()), __split_huge_page() makes an
 * order-0 folio of each page, remap_page() maps each page back where it
 * was (folio_add_anon_rmap_pte(), PageAnonExclusive kept), and the pages
 * no page table mapped are freed with the old folio.
 */
#include <stdlib.h>

#include "vm_internal.h"

/* One PTE that maps the folio being split. */
struct split_site {
	struct fsim_process *p;
	struct region *r;
	unsigned long idx;
};

/* Every PTE mapping @f, in all processes; -EBUSY if a PMD maps it (a
 * partially mapped folio has none; the kernel would split the PMD). */
static int collect_sites(struct fsim_folio *f, struct split_site **out, size_t *n)
{
	struct fsim_process *p;
	struct split_site *v = NULL;
	size_t k = 0, cap = 0;

	for (p = f->ctx->procs; p; p = p->next)
		for (struct region *r = p->regions; r; r = r->next)
			for (unsigned long i = 0; i < r->npages; i++) {
				if (r->e[i].folio != f)
					continue;
				if (r->e[i].level != FSIM_LEVEL_PTE) {
					free(v);
					return -EBUSY;
				}
				if (k == cap) {
					struct split_site *w;

					cap = cap ? 2 * cap : 64;
					w = realloc(v, cap * sizeof(*v));
					if (!w) {
						free(v);
						return -ENOMEM;
					}
					v = w;
				}
				v[k++] = (struct split_site){ p, r, i };
			}
	*out = v;
	*n = k;
	return 0;
}

/* __split_huge_page(): a new order-0 anon folio for every mapped page. */
static int alloc_pages_of(struct fsim_folio *f, const unsigned int *mappers,
			  struct fsim_folio **small)
{
	const unsigned long nr = fsim_folio_nr_pages(f);

	for (unsigned long i = 0; i < nr; i++) {
		int err = mappers[i] ? fsim_folio_create(f->ctx, 0, FSIM_KIND_ANON,
							 &small[i]) : 0;

		if (err) {
			while (i--)
				if (small[i])
					fsim_folio_free(small[i]);
			return err;
		}
	}
	return 0;
}

/* unmap_folio() + remap_page(): move every site over to its new folio. */
static int remap_sites(struct fsim_folio *f, const struct split_site *s, size_t n,
		       struct fsim_folio **small, const unsigned int *mappers,
		       const bool *exclusive, struct fsim_mm **first)
{
	for (size_t k = 0; k < n; k++) {
		const unsigned long pg = s[k].r->e[s[k].idx].fpage;
		int err = fsim_folio_remove_rmap(f, s[k].p->mm, FSIM_LEVEL_PTE, pg, 1);

		if (err)
			return err;
	}
	for (size_t k = 0; k < n; k++) {
		struct pte_entry *e = &s[k].r->e[s[k].idx];
		const unsigned long pg = e->fpage;
		struct fsim_folio *g = small[pg];
		int err;

		if (!first[pg]) {
			err = fsim_folio_add_new_anon_rmap(g, s[k].p->mm,
							   exclusive[pg] && mappers[pg] == 1);
			first[pg] = s[k].p->mm;
		} else {
			err = fsim_folio_try_dup_anon_rmap(g, s[k].p->mm, first[pg],
							   FSIM_LEVEL_PTE, 0, 1);
		}
		if (err)
			return err;
		e->folio = g;
		e->fpage = 0;
	}
	return 0;
}

static int split_anon_folio(struct fsim_folio *f, unsigned long *freed)
{
	const unsigned long nr = fsim_folio_nr_pages(f);
	unsigned int *mappers = calloc(nr, sizeof(*mappers));
	struct fsim_folio **small = calloc(nr, sizeof(*small));
	struct fsim_mm **first = calloc(nr, sizeof(*first));
	bool *exclusive = calloc(nr, sizeof(*exclusive));
	struct split_site *sites = NULL;
	size_t n = 0;
	int err = mappers && small && first && exclusive ? 0 : -ENOMEM;

	if (!err)
		err = collect_sites(f, &sites, &n);
	/* Mappings made by rmap calls outside any page table: nothing the
	 * model could rewrite (a scenario mixing both levels). */
	if (!err && n != fsim_oracle_entries(f))
		err = -EBUSY;
	if (!err) {
		for (size_t k = 0; k < n; k++)
			mappers[sites[k].r->e[sites[k].idx].fpage]++;
		for (unsigned long i = 0; i < nr; i++)
			exclusive[i] = fsim_folio_anon_exclusive(f, i);
		err = alloc_pages_of(f, mappers, small);
	}
	if (!err) {
		/* Failing past here is a model bug: the calls refuse only bad
		 * arguments or a lack of memory for the oracle. */
		err = remap_sites(f, sites, n, small, mappers, exclusive, first);
		*freed = 0;
		for (unsigned long i = 0; i < nr; i++)
			*freed += !mappers[i];
		put_if_unused(f);
	}
	free(sites);
	free(exclusive);
	free(first);
	free(small);
	free(mappers);
	return err;
}

/* ctx->split_folio: split_folio() as deferred_split_scan() calls it. */
static int vm_split_folio(struct fsim_folio *f, unsigned long *freed)
{
	if (fsim_folio_kind(f) != FSIM_KIND_ANON || fsim_folio_test_hugetlb(f))
		return -EBUSY;
	return split_anon_folio(f, freed);
}

/* fsim_process_create(): the context's process list, for the split. */
void vm_link_process(struct fsim_process *p)
{
	struct fsim_ctx *ctx = p->ctx;

	p->prev = NULL;
	p->next = ctx->procs;
	if (ctx->procs)
		ctx->procs->prev = p;
	ctx->procs = p;
	ctx->split_folio = vm_split_folio;
}

void vm_unlink_process(struct fsim_process *p)
{
	struct fsim_ctx *ctx = p->ctx;

	if (p->prev)
		p->prev->next = p->next;
	else
		ctx->procs = p->next;
	if (p->next)
		p->next->prev = p->prev;
	if (!ctx->procs)
		ctx->split_folio = NULL;
}
