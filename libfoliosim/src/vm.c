// SPDX-License-Identifier: MIT
/*
 * The process layer: page tables of PTE and PMD granularity over the folio
 * model, and the 6.12 paths that fill and empty them.  Every rmap change
 * goes through the public rmap calls, so the oracle checks the process
 * layer too.  In rfc mode the only path that differs is COW reuse of a
 * PTE-mapped large folio (__wp_can_reuse_large_anon_folio() of the RFC's
 * base tree); everything else the RFC changes is in the model below.
 */
#include <stdlib.h>
#include <string.h>

#include "vm_internal.h"

int fsim_process_create(struct fsim_ctx *ctx, struct fsim_process **out)
{
	struct fsim_process *p = calloc(1, sizeof(*p));
	int err;

	if (!p)
		return -ENOMEM;
	err = fsim_mm_create(ctx, 0, &p->mm);	/* mm_init() -> mm_alloc_id() */
	if (err) {
		free(p);
		return err;
	}
	p->ctx = ctx;
	vm_link_process(p);
	*out = p;
	return 0;
}

struct fsim_mm *fsim_process_mm(const struct fsim_process *p)
{
	return p->mm;
}

int fsim_process_mmap(struct fsim_process *p, const char *name, uint64_t size,
		      bool shmem, unsigned int order)
{
	const unsigned int shift = p->ctx->arch.page_shift;
	struct region *r;
	unsigned long npages;

	if (!name || find_region(p, name))
		return name ? -EEXIST : -EINVAL;
	/* 6.12 has no anon or shmem folios above the PMD order. */
	if (!size || (size & (((uint64_t)1 << shift) - 1)) ||
	    order > p->ctx->arch.pmd_order || size >> shift > (1ul << 30))
		return -EINVAL;
	npages = (unsigned long)(size >> shift);
	r = region_alloc(name, npages, pmd_nr(p));
	if (!r)
		return -ENOMEM;
	if (shmem) {
		r->shm = calloc(1, sizeof(*r->shm));
		if (r->shm) {
			r->shm->folio = calloc(npages, sizeof(*r->shm->folio));
			r->shm->fpage = calloc(npages, sizeof(*r->shm->fpage));
			r->shm->npages = npages;
			r->shm->refs = 1;
		}
		if (!r->shm || !r->shm->folio || !r->shm->fpage) {
			if (r->shm) {
				free(r->shm->folio);
				free(r->shm->fpage);
				free(r->shm);
				r->shm = NULL;
			}
			region_free(r);
			return -ENOMEM;
		}
	}
	r->shmem = shmem;
	region_link(p, r, order);
	return 0;
}

/* hugetlbfs_file_mmap() / MAP_HUGETLB: a region whose every fault maps a
 * whole hugetlb folio of the hstate's order. */
int fsim_process_mmap_hugetlb(struct fsim_process *p, const char *name,
			      uint64_t size, bool shared, unsigned int order)
{
	const struct fsim_arch *arch = p ? &p->ctx->arch : NULL;
	struct region *r;
	int err;

	if (!p || (order != arch->pmd_order && order != arch->pud_order) ||
	    (size & ((((uint64_t)1 << order) << arch->page_shift) - 1)))
		return -EINVAL;
	err = fsim_process_mmap(p, name, size, shared, 0);
	if (err)
		return err;
	r = find_region(p, name);
	r->hugetlb = true;
	r->order = order;
	return 0;
}

int fsim_process_region_size(const struct fsim_process *p, const char *name,
			     uint64_t *bytes)
{
	const struct region *r = find_region(p, name);

	if (!r)
		return -EINVAL;
	*bytes = (uint64_t)r->npages << p->ctx->arch.page_shift;
	return 0;
}

