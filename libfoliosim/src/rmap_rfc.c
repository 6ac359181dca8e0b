// SPDX-License-Identifier: MIT
/*
 * The rfc back end: include/linux/rmap.h and mm/rmap.c after
 * "mm/rmap: support arbitrary folio mappings" (patches 12/13 and 13/13),
 * on the MM owner tracking of the RFC's base (upstream 6.15).
 *
 * Callers have validated the call; nothing here can fail.
 */
#include "internal.h"

/* --- _mm_ids: two MM ids, the lock bit and the shared bit ------------- */

static uint64_t mm_id_mask(const struct fsim_folio *f)
{
	return ((uint64_t)1 << mm_id_bits(&f->ctx->arch)) - 1;
}

/* Bit offset of _mm_id[idx] in _mm_ids (little-endian union). */
static unsigned int mm_id_shift(const struct fsim_folio *f, int idx)
{
	return idx ? mm_id_bits(&f->ctx->arch) + 1 : 0;
}

/* FOLIO_MM_IDS_LOCK_BITNUM = MM_ID_BITS */
unsigned int fsim_mm_ids_lock_bitnum(const struct fsim_arch *arch)
{
	return mm_id_bits(arch);
}

/* FOLIO_MM_IDS_SHARED_BITNUM = 2 * MM_ID_BITS + 1 */
unsigned int fsim_mm_ids_shared_bitnum(const struct fsim_arch *arch)
{
	return 2 * mm_id_bits(arch) + 1;
}

static uint64_t shared_bit(const struct fsim_folio *f)
{
	return (uint64_t)1 << fsim_mm_ids_shared_bitnum(&f->ctx->arch);
}

/* folio_mm_id() */
static unsigned int folio_mm_id(const struct fsim_folio *f, int idx)
{
	return (unsigned int)((word_read(&f->mm_ids) >> mm_id_shift(f, idx)) &
			      mm_id_mask(f));
}

int rfc_slot_mm_id(const struct fsim_folio *f, int idx)
{
	return (int)folio_mm_id(f, idx);
}

/* folio_set_mm_id() */
static void folio_set_mm_id(struct fsim_folio *f, int idx, unsigned int id)
{
	const unsigned int shift = mm_id_shift(f, idx);
	uint64_t v = word_read(&f->mm_ids);

	v &= ~(mm_id_mask(f) << shift);
	v |= (uint64_t)id << shift;
	word_write(&f->mm_ids, v);
}

static void set_shared_bit(struct fsim_folio *f)
{
	word_write(&f->mm_ids, word_read(&f->mm_ids) | shared_bit(f));
}

static void clear_shared_bit(struct fsim_folio *f)
{
	word_write(&f->mm_ids, word_read(&f->mm_ids) & ~shared_bit(f));
}

/* mm_id_mapcount_t is int on 64-bit, short on 32-bit: wrap like gcc. */
static int mm_id_mapcount_t(const struct fsim_folio *f, long v)
{
	if (f->ctx->arch.bits == 64)
		return (int)v;
	v &= 0xffff;
	return (int)(v >= 0x8000 ? v - 0x10000 : v);
}

/* folio_lock_large_mapcount() */
static void folio_lock_large_mapcount(struct fsim_folio *f)
{
	fsim_sched_point(f->ctx, "folio_lock_large_mapcount");
	bit_spin_lock(fsim_mm_ids_lock_bitnum(&f->ctx->arch), &f->mm_ids);
}

/* folio_unlock_large_mapcount() */
static void folio_unlock_large_mapcount(struct fsim_folio *f)
{
	__bit_spin_unlock(fsim_mm_ids_lock_bitnum(&f->ctx->arch), &f->mm_ids);
	fsim_sched_point(f->ctx, "folio_unlock_large_mapcount");
}

/* folio_set_large_mapcount(): new folio, no lock needed. */
static void folio_set_large_mapcount(struct fsim_folio *f, unsigned int nr_mappings,
				     unsigned long nr_pages, unsigned int mm_id)
{
	/* Note: mapcounts start at -1. */
	atomic_set(&f->large_mapcount, (int)nr_mappings - 1);
	atomic_long_set(&f->total_mapped_pages, nr_pages);
	f->mm_id_mapcount[0] = mm_id_mapcount_t(f, (long)nr_mappings - 1);
	folio_set_mm_id(f, 0, mm_id);
}

