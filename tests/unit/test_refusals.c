// SPDX-License-Identifier: MIT
/*
 * Every refusal path of every call.  The contract (foliosim.h): "A refused
 * call leaves every counter, flag and statistic exactly as it was."  So
 * each refusal below is wrapped in REFUSED(), which snapshots every folio
 * of the fixture (fsim_folio_state_digest()), every statistic and counter
 * of the context and the MMF_HAS_PINNED flags, makes the call, checks the
 * errno, and checks the snapshot is bit-for-bit the same and the invariant
 * checker still passes.  Each test runs in both modes where the path
 * exists.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <foliosim/foliosim.h>
#include "fsim_test.h"

#define PTE FSIM_LEVEL_PTE
#define PMD FSIM_LEVEL_PMD
#define PUD FSIM_LEVEL_PUD

#define MAX_FOLIOS 16
#define MAX_MMS 8

struct fx {
	enum fsim_mode mode;
	struct fsim_ctx *ctx, *other;
	struct fsim_mm *a, *b, *c, *alien;	/* alien lives in `other` */
	struct fsim_folio *anon4;	/* order 4: A maps all 16 PTEs, AnonExclusive */
	struct fsim_folio *thp;		/* order 9: A maps a PMD (new_anon) */
	struct fsim_folio *pte9;	/* order 9: A maps PTEs [0,256) */
	struct fsim_folio *small;	/* order 0: A maps it */
	struct fsim_folio *file;	/* file order 2: A maps PTEs [0,4) */
	struct fsim_folio *fresh;	/* anon order 4, unmapped */
	struct fsim_folio *fresh_file;	/* file order 2, unmapped */
	struct fsim_folio *fresh_shmem;	/* shmem order 9, unmapped */
	struct fsim_folio *o10;		/* order 10: A maps 2 PMDs (rfc), PTEs [0,8) (legacy) */
	struct fsim_folio *fol[MAX_FOLIOS];
	size_t nf;
	struct fsim_mm *mms[MAX_MMS];
	size_t nm;
};

struct snap {
	uint64_t digest[MAX_FOLIOS];
	int mapcount[MAX_FOLIOS], pincount[MAX_FOLIOS];
	int64_t refcount[MAX_FOLIOS];
	bool has_pinned[MAX_MMS];
	int64_t stat[FSIM_NR_STATS];
	int64_t thp[32][FSIM_THP_NR_COUNTERS];
	uint64_t split_events;
	size_t split_len;
};

static void snap_take(const struct fx *fx, struct snap *s)
{
	const struct fsim_arch *arch = fsim_ctx_arch(fx->ctx);
	unsigned int o;
	size_t i;
	int k;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < fx->nf; i++) {
		s->digest[i] = fsim_folio_state_digest(fx->fol[i]);
		s->mapcount[i] = fsim_folio_mapcount(fx->fol[i]);
		s->refcount[i] = fsim_folio_refcount(fx->fol[i]);
		s->pincount[i] = fsim_folio_pincount(fx->fol[i]);
	}
	for (i = 0; i < fx->nm; i++)
		s->has_pinned[i] = fsim_mm_has_pinned(fx->mms[i]);
	for (k = 0; k < FSIM_NR_STATS; k++)
		s->stat[k] = fsim_ctx_stat(fx->ctx, (enum fsim_stat)k);
	for (o = 1; o <= arch->pmd_order && o < 32; o++)
		for (k = 0; k < FSIM_THP_NR_COUNTERS; k++)
			s->thp[o][k] = fsim_ctx_thp_counter(fx->ctx, o,
						(enum fsim_thp_counter)k);
	s->split_events = fsim_ctx_thp_deferred_split_page(fx->ctx);
	s->split_len = fsim_ctx_deferred_split_len(fx->ctx);
}

static void snap_assert_same(const struct fx *fx, const struct snap *x,
			     const struct snap *y, const char *call, int line)
{
	size_t i;
	int k;

	for (i = 0; i < fx->nf; i++)
		if (x->digest[i] != y->digest[i] || x->mapcount[i] != y->mapcount[i] ||
		    x->refcount[i] != y->refcount[i] || x->pincount[i] != y->pincount[i])
			fail_msg("line %d (%s mode): refused %s changed folio #%zu",
				 line, fsim_mode_name(fx->mode), call, i);
	for (i = 0; i < fx->nm; i++)
		if (x->has_pinned[i] != y->has_pinned[i])
			fail_msg("line %d: refused %s changed MMF_HAS_PINNED of mm #%zu",
				 line, call, i);
	for (k = 0; k < FSIM_NR_STATS; k++)
		if (x->stat[k] != y->stat[k])
			fail_msg("line %d: refused %s changed %s", line, call,
				 fsim_stat_name((enum fsim_stat)k));
	if (memcmp(x->thp, y->thp, sizeof(x->thp)) ||
	    x->split_events != y->split_events || x->split_len != y->split_len)
		fail_msg("line %d: refused %s changed THP counters or the split queue",
			 line, call);
}


static void refused_check(struct fx *fx, int expect, int got, const struct snap *before,
			  const char *call, int line)
{
	struct snap after;

	if (got != expect)
		fail_msg("line %d (%s mode): %s returned %s, expected %s", line,
			 fsim_mode_name(fx->mode), call, fsim_errname(got),
			 fsim_errname(expect));
	snap_take(fx, &after);
	snap_assert_same(fx, before, &after, call, line);
	assert_consistent(fx->ctx);
}

#define REFUSED(fx, expect, call) do {					\
	struct snap before_;						\
	snap_take((fx), &before_);					\
	refused_check((fx), (expect), (call), &before_, #call, __LINE__); \
} while (0)

#define OK(call) assert_int_equal((call), 0)

static struct fsim_folio *track(struct fx *fx, unsigned int order, enum fsim_kind kind)
{
	struct fsim_folio *f = NULL;

	assert_true(fx->nf < MAX_FOLIOS);
	OK(fsim_folio_create(fx->ctx, order, kind, &f));
	fx->fol[fx->nf++] = f;
	return f;
}

static struct fsim_mm *track_mm(struct fx *fx, struct fsim_ctx *ctx)
{
	struct fsim_mm *mm = NULL;

