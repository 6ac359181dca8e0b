// SPDX-License-Identifier: MIT
/*
 * A program that names its own functions like libfoliosim's internal ones
 * (rangeset_add, oracle_init, deferred_split_folio) links against the
 * static archive, which exports only fsim_* (issue 17), and both its own
 * functions and the library work.
 */
#include <stdio.h>

#include <foliosim/foliosim.h>

int rangeset_add(int a, int b);
int oracle_init(void);
void deferred_split_folio(void);

int rangeset_add(int a, int b)
{
	return a + b;
}

int oracle_init(void)
{
	return 42;
}

void deferred_split_folio(void)
{
}

int main(void)
{
	struct fsim_ctx *ctx;
	struct fsim_folio *f;
	struct fsim_mm *mm;

	deferred_split_folio();
	if (rangeset_add(1, 2) != 3 || oracle_init() != 42)
		return 1;
	if (fsim_ctx_create(FSIM_MODE_RFC, NULL, &ctx) || fsim_mm_create(ctx, 0, &mm) ||
	    fsim_folio_create(ctx, 9, FSIM_KIND_ANON, &f) ||
	    fsim_folio_add_new_anon_rmap(f, mm, true) || fsim_folio_mapcount(f) != 1)
		return 1;
	fsim_ctx_destroy(ctx);
	puts("static-namespace: ok");
	return 0;
}
