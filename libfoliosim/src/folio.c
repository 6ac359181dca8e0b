// SPDX-License-Identifier: MIT
/* Folio life cycle (prep_compound_head(), free_tail_page_prepare()) and the
 * lockless queries of include/linux/mm.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* prep_compound_head() and the page cache's reference */
int fsim_folio_create(struct fsim_ctx *ctx, unsigned int order,
		      enum fsim_kind kind, struct fsim_folio **out)
{
	struct fsim_folio *f;
	unsigned long nr;

	if (!ctx || !out)
		return refuse("no context or no result pointer (NULL)", -EINVAL);
	if (order > ctx->arch.pud_order)
		return refuse("order above the PUD order", -EINVAL);
	if ((unsigned int)kind > FSIM_KIND_SHMEM)
		return refuse("no such folio kind", -EINVAL);
	/* 32-bit: folio_large_nr_pages() - 1 must fit MM_ID_MAPCOUNT_MAX */
	if (ctx->arch.bits == 32 && order > 15)
		return refuse("32-bit: order above 15 (MM_ID_MAPCOUNT_MAX)", -EINVAL);
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	nr = 1ul << order;
	f->ctx = ctx;
	f->order = order;
	f->kind = kind;
	if (ctx->ops->folio_init(f)) {
		free(f);
		return -ENOMEM;
	}
	/* Anon: the allocation reference, handed to the first mapping.
	 * Page cache: filemap_add_folio() holds one reference per page. */
	if (kind == FSIM_KIND_ANON) {
		atomic_store(&f->refcount, 1);
		atomic_store(&f->alloc_ref, true);
	} else {
		atomic_store(&f->refcount, (int64_t)nr);
	}
	if (kind == FSIM_KIND_SHMEM)	/* shmem_add_to_page_cache() */
		ctx_mod_stat(ctx, FSIM_NR_SHMEM, (int64_t)nr);
	atomic_set(&f->mapcount, -1);
	atomic_set(&f->large_mapcount, -1);
	atomic_set(&f->entire_mapcount, -1);
	atomic_set(&f->nr_pages_mapped, 0);
	atomic_set(&f->pincount, 0);
	atomic_long_set(&f->total_mapped_pages, 0);
	word_write(&f->mm_ids, 0);
	f->mm_id_mapcount[0] = -1;
	f->mm_id_mapcount[1] = -1;
	fsim_spin_init(&f->flags_lock);
	fsim_spin_init(&f->oracle_lock);
	rangeset_init(&f->anon_exclusive);
	oracle_init(&f->oracle, nr);

	fsim_spin_lock(&ctx->list_lock);
	f->next = ctx->folios;
	if (ctx->folios)
		ctx->folios->prev = f;
	ctx->folios = f;
	fsim_spin_unlock(&ctx->list_lock);
	*out = f;
	return 0;
}

/* alloc_hugetlb_folio() of a PMD- or PUD-sized hstate; hugetlbfs pages are
 * page cache (anon: MAP_PRIVATE copies). */
int fsim_folio_create_hugetlb(struct fsim_ctx *ctx, unsigned int order,
			      enum fsim_kind kind, struct fsim_folio **out)
{
	int err;

	if (!ctx || !out)
		return refuse("no context or no result pointer (NULL)", -EINVAL);
	if (kind == FSIM_KIND_SHMEM ||
	    (order != ctx->arch.pmd_order && order != ctx->arch.pud_order))
		return refuse("hugetlb: anon or file, of the PMD or PUD order", -EINVAL);
	err = fsim_folio_create(ctx, order, kind, out);
	if (!err)
		(*out)->hugetlb = true;
	return err;
}

bool fsim_folio_test_hugetlb(const struct fsim_folio *f)
{
	if (!f)
		return false;
	return f->hugetlb;
}

/* The free-time checks of free_tail_page_prepare()/free_page_is_bad(). */
int folio_free_checks(const struct fsim_folio *f, struct fsim_violation *v)
{
	const char *bad = NULL;

	if (!folio_test_large(f)) {
		if (atomic_read(&f->mapcount) != -1)
			bad = "nonzero mapcount";
	} else if (atomic_read(&f->large_mapcount) != -1) {
		bad = "nonzero large_mapcount";
	} else if (atomic_read(&f->pincount)) {
		bad = "nonzero pincount";	/* large folios: _pincount */
	} else {
		bad = folio_ops(f)->large_free_check(f);
	}
	if (!bad)
		return 0;
	if (v) {
		snprintf(v->invariant, sizeof(v->invariant), "free_time_checks");
		snprintf(v->detail, sizeof(v->detail), "bad page: %s", bad);
	}
	return -EFAULT;
}