	assert_true(fx->nm < MAX_MMS);
	OK(fsim_mm_create(ctx, 0, &mm));
	fx->mms[fx->nm++] = mm;
	return mm;
}

static void fx_init_empty(struct fx *fx, enum fsim_mode mode, const struct fsim_arch *arch)
{
	memset(fx, 0, sizeof(*fx));
	fx->mode = mode;
	OK(fsim_ctx_create(mode, arch, &fx->ctx));
	OK(fsim_ctx_create(mode, arch, &fx->other));
	fx->a = track_mm(fx, fx->ctx);
	fx->b = track_mm(fx, fx->ctx);
	fx->c = track_mm(fx, fx->ctx);
	fx->alien = track_mm(fx, fx->other);
}

static void fx_init(struct fx *fx, enum fsim_mode mode)
{
	fx_init_empty(fx, mode, NULL);
	fx->anon4 = track(fx, 4, FSIM_KIND_ANON);
	OK(fsim_folio_add_new_anon_rmap(fx->anon4, fx->a, true));
	fx->thp = track(fx, 9, FSIM_KIND_ANON);
	OK(fsim_folio_add_new_anon_rmap(fx->thp, fx->a, true));
	fx->pte9 = track(fx, 9, FSIM_KIND_ANON);
	OK(fsim_folio_add_anon_rmap(fx->pte9, fx->a, PTE, 0, 256, true));
	fx->small = track(fx, 0, FSIM_KIND_ANON);
	OK(fsim_folio_add_new_anon_rmap(fx->small, fx->a, true));
	fx->file = track(fx, 2, FSIM_KIND_FILE);
	OK(fsim_folio_add_file_rmap(fx->file, fx->a, PTE, 0, 4));
	fx->fresh = track(fx, 4, FSIM_KIND_ANON);
	fx->fresh_file = track(fx, 2, FSIM_KIND_FILE);
	fx->fresh_shmem = track(fx, 9, FSIM_KIND_SHMEM);
	fx->o10 = track(fx, 10, FSIM_KIND_ANON);
	if (fsim_mode_has(mode, FSIM_HAS_ARBITRARY_MAPPINGS))
		OK(fsim_folio_add_new_anon_rmap(fx->o10, fx->a, true));
	else
		OK(fsim_folio_add_anon_rmap(fx->o10, fx->a, PTE, 0, 8, true));
	assert_consistent(fx->ctx);
}

static void fx_destroy(struct fx *fx)
{
	fsim_ctx_destroy(fx->ctx);
	fsim_ctx_destroy(fx->other);
}

typedef void (*body_fn)(struct fx *fx);

static void in_both_modes(body_fn body)
{
	enum fsim_mode mode;

	for_each_mode(mode) {
		struct fx fx;

		fx_init(&fx, mode);
		body(&fx);
		fx_destroy(&fx);
	}
}

/* ---- EINVAL: an mm of another context ----------------------------- */

static void body_foreign_mm(struct fx *fx)
{
	REFUSED(fx, -EINVAL, fsim_folio_add_new_anon_rmap(fx->fresh, fx->alien, true));
	REFUSED(fx, -EINVAL, fsim_folio_add_anon_rmap(fx->pte9, fx->alien, PTE, 300, 1, false));
	REFUSED(fx, -EINVAL, fsim_folio_add_file_rmap(fx->file, fx->alien, PTE, 0, 1));
	REFUSED(fx, -EINVAL, fsim_folio_remove_rmap(fx->anon4, fx->alien, PTE, 0, 1));
	REFUSED(fx, -EINVAL, fsim_folio_try_dup_anon_rmap(fx->anon4, fx->alien, fx->a, PTE, 0, 1));
	REFUSED(fx, -EINVAL, fsim_folio_try_dup_anon_rmap(fx->anon4, fx->b, fx->alien, PTE, 0, 1));
	REFUSED(fx, -EINVAL, fsim_folio_dup_file_rmap(fx->file, fx->alien, fx->a, PTE, 0, 1));
	REFUSED(fx, -EINVAL, fsim_folio_dup_file_rmap(fx->file, fx->b, fx->alien, PTE, 0, 1));
	REFUSED(fx, -EINVAL, fsim_folio_pin(fx->anon4, fx->alien, 1));
	REFUSED(fx, -EINVAL, fsim_folio_pin(fx->small, fx->alien, 1));
}

static void foreign_mm(void **state)
{
	(void)state;
	in_both_modes(body_foreign_mm);
}

/* ---- EINVAL: ranges outside the folio, nr 0, bad level ---------------- */

static void body_bad_ranges(struct fx *fx)
{
	REFUSED(fx, -EINVAL, fsim_folio_add_anon_rmap(fx->fresh, fx->b, PTE, 16, 1, false));
	REFUSED(fx, -EINVAL, fsim_folio_add_anon_rmap(fx->fresh, fx->b, PTE, 15, 2, false));
	REFUSED(fx, -EINVAL, fsim_folio_add_anon_rmap(fx->fresh, fx->b, PTE, 1, ULONG_MAX, false));
	REFUSED(fx, -EINVAL, fsim_folio_add_anon_rmap(fx->fresh, fx->b, PTE, ULONG_MAX, 2, false));
	REFUSED(fx, -EINVAL, fsim_folio_add_anon_rmap(fx->small, fx->b, PTE, 1, 1, false));
	REFUSED(fx, -EINVAL, fsim_folio_add_file_rmap(fx->file, fx->b, PTE, 4, 1));
	REFUSED(fx, -EINVAL, fsim_folio_remove_rmap(fx->anon4, fx->a, PTE, 16, 1));
	REFUSED(fx, -EINVAL, fsim_folio_remove_rmap(fx->anon4, fx->a, PTE, 8, 9));
	REFUSED(fx, -EINVAL, fsim_folio_try_dup_anon_rmap(fx->anon4, fx->b, fx->a, PTE, 8, 9));
	REFUSED(fx, -EINVAL, fsim_folio_dup_file_rmap(fx->file, fx->b, fx->a, PTE, 3, 2));

	/* nr == 0 */
	REFUSED(fx, -EINVAL, fsim_folio_add_anon_rmap(fx->fresh, fx->b, PTE, 0, 0, false));
	REFUSED(fx, -EINVAL, fsim_folio_add_file_rmap(fx->file, fx->b, PTE, 0, 0));
	REFUSED(fx, -EINVAL, fsim_folio_remove_rmap(fx->anon4, fx->a, PTE, 0, 0));
	REFUSED(fx, -EINVAL, fsim_folio_try_dup_anon_rmap(fx->anon4, fx->b, fx->a, PTE, 0, 0));
	REFUSED(fx, -EINVAL, fsim_folio_dup_file_rmap(fx->file, fx->b, fx->a, PTE, 0, 0));
	REFUSED(fx, -EINVAL, fsim_folio_pin(fx->anon4, fx->a, 0));
	REFUSED(fx, -EINVAL, fsim_folio_unpin(fx->anon4, 0));

	/* no such level */
	REFUSED(fx, -EINVAL, fsim_folio_add_anon_rmap(fx->fresh, fx->b, (enum fsim_level)3, 0, 1, false));
	REFUSED(fx, -EINVAL, fsim_folio_remove_rmap(fx->anon4, fx->a, (enum fsim_level)3, 0, 1));

	/* AnonExclusive of a page outside the folio / of a file folio */
	REFUSED(fx, -EINVAL, fsim_folio_set_anon_exclusive(fx->anon4, 16, true));
	REFUSED(fx, -EINVAL, fsim_folio_set_anon_exclusive(fx->file, 0, true));
}