int fsim_process_munmap(struct fsim_process *p, const char *name, uint64_t off,
			uint64_t len)
{
	struct region *r = find_region(p, name);
	unsigned long a, b, i;
	int err = page_range(p, r, off, len, &a, &b);

	if (!err && r->hugetlb && ((a | b) & ((1ul << r->order) - 1)))
		err = -EINVAL;	/* hugetlb_vm_op_split(): huge-page aligned only */
	if (err)
		return err;
	zap_range(p, r, a, b);
	for (i = a; i < b; i++)
		r->live[i] = 0;
	/* free_pgtables(): a chunk no VMA covers any more loses its table. */
	for (i = a - a % pmd_nr(p); i < b; i += pmd_nr(p)) {
		unsigned long k, end = i + pmd_nr(p) < r->npages ? i + pmd_nr(p) : r->npages;
		bool any = false;

		for (k = i; k < end; k++)
			any |= r->live[k];
		if (!any)
			r->pte_table[i / pmd_nr(p)] = 0;
	}
	return 0;
}

int fsim_process_dontneed(struct fsim_process *p, const char *name, uint64_t off,
			  uint64_t len)
{
	struct region *r = find_region(p, name);
	unsigned long a, b;
	int err = page_range(p, r, off, len, &a, &b);

	if (!err)
		err = live_range(r, a, b);	/* madvise() on a hole: -ENOMEM */
	if (!err && r->hugetlb && ((a | b) & ((1ul << r->order) - 1)))
		err = -EINVAL;	/* madvise_dontneed_free_valid_vma() */
	if (err)
		return err;
	zap_range(p, r, a, b);
	return 0;
}

/* do_anonymous_page() / do_huge_pmd_anonymous_page() with only the
 * region's order enabled: the aligned range must be empty and inside the
 * VMA, else order 0.  Reads map the (huge) zeropage. */
static int anon_fault(struct fsim_process *p, struct region *r, unsigned long i,
		      bool write)
{
	const unsigned long n = 1ul << r->order, a = i - i % n;
	const bool pmd = r->order == p->ctx->arch.pmd_order;
	unsigned long k;

	if (!write) {
		if (pmd && pmd_none(r, a) && range_none(r, a, n)) {
			for (k = a; k < a + n; k++) {
				clear_entry(&r->e[k]);
				r->e[k].zero = true;
				r->e[k].level = FSIM_LEVEL_PMD;
			}
		} else {
			clear_entry(&r->e[i]);
			r->e[i].zero = true;
			r->pte_table[i >> r->pmd_shift] = 1;
		}
		return 0;
	}
	/* do_huge_pmd_anonymous_page() only over pmd_none(); the PTE path
	 * (alloc_anon_folio()) only tries orders below PMD_ORDER. */
	if (pmd && !pmd_none(r, a))
		return map_new_anon(p, r, i, 0);
	if (r->order && range_none(r, a, n))
		return map_new_anon(p, r, a, r->order);
	return map_new_anon(p, r, i, 0);
}

static int shmem_fault(struct fsim_process *p, struct region *r, unsigned long i,
		       bool write)
{
	struct shm_object *shm = r->shm;
	struct fsim_folio *f;
	unsigned long fpage, start, nr;
	int err;

	/* do_read_fault(): fault-around first (do_shared_fault() has none) */
	if (!write) {
		err = fault_around(p, r, i);
		if (err || r->e[i].folio)
			return err;
	}
	f = page_cache_get(p, shm, i, r->order, FSIM_KIND_SHMEM, &err);
	if (!f)
		return err;
	fpage = shm->fpage[i];
	nr = fsim_folio_nr_pages(f);
	start = i - fpage;
	if (nr > 1 && range_none(r, start, nr) &&
	    (fsim_folio_order(f) < p->ctx->arch.pmd_order || pmd_none(r, start))) {
		enum fsim_level level = fsim_folio_order(f) == p->ctx->arch.pmd_order ?
					FSIM_LEVEL_PMD : FSIM_LEVEL_PTE;

		err = fsim_folio_add_file_rmap(f, p->mm, level, 0, nr);
		if (!err)
			set_entries(r, start, nr, f, 0, level, true, false);
	} else {
		err = fsim_folio_add_file_rmap(f, p->mm, FSIM_LEVEL_PTE, fpage, 1);
		if (!err)
			set_entries(r, i, 1, f, fpage, FSIM_LEVEL_PTE, true, false);
	}
	if (!err && write)
		r->e[i].dirty = true;
	return err;
}

/* __wp_can_reuse_large_anon_folio() of the RFC's base (6.15): reuse when
 * every reference is a mapping and every mapping is in this mm. */