/* folio_add_return_large_mapcount() of 13/13 */
static int folio_add_return_large_mapcount(struct fsim_folio *f,
		unsigned int nr_mappings, unsigned long nr_pages,
		unsigned int mm_id, uint64_t *nr_mapped_pages)
{
	uint64_t new_mapped_pages;
	int new_mapcount_val, i;

	folio_lock_large_mapcount(f);

	new_mapcount_val = atomic_read(&f->large_mapcount) + (int)nr_mappings;
	fsim_sched_point(f->ctx, "large_mapcount");
	atomic_set(&f->large_mapcount, new_mapcount_val);

	new_mapped_pages = atomic_long_read(&f->total_mapped_pages) + nr_pages;
	fsim_sched_point(f->ctx, "total_mapped_pages");
	atomic_long_set(&f->total_mapped_pages, new_mapped_pages);

	/*
	 * If a folio is mapped more than once into an MM on 32bit, we can in
	 * theory overflow the per-MM mapcount, turning it negative: free up
	 * the slot and mark the folio "mapped shared".
	 */
	for (i = 0; i < 2; i++) {
		if (folio_mm_id(f, i) != mm_id)
			continue;
		f->mm_id_mapcount[i] = mm_id_mapcount_t(f,
				(long)f->mm_id_mapcount[i] + nr_mappings);
		if (f->ctx->arch.bits == 32 && f->mm_id_mapcount[i] < 0) {
			f->mm_id_mapcount[i] = -1;
			folio_set_mm_id(f, i, MM_ID_DUMMY);
			set_shared_bit(f);
		}
		goto out;
	}
	if (folio_mm_id(f, 0) == MM_ID_DUMMY) {
		folio_set_mm_id(f, 0, mm_id);
		f->mm_id_mapcount[0] = mm_id_mapcount_t(f, (long)nr_mappings - 1);
		/* We might have other mappings already. */
		if (new_mapcount_val != (int)nr_mappings - 1)
			set_shared_bit(f);
	} else if (folio_mm_id(f, 1) == MM_ID_DUMMY) {
		folio_set_mm_id(f, 1, mm_id);
		f->mm_id_mapcount[1] = mm_id_mapcount_t(f, (long)nr_mappings - 1);
		/* Slot 0 certainly has mappings as well. */
		set_shared_bit(f);
	}
out:
	folio_unlock_large_mapcount(f);
	*nr_mapped_pages = new_mapped_pages;
	return new_mapcount_val + 1;
}

/* folio_sub_return_large_mapcount() of 13/13 */
static int folio_sub_return_large_mapcount(struct fsim_folio *f,
		unsigned int nr_mappings, unsigned long nr_pages,
		unsigned int mm_id, uint64_t *nr_mapped_pages)
{
	uint64_t new_mapped_pages;
	int new_mapcount_val, i;

	folio_lock_large_mapcount(f);

	new_mapcount_val = atomic_read(&f->large_mapcount) - (int)nr_mappings;
	fsim_sched_point(f->ctx, "large_mapcount");
	atomic_set(&f->large_mapcount, new_mapcount_val);

	new_mapped_pages = atomic_long_read(&f->total_mapped_pages) - nr_pages;
	fsim_sched_point(f->ctx, "total_mapped_pages");
	atomic_long_set(&f->total_mapped_pages, new_mapped_pages);

	/*
	 * There are valid corner cases where we might underflow a per-MM
	 * mapcount (some mappings added when no slot was free, some added
	 * once a slot was free), so we always set it to -1 once negative.
	 */
	for (i = 0; i < 2; i++) {
		if (folio_mm_id(f, i) != mm_id)
			continue;
		f->mm_id_mapcount[i] = mm_id_mapcount_t(f,
				(long)f->mm_id_mapcount[i] - nr_mappings);
		if (f->mm_id_mapcount[i] >= 0)
			goto out;
		f->mm_id_mapcount[i] = -1;
		folio_set_mm_id(f, i, MM_ID_DUMMY);
		break;
	}

	/*
	 * If one MM slot owns all mappings, the folio is mapped exclusively;
	 * an unmapped folio (new_mapcount_val == -1) has both slots free.
	 */
	if (f->mm_id_mapcount[0] == new_mapcount_val ||
	    f->mm_id_mapcount[1] == new_mapcount_val)
		clear_shared_bit(f);
out:
	folio_unlock_large_mapcount(f);
	*nr_mapped_pages = new_mapped_pages;
	return new_mapcount_val + 1;
}

/* folio_add_large_mapcount() */
static void folio_add_large_mapcount(struct fsim_folio *f, unsigned int nr_mappings,
				     unsigned long nr_pages, unsigned int mm_id)
{
	uint64_t nr_mapped_pages;

	folio_add_return_large_mapcount(f, nr_mappings, nr_pages, mm_id,
					&nr_mapped_pages);
}

/* folio_maybe_mapped_shared() (include/linux/mm.h of the RFC base) */
bool rfc_maybe_mapped_shared(const struct fsim_folio *f)
{
	int mapcount = fsim_folio_mapcount(f);

	/* Only partially-mappable folios require more care. */
	if (!folio_test_large(f))
		return mapcount > 1;
	/* A single mapping implies "mapped exclusively". */
	if (mapcount <= 1)
		return false;
	return word_read(&f->mm_ids) & shared_bit(f);
}