static void bad_ranges(void **state)
{
	(void)state;
	in_both_modes(body_bad_ranges);
}

/* ---- EINVAL: PMD/PUD ranges not aligned to the level ------------------ */

static void body_misaligned(struct fx *fx)
{
	/* Both modes: a partial PMD of the THP. */
	REFUSED(fx, -EINVAL, fsim_folio_remove_rmap(fx->thp, fx->a, PMD, 0, 256));
	REFUSED(fx, -EINVAL, fsim_folio_remove_rmap(fx->thp, fx->a, PMD, 1, 511));
	REFUSED(fx, -EINVAL, fsim_folio_try_dup_anon_rmap(fx->thp, fx->b, fx->a, PMD, 0, 500));
	REFUSED(fx, -EINVAL, fsim_folio_add_file_rmap(fx->fresh_shmem, fx->a, PMD, 0, 511));
	REFUSED(fx, -EINVAL, fsim_folio_add_anon_rmap(fx->fresh, fx->b, PMD, 0, 16, false));
	/* PUD on a folio smaller than a PUD */
	REFUSED(fx, -EINVAL, fsim_folio_add_anon_rmap(fx->pte9, fx->b, PUD, 0, 512, false));
	/* rfc: a PMD that is not on a PMD boundary of an order-10 folio */
	REFUSED(fx, -EINVAL, fsim_folio_add_anon_rmap(fx->o10, fx->b, PMD, 256, 512, false));
	REFUSED(fx, -EINVAL, fsim_folio_add_anon_rmap(fx->o10, fx->b, PMD, 0, 768, false));
	REFUSED(fx, -EINVAL, fsim_folio_remove_rmap(fx->o10, fx->a, PMD, 512, 256));
}

static void misaligned_levels(void **state)
{
	struct fx fx;
	struct fsim_folio *o18;

	(void)state;
	in_both_modes(body_misaligned);

	/* PUD misalignment on an order-18 folio (rfc; legacy has no PUD). */
	fx_init_empty(&fx, FSIM_MODE_RFC, NULL);
	o18 = track(&fx, 18, FSIM_KIND_ANON);
	OK(fsim_folio_add_anon_rmap(o18, fx.a, PMD, 0, 1024, false));
	REFUSED(&fx, -EINVAL, fsim_folio_add_anon_rmap(o18, fx.b, PUD, 0, 1ul << 17, false));
	REFUSED(&fx, -EINVAL, fsim_folio_add_anon_rmap(o18, fx.b, PUD, 512, (1ul << 18) - 512, false));
	REFUSED(&fx, -EINVAL, fsim_folio_add_anon_rmap(o18, fx.b, PMD, 100, 512, false));
	fx_destroy(&fx);
}

/* ---- EINVAL: removing what the mm does not map --------------------- */

static void body_remove_unmapped(struct fx *fx)
{
	/* B maps nothing at all */
	REFUSED(fx, -EINVAL, fsim_folio_remove_rmap(fx->anon4, fx->b, PTE, 0, 1));
	REFUSED(fx, -EINVAL, fsim_folio_remove_rmap(fx->small, fx->b, PTE, 0, 1));
	REFUSED(fx, -EINVAL, fsim_folio_remove_rmap(fx->thp, fx->b, PMD, 0, 512));
	REFUSED(fx, -EINVAL, fsim_folio_remove_rmap(fx->fresh, fx->a, PTE, 0, 1));
	/* A maps [0,256) of pte9 once */
	REFUSED(fx, -EINVAL, fsim_folio_remove_rmap(fx->pte9, fx->a, PTE, 255, 2));
	REFUSED(fx, -EINVAL, fsim_folio_remove_rmap(fx->pte9, fx->a, PTE, 256, 1));
	/* A PTE removal where only a PMD maps the page */
	REFUSED(fx, -EINVAL, fsim_folio_remove_rmap(fx->thp, fx->a, PTE, 0, 1));
	REFUSED(fx, -EINVAL, fsim_folio_remove_rmap(fx->thp, fx->a, PTE, 0, 512));
	/* A PMD removal where only PTEs map the pages */
	OK(fsim_folio_add_anon_rmap(fx->pte9, fx->a, PTE, 256, 256, false));
	REFUSED(fx, -EINVAL, fsim_folio_remove_rmap(fx->pte9, fx->a, PMD, 0, 512));
	/* Removing twice: the second one is refused */
	OK(fsim_folio_remove_rmap(fx->anon4, fx->a, PTE, 3, 1));
	REFUSED(fx, -EINVAL, fsim_folio_remove_rmap(fx->anon4, fx->a, PTE, 3, 1));
	REFUSED(fx, -EINVAL, fsim_folio_remove_rmap(fx->anon4, fx->a, PTE, 0, 16));
	/* Page cache: same rules */
	REFUSED(fx, -EINVAL, fsim_folio_remove_rmap(fx->file, fx->b, PTE, 0, 4));
	REFUSED(fx, -EINVAL, fsim_folio_remove_rmap(fx->fresh_shmem, fx->a, PMD, 0, 512));
}