/* Takes @f off its context's list of folios. */
static void folio_unlink(struct fsim_folio *f)
{
	struct fsim_ctx *ctx = f->ctx;

	fsim_spin_lock(&ctx->list_lock);
	if (f->prev)
		f->prev->next = f->next;
	else
		ctx->folios = f->next;
	if (f->next)
		f->next->prev = f->prev;
	fsim_spin_unlock(&ctx->list_lock);
}

/* Frees @f's memory (already off the list, or the list is going too). */
void folio_destroy(struct fsim_folio *f)
{
	oracle_destroy(&f->oracle);
	rangeset_destroy(&f->anon_exclusive);
	free(f->page_mapcount);
	free(f);
}

int fsim_folio_free(struct fsim_folio *f)
{
	struct fsim_ctx *ctx;
	int err = 0;

	if (!f)
		return refuse("no folio (NULL)", -EINVAL);
	ctx = f->ctx;
	fsim_spin_lock(&f->oracle_lock);
	if (f->oracle.entries || fsim_folio_pincount(f))
		err = refuse("free of a folio still mapped or pinned", -EINVAL);
	else
		err = folio_free_checks(f, NULL);
	fsim_spin_unlock(&f->oracle_lock);
	if (err)
		return err;

	folio_unqueue_deferred_split(f);
	/* free_pages_prepare(): an anon mapping drops MTHP_STAT_NR_ANON */
	if (f->counted_nr_anon)
		ctx_mod_thp(ctx, f->order, FSIM_THP_NR_ANON, -1);
	if (f->kind == FSIM_KIND_SHMEM)	/* shmem_delete_from_page_cache() */
		ctx_mod_stat(ctx, FSIM_NR_SHMEM, -(int64_t)folio_nr_pages(f));

	folio_unlink(f);
	folio_destroy(f);
	return 0;
}

/* Drops @f whatever its mappings: a snapshot replay's folio once its
 * figures are read (the context's statistics keep its mappings). */
void folio_discard(struct fsim_folio *f)
{
	folio_unlink(f);
	folio_unqueue_deferred_split(f);
	folio_destroy(f);
}

unsigned int fsim_folio_order(const struct fsim_folio *f)
{
	if (!f)
		return 0;
	return f->order;
}

unsigned long fsim_folio_nr_pages(const struct fsim_folio *f)
{
	if (!f)
		return 0;
	return folio_nr_pages(f);
}

enum fsim_kind fsim_folio_kind(const struct fsim_folio *f)
{
	return f ? f->kind : FSIM_KIND_ANON;
}

/* folio_mapcount() */
int fsim_folio_mapcount(const struct fsim_folio *f)
{
	if (!f)
		return 0;
	return folio_mapcount(f);
}

/* folio_mapped() */
bool fsim_folio_mapped(const struct fsim_folio *f)
{
	if (!f)
		return false;
	return fsim_folio_mapcount(f) >= 1;
}

/* folio_total_mapped_pages() of 13/13; in 6.12 every entire mapping maps
 * the whole folio and every other entry is a PTE. */
uint64_t fsim_folio_total_mapped_pages(const struct fsim_folio *f)
{
	if (!f)
		return 0;
	return folio_total_mapped_pages(f);
}

/* folio_average_page_mapcount() of 13/13 (fs/proc/internal.h) */
unsigned long fsim_folio_average_page_mapcount(const struct fsim_folio *f)
{
	if (!f)
		return 0;
	return average_page_mapcount(fsim_folio_total_mapped_pages(f), f->order);
}

