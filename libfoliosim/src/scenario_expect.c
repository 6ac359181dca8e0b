// SPDX-License-Identifier: MIT
/* Expectations: the value of every key a scenario can `expect`, and the
 * comparison that fails the scenario at its line. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "foliosim/process.h"
#include "internal.h"
#include "scenario_exec.h"

/* ------------------------------------------------------------------ */
/* Expectations                                                        */
/* ------------------------------------------------------------------ */

const char *yn(bool b)
{
	return b ? "yes" : "no";
}

void slot_value(struct run *r, struct fsim_folio *f, int idx, char *buf, size_t len)
{
	struct fsim_slot s[2];
	char tmp[24];

	if (fsim_folio_slots(f, s, NULL) || s[idx].mm_id == 0) {
		snprintf(buf, len, "none");
		return;
	}
	snprintf(buf, len, "%s:%d", mm_name(r, s[idx].mm_id, tmp, sizeof(tmp)),
		 s[idx].mapcount);
}

/* The value of a folio key (for page `page` if indexed), as text.  Returns
 * false (after fail()) when the key makes no sense here. */
bool folio_value(struct run *r, struct fsim_folio *f, const char *key,
			unsigned long page, char *buf, size_t len)
{
	const struct fsim_backend *ops = r->ctx->ops;
	bool shared;
	struct fsim_slot s[2];

	if (!strcmp(key, "mapcount"))
		snprintf(buf, len, "%d", fsim_folio_mapcount(f));
	else if (!strcmp(key, "total_mapped_pages"))
		snprintf(buf, len, "%" PRIu64, fsim_folio_total_mapped_pages(f));
	else if (!strcmp(key, "avg_mapcount"))
		snprintf(buf, len, "%lu", fsim_folio_average_page_mapcount(f));
	else if (!strcmp(key, "mapped"))
		snprintf(buf, len, "%s", yn(fsim_folio_mapped(f)));
	else if (!strcmp(key, "maybe_shared"))
		snprintf(buf, len, "%s", yn(fsim_folio_maybe_mapped_shared(f)));
	else if (!strcmp(key, "partially_mapped"))
		snprintf(buf, len, "%s", yn(fsim_folio_partially_mapped(f)));
	else if (!strcmp(key, "deferred"))
		snprintf(buf, len, "%s", yn(fsim_folio_on_deferred_split(f)));
	else if (!strcmp(key, "pincount"))
		snprintf(buf, len, "%d", fsim_folio_pincount(f));
	else if (!strcmp(key, "refcount"))
		snprintf(buf, len, "%lld", (long long)fsim_folio_refcount(f));
	else if (!strcmp(key, "true_mapcount"))
		snprintf(buf, len, "%" PRIu64, fsim_oracle_true_mapcount(f, page));
	else if (!strcmp(key, "kpagecount"))
		snprintf(buf, len, "%" PRIu64, fsim_kpagecount(f, page));
	else if (!strcmp(key, "exclusive"))
		snprintf(buf, len, "%s", yn(fsim_pagemap_exclusive(f, page)));
	else if (!strcmp(key, "anon_exclusive"))
		snprintf(buf, len, "%s", yn(fsim_folio_anon_exclusive(f, page)));
	else if (!strcmp(key, "mapmax"))
		snprintf(buf, len, "%lu", fsim_numa_mapmax(f, page));
	else if (!strcmp(key, "slot0") || !strcmp(key, "slot1") ||
		 !strcmp(key, "shared_bit")) {
		if (!ops->has_mm_slots)
			return fail(r, "%s: %s mode has no mm slots (use expect[base] or expect[rfc])",
				    key, ops->name);
		if (!strcmp(key, "shared_bit")) {
			if (fsim_folio_slots(f, s, &shared))
				shared = false;
			snprintf(buf, len, "%s", yn(shared));
		} else {
			slot_value(r, f, key[4] - '0', buf, len);
		}
	} else if (!strcmp(key, "entire_mapcount") || !strcmp(key, "nr_pages_mapped")) {
		if (!ops->entire_mapcount)
			return fail(r, "%s: a 6.12 counter the RFC removes (use expect[legacy] or expect[base])",
				    key);
		snprintf(buf, len, "%d", key[0] == 'e' ? fsim_folio_entire_mapcount(f)
						      : fsim_folio_nr_pages_mapped(f));
	} else {
		return fail(r, "unknown folio key '%s'", key);
	}
	return true;
}

static bool compare(struct run *r, const char *key, const char *want, const char *got)
{
	if (!strcmp(want, got))
		return true;
	return fail(r, "expected %s=%s, got %s", key, want, got);
}

static bool expect_folio(struct run *r, const struct stmt *st)
{
	struct fsim_folio *f = get_folio(r, st->words[0]);
	char got[64], key[96];
	size_t i;

	if (!f)
		return false;
	for (i = 0; i < st->nargs; i++) {
		const struct arg *a = &st->args[i];
		unsigned long p;

		if (!a->indexed) {
			if (!folio_value(r, f, a->key, 0, got, sizeof(got)) ||
			    !compare(r, a->key, a->value, got))
				return false;
			continue;
		}
		if (a->hi > fsim_folio_nr_pages(f))
			return fail(r, "%s[%lu:%lu]: the folio has %lu pages", a->key,
				    a->lo, a->hi, fsim_folio_nr_pages(f));
		for (p = a->lo; p < a->hi; p++) {
			if (!folio_value(r, f, a->key, p, got, sizeof(got)))
				return false;
			if (strcmp(a->value, got)) {
				snprintf(key, sizeof(key), "%s[%lu]", a->key, p);
				return compare(r, key, a->value, got);
			}
		}
	}
	return true;
}