static void remove_what_is_not_mapped(void **state)
{
	(void)state;
	in_both_modes(body_remove_unmapped);
}

/* ---- EINVAL: fork dup from an mm without those mappings -------------- */

static void body_dup_without_source(struct fx *fx)
{
	REFUSED(fx, -EINVAL, fsim_folio_try_dup_anon_rmap(fx->anon4, fx->c, fx->b, PTE, 0, 1));
	REFUSED(fx, -EINVAL, fsim_folio_try_dup_anon_rmap(fx->pte9, fx->c, fx->a, PTE, 250, 10));
	REFUSED(fx, -EINVAL, fsim_folio_try_dup_anon_rmap(fx->thp, fx->c, fx->a, PTE, 0, 1));
	REFUSED(fx, -EINVAL, fsim_folio_try_dup_anon_rmap(fx->pte9, fx->c, fx->a, PMD, 0, 512));
	REFUSED(fx, -EINVAL, fsim_folio_try_dup_anon_rmap(fx->small, fx->c, fx->b, PTE, 0, 1));
	REFUSED(fx, -EINVAL, fsim_folio_try_dup_anon_rmap(fx->fresh, fx->c, fx->a, PTE, 0, 1));
	REFUSED(fx, -EINVAL, fsim_folio_dup_file_rmap(fx->file, fx->c, fx->b, PTE, 0, 1));
	REFUSED(fx, -EINVAL, fsim_folio_dup_file_rmap(fx->fresh_shmem, fx->c, fx->a, PMD, 0, 512));
}

static void dup_without_source_mappings(void **state)
{
	(void)state;
	in_both_modes(body_dup_without_source);
}

/* ---- EINVAL: new_anon on mapped / page cache folios, kind mismatch ---- */

static void body_new_anon_and_kinds(struct fx *fx)
{
	REFUSED(fx, -EINVAL, fsim_folio_add_new_anon_rmap(fx->anon4, fx->b, true));
	REFUSED(fx, -EINVAL, fsim_folio_add_new_anon_rmap(fx->anon4, fx->a, false));
	REFUSED(fx, -EINVAL, fsim_folio_add_new_anon_rmap(fx->thp, fx->b, true));
	REFUSED(fx, -EINVAL, fsim_folio_add_new_anon_rmap(fx->small, fx->b, true));
	/* mapped by PTEs only, not even from new_anon */
	REFUSED(fx, -EINVAL, fsim_folio_add_new_anon_rmap(fx->pte9, fx->b, true));
	REFUSED(fx, -EINVAL, fsim_folio_add_new_anon_rmap(fx->fresh_file, fx->a, true));
	REFUSED(fx, -EINVAL, fsim_folio_add_new_anon_rmap(fx->fresh_shmem, fx->a, false));
	REFUSED(fx, -EINVAL, fsim_folio_add_new_anon_rmap(fx->file, fx->a, true));

	/* anon calls on page cache and vice versa */
	REFUSED(fx, -EINVAL, fsim_folio_add_anon_rmap(fx->fresh_file, fx->a, PTE, 0, 1, false));
	REFUSED(fx, -EINVAL, fsim_folio_add_file_rmap(fx->fresh, fx->a, PTE, 0, 1));
	REFUSED(fx, -EINVAL, fsim_folio_add_file_rmap(fx->anon4, fx->a, PTE, 0, 1));
	REFUSED(fx, -EINVAL, fsim_folio_try_dup_anon_rmap(fx->file, fx->b, fx->a, PTE, 0, 1));
	REFUSED(fx, -EINVAL, fsim_folio_dup_file_rmap(fx->anon4, fx->b, fx->a, PTE, 0, 1));
}

static void new_anon_and_kind_mismatch(void **state)
{
	(void)state;
	in_both_modes(body_new_anon_and_kinds);
}

/* ---- not a refusal: RMAP_EXCLUSIVE on a page that is already mapped ---
 *
 * __split_huge_pmd_locked() adds exclusive PTEs while the PMD still maps
 * the pages (then removes the PMD), so the model accepts it (ee14b43).
 */
static void body_exclusive_on_mapped(struct fx *fx)
{
	/* the split: PTEs over the PMD, then the PMD goes */
	OK(fsim_folio_add_anon_rmap(fx->thp, fx->a, PTE, 0, 512, true));
	assert_true(fsim_folio_anon_exclusive(fx->thp, 0));
	assert_true(fsim_folio_anon_exclusive(fx->thp, 511));
	assert_int_equal(fsim_folio_mapcount(fx->thp), 513);
	OK(fsim_folio_remove_rmap(fx->thp, fx->a, PMD, 0, 512));
	assert_int_equal(fsim_folio_mapcount(fx->thp), 512);
	assert_false(fsim_folio_partially_mapped(fx->thp));
	assert_int_equal(fsim_ctx_stat(fx->ctx, FSIM_NR_ANON_THPS), 0);
	assert_consistent(fx->ctx);
}

static void exclusive_add_on_mapped_page_is_the_split_path(void **state)
{
	(void)state;
	in_both_modes(body_exclusive_on_mapped);
}

/* ---- EINVAL: unpin of more than pinned; free while mapped/pinned ------- */

