// SPDX-License-Identifier: MIT
/*
 * drift_sweep: how far /proc readers drift after the series, against a
 * parameter, as tab-separated columns for gnuplot (docs/gen-plots.sh).
 *
 *   drift_sweep pss-uss    a parent maps a PMD-mapped 2 MB THP and forks;
 *                          the child unmaps the first K pages (K = 0..512):
 *                          the parent's Pss and USS (psutil's formulas) in
 *                          6.12 and after the series
 *   drift_sweep anon       a process maps 8 THPs and MADV_DONTNEEDs the same
 *                          fraction of each (0..100%): AnonPages in 6.12
 *                          and after the series
 *
 * It uses only the public API (foliosim/process.h): a model of its own.
 */
#include <stdio.h>
#include <string.h>

#include <foliosim/process.h>

#define THP (2u << 20)


/* The parent's psutil pss and uss after the child unmapped @k pages. */
static int parent_after_child_unmaps(enum fsim_mode mode, unsigned int k,
				     long long *pss, long long *uss)
{
	struct fsim_ctx *ctx;
	struct fsim_process *parent, *child;
	int64_t v;
	int err;

	if (fsim_ctx_create(mode, NULL, &ctx))
		return -1;
	err = fsim_process_create(ctx, &parent) ||
	      fsim_process_mmap(parent, "heap", THP, false, 9) ||
	      fsim_process_access(parent, "heap", 0, THP, true) ||
	      fsim_process_fork(parent, &child) ||
	      (k && fsim_process_munmap(child, "heap", 0, (uint64_t)k << 12)) ||
	      fsim_consumer_value(fsim_consumer_find("psutil", "pss"), parent, &v);
	*pss = v;
	err = err || fsim_consumer_value(fsim_consumer_find("psutil", "uss"), parent, &v);
	*uss = v;
	if (!err)
		err = fsim_process_exit(child) || fsim_process_exit(parent);
	fsim_ctx_destroy(ctx);
	return err ? -1 : 0;
}

static int sweep_pss_uss(void)
{
	unsigned int k;

	printf("# pages_unmapped_by_child\tpss_6.12\tpss_rfc\tuss_6.12\tuss_rfc\n");
	for (k = 0; k <= 512; k += 16) {
		long long pss[2], uss[2];

		if (parent_after_child_unmaps(FSIM_MODE_LEGACY, k, &pss[0], &uss[0]) ||
		    parent_after_child_unmaps(FSIM_MODE_RFC, k, &pss[1], &uss[1]))
			return 1;
		printf("%u\t%lld\t%lld\t%lld\t%lld\n", k, pss[0], pss[1], uss[0], uss[1]);
	}
	return 0;
}

/* AnonPages (kB) after each of 8 THPs lost its first @pages pages. */
static int anon_after_dontneed(enum fsim_mode mode, unsigned int pages, long long *kb)
{
	struct fsim_ctx *ctx;
	struct fsim_process *p;
	int64_t v = 0;
	unsigned int t;
	int err;

	if (fsim_ctx_create(mode, NULL, &ctx))
		return -1;
	err = fsim_process_create(ctx, &p) ||
	      fsim_process_mmap(p, "heap", 8ull * THP, false, 9) ||
	      fsim_process_access(p, "heap", 0, 8ull * THP, true);
	for (t = 0; !err && pages && t < 8; t++)
		err = fsim_process_dontneed(p, "heap", (uint64_t)t * THP, (uint64_t)pages << 12);
	err = err || fsim_consumer_system_value(fsim_consumer_find("numastat -m", "AnonPages"), ctx, &v);
	*kb = v;
	err = err || fsim_process_exit(p);
	fsim_ctx_destroy(ctx);
	return err ? -1 : 0;
}

static int sweep_anon(void)
{
	unsigned int pages;

	printf("# percent_of_each_thp_unmapped\tanon_pages_kb_6.12\tanon_pages_kb_rfc\n");
	for (pages = 0; pages <= 512; pages += 32) {
		long long kb[2];

		if (anon_after_dontneed(FSIM_MODE_LEGACY, pages, &kb[0]) ||
		    anon_after_dontneed(FSIM_MODE_RFC, pages, &kb[1]))
			return 1;
		printf("%.2f\t%lld\t%lld\n", 100.0 * pages / 512, kb[0], kb[1]);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "pss-uss"))
		return sweep_pss_uss();
	if (argc == 2 && !strcmp(argv[1], "anon"))
		return sweep_anon();
	fprintf(stderr, "usage: drift_sweep pss-uss|anon\n");
	return 2;
}
