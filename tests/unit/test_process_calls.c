// SPDX-License-Identifier: MIT
/*
 * The process layer's newer calls refuse what they cannot do, with the
 * errno the kernel (or "not modelled") gives, and change nothing then:
 * mprotect, mremap, MADV_COLLAPSE, MADV_PAGEOUT, MAP_PRIVATE files.
 * What they do when they succeed is checked by the scenario files
 * (tests/scenarios/proc-{vma,collapse,pageout,files}.scn), against the
 * booted kernels too.
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
	struct fsim_process *p;
};

static int setup(void **state)
{
	static struct world w;

	if (fsim_ctx_create(FSIM_MODE_RFC, NULL, &w.ctx) ||
	    fsim_process_create(w.ctx, &w.p))
		return -1;
	*state = &w;
	return 0;
}

static int teardown(void **state)
{
	struct world *w = *state;

	fsim_process_exit(w->p);
	fsim_ctx_destroy(w->ctx);
	return 0;
}

/* What /proc shows of a region, to compare before and after a refusal. */
struct view {
	struct fsim_smaps_kb kb;
	struct fsim_page_view page[8];
};

static void view_of(const struct fsim_process *p, const char *region, struct view *v)
{
	uint64_t bytes, i;

	memset(v, 0, sizeof(*v));
	assert_int_equal(fsim_process_smaps_kb(p, region, &v->kb), 0);
	assert_int_equal(fsim_process_region_size(p, region, &bytes), 0);
	for (i = 0; i < 8; i++)
		assert_int_equal(fsim_process_page(p, region, i * (bytes / 8), &v->page[i]), 0);
}

static void assert_unchanged(const struct fsim_process *p, const char *region,
			     const struct view *before)
{
	struct view now;

	view_of(p, region, &now);
	assert_memory_equal(&now, before, sizeof(now));
}

static void test_mprotect_refusals(void **state)
{
	struct world *w = *state;
	struct view v;

	assert_int_equal(fsim_process_mmap(w->p, "heap", 4 * M, false, 9), 0);
	assert_int_equal(fsim_process_access(w->p, "heap", 0, 2 * M, true), 0);
	assert_int_equal(fsim_process_munmap(w->p, "heap", 3 * M, 4 * K), 0);
	view_of(w->p, "heap", &v);
	/* a hole in the range: ENOMEM; PROT_EXEC and friends: EINVAL */
	assert_int_equal(fsim_process_mprotect(w->p, "heap", 2 * M, 2 * M, 0), -ENOMEM);
	assert_int_equal(fsim_process_mprotect(w->p, "heap", 0, 4 * K, 4), -EINVAL);
	assert_int_equal(fsim_process_mprotect(w->p, "heap", 1, 4 * K, 0), -EINVAL);
	assert_unchanged(w->p, "heap", &v);
	/* PROT_NONE: the split THP stays mapped; touching it is SIGSEGV */
	assert_int_equal(fsim_process_mprotect(w->p, "heap", 1 * M, 4 * K, 0), 0);
	view_of(w->p, "heap", &v);
	assert_int_equal(v.kb.rss, 2048);
	assert_int_equal(v.kb.anon_huge, 0);
	assert_int_equal(fsim_process_access(w->p, "heap", 1 * M, 4 * K, false), -EFAULT);
	assert_int_equal(fsim_process_mprotect(w->p, "heap", 1 * M, 4 * K, FSIM_PROT_READ), 0);
	assert_int_equal(fsim_process_access(w->p, "heap", 1 * M, 4 * K, true), -EFAULT);
	/* a refused write faults nothing in, even pages before the bad one */
	view_of(w->p, "heap", &v);
	assert_int_equal(fsim_process_access(w->p, "heap", 2 * M, 2 * M, true), -EFAULT);
	assert_unchanged(w->p, "heap", &v);
}

