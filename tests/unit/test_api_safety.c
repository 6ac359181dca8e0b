// SPDX-License-Identifier: MIT
/*
 * Every public call is safe on NULL and out-of-range arguments: mutating
 * calls return -EINVAL, change nothing (the folio's state digest) and say
 * why (fsim_last_refusal()); queries return their documented value, and
 * fsim_folio_page_info() is their checked form (issue 17, item 1).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <foliosim/foliosim.h>

struct world {
	struct fsim_ctx *ctx;
	struct fsim_mm *a, *b;
	struct fsim_folio *thp;		/* order 9, anon, PMD-mapped by a */
};

static int setup(void **state)
{
	static struct world w;

	if (fsim_ctx_create(FSIM_MODE_RFC, NULL, &w.ctx) ||
	    fsim_mm_create(w.ctx, 0, &w.a) || fsim_mm_create(w.ctx, 0, &w.b) ||
	    fsim_folio_create(w.ctx, 9, FSIM_KIND_ANON, &w.thp) ||
	    fsim_folio_add_new_anon_rmap(w.thp, w.a, true))
		return -1;
	*state = &w;
	return 0;
}

static int teardown(void **state)
{
	struct world *w = *state;

	fsim_ctx_destroy(w->ctx);
	return 0;
}

/* A refusal: the errno, an unchanged folio, and a reason containing @why. */
#define assert_refused(call, err, f, why) do {					\
	uint64_t before_ = fsim_folio_state_digest(f);				\
	assert_int_equal((call), (err));					\
	assert_true(fsim_folio_state_digest(f) == before_);			\
	assert_non_null(strstr(fsim_last_refusal(), (why)));			\
} while (0)

static void test_mutating_calls_refuse_null(void **state)
{
	struct world *w = *state;

	assert_refused(fsim_folio_add_anon_rmap(NULL, w->a, FSIM_LEVEL_PTE, 0, 1, false),
		       -EINVAL, w->thp, "no folio");
	assert_refused(fsim_folio_add_anon_rmap(w->thp, NULL, FSIM_LEVEL_PTE, 0, 1, false),
		       -EINVAL, w->thp, "no mm");
	assert_refused(fsim_folio_remove_rmap(w->thp, NULL, FSIM_LEVEL_PMD, 0, 512),
		       -EINVAL, w->thp, "no mm");
	assert_refused(fsim_folio_try_dup_anon_rmap(w->thp, w->b, NULL, FSIM_LEVEL_PMD,
						    0, 512), -EINVAL, w->thp, "no mm");
	assert_refused(fsim_folio_pin(w->thp, NULL, 1), -EINVAL, w->thp, "no mm");
	assert_refused(fsim_folio_unpin(NULL, 1), -EINVAL, w->thp, "no folio");
	assert_refused(fsim_folio_set_anon_exclusive(NULL, 0, true), -EINVAL, w->thp,
		       "no folio");
	assert_refused(fsim_folio_free(NULL), -EINVAL, w->thp, "no folio");
	assert_refused(fsim_mm_destroy(NULL), -EINVAL, w->thp, "no mm");
	assert_refused(fsim_mm_create(NULL, 0, NULL), -EINVAL, w->thp, "no context");
	assert_refused(fsim_folio_create(w->ctx, 9, FSIM_KIND_ANON, NULL), -EINVAL,
		       w->thp, "no context or no result");
	assert_refused(fsim_check_folio(NULL, NULL), -EINVAL, w->thp, "no folio");
	assert_refused(fsim_check_ctx(NULL, NULL), -EINVAL, w->thp, "no context");
}

static void test_rule_refusals_say_which_rule(void **state)
{
	struct world *w = *state;

	assert_refused(fsim_folio_remove_rmap(w->thp, w->a, (enum fsim_level)7, 0, 1),
		       -EINVAL, w->thp, "no such level");
	assert_refused(fsim_folio_remove_rmap(w->thp, w->a, FSIM_LEVEL_PMD, 0, 256),
		       -EINVAL, w->thp, "not aligned");
	assert_refused(fsim_folio_remove_rmap(w->thp, w->a, FSIM_LEVEL_PTE, 1ul << 40, 1),
		       -EINVAL, w->thp, "leaves the folio");
	assert_refused(fsim_folio_remove_rmap(w->thp, w->b, FSIM_LEVEL_PMD, 0, 512),
		       -EINVAL, w->thp, "does not map");
	assert_refused(fsim_folio_add_file_rmap(w->thp, w->a, FSIM_LEVEL_PTE, 0, 1),
		       -EINVAL, w->thp, "file rmap call on an anonymous folio");
	assert_refused(fsim_folio_add_new_anon_rmap(w->thp, w->a, true), -EINVAL,
		       w->thp, "mapped before");
	assert_refused(fsim_folio_unpin(w->thp, 1), -EINVAL, w->thp, "more pins");
	assert_refused(fsim_mm_destroy(w->a), -EBUSY, w->thp, "still maps");
}