static void body_pins_and_free(struct fx *fx)
{
	REFUSED(fx, -EINVAL, fsim_folio_unpin(fx->anon4, 1));
	REFUSED(fx, -EINVAL, fsim_folio_unpin(fx->small, 1));
	OK(fsim_folio_pin(fx->anon4, fx->b, 2));
	OK(fsim_folio_pin(fx->small, fx->b, 2));
	REFUSED(fx, -EINVAL, fsim_folio_unpin(fx->anon4, 3));
	REFUSED(fx, -EINVAL, fsim_folio_unpin(fx->small, 3));
	REFUSED(fx, -EINVAL, fsim_folio_unpin(fx->anon4, UINT_MAX));
	OK(fsim_folio_unpin(fx->anon4, 2));
	REFUSED(fx, -EINVAL, fsim_folio_unpin(fx->anon4, 1));

	/* free_pages_prepare() would be a use-after-free: refused */
	REFUSED(fx, -EINVAL, fsim_folio_free(fx->anon4));
	REFUSED(fx, -EINVAL, fsim_folio_free(fx->thp));
	REFUSED(fx, -EINVAL, fsim_folio_free(fx->small));	/* mapped and pinned */
	REFUSED(fx, -EINVAL, fsim_folio_free(fx->file));
	OK(fsim_folio_pin(fx->fresh, fx->c, 1));
	REFUSED(fx, -EINVAL, fsim_folio_free(fx->fresh));	/* pinned only */
	OK(fsim_folio_pin(fx->fresh_file, fx->c, 1));
	REFUSED(fx, -EINVAL, fsim_folio_free(fx->fresh_file));
}

static void unpin_too_many_and_free_while_busy(void **state)
{
	(void)state;
	in_both_modes(body_pins_and_free);
}

/* ---- EBUSY: fork of a maybe-pinned AnonExclusive page ----------------- */

static void body_ebusy(struct fx *fx)
{
	struct fsim_folio *g, *h;
	struct fsim_mm *d = track_mm(fx, fx->ctx);

	/* A pins: folio_needs_cow_for_dma() is true for A's folios. */
	OK(fsim_folio_pin(fx->anon4, fx->a, 1));
	OK(fsim_folio_pin(fx->thp, fx->a, 1));
	OK(fsim_folio_pin(fx->small, fx->a, 1));
	assert_true(fsim_mm_has_pinned(fx->a));

	REFUSED(fx, -EBUSY, fsim_folio_try_dup_anon_rmap(fx->anon4, fx->b, fx->a, PTE, 0, 16));
	REFUSED(fx, -EBUSY, fsim_folio_try_dup_anon_rmap(fx->anon4, fx->b, fx->a, PTE, 5, 1));
	REFUSED(fx, -EBUSY, fsim_folio_try_dup_anon_rmap(fx->thp, fx->b, fx->a, PMD, 0, 512));
	REFUSED(fx, -EBUSY, fsim_folio_try_dup_anon_rmap(fx->small, fx->b, fx->a, PTE, 0, 1));
	if (fsim_mode_has(fx->mode, FSIM_HAS_ARBITRARY_MAPPINGS)) {
		/* the second PMD of o10 has its own AnonExclusive head */
		OK(fsim_folio_pin(fx->o10, fx->a, 1));
		REFUSED(fx, -EBUSY, fsim_folio_try_dup_anon_rmap(fx->o10, fx->b, fx->a, PMD, 512, 512));
	}

	/* Only AnonExclusive pages make it busy. */
	OK(fsim_folio_set_anon_exclusive(fx->anon4, 5, false));
	OK(fsim_folio_try_dup_anon_rmap(fx->anon4, fx->b, fx->a, PTE, 5, 1));
	REFUSED(fx, -EBUSY, fsim_folio_try_dup_anon_rmap(fx->anon4, fx->b, fx->a, PTE, 4, 2));
	REFUSED(fx, -EBUSY, fsim_folio_try_dup_anon_rmap(fx->anon4, fx->b, fx->a, PTE, 5, 2));

	/* Pinned through another mm: the source has no MMF_HAS_PINNED. */
	g = track(fx, 4, FSIM_KIND_ANON);
	OK(fsim_folio_add_new_anon_rmap(g, d, true));
	OK(fsim_folio_pin(g, fx->c, 1));
	assert_false(fsim_mm_has_pinned(d));
	OK(fsim_folio_try_dup_anon_rmap(g, fx->b, d, PTE, 0, 16));
	assert_false(fsim_folio_anon_exclusive(g, 0));

	/* MMF_HAS_PINNED but the folio is not pinned. */
	h = track(fx, 0, FSIM_KIND_ANON);
	OK(fsim_folio_add_new_anon_rmap(h, fx->a, true));
	OK(fsim_folio_try_dup_anon_rmap(h, fx->b, fx->a, PTE, 0, 1));

	/* Page cache is never busy. */
	OK(fsim_folio_pin(fx->file, fx->a, 1));
	OK(fsim_folio_dup_file_rmap(fx->file, fx->b, fx->a, PTE, 0, 4));
	assert_consistent(fx->ctx);
}

static void ebusy_dup_of_pinned_exclusive_page(void **state)
{
	(void)state;
	in_both_modes(body_ebusy);
}

/* ---- EOVERFLOW --------------------------------------------------------- */

/* Adds @nr pages at page 0 up to @limit times; returns how many calls
 * succeeded (stops at the first error, left in *err). */
static unsigned long add_until_refused(struct fsim_folio *f, struct fsim_mm *mm,
				       enum fsim_level level, unsigned long nr,
				       unsigned long limit, int *err)
{
	unsigned long i;

	for (i = 0; i < limit; i++) {
		*err = fsim_folio_add_anon_rmap(f, mm, level, 0, nr, false);
		if (*err)
			return i;
	}
	*err = 0;
	return i;
}

/*
 * bits=32: _total_mapped_pages is an unsigned long of 32 bits.  An
 * order-15 folio mapped by PMD entries (64 per call, 32768 pages) reaches
 * 2^32 pages after 131072 calls while its mapcount stays small; the
 * cover letter's TODO says to refuse that early.  (PTE calls would hit the
 * int mapcount first: 65536 * 32768 = 2^31.)
 */