static void test_mremap_refusals(void **state)
{
	struct world *w = *state;
	struct view v;

	assert_int_equal(fsim_process_mmap(w->p, "a", 2 * M, false, 9), 0);
	assert_int_equal(fsim_process_mmap(w->p, "b", 2 * M, false, 9), 0);
	assert_int_equal(fsim_process_access(w->p, "a", 0, 2 * M, true), 0);
	assert_int_equal(fsim_process_mremap(w->p, "a", "b", true), -EEXIST);
	assert_int_equal(fsim_process_mremap(w->p, "nosuch", "c", true), -EINVAL);
	/* two VMAs (a read-only page in the middle): not one VMA, EFAULT */
	assert_int_equal(fsim_process_mprotect(w->p, "a", 1 * M, 4 * K, FSIM_PROT_READ), 0);
	view_of(w->p, "a", &v);
	assert_int_equal(fsim_process_mremap(w->p, "a", "c", true), -EFAULT);
	assert_unchanged(w->p, "a", &v);
	/* moved one page off the PMD alignment: a THP fault there would need
	 * the virtual address, which the model does not keep */
	assert_int_equal(fsim_process_mremap(w->p, "b", "moved", false), 0);
	view_of(w->p, "moved", &v);
	assert_int_equal(fsim_process_access(w->p, "moved", 0, 4 * K, true), -EOPNOTSUPP);
	assert_unchanged(w->p, "moved", &v);
}

static void test_collapse_refusals(void **state)
{
	struct world *w = *state;
	struct fsim_page_view pv;
	struct view v;

	assert_int_equal(fsim_process_mmap(w->p, "small", 2 * M, false, 0), 0);
	assert_int_equal(fsim_process_access(w->p, "small", 0, 64 * K, true), 0);
	assert_int_equal(fsim_process_collapse(w->p, "small", 0, 2 * M), -EINVAL);
	assert_int_equal(fsim_process_mmap(w->p, "heap", 4 * M, false, 4), 0);
	/* nothing there yet: no PMD, no table (SCAN_PMD_NONE) */
	assert_int_equal(fsim_process_collapse(w->p, "heap", 0, 2 * M), -EINVAL);
	/* a pinned page: SCAN_PAGE_COUNT, EAGAIN, nothing collapsed */
	assert_int_equal(fsim_process_access(w->p, "heap", 0, 64 * K, true), 0);
	assert_int_equal(fsim_process_page(w->p, "heap", 0, &pv), 0);
	assert_int_equal(fsim_folio_pin(pv.folio, fsim_process_mm(w->p), 1), 0);
	view_of(w->p, "heap", &v);
	assert_int_equal(fsim_process_collapse(w->p, "heap", 0, 2 * M), -EAGAIN);
	assert_unchanged(w->p, "heap", &v);
	assert_int_equal(fsim_folio_unpin(pv.folio, 1), 0);
	assert_int_equal(fsim_process_collapse(w->p, "heap", 0, 2 * M), 0);
	view_of(w->p, "heap", &v);
	assert_int_equal(v.kb.anon_huge, 2048);
	/* a shmem region: collapse_file() is not modelled */
	assert_int_equal(fsim_process_mmap(w->p, "shm", 2 * M, true, 9), 0);
	assert_int_equal(fsim_process_collapse(w->p, "shm", 0, 2 * M), -EOPNOTSUPP);
}