/* folio_maybe_mapped_shared() / folio_likely_mapped_shared() */
bool fsim_folio_maybe_mapped_shared(const struct fsim_folio *f)
{
	if (!f)
		return false;
	const int mapcount = folio_mapcount(f);

	/* Only partially-mappable folios require more care. */
	if (!folio_test_large(f) || f->hugetlb)
		return mapcount > 1;
	/* A single mapping implies "mapped exclusively". */
	if (mapcount <= 1)
		return false;
	return folio_ops(f)->maybe_mapped_shared(f);
}

bool fsim_folio_partially_mapped(const struct fsim_folio *f)
{
	if (!f)
		return false;
	return atomic_load(&((struct fsim_folio *)f)->partially_mapped);
}

bool fsim_folio_on_deferred_split(const struct fsim_folio *f)
{
	if (!f)
		return false;
	struct fsim_folio *mf = (struct fsim_folio *)f;
	bool on;

	fsim_spin_lock(&mf->ctx->list_lock);
	on = mf->on_deferred_list;
	fsim_spin_unlock(&mf->ctx->list_lock);
	return on;
}

bool fsim_folio_anon_exclusive(const struct fsim_folio *f, unsigned long page)
{
	if (!f || page >= folio_nr_pages(f))
		return false;
	struct fsim_folio *mf = (struct fsim_folio *)f;
	bool set;

	if (page >= folio_nr_pages(f))
		return false;
	/* PageAnonExclusive() reads a hugetlb page's flag on its folio's
	 * head: one flag for the whole hugetlb folio (found by kharness,
	 * docs/kharness.md). */
	if (f->hugetlb)
		page = 0;
	fsim_spin_lock(&mf->flags_lock);
	set = rangeset_contains(&mf->anon_exclusive, page);
	fsim_spin_unlock(&mf->flags_lock);
	return set;
}

int fsim_folio_pincount(const struct fsim_folio *f)
{
	if (!f)
		return 0;
	/* Large: _pincount.  Small: the kernel only has the refcount bias;
	 * the model counts the pins too, so a small folio mapped 1024 times
	 * is not taken for a pinned one by the model's own bookkeeping. */
	return atomic_read(&f->pincount);
}

/* folio_has_pincount() (include/linux/mm.h): pins in _pincount, one
 * reference each; else GUP_PIN_COUNTING_BIAS references each (the
 * backend's no_pincount_order1_32bit says where an order-1 folio's go). */
bool folio_has_pincount(const struct fsim_folio *f)
{
	if (!folio_test_large(f))
		return false;
	return f->ctx->arch.bits == 64 || f->order > 1 ||
	       !folio_ops(f)->no_pincount_order1_32bit;
}

bool fsim_folio_has_pincount(const struct fsim_folio *f)
{
	return f && folio_has_pincount(f);
}

/* folio_maybe_dma_pinned() */
bool fsim_folio_maybe_dma_pinned(const struct fsim_folio *f)
{
	if (!f)
		return false;
	if (folio_has_pincount(f))
		return atomic_read(&f->pincount) > 0;
	return atomic_load(&((struct fsim_folio *)f)->refcount) >= GUP_PIN_COUNTING_BIAS;
}

int64_t fsim_folio_refcount(const struct fsim_folio *f)
{
	if (!f)
		return 0;
	return atomic_load(&((struct fsim_folio *)f)->refcount);
}

int fsim_folio_slots(const struct fsim_folio *f, struct fsim_slot slots[2],
		     bool *shared)
{
	if (!f || !slots)
		return refuse(f ? "no slots array (NULL)" : "no folio (NULL)", -EINVAL);
	struct fsim_folio *mf = (struct fsim_folio *)f;
	const unsigned int lock = fsim_mm_ids_lock_bitnum(&f->ctx->arch);
	int i;

	if (!folio_ops(f)->has_mm_slots || !folio_test_large(f))
		return -EINVAL;
	bit_spin_lock(lock, &mf->mm_ids);
	for (i = 0; i < 2; i++) {
		slots[i].mm_id = folio_mm_id(f, i);
		slots[i].mapcount = f->mm_id_mapcount[i] + 1;
	}
	if (shared)
		*shared = (word_read(&f->mm_ids) >>
			   fsim_mm_ids_shared_bitnum(&f->ctx->arch)) & 1;
	__bit_spin_unlock(lock, &mf->mm_ids);
	return 0;
}

uint64_t fsim_folio_mm_ids_word(const struct fsim_folio *f)
{
	if (!f)
		return 0;
	return word_read(&f->mm_ids);
}