static bool can_reuse_large_anon(struct fsim_process *p, struct fsim_folio *f)
{
	struct fsim_slot slots[2];
	bool shared;

	if (!p->ctx->ops->cow_reuses_large_anon)
		return false;	/* 6.12: never reuse a page of a large folio */
	if (fsim_folio_mapcount(f) <= 1)
		return false;	/* just free up the large folio */
	if (fsim_folio_slots(f, slots, &shared) || shared)
		return false;
	return fsim_folio_mapcount(f) == fsim_folio_refcount(f);
}

/* do_wp_page() on an anon page whose entry is write-protected. */
static int wp_fault(struct fsim_process *p, struct region *r, unsigned long i)
{
	const unsigned long n = pmd_nr(p);
	struct pte_entry *e = &r->e[i];
	struct fsim_folio *f = e->folio;
	unsigned long k;
	int err;

	if (e->level == FSIM_LEVEL_PMD) {
		/* do_huge_pmd_wp_page(): reuse if exclusive, else fall back */
		const unsigned long s = i - i % n, head = r->e[s].fpage;

		if (fsim_folio_anon_exclusive(f, head) || fsim_folio_refcount(f) == 1) {
			vm_rmap_result(p, "wp_fault: set_anon_exclusive(PMD)",
				       fsim_folio_set_anon_exclusive(f, head, true));
			for (k = s; k < s + n; k++)
				r->e[k].writable = true;
			e->dirty = true;
			return 0;
		}
		split_pmd(p, r, s);
	}
	if (fsim_folio_anon_exclusive(f, e->fpage) ||
	    (fsim_folio_order(f) == 0 && fsim_folio_refcount(f) == 1) ||
	    (fsim_folio_order(f) > 0 && can_reuse_large_anon(p, f))) {
		/* wp_page_reuse() */
		vm_rmap_result(p, "wp_fault: set_anon_exclusive",
			       fsim_folio_set_anon_exclusive(f, e->fpage, true));
		e->writable = e->dirty = true;
		return 0;
	}
	/* wp_page_copy(): a new small folio, then the old PTE goes. */
	{
		struct pte_entry old = *e;

		err = map_new_anon(p, r, i, 0);
		if (err)
			return err;
		vm_rmap_result(p, "wp_page_copy: remove_rmap(old PTE)",
			       fsim_folio_remove_rmap(old.folio, p->mm, FSIM_LEVEL_PTE,
						      old.fpage, 1));
		put_if_unused(old.folio);
	}
	return 0;
}

/* A new anon hugetlb folio mapped at huge page a (hugetlb_no_page() of a
 * private mapping, hugetlb_wp()'s copy). */
static int map_new_hugetlb_anon(struct fsim_process *p, struct region *r,
				unsigned long a, bool writable, bool dirty)
{
	struct fsim_folio *f;
	int err = fsim_folio_create_hugetlb(p->ctx, r->order, FSIM_KIND_ANON, &f);

	return err ? err : map_new_folio(p, r, a, f, hugetlb_entry_level(p, r), writable,
					 dirty);
}

/* hugetlb_no_page() of a shared mapping: the page cache's folio, or a new
 * one added to it, mapped with hugetlb_add_file_rmap(). */
static int map_hugetlb_shared(struct fsim_process *p, struct region *r,
			      unsigned long a, bool write)
{
	struct shm_object *shm = r->shm;
	const unsigned long n = 1ul << r->order;
	struct fsim_folio *f = shm->folio[a];
	unsigned long k;
	int err;

	if (!f) {
		err = fsim_folio_create_hugetlb(p->ctx, r->order, FSIM_KIND_FILE, &f);
		if (err)
			return err;
		for (k = 0; k < n; k++) {
			shm->folio[a + k] = f;
			shm->fpage[a + k] = k;
		}
	}
	err = fsim_folio_add_file_rmap(f, p->mm, hugetlb_entry_level(p, r), 0, n);
	if (!err)
		set_entries(r, a, n, f, 0, hugetlb_entry_level(p, r), true, write);
	return err;
}

/* hugetlb_fault(): no_page maps the whole huge page (a private one read-only
 * until hugetlb_wp()); hugetlb_wp() reuses a private page that one mapping
 * holds (folio_mapcount() == 1, the anon rmap moved to this vma), else
 * copies the whole huge page. */