static void test_pageout_refusals(void **state)
{
	struct world *w = *state;
	struct fsim_process *child = NULL;
	struct view v;

	assert_int_equal(fsim_process_mmap(w->p, "mthp", 256 * K, false, 4), 0);
	assert_int_equal(fsim_process_access(w->p, "mthp", 0, 256 * K, true), 0);
	view_of(w->p, "mthp", &v);
	/* a range that cuts an mTHP: 6.12 splits it, not modelled */
	assert_int_equal(fsim_process_pageout(w->p, "mthp", 0, 32 * K), -EOPNOTSUPP);
	assert_unchanged(w->p, "mthp", &v);
	assert_int_equal(fsim_process_pageout(w->p, "mthp", 0, 64 * K), 0);
	view_of(w->p, "mthp", &v);
	assert_int_equal(v.kb.swap, 64);
	/* swap-in in an mTHP region: 6.12 swaps in large folios, not modelled */
	assert_int_equal(fsim_process_access(w->p, "mthp", 0, 4 * K, false), -EOPNOTSUPP);
	/* fork over swap entries (a shared swap slot): not modelled */
	assert_int_equal(fsim_process_fork(w->p, &child), -EOPNOTSUPP);
	assert_null(child);
	assert_unchanged(w->p, "mthp", &v);
	assert_int_equal(fsim_process_pageout(w->p, "nosuch", 0, 4 * K), -EINVAL);
}

static void test_file_refusals(void **state)
{
	struct world *w = *state;
	struct fsim_process *q;

	assert_int_equal(fsim_process_mmap_file(w->p, "text", 64 * K, "lib", false, 0), 0);
	assert_int_equal(fsim_process_mmap_file(w->p, "text", 64 * K, "lib", false, 0), -EEXIST);
	assert_int_equal(fsim_process_create(w->ctx, &q), 0);
	/* the file exists: another kind, another order or a larger size */
	assert_int_equal(fsim_process_mmap_file(q, "t", 64 * K, "lib", true, 0), -EINVAL);
	assert_int_equal(fsim_process_mmap_file(q, "t", 64 * K, "lib", false, 2), -EINVAL);
	assert_int_equal(fsim_process_mmap_file(q, "t", 128 * K, "lib", false, 0), -EINVAL);
	assert_int_equal(fsim_process_mmap_file(q, "t", 64 * K, "", false, 0), -EINVAL);
	/* the two share the page cache: q's read maps what p's read cached */
	assert_int_equal(fsim_process_access(w->p, "text", 0, 64 * K, false), 0);
	assert_int_equal(fsim_process_mmap_file(q, "t", 32 * K, "lib", false, 0), 0);
	assert_int_equal(fsim_process_access(q, "t", 0, 4 * K, false), 0);
	{
		struct fsim_page_view a, b;

		assert_int_equal(fsim_process_page(w->p, "text", 8 * K, &a), 0);
		assert_int_equal(fsim_process_page(q, "t", 8 * K, &b), 0);
		assert_ptr_equal(a.folio, b.folio);	/* fault-around mapped it */
		assert_int_equal(a.kpagecount, 2);
	}
	assert_int_equal(fsim_process_exit(q), 0);
}

/* An rmap call behind the process layer's back (the PTEs of page 0 taken
 * away at rmap level) makes its own later call, the munmap's zap, be
 * refused: the checker names it instead of letting it pass. */
static void test_refused_rmap_call_is_reported(void **state)
{
	struct world *w = *state;
	struct fsim_page_view v;
	struct fsim_violation viol;

	assert_int_equal(fsim_process_mmap(w->p, "meddled", 64 * K, false, 0), 0);
	assert_int_equal(fsim_process_access(w->p, "meddled", 0, 4 * K, true), 0);
	assert_int_equal(fsim_process_page(w->p, "meddled", 0, &v), 0);
	assert_int_equal(fsim_check_ctx(w->ctx, NULL), 0);
	assert_int_equal(fsim_folio_remove_rmap(v.folio, fsim_process_mm(w->p),
						FSIM_LEVEL_PTE, 0, 1), 0);
	assert_int_equal(fsim_process_munmap(w->p, "meddled", 0, 4 * K), 0);
	assert_int_equal(fsim_check_ctx(w->ctx, &viol), -EFAULT);
	assert_string_equal(viol.invariant, "process_rmap_calls_succeed");
	assert_non_null(strstr(viol.detail, "zap_range: remove_rmap(PTEs)"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_refused_rmap_call_is_reported,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_mprotect_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mremap_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_collapse_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pageout_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_refusals, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
