// SPDX-License-Identifier: MIT
/*
 * MM owner tracking of large folios (upstream 6af8cb80d3a9, prep/0016):
 * the two MM-id slots packed in _mm_ids with the lock bit and the "maybe
 * mapped shared" bit, and _large_mapcount updated under that bit spinlock.
 * Shared by the base back end (the RFC's base tree) and the rfc back end,
 * which also keeps _total_mapped_pages under the same lock (13/13).
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
	if (!arch)
		return 0;
	return mm_id_bits(arch);
}

/* FOLIO_MM_IDS_SHARED_BITNUM = 2 * MM_ID_BITS + 1 */
unsigned int fsim_mm_ids_shared_bitnum(const struct fsim_arch *arch)
{
	if (!arch)
		return 0;
	return 2 * mm_id_bits(arch) + 1;
}

static uint64_t shared_bit(const struct fsim_folio *f)
{
	return (uint64_t)1 << fsim_mm_ids_shared_bitnum(&f->ctx->arch);
}

/* folio_mm_id() */
unsigned int folio_mm_id(const struct fsim_folio *f, int idx)
{
	return (unsigned int)((word_read(&f->mm_ids) >> mm_id_shift(f, idx)) &
			      mm_id_mask(f));
}

bool folio_mm_ids_shared(const struct fsim_folio *f)
{
	return word_read(&f->mm_ids) & shared_bit(f);
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
void mm_ids_set_large_mapcount(struct fsim_folio *f, unsigned int nr_mappings,
			       unsigned int mm_id)
{
	/* Note: mapcounts start at -1. */
	atomic_set(&f->large_mapcount, (int)nr_mappings - 1);
	f->mm_id_mapcount[0] = mm_id_mapcount_t(f, (long)nr_mappings - 1);
	folio_set_mm_id(f, 0, mm_id);
}

/* _total_mapped_pages (rfc) changes under the lock with the mapcount. */
static uint64_t update_total(struct fsim_folio *f, atomic_long_t *total,
			     unsigned long nr_pages, bool add)
{
	uint64_t v;

	if (!total)
		return 0;
	v = atomic_long_read(total);
	v = add ? v + nr_pages : v - nr_pages;
	fsim_sched_point(f->ctx, "total_mapped_pages");
	atomic_long_set(total, v);
	return v;
}

/* folio_add_return_large_mapcount() of 13/13; the base tree's
 * folio_add_large_mapcount() is the same without @total. */
int mm_ids_add_return_large_mapcount(struct fsim_folio *f,
				     unsigned int nr_mappings,
				     unsigned long nr_pages, unsigned int mm_id,
				     atomic_long_t *total, uint64_t *new_total)
{
	int new_mapcount_val, i;

	folio_lock_large_mapcount(f);

	new_mapcount_val = atomic_read(&f->large_mapcount) + (int)nr_mappings;
	fsim_sched_point(f->ctx, "large_mapcount");
	atomic_set(&f->large_mapcount, new_mapcount_val);
	*new_total = update_total(f, total, nr_pages, true);

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
	return new_mapcount_val + 1;
}

/* folio_sub_return_large_mapcount() of 13/13; the base tree's
 * folio_sub_large_mapcount() is the same without @total. */
int mm_ids_sub_return_large_mapcount(struct fsim_folio *f,
				     unsigned int nr_mappings,
				     unsigned long nr_pages, unsigned int mm_id,
				     atomic_long_t *total, uint64_t *new_total)
{
	int new_mapcount_val, i;

	folio_lock_large_mapcount(f);

	new_mapcount_val = atomic_read(&f->large_mapcount) - (int)nr_mappings;
	fsim_sched_point(f->ctx, "large_mapcount");
	atomic_set(&f->large_mapcount, new_mapcount_val);
	*new_total = update_total(f, total, nr_pages, false);

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
	return new_mapcount_val + 1;
}

/* folio_maybe_mapped_shared() (include/linux/mm.h of the RFC base) for a
 * large folio with more than one mapping. */
bool mm_ids_maybe_mapped_shared(const struct fsim_folio *f)
{
	return folio_mm_ids_shared(f);
}

/* The slots against the oracle: each records at most the entries its mm
 * really has, and two mms mapping the folio always read "maybe shared". */
int mm_ids_check(const struct fsim_folio *f, const struct truth *t,
		 struct fsim_violation *v)
{
	const struct fsim_arch *arch = &f->ctx->arch;
	const uint64_t word = word_read(&f->mm_ids);
	const bool shared = (word >> fsim_mm_ids_shared_bitnum(arch)) & 1;
	int i;

	if ((word >> fsim_mm_ids_lock_bitnum(arch)) & 1)
		return broken(v, "lock_bit_released", "_mm_ids %#llx",
			      (unsigned long long)word);
	if (arch->bits == 32 && word >> 32)
		return broken(v, "mm_ids_fits_32bit", "_mm_ids %#llx",
			      (unsigned long long)word);
	for (i = 0; i < 2; i++) {
		const unsigned int id = folio_mm_id(f, i);
		const int count = f->mm_id_mapcount[i];
		uint64_t entries;

		if ((id == MM_ID_DUMMY) != (count == -1) || count < -1)
			return broken(v, "free_slot_holds_minus_one",
				      "slot%d id %u count %d", i, id, count);
		if (id == MM_ID_DUMMY)
			continue;
		entries = oracle_mm_entries(&f->oracle, id, arch);
		if ((uint64_t)count + 1 > entries)
			return broken(v, "slot_count_within_true_entries",
				      "slot%d mm %u records %d, it maps %llu", i,
				      id, count + 1, (unsigned long long)entries);
	}
	if (folio_mm_id(f, 0) && folio_mm_id(f, 0) == folio_mm_id(f, 1))
		return broken(v, "slots_distinct", "both slots hold mm %u",
			      folio_mm_id(f, 0));
	if (!t->entries && shared)
		return broken(v, "shared_bit_clear_when_unmapped", "_mm_ids %#llx",
			      (unsigned long long)word);
	if (t->profile.nr_mms >= 2 && (folio_mapcount(f) <= 1 || !shared))
		return broken(v, "maybe_shared_when_two_mms_map",
			      "%zu mms map the folio, maybe_shared is false",
			      t->profile.nr_mms);
	return 0;
}

/* free_tail_page_prepare(): "nonzero mm mapcount 0/1" and the ids. */
const char *mm_ids_free_check(const struct fsim_folio *f)
{
	if (f->mm_id_mapcount[0] != -1)
		return "nonzero mm mapcount 0";
	if (f->mm_id_mapcount[1] != -1)
		return "nonzero mm mapcount 1";
	if (word_read(&f->mm_ids))
		return "nonzero mm_ids";
	return NULL;
}