static void eoverflow_total_mapped_pages_32bit_rfc(void **state)
{
	static const struct fsim_arch arch32 = { 32, 12, 9, 18 };
	struct fx fx;
	struct fsim_folio *f;
	unsigned long n;
	int err;

	(void)state;
	fx_init_empty(&fx, FSIM_MODE_RFC, &arch32);
	f = track(&fx, 15, FSIM_KIND_ANON);
	n = add_until_refused(f, fx.a, PMD, 32768, 131071, &err);
	assert_int_equal(n, 131071);
	assert_int_equal(err, 0);
	assert_int_equal(fsim_folio_total_mapped_pages(f), 4294967296ull - 32768);
	assert_int_equal(fsim_folio_mapcount(f), 131071 * 64);

	REFUSED(&fx, -EOVERFLOW, fsim_folio_add_anon_rmap(f, fx.a, PMD, 0, 32768, false));
	/* 63 more PMDs fit: 2^32 - 512 */
	OK(fsim_folio_add_anon_rmap(f, fx.a, PMD, 0, 32256, false));
	REFUSED(&fx, -EOVERFLOW, fsim_folio_add_anon_rmap(f, fx.b, PMD, 512, 512, false));
	REFUSED(&fx, -EOVERFLOW, fsim_folio_try_dup_anon_rmap(f, fx.b, fx.a, PMD, 0, 512));
	/* ULONG_MAX itself is fine, one more page is not */
	OK(fsim_folio_add_anon_rmap(f, fx.b, PTE, 0, 511, false));
	assert_int_equal(fsim_folio_total_mapped_pages(f), 4294967295ull);
	REFUSED(&fx, -EOVERFLOW, fsim_folio_add_anon_rmap(f, fx.b, PTE, 511, 1, false));
	REFUSED(&fx, -EOVERFLOW, fsim_folio_try_dup_anon_rmap(f, fx.c, fx.b, PTE, 0, 1));
	OK(fsim_folio_remove_rmap(f, fx.b, PTE, 0, 1));
	OK(fsim_folio_add_anon_rmap(f, fx.c, PTE, 7, 1, false));
	assert_consistent(fx.ctx);
	fx_destroy(&fx);
}

/* The same in legacy mode, on an arch whose PMD maps 2^15 pages so that a
 * PMD-sized order-15 folio can exist with bits=32. */
static void eoverflow_total_mapped_pages_32bit_legacy(void **state)
{
	static const struct fsim_arch arch32_big_pmd = { 32, 12, 15, 16 };
	struct fx fx;
	struct fsim_folio *f;
	unsigned long n;
	int err;

	(void)state;
	fx_init_empty(&fx, FSIM_MODE_LEGACY, &arch32_big_pmd);
	f = track(&fx, 15, FSIM_KIND_ANON);
	n = add_until_refused(f, fx.a, PMD, 32768, 131071, &err);
	assert_int_equal(n, 131071);
	assert_int_equal(err, 0);
	assert_int_equal(fsim_folio_entire_mapcount(f), 131071);
	assert_int_equal(fsim_folio_total_mapped_pages(f), 4294967296ull - 32768);

	REFUSED(&fx, -EOVERFLOW, fsim_folio_add_anon_rmap(f, fx.b, PMD, 0, 32768, false));
	REFUSED(&fx, -EOVERFLOW, fsim_folio_try_dup_anon_rmap(f, fx.b, fx.a, PMD, 0, 32768));
	OK(fsim_folio_add_anon_rmap(f, fx.b, PTE, 0, 32767, false));
	assert_int_equal(fsim_folio_total_mapped_pages(f), 4294967295ull);
	REFUSED(&fx, -EOVERFLOW, fsim_folio_add_anon_rmap(f, fx.b, PTE, 32767, 1, false));
	REFUSED(&fx, -EOVERFLOW, fsim_folio_try_dup_anon_rmap(f, fx.c, fx.b, PTE, 0, 1));
	assert_consistent(fx.ctx);
	fx_destroy(&fx);
}

/*
 * bits=64: folio_mapcount() is an int.  65535 calls of 32768 PTEs reach
 * 2^31 - 32768; then 32767 more reach INT_MAX exactly; one more entry is
 * refused.  (Legacy has the same check, but reaching 2^31 PTEs there means
 * 2^31 per-page _mapcount updates: far too slow for a unit test.)
 */
static void eoverflow_mapcount_64bit_rfc(void **state)
{
	struct fx fx;
	struct fsim_folio *f;
	unsigned long n;
	int err;

	(void)state;
	fx_init_empty(&fx, FSIM_MODE_RFC, NULL);
	f = track(&fx, 15, FSIM_KIND_ANON);
	n = add_until_refused(f, fx.a, PTE, 32768, 65535, &err);
	assert_int_equal(n, 65535);
	assert_int_equal(err, 0);
	assert_int_equal(fsim_folio_mapcount(f), 65535 * 32768);

	REFUSED(&fx, -EOVERFLOW, fsim_folio_add_anon_rmap(f, fx.a, PTE, 0, 32768, false));
	OK(fsim_folio_add_anon_rmap(f, fx.a, PTE, 0, 32767, false));
	assert_int_equal(fsim_folio_mapcount(f), INT_MAX);
	REFUSED(&fx, -EOVERFLOW, fsim_folio_add_anon_rmap(f, fx.b, PTE, 32767, 1, false));
	REFUSED(&fx, -EOVERFLOW, fsim_folio_add_anon_rmap(f, fx.b, PMD, 0, 512, false));
	REFUSED(&fx, -EOVERFLOW, fsim_folio_try_dup_anon_rmap(f, fx.b, fx.a, PTE, 0, 1));
	assert_int_equal(fsim_folio_refcount(f), INT_MAX);
	assert_consistent(fx.ctx);
	fx_destroy(&fx);
}

/*
 * Pins: a large folio's _pincount is an int, a small folio's pins live in
 * its refcount (GUP_PIN_COUNTING_BIAS each), which the kernel keeps in an
 * int.  Both refuse to overflow.  (The model's refcount itself is 64 bits
 * wide since ee14b43, so mappings are never refused for the refcount.)
 */
static void body_pin_overflow(struct fx *fx)
{
	const int pins = fsim_folio_pincount(fx->file);

	OK(fsim_folio_pin(fx->file, fx->c, (unsigned int)(INT_MAX - pins)));
	assert_int_equal(fsim_folio_pincount(fx->file), INT_MAX);
	REFUSED(fx, -EOVERFLOW, fsim_folio_pin(fx->file, fx->b, 1));
	REFUSED(fx, -EOVERFLOW, fsim_folio_pin(fx->anon4, fx->b, UINT_MAX));
	OK(fsim_folio_pin(fx->anon4, fx->c, (unsigned int)INT_MAX));
	REFUSED(fx, -EOVERFLOW, fsim_folio_pin(fx->anon4, fx->b, 1));
	/* mappings still work */
	OK(fsim_folio_add_file_rmap(fx->file, fx->b, PTE, 0, 1));

	/* small folios: refcount 1 + 2097151 * 1024 = INT_MAX - 1022 */
	OK(fsim_folio_pin(fx->small, fx->c, (INT_MAX - 1) / 1024));
	assert_int_equal(fsim_folio_refcount(fx->small), 1 + 2097151ll * 1024);
	REFUSED(fx, -EOVERFLOW, fsim_folio_pin(fx->small, fx->b, 1));
	assert_false(fsim_mm_has_pinned(fx->b));
}