/* folio_add_new_anon_rmap() of 13/13 */
void rfc_add_new_anon(struct fsim_folio *f, struct fsim_mm *mm, bool exclusive)
{
	const struct fsim_arch *arch = &f->ctx->arch;
	const unsigned long nr = folio_nr_pages(f);
	unsigned int mapping_order;
	long nr_pmdmapped = 0;

	if (!folio_test_large(f)) {
		/* increment count (starts at -1) */
		atomic_set(&f->mapcount, 0);
		if (exclusive)
			anon_exclusive_set_range(f, 0, 1, 1, true);
	} else {
		if (f->order >= arch->pud_order)
			mapping_order = arch->pud_order;
		else if (f->order >= arch->pmd_order)
			mapping_order = arch->pmd_order;
		else
			mapping_order = 0;
		if (f->order == arch->pmd_order)
			nr_pmdmapped = (long)nr;
		if (exclusive)
			anon_exclusive_set_range(f, 0, nr, 1ul << mapping_order, true);
		folio_set_large_mapcount(f, (unsigned int)(nr >> mapping_order),
					 nr, mm->id);
	}
	folio_mod_stat(f, (long)nr, nr_pmdmapped);
	ctx_mod_thp(f->ctx, f->order, FSIM_THP_NR_ANON, 1);
}

/* __folio_add_rmap() of 13/13 */
void rfc_add_rmap(struct fsim_folio *f, struct fsim_mm *mm, enum fsim_level level,
		  unsigned long page, unsigned long nr_pages)
{
	const struct fsim_arch *arch = &f->ctx->arch;
	long nr = 0, nr_pmdmapped = 0;

	(void)page;
	if (level == FSIM_LEVEL_PTE && !folio_test_large(f)) {
		nr = atomic_inc_and_test(&f->mapcount);
	} else {
		const unsigned int nr_mappings =
			(unsigned int)(nr_pages >> level_order(arch, level));
		uint64_t nr_mapped_pages;
		int mapcount;

		mapcount = folio_add_return_large_mapcount(f, nr_mappings,
				nr_pages, mm->id, &nr_mapped_pages);
		if (mapcount == (int)nr_mappings)
			nr = (long)folio_nr_pages(f);
		/* PMD-sized THPs: adjust the counter on the first PMD mapping. */
		if (level == FSIM_LEVEL_PMD && f->order == arch->pmd_order &&
		    nr_mapped_pages - (uint64_t)mapcount == nr_pages - nr_mappings)
			nr_pmdmapped = 1l << arch->pmd_order;
	}
	folio_mod_stat(f, nr, nr_pmdmapped);
}

/* __folio_certainly_partially_mapped() of 13/13 */
static bool folio_certainly_partially_mapped(const struct fsim_folio *f)
{
	uint64_t total = atomic_long_read(&f->total_mapped_pages);

	return total && total < folio_nr_pages(f);
}

/* __folio_remove_rmap() of 13/13 */
void rfc_remove_rmap(struct fsim_folio *f, struct fsim_mm *mm,
		     enum fsim_level level, unsigned long page,
		     unsigned long nr_pages)
{
	const struct fsim_arch *arch = &f->ctx->arch;
	long nr = 0, nr_pmdmapped = 0;

	(void)page;
	if (level == FSIM_LEVEL_PTE && !folio_test_large(f)) {
		nr = atomic_add_negative(-1, &f->mapcount);
	} else {
		const unsigned int nr_mappings =
			(unsigned int)(nr_pages >> level_order(arch, level));
		uint64_t nr_mapped_pages;
		int mapcount;

		mapcount = folio_sub_return_large_mapcount(f, nr_mappings,
				nr_pages, mm->id, &nr_mapped_pages);
		if (!mapcount)
			nr = (long)folio_nr_pages(f);
		/* PMD-sized THPs: adjust the counter once the last PMD goes. */
		if (level == FSIM_LEVEL_PMD && f->order == arch->pmd_order &&
		    nr_mapped_pages - (uint64_t)mapcount == 0)
			nr_pmdmapped = 1l << arch->pmd_order;
		/* Queue for deferred split if certainly partially mapped. */
		if (folio_test_anon(f) && folio_certainly_partially_mapped(f) &&
		    !atomic_load(&f->partially_mapped))
			deferred_split_folio(f, true);
	}
	folio_mod_stat(f, -nr, -nr_pmdmapped);
}

/* __folio_dup_file_rmap() / __folio_try_dup_anon_rmap() of 13/13, after
 * the EBUSY check (done by the caller under the oracle lock). */
void rfc_dup_rmap(struct fsim_folio *f, struct fsim_mm *dst, enum fsim_level level,
		  unsigned long page, unsigned long nr_pages)
{
	const unsigned int mapping_order = level_order(&f->ctx->arch, level);

	if (folio_test_anon(f))
		anon_exclusive_set_range(f, page, nr_pages, 1ul << mapping_order,
					 false);
	if (level == FSIM_LEVEL_PTE && !folio_test_large(f))
		atomic_inc(&f->mapcount);
	else
		folio_add_large_mapcount(f, (unsigned int)(nr_pages >> mapping_order),
					 nr_pages, dst->id);
}