int fsim_folio_entire_mapcount(const struct fsim_folio *f)
{
	if (!f)
		return -1;
	if (!folio_ops(f)->entire_mapcount || !folio_test_large(f))
		return -1;
	return folio_ops(f)->entire_mapcount(f);
}

int fsim_folio_nr_pages_mapped(const struct fsim_folio *f)
{
	if (!f)
		return -1;
	if (!folio_ops(f)->nr_pages_mapped || !folio_test_large(f))
		return -1;
	return folio_ops(f)->nr_pages_mapped(f);
}

/* folio_precise_page_mapcount() of fs/proc/internal.h (6.12) */
int fsim_folio_precise_page_mapcount(const struct fsim_folio *f,
				     unsigned long page)
{
	if (!f)
		return -1;
	if (!folio_ops(f)->precise_page_mapcount || page >= folio_nr_pages(f))
		return -1;
	return folio_ops(f)->precise_page_mapcount(f, page);
}

/* A word at a time: xor, multiply by an odd constant, fold the high bits
 * down (one multiply a word; FNV-1a byte by byte took eight). */
static uint64_t fnv(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 0x9fb21c651e98df25ull;
	return h ^ (h >> 32);
}

uint64_t fsim_folio_state_digest(const struct fsim_folio *f)
{
	if (!f)
		return 0;
	struct fsim_folio *mf = (struct fsim_folio *)f;
	const struct fsim_ctx *ctx = f->ctx;
	struct fsim_ctx *mc = (struct fsim_ctx *)ctx;
	uint64_t h = 0xcbf29ce484222325ull;
	unsigned long i;
	unsigned int o;
	int s, c;

	h = fnv(h, (uint64_t)atomic_load(&mf->refcount));
	h = fnv(h, atomic_load(&mf->alloc_ref));
	h = fnv(h, atomic_load(&mf->was_mapped));
	h = fnv(h, (uint64_t)atomic_read(&f->mapcount));
	h = fnv(h, (uint64_t)atomic_read(&f->large_mapcount));
	h = fnv(h, (uint64_t)atomic_read(&f->pincount));
	h = fnv(h, word_read(&f->mm_ids));
	h = fnv(h, (uint64_t)f->mm_id_mapcount[0]);
	h = fnv(h, (uint64_t)f->mm_id_mapcount[1]);
	h = fnv(h, atomic_long_read(&f->total_mapped_pages));
	h = fnv(h, (uint64_t)atomic_read(&f->entire_mapcount));
	h = fnv(h, (uint64_t)atomic_read(&f->nr_pages_mapped));
	/* The per-page mapcounts through their running weighted sum (O(1);
	 * pagemapcount.c keeps it, the checker recomputes it). */
	h = fnv(h, atomic_load(&mf->page_hash));
	h = fnv(h, atomic_load(&mf->partially_mapped));
	h = fnv(h, f->on_deferred_list);
	h = fnv(h, f->counted_nr_anon);
	for (i = 0; i < f->anon_exclusive.n; i++) {
		h = fnv(h, f->anon_exclusive.r[i].start);
		h = fnv(h, f->anon_exclusive.r[i].end);
	}
	for (i = 0; i < f->oracle.n; i++) {
		const struct oracle_seg *sg = oracle_seg_at(&f->oracle, i);

		h = fnv(h, sg->mm_id);
		h = fnv(h, sg->level);
		h = fnv(h, sg->start);
		h = fnv(h, sg->end);
		h = fnv(h, sg->count);
	}
	/* The context's counters read in place (relaxed: a digest is taken at
	 * quiescent points), not through the range-checking getters. */
	for (s = 0; s < FSIM_NR_STATS; s++)
		h = fnv(h, (uint64_t)atomic_load_explicit(&mc->stat[s], memory_order_relaxed));
	for (o = 1; o <= ctx->arch.pmd_order; o++)
		for (c = 0; c < FSIM_THP_NR_COUNTERS; c++)
			h = fnv(h, (uint64_t)atomic_load_explicit(&mc->thp[o][c],
								  memory_order_relaxed));
	h = fnv(h, fsim_ctx_thp_deferred_split_page(ctx));
	return h;
}
