// SPDX-License-Identifier: MIT
/*
 * Named files mapped MAP_PRIVATE: shared libraries' text and data.  Every
 * process that maps file F shares F's page cache.  A read fault maps the
 * page cache's page by one PTE (finish_fault() maps a whole large folio
 * only for anon shmem), or a whole PMD-sized folio by a PMD (do_set_pmd());
 * a write copies the page into a new small anon folio (do_cow_fault(),
 * wp_page_copy()).  A file on tmpfs has shmem folios; any other file, page
 * cache folios of the file's order (readahead's large folios).
 */
#include <stdlib.h>
#include <string.h>

#include "vm_internal.h"

static struct shm_object *file_find(const struct fsim_ctx *ctx, const char *name)
{
	struct shm_object *f;

	for (f = ctx->files; f; f = f->next)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

static void file_free(struct shm_object *f)
{
	free(f->name);
	free(f->folio);
	free(f->fpage);
	free(f);
}

/* The files' page caches go with the context (their folios are freed with
 * the context's other folios). */
static void vm_files_destroy(struct fsim_ctx *ctx)
{
	while (ctx->files) {
		struct shm_object *f = ctx->files;

		ctx->files = f->next;
		file_free(f);
	}
}

/* A new empty file of @npages pages (open(O_CREAT) + ftruncate()). */
static struct shm_object *file_create(struct fsim_ctx *ctx, const char *name,
				      unsigned long npages, enum fsim_kind kind,
				      unsigned int order)
{
	struct shm_object *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->name = malloc(strlen(name) + 1);
	f->folio = calloc(npages, sizeof(*f->folio));
	f->fpage = calloc(npages, sizeof(*f->fpage));
	if (!f->name || !f->folio || !f->fpage) {
		file_free(f);
		return NULL;
	}
	strcpy(f->name, name);
	f->npages = npages;
	f->kind = kind;
	f->order = order;
	f->next = ctx->files;
	ctx->files = f;
	ctx->files_destroy = vm_files_destroy;
	return f;
}

int fsim_process_mmap_file(struct fsim_process *p, const char *name, uint64_t size,
			   const char *file, bool tmpfs, unsigned int order)
{
	const unsigned int shift = p ? p->ctx->arch.page_shift : 0;
	const enum fsim_kind kind = tmpfs ? FSIM_KIND_SHMEM : FSIM_KIND_FILE;
	struct shm_object *f;
	struct region *r;
	unsigned long npages;

	if (!p || !name || !file || !*file)
		return -EINVAL;
	if (find_region(p, name))
		return -EEXIST;
	if (!size || (size & (((uint64_t)1 << shift) - 1)) ||
	    order > p->ctx->arch.pmd_order || size >> shift > (1ul << 30))
		return -EINVAL;
	npages = (unsigned long)(size >> shift);
	f = file_find(p->ctx, file);
	/* One file, one file system: its kind, order and size stay. */
	if (f && (f->kind != kind || f->order != order || npages > f->npages))
		return -EINVAL;
	r = region_alloc(name, npages, pmd_nr(p));
	if (!r)
		return -ENOMEM;
	if (!f && !(f = file_create(p->ctx, file, npages, kind, order))) {
		free(r->name);
		free(r->live);
		free(r->e);
		free(r->pte_table);
		free(r);
		return -ENOMEM;
	}
	f->refs++;
	r->file = true;
	r->shm = f;
	region_link(p, r, order);
	return 0;
}

/* finish_fault() of a read fault: a PMD for a PMD-sized folio whose PMD
 * range the VMA covers over pmd_none() (do_set_pmd()), else one PTE. */
static int map_page_cache_page(struct fsim_process *p, struct region *r,
			       unsigned long i, struct fsim_folio *f)
{
	const unsigned long pmd = pmd_nr(p), base = i - i % pmd;
	const unsigned long fpage = r->shm->fpage[i];
	unsigned long s, e;
	int err;

	vma_bounds(r, i, &s, &e);
	if (fsim_folio_order(f) == p->ctx->arch.pmd_order && r->shm->fpage[base] == 0 &&
	    s <= base && base + pmd <= e && pmd_none(r, base) && range_none(r, base, pmd)) {
		err = fsim_folio_add_file_rmap(f, p->mm, FSIM_LEVEL_PMD, 0, pmd);
		if (!err)
			set_entries(r, base, pmd, f, 0, FSIM_LEVEL_PMD, false, false);
		return err;
	}
	err = fsim_folio_add_file_rmap(f, p->mm, FSIM_LEVEL_PTE, fpage, 1);
	if (!err)
		set_entries(r, i, 1, f, fpage, FSIM_LEVEL_PTE, false, false);
	return err;
}

/* do_read_fault(): fault-around first, then the faulting page. */
static int read_fault(struct fsim_process *p, struct region *r, unsigned long i)
{
	struct fsim_folio *f;
	int err = fault_around(p, r, i);

	if (err || r->e[i].folio)
		return err;
	f = page_cache_get(p, r->shm, i, r->shm->order, r->shm->kind, &err);
	return f ? map_page_cache_page(p, r, i, f) : err;
}

/* do_cow_fault(): the page cache's page is read (and stays there,
 * unmapped), a new small anon folio holding its copy is mapped. */
static int cow_fault(struct fsim_process *p, struct region *r, unsigned long i)
{
	int err;

	if (!page_cache_get(p, r->shm, i, r->shm->order, r->shm->kind, &err))
		return err;
	return map_new_anon(p, r, i, 0);
}

/* do_wp_page() on a page-cache page of a private mapping: wp_page_copy()
 * maps a new small anon folio, then unmaps the old page.  A PMD is split
 * first, which zaps it (__split_huge_pmd_locked() of a file PMD): the
 * fault then falls back to do_cow_fault(). */
static int cow_page(struct fsim_process *p, struct region *r, unsigned long i)
{
	const struct pte_entry old = r->e[i];
	int err;

	if (old.level == FSIM_LEVEL_PMD) {
		split_pmd(p, r, i - i % pmd_nr(p));
		return cow_fault(p, r, i);
	}
	err = map_new_anon(p, r, i, 0);
	if (err)
		return err;
	return fsim_folio_remove_rmap(old.folio, p->mm, FSIM_LEVEL_PTE, old.fpage, 1);
}

int file_access(struct fsim_process *p, struct region *r, unsigned long i, bool write)
{
	if (r->e[i].folio)
		return write ? cow_page(p, r, i) : 0;
	return write ? cow_fault(p, r, i) : read_fault(p, r, i);
}