static int hugetlb_access(struct fsim_process *p, struct region *r,
			  unsigned long i, bool write)
{
	const unsigned long n = 1ul << r->order, a = i - i % n;
	struct pte_entry *e = &r->e[a];
	struct fsim_folio *old = e->folio;
	unsigned long k;
	int err;

	if (!old)
		return r->shmem ? map_hugetlb_shared(p, r, a, write)
				: map_new_hugetlb_anon(p, r, a, write, write);
	if (!write)
		return 0;
	if (e->writable) {
		for (k = a; k < a + n; k++)
			r->e[k].dirty = true;
		return 0;
	}
	if (fsim_folio_mapcount(old) == 1) {
		err = fsim_folio_set_anon_exclusive(old, 0, true);
		for (k = a; !err && k < a + n; k++)
			r->e[k].writable = r->e[k].dirty = true;
		return err;
	}
	err = fsim_folio_remove_rmap(old, p->mm, hugetlb_entry_level(p, r), 0, n);
	if (err)
		return err;
	for (k = a; k < a + n; k++)
		clear_entry(&r->e[k]);
	err = map_new_hugetlb_anon(p, r, a, true, true);
	put_if_unused(old);
	return err;
}

/* A fault the model cannot place: in a region mremap() moved off its
 * alignment, where a large folio's or fault-around's place depends on the
 * virtual address, which the model does not keep. */
static bool unplaceable_fault(const struct region *r, const struct pte_entry *e)
{
	/* 6.12 swaps large folios in (alloc_swap_folio()) where mTHP sizes
	 * are enabled: not modelled */
	if (e->swap && r->order >= 2 && !(r->order == r->pmd_shift))
		return true;
	if (!r->misaligned || e->folio || e->zero)
		return false;
	return r->order > 0 || r->shm != NULL;
}

static int access_page(struct fsim_process *p, struct region *r, unsigned long i,
		       bool write)
{
	struct pte_entry *e = &r->e[i];

	if (r->hugetlb)
		return hugetlb_access(p, r, i, write);
	if (e->swap)
		return swap_in(p, r, i, write);
	if (r->file && (!e->folio || fsim_folio_kind(e->folio) != FSIM_KIND_ANON))
		return file_access(p, r, i, write);	/* else an anon page: below */
	if (r->shmem) {
		if (!e->folio)
			return shmem_fault(p, r, i, write);
		if (write)
			e->dirty = true;
		return 0;
	}
	if (e->folio) {
		if (!write)
			return 0;
		if (e->writable) {
			e->dirty = true;
			return 0;
		}
		return wp_fault(p, r, i);
	}
	if (e->zero) {
		if (!write)
			return 0;
		/* Writing to the (huge) zeropage: split, then a new page. */
		if (e->level == FSIM_LEVEL_PMD)
			split_pmd(p, r, i - i % pmd_nr(p));
		return map_new_anon(p, r, i, 0);
	}
	return anon_fault(p, r, i, write);
}

int fsim_process_access(struct fsim_process *p, const char *name, uint64_t off,
			uint64_t len, bool write)
{
	struct region *r = find_region(p, name);
	unsigned long a, b, i;
	int err = page_range(p, r, off, len, &a, &b);

	if (!err)
		err = live_range(r, a, b);
	/* a page the VMA's protection forbids: SIGSEGV; a fault the model
	 * cannot place: refused before any page is touched */
	for (i = a; !err && i < b; i++) {
		if (!(r->live[i] & (write ? FSIM_PROT_WRITE : FSIM_PROT_READ)))
			err = -EFAULT;
		else if (unplaceable_fault(r, &r->e[i]))
			err = -EOPNOTSUPP;
	}
	for (i = a; !err && i < b; i++)
		err = access_page(p, r, i, write);
	return err;
}

/* copy_hugetlb_page_range() of a private mapping (it has an anon_vma, so
 * vma_needs_copy()): every page is shared write-protected
 * (hugetlb_try_dup_anon_rmap()), or, when that says -EBUSY (a pinned
 * exclusive page), copied for the child at once.  A shared mapping is not
 * copied (6.12's vma_needs_copy() has no VM_HUGETLB case): the child
 * faults the page cache's pages in. */