static void eoverflow_pins(void **state)
{
	(void)state;
	in_both_modes(body_pin_overflow);
}

/* ---- creating contexts and folios ------------------------------------ */

static void creation_refusals(void **state)
{
	static const struct fsim_arch bad[] = {
		{ 48, 12, 9, 18 },	/* bits */
		{ 64, 9, 9, 18 },	/* page_shift < 10 */
		{ 64, 17, 9, 18 },	/* page_shift > 16 */
		{ 64, 12, 0, 18 },	/* pmd_order < 1 */
		{ 64, 12, 18, 18 },	/* pmd_order >= pud_order */
		{ 64, 12, 9, 31 },	/* pud_order > 30 */
	};
	static const struct fsim_arch arch32 = { 32, 12, 9, 18 };
	struct fsim_ctx *ctx = NULL;
	struct fsim_folio *f = NULL;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(fsim_arch_validate(&bad[i]), -EINVAL);
		assert_int_equal(fsim_ctx_create(FSIM_MODE_RFC, &bad[i], &ctx), -EINVAL);
		assert_null(ctx);
	}
	assert_int_equal(fsim_ctx_create(FSIM_NR_MODES, NULL, &ctx), -EINVAL);
	assert_null(ctx);

	OK(fsim_ctx_create(FSIM_MODE_LEGACY, NULL, &ctx));
	assert_int_equal(fsim_folio_create(ctx, 19, FSIM_KIND_ANON, &f), -EINVAL);
	assert_int_equal(fsim_folio_create(ctx, 0, (enum fsim_kind)3, &f), -EINVAL);
	assert_null(f);
	assert_int_equal(fsim_check_ctx(ctx, NULL), 0);
	fsim_ctx_destroy(ctx);

	/* 32-bit: a short per-MM mapcount limits folios to order 15 */
	OK(fsim_ctx_create(FSIM_MODE_RFC, &arch32, &ctx));
	assert_int_equal(fsim_folio_create(ctx, 16, FSIM_KIND_ANON, &f), -EINVAL);
	assert_null(f);
	OK(fsim_folio_create(ctx, 15, FSIM_KIND_ANON, &f));
	fsim_ctx_destroy(ctx);
}

/* ---- Library bugs found: regressions, and failing-on-purpose tests ------ */

/*
 * Regression (fixed in 4185663): folio_add_new_anon_rmap() on an anon
 * folio that was mapped before and is unmapped now used to be accepted and
 * counted MTHP_STAT_NR_ANON a second time (freed once: the counter leaked).
 * The kernel only calls it on new folios (do_swap_page() uses
 * folio_add_anon_rmap_ptes() once folio_test_anon()): refused.
 */
static void new_anon_on_previously_mapped_anon_folio(void **state)
{
	enum fsim_mode mode;

	(void)state;
	for_each_mode(mode) {
		struct fx fx;
		struct fsim_folio *f, *g;

		fx_init_empty(&fx, mode, NULL);
		f = track(&fx, 4, FSIM_KIND_ANON);
		OK(fsim_folio_add_new_anon_rmap(f, fx.a, true));
		OK(fsim_folio_remove_rmap(f, fx.a, PTE, 0, 16));
		assert_int_equal(fsim_ctx_thp_counter(fx.ctx, 4, FSIM_THP_NR_ANON), 1);
		REFUSED(&fx, -EINVAL, fsim_folio_add_new_anon_rmap(f, fx.a, true));
		REFUSED(&fx, -EINVAL, fsim_folio_add_new_anon_rmap(f, fx.b, false));

		/* mapped first through folio_add_anon_rmap_ptes(): not new either */
		g = track(&fx, 4, FSIM_KIND_ANON);
		OK(fsim_folio_add_anon_rmap(g, fx.a, PTE, 0, 1, true));
		OK(fsim_folio_remove_rmap(g, fx.a, PTE, 0, 1));
		REFUSED(&fx, -EINVAL, fsim_folio_add_new_anon_rmap(g, fx.a, true));

		OK(fsim_folio_free(f));
		assert_int_equal(fsim_ctx_thp_counter(fx.ctx, 4, FSIM_THP_NR_ANON), 0);
		fx_destroy(&fx);
	}
}

/*
 * Regression (fixed in f24e12f): fsim_folio_pin() read f->order before
 * checking f for NULL and crashed; every entry point refuses NULL.
 */
static void null_folio_or_mm_is_einval(void **state)
{
	struct fsim_ctx *ctx;
	struct fsim_mm *mm;
	struct fsim_folio *f;

	(void)state;
	OK(fsim_ctx_create(FSIM_MODE_RFC, NULL, &ctx));
	OK(fsim_mm_create(ctx, 0, &mm));
	OK(fsim_folio_create(ctx, 4, FSIM_KIND_ANON, &f));
	assert_int_equal(fsim_folio_pin(NULL, mm, 1), -EINVAL);
	assert_int_equal(fsim_folio_pin(f, NULL, 1), -EINVAL);
	assert_int_equal(fsim_folio_unpin(NULL, 1), -EINVAL);
	assert_int_equal(fsim_folio_free(NULL), -EINVAL);
	assert_int_equal(fsim_mm_destroy(NULL), -EINVAL);
	assert_int_equal(fsim_folio_add_new_anon_rmap(NULL, mm, true), -EINVAL);
	assert_int_equal(fsim_folio_add_new_anon_rmap(f, NULL, true), -EINVAL);
	assert_int_equal(fsim_folio_add_anon_rmap(NULL, mm, PTE, 0, 1, false), -EINVAL);
	assert_int_equal(fsim_folio_add_anon_rmap(f, NULL, PTE, 0, 1, false), -EINVAL);
	assert_int_equal(fsim_folio_remove_rmap(NULL, mm, PTE, 0, 1), -EINVAL);
	assert_int_equal(fsim_folio_try_dup_anon_rmap(f, NULL, mm, PTE, 0, 1), -EINVAL);
	assert_int_equal(fsim_folio_try_dup_anon_rmap(f, mm, NULL, PTE, 0, 1), -EINVAL);
	assert_false(fsim_mm_has_pinned(mm));
	assert_int_equal(fsim_folio_mapcount(f), 0);
	fsim_ctx_destroy(ctx);
}

