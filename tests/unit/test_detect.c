// SPDX-License-Identifier: MIT
/*
 * The detect part's calls (detect.c, vm_split.c): refusals, the scan's
 * report, and the cases the scenario files cannot reach: a pinned folio
 * and a folio also mapped outside any page table are flagged but not
 * split.  Example (A) of 01/13 is the workload throughout.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <foliosim/process.h>

#define K 1024ull
#define M (1024 * K)

struct world {
	struct fsim_ctx *ctx;
	struct fsim_process *p, *c;
	struct fsim_folio *thp;
};

static void keep_folio(void *arg, struct fsim_folio *f)
{
	*(struct fsim_folio **)arg = f;
}

/* Example (A): a THP, a child, both unmap [1M, 2M). */
static void example_a(struct world *w, bool detect)
{
	assert_int_equal(fsim_ctx_create(FSIM_MODE_RFC, NULL, &w->ctx), 0);
	assert_int_equal(fsim_ctx_set_detect(w->ctx, detect), 0);
	assert_int_equal(fsim_process_create(w->ctx, &w->p), 0);
	assert_int_equal(fsim_process_mmap(w->p, "A", 2 * M, false, 9), 0);
	assert_int_equal(fsim_process_access(w->p, "A", 0, 2 * M, true), 0);
	assert_int_equal(fsim_process_region_folios(w->p, "A", keep_folio, &w->thp), 0);
	assert_int_equal(fsim_process_fork(w->p, &w->c), 0);
	assert_int_equal(fsim_process_munmap(w->p, "A", M, M), 0);
	assert_int_equal(fsim_process_munmap(w->c, "A", M, M), 0);
	assert_false(fsim_folio_partially_mapped(w->thp));
}

static void done(struct world *w)
{
	assert_int_equal(fsim_check_ctx(w->ctx, NULL), 0);
	fsim_process_exit(w->c);
	fsim_process_exit(w->p);
	fsim_ctx_destroy(w->ctx);
}

static void test_refusals(void **state)
{
	struct fsim_ctx *ctx;

	(void)state;
	assert_int_equal(fsim_ctx_set_detect(NULL, true), -EINVAL);
	assert_int_equal(fsim_folio_detect_partial(NULL), -EINVAL);
	assert_int_equal(fsim_ctx_deferred_split_scan(NULL, NULL), -EINVAL);
	assert_false(fsim_ctx_detect(NULL));
	assert_int_equal(fsim_ctx_create(FSIM_MODE_LEGACY, NULL, &ctx), 0);
	assert_int_equal(fsim_ctx_set_detect(ctx, true), -EOPNOTSUPP);
	assert_false(fsim_ctx_detect(ctx));
	assert_int_equal(fsim_ctx_set_detect(ctx, false), 0);
	fsim_ctx_destroy(ctx);
}

static void test_scan_detects_and_splits(void **state)
{
	struct fsim_split_scan s;
	struct world w;

	(void)state;
	example_a(&w, true);
	assert_true(fsim_folio_on_deferred_split(w.thp));	/* a candidate */
	assert_int_equal(fsim_ctx_stat(w.ctx, FSIM_NR_ANON_MAPPED), 512);
	assert_int_equal(fsim_ctx_deferred_split_scan(w.ctx, &s), 0);
	assert_int_equal(s.queued, 1);
	assert_int_equal(s.walked, 1);
	assert_int_equal(s.detected, 1);
	assert_int_equal(s.split, 1);
	assert_int_equal(s.pages_freed, 256);
	assert_int_equal(fsim_ctx_deferred_split_len(w.ctx), 0);
	assert_int_equal(fsim_ctx_stat(w.ctx, FSIM_NR_ANON_MAPPED), 256);
	done(&w);
}

static void test_without_the_part_nothing_is_walked(void **state)
{
	struct fsim_split_scan s;
	struct world w;

	(void)state;
	example_a(&w, false);
	assert_false(fsim_folio_on_deferred_split(w.thp));
	assert_int_equal(fsim_ctx_deferred_split_scan(w.ctx, &s), 0);
	assert_int_equal(s.queued + s.walked + s.detected + s.split, 0);
	assert_int_equal(fsim_ctx_stat(w.ctx, FSIM_NR_ANON_MAPPED), 512);
	done(&w);
}

static void test_pinned_folio_is_flagged_not_split(void **state)
{
	struct fsim_split_scan s;
	struct world w;

	(void)state;
	example_a(&w, true);
	assert_int_equal(fsim_folio_pin(w.thp, fsim_process_mm(w.p), 1), 0);
	assert_int_equal(fsim_ctx_deferred_split_scan(w.ctx, &s), 0);
	assert_int_equal(s.detected, 1);
	assert_int_equal(s.split, 0);
	assert_true(fsim_folio_partially_mapped(w.thp));
	assert_true(fsim_folio_on_deferred_split(w.thp));
	assert_int_equal(fsim_folio_unpin(w.thp, 1), 0);
	assert_int_equal(fsim_ctx_deferred_split_scan(w.ctx, &s), 0);
	assert_int_equal(s.walked, 0);		/* flagged: no walk again */
	assert_int_equal(s.split, 1);
	done(&w);
}

static void test_mapping_outside_page_tables_blocks_the_split(void **state)
{
	struct fsim_split_scan s;
	struct fsim_mm *extra;
	struct world w;

	(void)state;
	example_a(&w, true);
	assert_int_equal(fsim_mm_create(w.ctx, 0, &extra), 0);
	assert_int_equal(fsim_folio_add_anon_rmap(w.thp, extra, FSIM_LEVEL_PTE, 0, 1,
						  false), 0);
	assert_int_equal(fsim_ctx_deferred_split_scan(w.ctx, &s), 0);
	assert_int_equal(s.detected, 1);
	assert_int_equal(s.split, 0);
	assert_true(fsim_folio_on_deferred_split(w.thp));
	assert_int_equal(fsim_folio_remove_rmap(w.thp, extra, FSIM_LEVEL_PTE, 0, 1), 0);
	assert_int_equal(fsim_mm_destroy(extra), 0);
	assert_int_equal(fsim_ctx_deferred_split_scan(w.ctx, &s), 0);
	assert_int_equal(s.split, 1);
	done(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_scan_detects_and_splits),
		cmocka_unit_test(test_without_the_part_nothing_is_walked),
		cmocka_unit_test(test_pinned_folio_is_flagged_not_split),
		cmocka_unit_test(test_mapping_outside_page_tables_blocks_the_split),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