static int copy_hugetlb(struct fsim_process *parent, struct fsim_process *child,
			struct region *src, struct region *dst)
{
	const unsigned long n = 1ul << src->order;
	const enum fsim_level level = hugetlb_entry_level(parent, src);
	unsigned long i, k;
	int err = 0;

	for (i = 0; i < src->npages && !err; i += n) {
		struct pte_entry *e = &src->e[i];

		if (!e->folio)
			continue;
		err = fsim_folio_try_dup_anon_rmap(e->folio, child->mm, parent->mm,
						   level, 0, n);
		if (err == -EBUSY) {
			err = map_new_hugetlb_anon(child, dst, i, true, e->dirty);
			continue;
		}
		for (k = i; !err && k < i + n; k++) {
			src->e[k].writable = false;
			dst->e[k] = src->e[k];
		}
	}
	return err;
}

/* copy_present_ptes() of page-cache pages (a MAP_PRIVATE file region with
 * an anon_vma): the child maps them too (folio_dup_file_rmap_ptes());
 * copy_huge_pmd() skips a file PMD, which the child refaults.  Sets *@end
 * past the entries handled. */
static int copy_file_entries(struct fsim_process *parent, struct fsim_process *child,
			     const struct region *src, struct region *dst, unsigned long i,
			     unsigned long *end)
{
	const struct pte_entry *e = &src->e[i];
	unsigned long j = i + 1, k;
	int err;

	if (e->level == FSIM_LEVEL_PMD) {
		*end = i + pmd_nr(parent);
		return 0;
	}
	while (j < src->npages && src->e[j].folio == e->folio &&
	       src->e[j].level == FSIM_LEVEL_PTE && src->e[j].fpage == e->fpage + (j - i))
		j++;
	*end = j;
	err = fsim_folio_dup_file_rmap(e->folio, child->mm, parent->mm, FSIM_LEVEL_PTE,
				       e->fpage, j - i);
	for (k = i; !err && k < j; k++)
		dst->e[k] = src->e[k];
	return err;
}

/* copy_page_range() for one region: anon entries are shared with the
 * child and write-protected in both (copy_present_ptes()/copy_huge_pmd());
 * a shared shmem mapping has no anon_vma and is not copied at all. */
static int copy_region(struct fsim_process *parent, struct fsim_process *child,
		       struct region *src)
{
	const unsigned long n = pmd_nr(parent);
	struct region *dst = region_alloc(src->name, src->npages, n);
	unsigned long i, j;
	int err = 0;

	if (!dst)
		return -ENOMEM;
	dst->shmem = src->shmem;
	dst->order = src->order;
	dst->pmd_shift = src->pmd_shift;
	memcpy(dst->live, src->live, src->npages);
	/* copy_pte_range() allocates the child's PTE tables as it copies. */
	memcpy(dst->pte_table, src->pte_table, src->npages / n + 1);
	dst->next = child->regions;
	child->regions = dst;
	dst->hugetlb = src->hugetlb;
	dst->anon_vma = src->anon_vma;	/* anon_vma_fork() */
	dst->misaligned = src->misaligned;
	if (src->file) {
		dst->file = true;
		dst->shm = src->shm;
		dst->shm->refs++;
		if (!src->anon_vma)
			return 0;	/* vma_needs_copy(): the child faults */
	}
	if (src->hugetlb && !src->shmem)
		return copy_hugetlb(parent, child, src, dst);
	if (src->shmem) {
		dst->shm = src->shm;
		dst->shm->refs++;
		return 0;
	}
	for (i = 0; i < src->npages && !err; i = j) {
		struct pte_entry *e = &src->e[i];

		j = i + 1;
		if (e->zero) {
			dst->e[i] = *e;
			continue;
		}
		if (!e->folio)
			continue;
		if (fsim_folio_kind(e->folio) != FSIM_KIND_ANON) {
			err = copy_file_entries(parent, child, src, dst, i, &j);
			continue;
		}
		if (e->level == FSIM_LEVEL_PMD) {
			j = i + n;
			err = fsim_folio_try_dup_anon_rmap(e->folio, child->mm, parent->mm,
							   FSIM_LEVEL_PMD, e->fpage, n);
		} else {
			while (j < src->npages && src->e[j].folio == e->folio &&
			       src->e[j].level == FSIM_LEVEL_PTE &&
			       src->e[j].fpage == e->fpage + (j - i))
				j++;
			err = fsim_folio_try_dup_anon_rmap(e->folio, child->mm, parent->mm,
							   FSIM_LEVEL_PTE, e->fpage, j - i);
		}
		if (err)
			break;
		for (unsigned long k = i; k < j; k++) {
			src->e[k].writable = false;
			dst->e[k] = src->e[k];
		}
	}
	return err;
}

