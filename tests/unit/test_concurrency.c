// SPDX-License-Identifier: MIT
/*
 * Four threads, each with its own mm, map and unmap one shared order-9
 * folio over and over (rfc: PTEs and PMDs under the large mapcount bit
 * spinlock; legacy: PTEs with per-page atomics).  At the quiescent point
 * after join every invariant must hold and the folio must be unmapped.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include <foliosim/foliosim.h>

#define NTHREADS 4

/* ThreadSanitizer finds races by itself and makes every access ~10x
 * slower: fewer iterations there. */
#if defined(__SANITIZE_THREAD__)
#define ITERATION_DIVISOR 10
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ITERATION_DIVISOR 10
#endif
#endif
#ifndef ITERATION_DIVISOR
#define ITERATION_DIVISOR 1
#endif

struct worker {
	struct fsim_folio *folio;
	struct fsim_mm *mm;
	bool use_pmd;
	int iterations;
	unsigned int seed;
	int failures;		/* calls that did not return 0 */
	int first_error;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	unsigned int x = w->seed;
	int i;

	for (i = 0; i < w->iterations; i++) {
		unsigned long page, nr;
		enum fsim_level level = FSIM_LEVEL_PTE;
		int err;

		x = x * 1103515245u + 12345u;
		if (w->use_pmd && (x >> 16) % 4 == 0) {
			level = FSIM_LEVEL_PMD;
			page = 0;
			nr = 512;
		} else {
			/* long, overlapping ranges: threads collide on the
			 * same per-page counters */
			page = (x >> 8) % 256;
			nr = 1 + (x >> 20) % 256;
		}
		err = fsim_folio_add_anon_rmap(w->folio, w->mm, level, page, nr, false);
		/* a second overlapping mapping now and then */
		if (!err && i % 7 == 0)
			err = fsim_folio_add_anon_rmap(w->folio, w->mm, FSIM_LEVEL_PTE,
						       page, 1, false);
		if (!err && i % 7 == 0)
			err = fsim_folio_remove_rmap(w->folio, w->mm, FSIM_LEVEL_PTE,
						     page, 1);
		if (!err)
			err = fsim_folio_remove_rmap(w->folio, w->mm, level, page, nr);
		if (err) {
			if (!w->failures++)
				w->first_error = err;
		}
	}
	return NULL;
}

/*
 * Sched hook: a short busy wait between the read and the write of the
 * counters updated under the large mapcount lock, so that a broken lock
 * would lose updates almost every run (the lock makes it harmless).
 */
static void widen_window(void *arg, const char *where)
{
	volatile unsigned int spin;

	(void)arg;
	if (where[0] != 'l' || where[1] != 'a')	/* "large_mapcount" only */
		return;
	for (spin = 0; spin < 256; spin++)
		;
}

static void run(enum fsim_mode mode, bool use_pmd, bool keep_baseline,
		int iterations)
{
	struct fsim_ctx *ctx;
	struct fsim_folio *f;
	struct fsim_mm *base = NULL;
	struct worker w[NTHREADS];
	pthread_t tid[NTHREADS];
	struct fsim_violation v = { { 0 }, { 0 } };
	int i;

	assert_int_equal(fsim_ctx_create(mode, NULL, &ctx), 0);
	fsim_ctx_set_concurrent(ctx, true);
	fsim_ctx_set_sched_hook(ctx, widen_window, NULL);
	assert_int_equal(fsim_folio_create(ctx, 9, FSIM_KIND_ANON, &f), 0);
	if (keep_baseline) {
		/* one mapping that stays, so the folio never drops to 0; not
		 * exclusive, since the threads map its first page again (a
		 * page still AnonExclusive may not be: the kernel warns) */
		assert_int_equal(fsim_mm_create(ctx, 0, &base), 0);
		assert_int_equal(fsim_folio_add_new_anon_rmap(f, base, false), 0);
	}
	for (i = 0; i < NTHREADS; i++) {
		w[i].folio = f;
		w[i].use_pmd = use_pmd;
		w[i].iterations = iterations / ITERATION_DIVISOR;
		w[i].seed = 0x1234u + 77u * (unsigned int)i;
		w[i].failures = 0;
		w[i].first_error = 0;
		assert_int_equal(fsim_mm_create(ctx, 0, &w[i].mm), 0);
	}
	for (i = 0; i < NTHREADS; i++)
		assert_int_equal(pthread_create(&tid[i], NULL, worker_main, &w[i]), 0);
	for (i = 0; i < NTHREADS; i++)
		assert_int_equal(pthread_join(tid[i], NULL), 0);

	for (i = 0; i < NTHREADS; i++)
		if (w[i].failures)
			fail_msg("thread %d: %d calls failed, first with %s", i,
				 w[i].failures, fsim_errname(w[i].first_error));
	if (fsim_check_ctx(ctx, &v))
		fail_msg("%s mode: fsim_check_ctx: %s: %s", fsim_mode_name(mode),
			 v.invariant, v.detail);

	if (keep_baseline) {
		struct fsim_slot s[2];
		bool shared;

		assert_int_equal(fsim_folio_mapcount(f), 1);
		assert_int_equal(fsim_folio_total_mapped_pages(f), 512);
		assert_int_equal(fsim_ctx_stat(ctx, FSIM_NR_ANON_MAPPED), 512);
		assert_int_equal(fsim_ctx_stat(ctx, FSIM_NR_ANON_THPS), 512);
		if (fsim_mode_has(mode, FSIM_HAS_MM_SLOTS)) {
			/* the baseline mm's slot survived every race */
			assert_int_equal(fsim_folio_slots(f, s, &shared), 0);
			assert_int_equal(s[0].mm_id, fsim_mm_id(base));
			assert_int_equal(s[0].mapcount, 1);
			assert_false(shared);
		}
		assert_int_equal(fsim_folio_remove_rmap(f, base, FSIM_LEVEL_PMD, 0, 512), 0);
	}
	assert_int_equal(fsim_folio_mapcount(f), 0);
	assert_int_equal(fsim_folio_total_mapped_pages(f), 0);
	assert_int_equal(fsim_ctx_stat(ctx, FSIM_NR_ANON_MAPPED), 0);
	assert_int_equal(fsim_ctx_stat(ctx, FSIM_NR_ANON_THPS), 0);
	if (fsim_mode_has(mode, FSIM_HAS_MM_SLOTS))
		assert_int_equal(fsim_folio_mm_ids_word(f), 0);
	if (fsim_mode_has(mode, FSIM_HAS_PAGE_MAPCOUNT))
		assert_int_equal(fsim_folio_nr_pages_mapped(f), 0);
	assert_int_equal(fsim_check_ctx(ctx, NULL), 0);
	fsim_ctx_destroy(ctx);
}

static void rfc_ptes_and_pmds(void **state)
{
	(void)state;
	run(FSIM_MODE_RFC, true, false, 20000);
}

static void rfc_ptes_and_pmds_with_baseline(void **state)
{
	(void)state;
	run(FSIM_MODE_RFC, true, true, 20000);
}

static void legacy_ptes(void **state)
{
	(void)state;
	run(FSIM_MODE_LEGACY, false, false, 60000);
}

static void legacy_ptes_with_baseline(void **state)
{
	(void)state;
	run(FSIM_MODE_LEGACY, false, true, 60000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rfc_ptes_and_pmds),
		cmocka_unit_test(rfc_ptes_and_pmds_with_baseline),
		cmocka_unit_test(legacy_ptes),
		cmocka_unit_test(legacy_ptes_with_baseline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
