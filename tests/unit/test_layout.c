// SPDX-License-Identifier: MIT
/*
 * The _mm_ids word exactly as include/linux/mm_types.h packs it:
 *
 *   union { mm_id_t _mm_id[2]; unsigned long _mm_ids; };
 *   MM_ID_BITS = sizeof(mm_id_t) * 8 - 1
 *   FOLIO_MM_IDS_LOCK_BITNUM   = MM_ID_BITS          (top bit of _mm_id[0])
 *   FOLIO_MM_IDS_SHARED_BITNUM = 2 * MM_ID_BITS + 1  (top bit of _mm_id[1])
 *
 *   64-bit: id0 bits 0..30, lock 31, id1 bits 32..62, shared 63
 *   32-bit: id0 bits 0..14, lock 15, id1 bits 16..30, shared 31
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <foliosim/foliosim.h>

static const struct fsim_arch arch64 = { 64, 12, 9, 18 };
static const struct fsim_arch arch32 = { 32, 12, 9, 18 };

static struct fsim_mm *new_mm(struct fsim_ctx *ctx, unsigned int id)
{
	struct fsim_mm *mm = NULL;

	assert_int_equal(fsim_mm_create(ctx, id, &mm), 0);
	assert_int_equal(fsim_mm_id(mm), id);
	return mm;
}

/* Records _mm_ids as seen while the large mapcount lock is held. */
struct lock_probe {
	const struct fsim_folio *folio;
	uint64_t word_in_lock;
	int hits;
};

static void probe_hook(void *arg, const char *where)
{
	struct lock_probe *p = arg;

	if (strcmp(where, "large_mapcount") == 0) {
		p->word_in_lock = fsim_folio_mm_ids_word(p->folio);
		p->hits++;
	}
}

static void bitnums(void **state)
{
	(void)state;
	assert_int_equal(fsim_mm_ids_lock_bitnum(&arch64), 31);
	assert_int_equal(fsim_mm_ids_shared_bitnum(&arch64), 63);
	assert_int_equal(fsim_mm_ids_lock_bitnum(&arch32), 15);
	assert_int_equal(fsim_mm_ids_shared_bitnum(&arch32), 31);
}

/*
 * Maps one PTE of an order-9 folio for @a, then one for @b, and checks the
 * word after each step; then unmaps @a (slot 1 owns every mapping: shared
 * bit cleared) and @b (word back to 0).
 */
static void check_packing(const struct fsim_arch *arch, unsigned int id_a,
			  unsigned int id_b, unsigned int id1_shift,
			  uint64_t lock_bit, uint64_t shared_bit)
{
	struct fsim_ctx *ctx;
	struct fsim_mm *a, *b;
	struct fsim_folio *f;
	struct lock_probe probe = { 0 };

	assert_int_equal(fsim_ctx_create(FSIM_MODE_RFC, arch, &ctx), 0);
	a = new_mm(ctx, id_a);
	b = new_mm(ctx, id_b);
	assert_int_equal(fsim_folio_create(ctx, 9, FSIM_KIND_ANON, &f), 0);
	assert_int_equal(fsim_folio_mm_ids_word(f), 0);

	probe.folio = f;
	fsim_ctx_set_sched_hook(ctx, probe_hook, &probe);
	assert_int_equal(fsim_folio_add_anon_rmap(f, a, FSIM_LEVEL_PTE, 0, 1, true), 0);
	/* Inside folio_lock_large_mapcount(): only the lock bit is set. */
	assert_int_equal(probe.hits, 1);
	assert_int_equal(probe.word_in_lock, lock_bit);
	fsim_ctx_set_sched_hook(ctx, NULL, NULL);
	/* After unlock: _mm_id[0] = a, nothing else. */
	assert_int_equal(fsim_folio_mm_ids_word(f), (uint64_t)id_a);

	assert_int_equal(fsim_folio_add_anon_rmap(f, b, FSIM_LEVEL_PTE, 1, 1, true), 0);
	assert_int_equal(fsim_folio_mm_ids_word(f),
			 (uint64_t)id_a | (uint64_t)id_b << id1_shift | shared_bit);

	/* The lock bit is taken on top of both ids and the shared bit. */
	fsim_ctx_set_sched_hook(ctx, probe_hook, &probe);
	assert_int_equal(fsim_folio_remove_rmap(f, a, FSIM_LEVEL_PTE, 0, 1), 0);
	assert_int_equal(probe.word_in_lock, (uint64_t)id_a |
			 (uint64_t)id_b << id1_shift | shared_bit | lock_bit);
	fsim_ctx_set_sched_hook(ctx, NULL, NULL);
	assert_int_equal(fsim_folio_mm_ids_word(f), (uint64_t)id_b << id1_shift);

	assert_int_equal(fsim_folio_remove_rmap(f, b, FSIM_LEVEL_PTE, 1, 1), 0);
	assert_int_equal(fsim_folio_mm_ids_word(f), 0);
	assert_int_equal(fsim_check_ctx(ctx, NULL), 0);
	fsim_ctx_destroy(ctx);
}

static void packing_64bit(void **state)
{
	(void)state;
	/* Alternating patterns with bit 30 (the top id bit) set in both. */
	check_packing(&arch64, 0x55555555u, 0x6aaaaaaau, 32, 1ull << 31, 1ull << 63);
}

static void packing_32bit(void **state)
{
	(void)state;
	check_packing(&arch32, 0x5555u, 0x6aaau, 16, 1ull << 15, 1ull << 31);
}

/* MM_ID_MAX fills its field without spilling into the lock/shared bit. */
static void max_ids_do_not_spill(void **state)
{
	(void)state;
	check_packing(&arch32, 0x7fffu, 0x7ffeu, 16, 1ull << 15, 1ull << 31);
	check_packing(&arch32, 0x7ffeu, 0x7fffu, 16, 1ull << 15, 1ull << 31);
}

/* The word of a 32-bit context never uses the upper 32 bits. */
static void word_32bit_stays_in_32_bits(void **state)
{
	struct fsim_ctx *ctx;
	struct fsim_mm *mms[3];
	struct fsim_folio *f;
	int i;

	(void)state;
	assert_int_equal(fsim_ctx_create(FSIM_MODE_RFC, &arch32, &ctx), 0);
	for (i = 0; i < 3; i++)
		mms[i] = new_mm(ctx, 0x7fffu - (unsigned int)i);
	assert_int_equal(fsim_folio_create(ctx, 15, FSIM_KIND_FILE, &f), 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(fsim_folio_add_file_rmap(f, mms[i], FSIM_LEVEL_PMD,
							  0, 32768), 0);
	assert_int_equal(fsim_folio_mm_ids_word(f) >> 32, 0);
	assert_int_equal(fsim_folio_mm_ids_word(f),
			 0x7fffull | 0x7ffeull << 16 | 1ull << 31);
	assert_int_equal(fsim_check_ctx(ctx, NULL), 0);
	fsim_ctx_destroy(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bitnums),
		cmocka_unit_test(packing_64bit),
		cmocka_unit_test(packing_32bit),
		cmocka_unit_test(max_ids_do_not_spill),
		cmocka_unit_test(word_32bit_stays_in_32_bits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