int fsim_process_fork(struct fsim_process *parent, struct fsim_process **out)
{
	struct fsim_process *child;
	struct region *r;
	int err;

	/* copy_nonpresent_pte() of a swap entry shares the swap slot, which
	 * then goes through the swap cache: not modelled */
	for (r = parent->regions; r; r = r->next)
		if (region_has_swap(r))
			return -EOPNOTSUPP;
	err = fsim_process_create(parent->ctx, &child);
	if (err)
		return err;
	for (r = parent->regions; r && !err; r = r->next)
		err = copy_region(parent, child, r);
	if (err) {
		fsim_process_exit(child);
		return err;
	}
	/* Keep the child's regions in the parent's order. */
	{
		struct region *rev = NULL;

		while (child->regions) {
			r = child->regions;
			child->regions = r->next;
			r->next = rev;
			rev = r;
		}
		child->regions = rev;
	}
	*out = child;
	return 0;
}

int fsim_process_exit(struct fsim_process *p)
{
	while (p->regions) {
		struct region *r = p->regions;

		p->regions = r->next;
		zap_range(p, r, 0, r->npages);	/* exit_mmap() */
		region_free(r);
	}
	fsim_mm_destroy(p->mm);		/* __mmdrop() */
	vm_unlink_process(p);
	free(p);
	return 0;
}

/* smaps_pte_range() of the entry at page @i into @mss: a present entry
 * (smaps_account(); the zeropage is not vm_normal_page()), a swap entry
 * (Swap).  Returns the pages the entry covers. */
static unsigned long smaps_entry(const struct fsim_process *p, const struct region *r,
				 unsigned long i, struct fsim_smaps *mss)
{
	const struct pte_entry *e = &r->e[i];

	if (e->swap)
		mss->swap += 1ull << p->ctx->arch.page_shift;
	if (!e->folio)
		return 1;
	fsim_smaps_account(e->folio, (enum fsim_level)e->level, e->fpage, e->dirty, mss);
	return e->level == FSIM_LEVEL_PTE ? 1 : entry_pages(p, e);
}

int fsim_process_smaps(const struct fsim_process *p, const char *name,
		       struct fsim_smaps *out)
{
	const struct region *r = find_region(p, name);
	unsigned long i;

	if (!r)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	for (i = 0; i < r->npages; )
		i += r->live[i] ? smaps_entry(p, r, i, out) : 1;
	return 0;
}

int fsim_process_smaps_kb(const struct fsim_process *p, const char *name,
			  struct fsim_smaps_kb *out)
{
	const struct region *r = find_region(p, name);
	unsigned long i = 0;

	if (!r)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	while (i < r->npages) {
		/* One VMA: a maximal run of one live value (show_smap()). */
		const unsigned char vma = r->live[i];
		struct fsim_smaps v;

		if (!vma) {
			i++;
			continue;
		}
		memset(&v, 0, sizeof(v));
		while (i < r->npages && r->live[i] == vma) {
			const struct pte_entry *e = &r->e[i];

			if (e->folio && fsim_numa_mapmax(e->folio, e->fpage) > out->mapmax)
				out->mapmax = fsim_numa_mapmax(e->folio, e->fpage);
			i += smaps_entry(p, r, i, &v);
		}
		out->vmas++;
		smaps_kb_add(out, &v);
	}
	return 0;
}