/* fork() copies from another mm; a dup onto its own source is misuse. */
static void test_dup_onto_its_source_is_refused(void **state)
{
	struct world *w = *state;

	assert_refused(fsim_folio_try_dup_anon_rmap(w->thp, w->a, w->a, FSIM_LEVEL_PMD,
						    0, 512), -EINVAL, w->thp, "same mm");
	assert_int_equal(fsim_folio_mapcount(w->thp), 1);
}

static void test_queries_on_null_and_out_of_range(void **state)
{
	struct world *w = *state;
	struct fsim_slot slots[2];
	struct fsim_smaps acc, zero;
	struct fsim_page_info pi;
	bool shared;

	assert_int_equal(fsim_folio_mapcount(NULL), 0);
	assert_false(fsim_folio_mapped(NULL));
	assert_int_equal(fsim_folio_nr_pages(NULL), 0);
	assert_true(fsim_folio_state_digest(NULL) == 0);
	assert_int_equal(fsim_folio_entire_mapcount(NULL), -1);
	assert_int_equal(fsim_folio_precise_page_mapcount(w->thp, 0), -1);	/* rfc */
	assert_int_equal(fsim_ctx_stat(NULL, FSIM_NR_ANON_MAPPED), 0);
	assert_int_equal(fsim_ctx_mode(NULL), FSIM_NR_MODES);
	assert_null(fsim_ctx_arch(NULL));
	assert_int_equal(fsim_mm_id(NULL), 0);
	/* a page far outside the folio: 0 / false, not a made-up figure */
	assert_true(fsim_kpagecount(w->thp, 1ul << 40) == 0);
	assert_true(fsim_numa_mapmax(w->thp, 99999) == 0);
	assert_false(fsim_pagemap_exclusive(w->thp, 99999));
	assert_false(fsim_folio_anon_exclusive(w->thp, 99999));
	assert_true(fsim_oracle_true_mapcount(w->thp, 99999) == 0);
	/* the checked form */
	assert_int_equal(fsim_folio_page_info(w->thp, 99999, &pi), -EINVAL);
	assert_int_equal(fsim_folio_page_info(NULL, 0, &pi), -EINVAL);
	assert_int_equal(fsim_folio_page_info(w->thp, 0, NULL), -EINVAL);
	assert_int_equal(fsim_folio_page_info(w->thp, 3, &pi), 0);
	assert_true(pi.kpagecount == 1 && pi.pagemap_exclusive && pi.true_mapcount == 1);
	/* slots and smaps: errors, nothing written */
	assert_int_equal(fsim_folio_slots(w->thp, NULL, &shared), -EINVAL);
	assert_int_equal(fsim_folio_slots(NULL, slots, &shared), -EINVAL);
	memset(&acc, 0, sizeof(acc));
	memset(&zero, 0, sizeof(zero));
	assert_int_equal(fsim_smaps_account(w->thp, FSIM_LEVEL_PMD, 0, false, NULL), -EINVAL);
	assert_int_equal(fsim_smaps_account(NULL, FSIM_LEVEL_PTE, 0, false, &acc), -EINVAL);
	assert_int_equal(fsim_smaps_account(w->thp, (enum fsim_level)7, 0, false, &acc),
			 -EINVAL);
	assert_int_equal(fsim_smaps_account(w->thp, FSIM_LEVEL_PTE, 512, false, &acc),
			 -EINVAL);
	assert_int_equal(fsim_smaps_account(w->thp, FSIM_LEVEL_PUD, 0, false, &acc),
			 -EINVAL);
	assert_memory_equal(&acc, &zero, sizeof(acc));
	/* the PMD entry a holds exists; a PTE of page 0 is only looked at */
	assert_int_equal(fsim_smaps_account(w->thp, FSIM_LEVEL_PMD, 0, false, &acc), 0);
	assert_true(acc.resident == 2u << 20);
}

static void test_pmd_entry_that_no_mm_holds(void **state)
{
	struct world *w = *state;
	struct fsim_smaps acc;

	assert_int_equal(fsim_folio_remove_rmap(w->thp, w->a, FSIM_LEVEL_PMD, 0, 512), 0);
	memset(&acc, 0, sizeof(acc));
	assert_int_equal(fsim_smaps_account(w->thp, FSIM_LEVEL_PMD, 0, false, &acc),
			 -EINVAL);
	assert_non_null(strstr(fsim_last_refusal(), "no mm maps"));
	assert_true(acc.resident == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_mutating_calls_refuse_null, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rule_refusals_say_which_rule, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_dup_onto_its_source_is_refused, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_queries_on_null_and_out_of_range, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_pmd_entry_that_no_mm_holds, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
