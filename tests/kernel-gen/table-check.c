// SPDX-License-Identifier: MIT
/*
 * Host-side check of a header written by `foliosim kunit-gen`: it must
 * compile against kernel-stub.h with -Wall -Wextra -Werror, and every index
 * in it must be in range.  Prints "N scenarios, M statements, K expectations"
 * and exits 1 on the first inconsistency.
 */
#include <stdio.h>

#include "kernel-stub.h"
#include RMAP_SCN_HEADER

static int bad(const struct rmap_scn *sc, const struct rmap_scn_stmt *st, const char *what)
{
	fprintf(stderr, "%s:%u: %s: %s\n", sc->file, st ? st->line : sc->line, sc->name, what);
	return 1;
}

static int check_stmt(const struct rmap_scn *sc, const struct rmap_scn_stmt *st,
		      unsigned long *nexpect)
{
	const int has_folio = st->kind != RMAP_SCN_MM && st->kind != RMAP_SCN_MMDROP &&
			      st->kind < RMAP_SCN_EXPECT_STATS;
	const int has_mm = st->kind == RMAP_SCN_MMDROP || st->kind == RMAP_SCN_NEW_ANON ||
			   st->kind == RMAP_SCN_ADD || st->kind == RMAP_SCN_REMOVE ||
			   st->kind == RMAP_SCN_DUP || st->kind == RMAP_SCN_PIN;
	unsigned int i;

	if (st->kind > RMAP_SCN_EXPECT_MEMINFO || st->fails > RMAP_SCN_ENOSPC ||
	    st->level > RMAP_SCN_PUD || st->folio_kind > RMAP_SCN_SHMEM)
		return bad(sc, st, "enum value out of range");
	if (!st->line)
		return bad(sc, st, "no line");
	if (has_folio && (st->folio < (st->kind == RMAP_SCN_FOLIO && st->fails ? -1 : 0) ||
			  st->folio >= (s32)sc->nr_folios))
		return bad(sc, st, "folio index out of range");
	if (has_mm && (st->mm < 0 || st->mm >= (s32)sc->nr_mms))
		return bad(sc, st, "mm index out of range");
	if (st->kind == RMAP_SCN_MM && (st->mm < (st->fails ? -1 : 0) || st->mm >= (s32)sc->nr_mms))
		return bad(sc, st, "mm index out of range");
	if (st->kind == RMAP_SCN_DUP && (st->src < 0 || st->src >= (s32)sc->nr_mms))
		return bad(sc, st, "dup source out of range");
	if (st->kind >= RMAP_SCN_EXPECT_FOLIO) {
		if (!st->nexpect || !st->expect || !st->mode || st->mode > RMAP_SCN_MODE_ANY)
			return bad(sc, st, "expectation without keys or mode");
		for (i = 0; i < st->nexpect; i++) {
			const struct rmap_scn_expect *e = &st->expect[i];

			if (!e->key || e->code >= RMAP_SCN_NR_KEYS)
				return bad(sc, st, "bad key");
			if (e->indexed && e->lo >= e->hi)
				return bad(sc, st, "empty page range");
			if ((e->code == RMAP_SCN_KEY_SLOT0 || e->code == RMAP_SCN_KEY_SLOT1) &&
			    (e->mm < -1 || e->mm >= (s32)sc->nr_mms))
				return bad(sc, st, "slot mm out of range");
		}
		*nexpect += st->nexpect;
	}
	return 0;
}

int main(void)
{
	unsigned long nstmts = 0, nexpect = 0;
	unsigned int i, k;

	for (i = 0; i < RMAP_SCN_COUNT; i++) {
		const struct rmap_scn *sc = &rmap_scn_table[i];

		if (!sc->name || !sc->file || !sc->line || !sc->modes || sc->modes > RMAP_SCN_MODE_ANY)
			return bad(sc, NULL, "bad scenario header");
		if ((sc->nr_stmts && !sc->stmts) || (sc->nr_mms && !sc->mm_names) ||
		    (sc->nr_folios && !sc->folio_names))
			return bad(sc, NULL, "missing array");
		if (sc->skip && sc->nr_stmts)
			return bad(sc, NULL, "a skipped scenario has statements");
		if (sc->parts & ~RMAP_SCN_PART_DETECT)
			return bad(sc, NULL, "unknown part bits");
		for (k = 0; k < sc->nr_stmts; k++)
			if (check_stmt(sc, &sc->stmts[k], &nexpect))
				return 1;
		nstmts += sc->nr_stmts;
	}
	printf("%u scenarios, %lu statements, %lu expectations\n",
	       (unsigned int)RMAP_SCN_COUNT, nstmts, nexpect);
	return 0;
}