int fsim_process_mapmax(const struct fsim_process *p, const char *name,
			unsigned long *out)
{
	const struct region *r = find_region(p, name);
	unsigned long i, m;

	if (!r)
		return -EINVAL;
	*out = 0;
	for (i = 0; i < r->npages; i++) {
		const struct pte_entry *e = &r->e[i];

		if (!r->live[i] || !e->folio)
			continue;
		m = fsim_numa_mapmax(e->folio, e->fpage);
		if (m > *out)
			*out = m;
		if (e->level != FSIM_LEVEL_PTE)
			i += entry_pages(p, e) - 1;
	}
	return 0;
}

/* What maps page @i of region @r, as fsim_process_page() says. */
static void page_view(const struct fsim_process *p, const struct region *r,
		      unsigned long i, struct fsim_page_view *out)
{
	const struct pte_entry *e = &r->e[i];

	memset(out, 0, sizeof(*out));
	if (!r->live[i])
		return;
	out->swapped = e->swap;
	out->zero_page = e->zero;
	out->level = (enum fsim_level)e->level;
	/*
	 * pagemap_pmd_range() takes the huge zeropage's page from the PMD
	 * (no vm_normal_page_pmd() check). 6.12 then asks for a precise
	 * mapcount of 1 (the huge zero folio has 0); the RFC (04/13, like
	 * 6.15 with CONFIG_NO_PAGE_MAPCOUNT) asks !folio_maybe_mapped_shared(),
	 * which is true for a large folio with mapcount 0: bit 56 is set.
	 */
	if (e->zero && e->level == FSIM_LEVEL_PMD)
		out->pm_exclusive = fsim_huge_zero_pmd_exclusive(p->ctx);
	if (!e->folio)
		return;
	out->present = true;
	out->folio = e->folio;
	out->folio_page = e->fpage;
	out->kpagecount = fsim_kpagecount(e->folio, e->fpage);
	out->pm_exclusive = fsim_pagemap_exclusive(e->folio, e->fpage);
}

int fsim_process_page(const struct fsim_process *p, const char *name, uint64_t off,
		      struct fsim_page_view *out)
{
	const struct region *r = find_region(p, name);
	const uint64_t i = r ? off >> p->ctx->arch.page_shift : 0;

	memset(out, 0, sizeof(*out));
	if (!r || i >= r->npages)
		return -EINVAL;
	page_view(p, r, (unsigned long)i, out);
	return 0;
}

int fsim_process_pages(const struct fsim_process *p, const char *name,
		       uint64_t first, uint64_t n, struct fsim_page_view *out)
{
	const struct region *r = find_region(p, name);
	uint64_t i;

	if (!r || first > r->npages || n > r->npages - first)
		return -EINVAL;
	for (i = 0; i < n; i++)
		page_view(p, r, (unsigned long)(first + i), &out[i]);
	return 0;
}

int fsim_process_region_folios(const struct fsim_process *p, const char *name,
			       void (*fn)(void *arg, struct fsim_folio *folio),
			       void *arg)
{
	const struct region *r = find_region(p, name);
	struct fsim_folio *last = NULL;
	unsigned long i;

	if (!r)
		return -EINVAL;
	for (i = 0; i < r->npages; i++) {
		struct fsim_folio *f = r->e[i].folio;

		if (r->live[i] && f && f != last) {
			fn(arg, f);
			last = f;
		}
	}
	return 0;
}

/* The list is newest first; report in mmap() order.  Without memory for
 * the array, the slow walk (the k-th oldest found from the head). */
static void regions_oldest_first(const struct region *head,
				 void (*fn)(void *arg, const char *region), void *arg)
{
	const struct region *r, **order;
	size_t n = 0, k;

	for (r = head; r; r = r->next)
		n++;
	order = n ? malloc(n * sizeof(*order)) : NULL;
	if (order) {
		for (k = 0, r = head; r; r = r->next)
			order[k++] = r;
		while (n--)
			fn(arg, order[n]->name);
		free(order);
		return;
	}
	while (n--) {
		for (k = 0, r = head; k < n; k++)
			r = r->next;
		fn(arg, r->name);
	}
}

void fsim_process_regions(const struct fsim_process *p,
			  void (*fn)(void *arg, const char *region), void *arg)
{
	regions_oldest_first(p->regions, fn, arg);
}
