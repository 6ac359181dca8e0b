// SPDX-License-Identifier: MIT
/*
 * Patch 13/13's example through the C API: a PMD-sized anon folio mapped
 * by two PMDs and one PTE has mapcount 3 and 1025 total mapped pages.
 * Prints the same numbers in both modes where they exist.
 */
#include <stdio.h>

#include <foliosim/foliosim.h>

static int run(enum fsim_mode mode)
{
	struct fsim_ctx *ctx;
	struct fsim_mm *mm;
	struct fsim_folio *folio;
	struct fsim_violation v;
	int err;

	err = fsim_ctx_create(mode, NULL, &ctx);
	if (err)
		return err;
	err = fsim_mm_create(ctx, 0, &mm);
	if (!err)
		err = fsim_folio_create(ctx, 9, FSIM_KIND_ANON, &folio);
	if (!err)	/* do_huge_pmd_anonymous_page(): one PMD */
		err = fsim_folio_add_new_anon_rmap(folio, mm, true);
	/* a second PMD: only after the RFC (13/13) */
	if (!err && fsim_mode_has(mode, FSIM_HAS_ARBITRARY_MAPPINGS))
		err = fsim_folio_add_anon_rmap(folio, mm, FSIM_LEVEL_PMD, 0, 512, false);
	if (!err)
		err = fsim_folio_add_anon_rmap(folio, mm, FSIM_LEVEL_PTE, 3, 1, false);
	if (err) {
		fprintf(stderr, "%s: %s\n", fsim_mode_name(mode), fsim_errname(err));
		fsim_ctx_destroy(ctx);
		return err;
	}
	printf("%-6s mapcount %d, total mapped pages %llu, average %lu, kpagecount[3] %llu\n",
	       fsim_mode_name(mode), fsim_folio_mapcount(folio),
	       (unsigned long long)fsim_folio_total_mapped_pages(folio),
	       fsim_folio_average_page_mapcount(folio),
	       (unsigned long long)fsim_kpagecount(folio, 3));
	err = fsim_check_ctx(ctx, &v);
	if (err)
		fprintf(stderr, "invariant %s: %s\n", v.invariant, v.detail);
	fsim_ctx_destroy(ctx);
	return err;
}

int main(void)
{
	return run(FSIM_MODE_LEGACY) || run(FSIM_MODE_RFC);
}
