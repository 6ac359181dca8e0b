// SPDX-License-Identifier: MIT
/*
 * The consumers' figures (fsim_consumer_value()): what psutil, smem,
 * ps_mem, libmeminfo, Redis, page-types, numastat and cAdvisor read, in
 * 6.12 and after the series, for the cases the project's users asked
 * about.  The numbers are worked out in each test's comment.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <foliosim/process.h>

static size_t consumer(const char *tool, const char *figure)
{
	int i = fsim_consumer_find(tool, figure);

	if (i < 0)
		fail_msg("no consumer %s %s: %s", tool, figure, fsim_errname(i));
	return (size_t)i;
}

static int64_t figure(const struct fsim_process *p, const char *tool, const char *fig)
{
	int64_t v = -1;

	assert_int_equal(fsim_consumer_value(consumer(tool, fig), p, &v), 0);
	return v;
}

/* A parent with a PMD-mapped 2 MB THP forks; the child unmaps [0, 1M). */
struct half {
	struct fsim_ctx *ctx;
	struct fsim_process *parent, *child;
};

static void half_free(struct half *h)
{
	assert_int_equal(fsim_process_exit(h->child), 0);
	assert_int_equal(fsim_process_exit(h->parent), 0);
	fsim_ctx_destroy(h->ctx);
}

static void half_unmapped(enum fsim_mode mode, struct half *h)
{
	assert_int_equal(fsim_ctx_create(mode, NULL, &h->ctx), 0);
	assert_int_equal(fsim_process_create(h->ctx, &h->parent), 0);
	assert_int_equal(fsim_process_mmap(h->parent, "heap", 2 << 20, false, 9), 0);
	assert_int_equal(fsim_process_access(h->parent, "heap", 0, 2 << 20, true), 0);
	assert_int_equal(fsim_process_fork(h->parent, &h->child), 0);
	assert_int_equal(fsim_process_munmap(h->child, "heap", 0, 1 << 20), 0);
}

/*
 * 6.12: the parent alone maps pages 0-255 (1024 kB private, Pss 1024) and
 * shares 256-511 with the child (512 kB of Pss): USS 1024, Pss 1536.
 * RFC: two mms map the folio, so all of it is shared: USS 0; the average
 * mapcount (512 + 256 + 256) >> 9 = 2 halves the 2048 kB: Pss 1024 (-33%).
 */
static void psutil_smem_and_ps_mem_of_a_parent(void **state)
{
	struct half legacy, rfc;

	(void)state;
	half_unmapped(FSIM_MODE_LEGACY, &legacy);
	half_unmapped(FSIM_MODE_RFC, &rfc);
	assert_int_equal(figure(legacy.parent, "psutil", "uss"), 1024);
	assert_int_equal(figure(rfc.parent, "psutil", "uss"), 0);
	assert_int_equal(figure(legacy.parent, "psutil", "pss"), 1536);
	assert_int_equal(figure(rfc.parent, "psutil", "pss"), 1024);
	assert_int_equal(figure(legacy.parent, "smem", "USS"), 1024);
	assert_int_equal(figure(rfc.parent, "smem", "USS"), 0);
	assert_int_equal(figure(legacy.parent, "ps_mem", "Private"), 1024);
	assert_int_equal(figure(rfc.parent, "ps_mem", "Shared"), 1024);
	assert_int_equal(figure(legacy.parent, "ps_mem", "Shared"), 512);
	/* Dirty is dirty either way: pmap -x does not move. */
	assert_int_equal(figure(legacy.parent, "procps pmap -x", "Dirty"),
			 figure(rfc.parent, "procps pmap -x", "Dirty"));
	half_free(&legacy);
	half_free(&rfc);
}

/*
 * libmeminfo's page walk: 6.12's kpagecount is 1 for pages 0-255 and 2
 * for 256-511: USS 1024, PSS 1024 + 256 * 4 / 2 = 1536.  RFC: every page
 * reads the average 2: USS 0, PSS 512 * (4 / 2) = 1024.  page-types: 256
 * pages with bit 56 in 6.12, none after.
 */
static void libmeminfo_and_page_types_of_a_parent(void **state)
{
	struct half legacy, rfc;

	(void)state;
	half_unmapped(FSIM_MODE_LEGACY, &legacy);
	half_unmapped(FSIM_MODE_RFC, &rfc);
	assert_int_equal(figure(legacy.parent, "libmeminfo", "USS"), 1024);
	assert_int_equal(figure(rfc.parent, "libmeminfo", "USS"), 0);
	assert_int_equal(figure(legacy.parent, "libmeminfo", "PSS"), 1536);
	assert_int_equal(figure(rfc.parent, "libmeminfo", "PSS"), 1024);
	assert_int_equal(figure(legacy.parent, "page-types -r", "mmap_exclusive"), 256);
	assert_int_equal(figure(rfc.parent, "page-types -r", "mmap_exclusive"), 0);
	half_free(&legacy);
	half_free(&rfc);
}