static bool expect_counter(struct run *r, const char *key, const char *want, int64_t got)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", (long long)got);
	return compare(r, key, want, buf);
}

static bool expect_stats(struct run *r, const struct stmt *st)
{
	size_t i;
	int s;

	for (i = 0; i < st->nargs; i++) {
		for (s = 0; s < FSIM_NR_STATS; s++)
			if (!strcmp(st->args[i].key, fsim_stat_name((enum fsim_stat)s)))
				break;
		if (!expect_counter(r, st->args[i].key, st->args[i].value,
				    fsim_ctx_stat(r->ctx, (enum fsim_stat)s)))
			return false;
	}
	return true;
}

static bool expect_thp(struct run *r, const struct stmt *st)
{
	static const char *const names[] = { "nr_anon", "nr_anon_partially_mapped",
					     "split_deferred" };
	unsigned int order = (unsigned int)num(st, "order", fsim_ctx_arch(r->ctx)->pmd_order);
	size_t i;
	int c;

	if (order < 1 || order > fsim_ctx_arch(r->ctx)->pmd_order)
		return fail(r, "thp: order %u has no per-size counters (1..%u)", order,
			    fsim_ctx_arch(r->ctx)->pmd_order);
	for (i = 0; i < st->nargs; i++) {
		if (!strcmp(st->args[i].key, "order"))
			continue;
		for (c = 0; c < FSIM_THP_NR_COUNTERS; c++)
			if (!strcmp(st->args[i].key, names[c]))
				break;
		if (!expect_counter(r, st->args[i].key, st->args[i].value,
				    fsim_ctx_thp_counter(r->ctx, order,
							 (enum fsim_thp_counter)c) -
				    r->thp0[order][c]))
			return false;
	}
	return true;
}



bool region_value(struct run *r, struct fsim_process *p, const char *region,
			 const char *key, char *buf, size_t len)
{
	struct fsim_smaps_kb kb;
	const char *at = strchr(key, '@');

	if (fsim_process_smaps_kb(p, region, &kb))
		return fail(r, "unknown region '%s'", region);
	if (at) {
		unsigned long long off;
		struct fsim_page_view v;

		scn_parse_size(at + 1, &off);
		if (fsim_process_page(p, region, off, &v))
			return fail(r, "%s: offset outside the region", key);
		if (!strncmp(key, "kpagecount@", 11))
			snprintf(buf, len, "%llu", (unsigned long long)v.kpagecount);
		else if (!strncmp(key, "exclusive@", 10))
			snprintf(buf, len, "%s", yn((v.present || v.zero_page) && v.pm_exclusive));
		else if (v.present)
			snprintf(buf, len, "%u", fsim_folio_order(v.folio));
		else
			snprintf(buf, len, "none");
		return true;
	}
	if (!strcmp(key, "rss_kb"))
		snprintf(buf, len, "%llu", (unsigned long long)kb.rss);
	else if (!strcmp(key, "pss_kb"))
		snprintf(buf, len, "%llu", (unsigned long long)kb.pss);
	else if (!strcmp(key, "private_kb"))
		snprintf(buf, len, "%llu", (unsigned long long)kb.private_total);
	else if (!strcmp(key, "shared_kb"))
		snprintf(buf, len, "%llu", (unsigned long long)kb.shared_total);
	else if (!strcmp(key, "anon_huge_kb"))
		snprintf(buf, len, "%llu", (unsigned long long)kb.anon_huge);
	else if (!strcmp(key, "mapmax")) {
		unsigned long m;

		fsim_process_mapmax(p, region, &m);
		snprintf(buf, len, "%lu", m);
	} else
		return fail(r, "unknown region key '%s'", key);
	return true;
}

static bool expect_region(struct run *r, const struct stmt *st)
{
	struct fsim_process *p = get_process(r, st->words[0]);
	char got[48];
	size_t i;

	if (!p)
		return false;
	for (i = 0; i < st->nargs; i++)
		if (!region_value(r, p, st->words[1], st->args[i].key, got, sizeof(got)) ||
		    !compare(r, st->args[i].key, st->args[i].value, got))
			return false;
	return true;
}

int64_t anon_pages_kb(struct run *r)
{
	return fsim_ctx_stat(r->ctx, FSIM_NR_ANON_MAPPED) <<
	       (fsim_ctx_arch(r->ctx)->page_shift - 10);
}

bool run_expect(struct run *r, const struct stmt *st)
{
	const char *t = st->words[0];

	if (st->expect_mode >= 0 && st->expect_mode != (int)fsim_ctx_mode(r->ctx))
		return true;
	if (!strcmp(t, "stats"))
		return expect_stats(r, st);
	if (!strcmp(t, "thp"))
		return expect_thp(r, st);
	if (!strcmp(t, "vmstat"))
		return expect_counter(r, "thp_deferred_split_page", st->args[0].value,
				      (int64_t)(fsim_ctx_thp_deferred_split_page(r->ctx) -
						r->split0));
	if (!strcmp(t, "meminfo"))
		return expect_counter(r, "anon_pages_kb", st->args[0].value, anon_pages_kb(r));
	if (st->nwords == 2)
		return expect_region(r, st);
	return expect_folio(r, st);
}