/*
 * LIBRARY BUG: a small folio's pins are derived from its refcount
 * (folio.c fsim_folio_pincount(): refcount / GUP_PIN_COUNTING_BIAS), and
 * the model then treats that as the exact number of pins:
 *  - check.c check_refcount() expects refcount == entries + ... +
 *    1024 * fsim_folio_pincount(), so a small anon folio mapped 1024 times
 *    (a small file folio 1023 times: libc's pages in 1024 processes) fails
 *    refcount_matches_mappings ("refcount 1024, expected 2048") though
 *    nothing is pinned;
 *  - rmap.c fsim_folio_unpin() accepts unpin(1) of that never-pinned
 *    folio and subtracts 1024 references.
 * The kernel's folio_maybe_dma_pinned() may give this false positive
 * (include/linux/mm.h: "the caller must handle false positives"); the
 * model's own bookkeeping must not: keep a model-side pin count for small
 * folios (the fuzzy fsim_folio_maybe_dma_pinned() can stay kernel-like).
 */
static int destroy_fx(void **state)
{
	struct fx *fx = *state;

	if (fx && fx->ctx)
		fx_destroy(fx);
	return 0;
}

static void small_folio_mapped_1024_times_is_not_pinned(void **state)
{
	static struct fx fx;
	enum fsim_kind kind;

	*state = &fx;	/* destroy_fx() cleans up when an assertion fails */
	for (kind = FSIM_KIND_ANON; kind <= FSIM_KIND_FILE; kind++) {
		struct fsim_folio *f;
		int i;

		fx_init_empty(&fx, FSIM_MODE_RFC, NULL);
		f = track(&fx, 0, kind);
		for (i = 0; i < 1024; i++)
			OK(kind == FSIM_KIND_ANON ?
			   fsim_folio_add_anon_rmap(f, fx.a, PTE, 0, 1, false) :
			   fsim_folio_add_file_rmap(f, fx.a, PTE, 0, 1));
		assert_int_equal(fsim_folio_mapcount(f), 1024);
		assert_consistent(fx.ctx);
		REFUSED(&fx, -EINVAL, fsim_folio_unpin(f, 1));
		fx_destroy(&fx);
		fx.ctx = NULL;
	}
}

/*
 * LIBRARY BUG (since ee14b43, which accepts RMAP_EXCLUSIVE on any mapped
 * page): only the PMD-split path needs it (PTEs added under the one PMD
 * that maps the pages, then the PMD goes; see
 * exclusive_add_on_mapped_page_is_the_split_path).  mm/rmap.c
 * __folio_add_anon_rmap() warns, after the add, when an AnonExclusive page
 *  - of a small folio has _mapcount > 0 (6.12 and the RFC 13/13 both keep
 *    VM_WARN_ON_FOLIO(!folio_test_large(folio) && PageAnonExclusive(page)
 *    && atomic_read(&folio->_mapcount) > 0)), or
 *  - of a large folio has page->_mapcount > 0 or folio_entire_mapcount()
 *    > 1 (6.12 only: the per-page loop),
 * i.e. AnonExclusive on a page that another mapping shares.  rmap.c
 * refuses what the kernel warns about (check_range()); today these are
 * accepted and leave AnonExclusive set on a page two mms map.  Expected:
 * -EINVAL, state unchanged.
 */
static void exclusive_add_on_page_mapped_elsewhere(void **state)
{
	static struct fx fx;
	enum fsim_mode mode;

	*state = &fx;	/* destroy_fx() cleans up when an assertion fails */
	for_each_mode(mode) {
		fx_init(&fx, mode);
		REFUSED(&fx, -EINVAL, fsim_folio_add_anon_rmap(fx.small, fx.b, PTE, 0, 1, true));
		if (fsim_mode_has(mode, FSIM_HAS_PAGE_MAPCOUNT)) {
			/* page 3 is PTE-mapped by A */
			REFUSED(&fx, -EINVAL, fsim_folio_add_anon_rmap(fx.anon4, fx.b, PTE, 3, 1, true));
			/* two PMDs: entire_mapcount 2 */
			OK(fsim_folio_try_dup_anon_rmap(fx.thp, fx.b, fx.a, PMD, 0, 512));
			REFUSED(&fx, -EINVAL, fsim_folio_add_anon_rmap(fx.thp, fx.c, PTE, 0, 1, true));
		}
		fx_destroy(&fx);
		fx.ctx = NULL;
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(foreign_mm),
		cmocka_unit_test(bad_ranges),
		cmocka_unit_test(misaligned_levels),
		cmocka_unit_test(remove_what_is_not_mapped),
		cmocka_unit_test(dup_without_source_mappings),
		cmocka_unit_test(new_anon_and_kind_mismatch),
		cmocka_unit_test(exclusive_add_on_mapped_page_is_the_split_path),
		cmocka_unit_test(unpin_too_many_and_free_while_busy),
		cmocka_unit_test(ebusy_dup_of_pinned_exclusive_page),
		cmocka_unit_test(eoverflow_total_mapped_pages_32bit_rfc),
		cmocka_unit_test(eoverflow_total_mapped_pages_32bit_legacy),
		cmocka_unit_test(eoverflow_mapcount_64bit_rfc),
		cmocka_unit_test(eoverflow_pins),
		cmocka_unit_test(creation_refusals),
		cmocka_unit_test(new_anon_on_previously_mapped_anon_folio),
		cmocka_unit_test(null_folio_or_mm_is_einval),
		cmocka_unit_test_teardown(small_folio_mapped_1024_times_is_not_pinned, destroy_fx),
		cmocka_unit_test_teardown(exclusive_add_on_page_mapped_elsewhere, destroy_fx),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