/*
 * Redis's bgsave child writes one page of the parent's THP: the child
 * copies it (4 kB private dirty) in both kernels... and its 2044 kB still
 * shared with the parent are Shared_Dirty either way: the CoW figure is
 * 4 kB in both.  Then the parent unmaps the THP but one page: in 6.12
 * the child's other 2043 pages become private (mapcount 1), in the RFC
 * the folio stays "maybe shared" (two mm ids were on it): 0 kB more.
 */
static void redis_fork_cow(void **state)
{
	enum fsim_mode modes[2] = { FSIM_MODE_LEGACY, FSIM_MODE_RFC };
	int64_t cow[2][2];
	int m;

	(void)state;
	for (m = 0; m < 2; m++) {
		struct fsim_ctx *ctx;
		struct fsim_process *parent, *child;

		assert_int_equal(fsim_ctx_create(modes[m], NULL, &ctx), 0);
		assert_int_equal(fsim_process_create(ctx, &parent), 0);
		assert_int_equal(fsim_process_mmap(parent, "db", 2 << 20, false, 9), 0);
		assert_int_equal(fsim_process_access(parent, "db", 0, 2 << 20, true), 0);
		assert_int_equal(fsim_process_fork(parent, &child), 0);
		assert_int_equal(fsim_process_access(child, "db", 0, 4096, true), 0);
		cow[m][0] = figure(child, "Redis", "fork CoW");
		assert_int_equal(fsim_process_munmap(parent, "db", 4096, (2 << 20) - 4096), 0);
		cow[m][1] = figure(child, "Redis", "fork CoW");
		assert_int_equal(fsim_process_exit(child), 0);
		assert_int_equal(fsim_process_exit(parent), 0);
		fsim_ctx_destroy(ctx);
	}
	assert_int_equal(cow[0][0], cow[1][0]);
	assert_true(cow[0][1] > cow[1][1]);
	assert_int_equal(cow[0][1] - cow[1][1], 2044);
}

/* 4 kB left of a 2 MB THP: AnonPages 4 kB in 6.12, 2048 kB after. */
static void numastat_and_cadvisor_of_a_partly_unmapped_thp(void **state)
{
	enum fsim_mode modes[2] = { FSIM_MODE_LEGACY, FSIM_MODE_RFC };
	const int64_t want[2] = { 4, 2048 };
	int m;

	(void)state;
	for (m = 0; m < 2; m++) {
		struct fsim_ctx *ctx;
		struct fsim_process *p;
		int64_t v;

		assert_int_equal(fsim_ctx_create(modes[m], NULL, &ctx), 0);
		assert_int_equal(fsim_process_create(ctx, &p), 0);
		assert_int_equal(fsim_process_mmap(p, "heap", 2 << 20, false, 9), 0);
		assert_int_equal(fsim_process_access(p, "heap", 0, 2 << 20, true), 0);
		assert_int_equal(fsim_process_dontneed(p, "heap", 4096, (2 << 20) - 4096), 0);
		assert_int_equal(fsim_consumer_system_value(consumer("numastat -m", "AnonPages"),
							    ctx, &v), 0);
		assert_int_equal(v, want[m]);
		assert_int_equal(fsim_consumer_system_value(consumer("cAdvisor", "RSS"), ctx, &v),
				 0);
		assert_int_equal(v, want[m]);
		/* a system-wide consumer has no per-process figure, and back */
		assert_int_equal(fsim_consumer_value(consumer("cAdvisor", "RSS"), p, &v), -EINVAL);
		assert_int_equal(fsim_consumer_system_value(consumer("psutil", "uss"), ctx, &v),
				 -EINVAL);
		assert_int_equal(fsim_process_exit(p), 0);
		fsim_ctx_destroy(ctx);
	}
	assert_null(fsim_consumer_at(fsim_consumer_count()));
}

/* "not found" is -ENOENT, as everywhere in the API (0.4.0). */
static void find_unknown_consumer(void **state)
{
	(void)state;
	assert_true(fsim_consumer_find("psutil", "uss") >= 0);
	assert_int_equal(fsim_consumer_find("psutil", "no such figure"), -ENOENT);
	assert_int_equal(fsim_consumer_find(NULL, "uss"), -EINVAL);
	assert_int_equal(fsim_consumer_find("psutil", NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(find_unknown_consumer),
		cmocka_unit_test(psutil_smem_and_ps_mem_of_a_parent),
		cmocka_unit_test(libmeminfo_and_page_types_of_a_parent),
		cmocka_unit_test(redis_fork_cow),
		cmocka_unit_test(numastat_and_cadvisor_of_a_partly_unmapped_thp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
