// SPDX-License-Identifier: MIT
/* Expectations: the value of every key a scenario can `expect`, and the
 * comparison that fails the scenario at its line. */
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "foliosim/process.h"
#include "internal.h"
#include "scenario_exec.h"
#include "scenario_keys.h"

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

/* Why a key of the table does not exist in the run's mode. */
static bool key_missing(struct run *r, const struct fsim_expect_key *k)
{
	const char *name = fsim_mode_name(fsim_ctx_mode(r->ctx));

	if (k->flags & FSIM_KEY_MM_SLOTS)
		return fail(r, "%s: %s mode has no mm slots (use expect[base] or expect[rfc])",
			    k->name, name);
	return fail(r, "%s: a 6.12 counter the RFC removes (use expect[legacy] or expect[base])",
		    k->name);
}

/* The value of a folio key (for page `page` if indexed), as text.  Returns
 * false (after fail()) when the key makes no sense here. */
bool folio_value(struct run *r, struct fsim_folio *f, const char *key,
		 unsigned long page, char *buf, size_t len)
{
	const struct key_def *d = key_def_find(FSIM_EXPECT_FOLIO, key);
	bool shared;
	struct fsim_slot s[2];

	if (!d)
		return fail(r, "unknown folio key '%s'", key);
	if (!fsim_expect_key_in_mode(&d->key, fsim_ctx_mode(r->ctx)))
		return key_missing(r, &d->key);
	switch (d->id) {
	case K_MAPCOUNT:
		snprintf(buf, len, "%d", fsim_folio_mapcount(f));
		break;
	case K_TOTAL_MAPPED_PAGES:
		snprintf(buf, len, "%" PRIu64, fsim_folio_total_mapped_pages(f));
		break;
	case K_AVG_MAPCOUNT:
		snprintf(buf, len, "%lu", fsim_folio_average_page_mapcount(f));
		break;
	case K_MAPPED:
		snprintf(buf, len, "%s", yn(fsim_folio_mapped(f)));
		break;
	case K_MAYBE_SHARED:
		snprintf(buf, len, "%s", yn(fsim_folio_maybe_mapped_shared(f)));
		break;
	case K_PARTIALLY_MAPPED:
		snprintf(buf, len, "%s", yn(fsim_folio_partially_mapped(f)));
		break;
	case K_DEFERRED:
		snprintf(buf, len, "%s", yn(fsim_folio_on_deferred_split(f)));
		break;
	case K_PINCOUNT:
		snprintf(buf, len, "%d", fsim_folio_pincount(f));
		break;
	case K_REFCOUNT:
		snprintf(buf, len, "%lld", (long long)fsim_folio_refcount(f));
		break;
	case K_TRUE_MAPCOUNT:
		snprintf(buf, len, "%" PRIu64, fsim_oracle_true_mapcount(f, page));
		break;
	case K_KPAGECOUNT:
		snprintf(buf, len, "%" PRIu64, fsim_kpagecount(f, page));
		break;
	case K_EXCLUSIVE:
		snprintf(buf, len, "%s", yn(fsim_pagemap_exclusive(f, page)));
		break;
	case K_ANON_EXCLUSIVE:
		snprintf(buf, len, "%s", yn(fsim_folio_anon_exclusive(f, page)));
		break;
	case K_MAPMAX:
		snprintf(buf, len, "%lu", fsim_numa_mapmax(f, page));
		break;
	case K_SLOT0:
	case K_SLOT1:
		slot_value(r, f, d->id == K_SLOT1, buf, len);
		break;
	case K_SHARED_BIT:
		if (fsim_folio_slots(f, s, &shared))
			shared = false;
		snprintf(buf, len, "%s", yn(shared));
		break;
	case K_ENTIRE_MAPCOUNT:
		snprintf(buf, len, "%d", fsim_folio_entire_mapcount(f));
		break;
	case K_NR_PAGES_MAPPED:
		snprintf(buf, len, "%d", fsim_folio_nr_pages_mapped(f));
		break;
	default:
		return fail(r, "%s is not a folio key", key);
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
		const struct fsim_stmt_arg *a = &st->args[i];
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

/* A context-wide counter of the table: its value now (stats) or since the
 * scenario started (thp of @order, vmstat, meminfo). */
static bool counter_value(struct run *r, const struct key_def *d, unsigned int order,
			  int64_t *out)
{
	static const enum fsim_stat stats[] = {
		[K_STAT_ANON_MAPPED] = FSIM_NR_ANON_MAPPED,
		[K_STAT_FILE_MAPPED] = FSIM_NR_FILE_MAPPED,
		[K_STAT_ANON_THPS] = FSIM_NR_ANON_THPS,
		[K_STAT_FILE_PMDMAPPED] = FSIM_NR_FILE_PMDMAPPED,
		[K_STAT_SHMEM_PMDMAPPED] = FSIM_NR_SHMEM_PMDMAPPED,
		[K_STAT_SHMEM] = FSIM_NR_SHMEM,
	};
	enum fsim_thp_counter c;

	switch (d->id) {
	case K_STAT_ANON_MAPPED:
	case K_STAT_FILE_MAPPED:
	case K_STAT_ANON_THPS:
	case K_STAT_FILE_PMDMAPPED:
	case K_STAT_SHMEM_PMDMAPPED:
	case K_STAT_SHMEM:
		*out = fsim_ctx_stat(r->ctx, stats[d->id]);
		return true;
	case K_THP_NR_ANON:
	case K_THP_NR_ANON_PARTIALLY_MAPPED:
	case K_THP_SPLIT_DEFERRED:
		c = d->id == K_THP_NR_ANON ? FSIM_THP_NR_ANON :
		    d->id == K_THP_SPLIT_DEFERRED ? FSIM_THP_SPLIT_DEFERRED :
		    FSIM_THP_NR_ANON_PARTIALLY_MAPPED;
		*out = fsim_ctx_thp_counter(r->ctx, order, c) - r->thp0[order][c];
		return true;
	case K_VMSTAT_DEFERRED_SPLIT_PAGE:
		*out = (int64_t)(fsim_ctx_thp_deferred_split_page(r->ctx) - r->split0);
		return true;
	case K_MEMINFO_ANON_PAGES_KB:
		*out = anon_pages_kb(r);
		return true;
	case K_MEMINFO_MAPPED_KB:
	case K_MEMINFO_ANON_HUGE_PAGES_KB:
	case K_MEMINFO_SHMEM_PMD_MAPPED_KB:
	case K_MEMINFO_FILE_PMD_MAPPED_KB:
	case K_MEMINFO_SHMEM_KB:
		/* /proc/meminfo: the node statistic in pages, shown in kB */
		*out = fsim_ctx_stat(r->ctx, d->id == K_MEMINFO_MAPPED_KB ? FSIM_NR_FILE_MAPPED :
				     d->id == K_MEMINFO_ANON_HUGE_PAGES_KB ? FSIM_NR_ANON_THPS :
				     d->id == K_MEMINFO_SHMEM_PMD_MAPPED_KB ?
				     FSIM_NR_SHMEM_PMDMAPPED :
				     d->id == K_MEMINFO_SHMEM_KB ? FSIM_NR_SHMEM :
				     FSIM_NR_FILE_PMDMAPPED) <<
		       (fsim_ctx_arch(r->ctx)->page_shift - 10);
		return true;
	default:
		return false;
	}
}

/* expect stats|thp|vmstat|meminfo key=N ... */
static bool expect_counters(struct run *r, const struct stmt *st,
			    enum fsim_expect_target target)
{
	const unsigned int pmd_order = fsim_ctx_arch(r->ctx)->pmd_order;
	const uint64_t order = st->op.order;
	size_t i;

	if (target == FSIM_EXPECT_THP && (order < 1 || order > pmd_order))
		return fail(r, "thp: order %" PRIu64 " has no per-size counters (1..%u)",
			    order, pmd_order);
	for (i = 0; i < st->nargs; i++) {
		const struct key_def *d = key_def_find(target, st->args[i].key);
		int64_t got;

		if (d && (d->key.flags & FSIM_KEY_SELECTOR))
			continue;
		if (!d || !counter_value(r, d, (unsigned int)order, &got))
			return fail(r, "unknown %s key '%s'", fsim_expect_target_name(target),
				    st->args[i].key);
		if (!expect_counter(r, st->args[i].key, st->args[i].value, got))
			return false;
	}
	return true;
}

/* The region and rollup keys that print one smaps field in kB, by name
 * (smaps_rollup alone prints Pss_Anon, Pss_File and Pss_Shmem). */
static const struct smaps_kb_key {
	const char *name;
	size_t offset;		/* of a uint64_t in struct fsim_smaps_kb */
} smaps_kb_keys[] = {
	{ "rss_kb", offsetof(struct fsim_smaps_kb, rss) },
	{ "pss_kb", offsetof(struct fsim_smaps_kb, pss) },
	{ "private_kb", offsetof(struct fsim_smaps_kb, private_total) },
	{ "shared_kb", offsetof(struct fsim_smaps_kb, shared_total) },
	{ "anon_huge_kb", offsetof(struct fsim_smaps_kb, anon_huge) },
	{ "shared_hugetlb_kb", offsetof(struct fsim_smaps_kb, shared_hugetlb) },
	{ "private_hugetlb_kb", offsetof(struct fsim_smaps_kb, private_hugetlb) },
	{ "pss_dirty_kb", offsetof(struct fsim_smaps_kb, pss_dirty) },
	{ "private_dirty_kb", offsetof(struct fsim_smaps_kb, private_dirty) },
	{ "anonymous_kb", offsetof(struct fsim_smaps_kb, anonymous) },
	{ "pss_anon_kb", offsetof(struct fsim_smaps_kb, pss_anon) },
	{ "pss_file_kb", offsetof(struct fsim_smaps_kb, pss_file) },
	{ "pss_shmem_kb", offsetof(struct fsim_smaps_kb, pss_shmem) },
	{ "shmem_pmd_kb", offsetof(struct fsim_smaps_kb, shmem_pmd) },
	{ "file_pmd_kb", offsetof(struct fsim_smaps_kb, file_pmd) },
	{ "swap_kb", offsetof(struct fsim_smaps_kb, swap) },
};

/* The smaps field key @name prints, or false if it prints none. */
static bool smaps_kb_field(const char *name, const struct fsim_smaps_kb *kb,
			   uint64_t *out)
{
	size_t i;

	for (i = 0; i < sizeof(smaps_kb_keys) / sizeof(smaps_kb_keys[0]); i++) {
		if (strcmp(smaps_kb_keys[i].name, name))
			continue;
		memcpy(out, (const char *)kb + smaps_kb_keys[i].offset, sizeof(*out));
		return true;
	}
	return false;
}

/* A value of the page at @v (an indexed key) or of the whole region. */
static bool region_other_value(struct run *r, const struct fsim_process *p,
			       const char *region, const struct key_def *d,
			       const struct fsim_page_view *v, char *buf, size_t len)
{
	unsigned long mapmax;

	switch (d->id) {
	case K_REGION_MAPMAX:
		fsim_process_mapmax(p, region, &mapmax);
		snprintf(buf, len, "%lu", mapmax);
		return true;
	case K_REGION_KPAGECOUNT:
		snprintf(buf, len, "%llu", (unsigned long long)v->kpagecount);
		return true;
	case K_REGION_EXCLUSIVE:
		snprintf(buf, len, "%s", yn((v->present || v->zero_page) && v->pm_exclusive));
		return true;
	case K_REGION_ORDER:
		if (v->present)
			snprintf(buf, len, "%u", fsim_folio_order(v->folio));
		else
			snprintf(buf, len, "none");
		return true;
	default:
		return fail(r, "unknown region key '%s'", d->key.name);
	}
}

bool region_value(struct run *r, struct fsim_process *p, const char *region,
		  const char *key, char *buf, size_t len)
{
	const char *at = strchr(key, '@');
	struct fsim_smaps_kb kb;
	struct fsim_page_view v;
	const struct key_def *d;
	unsigned long long off = 0;
	uint64_t field;
	char base[64];

	snprintf(base, sizeof(base), "%.*s", at ? (int)(at - key) : (int)strlen(key), key);
	d = key_def_find(FSIM_EXPECT_REGION, base);
	if (!d || !at != !(d->key.flags & FSIM_KEY_INDEXED))
		return fail(r, "unknown region key '%s'", key);
	if (fsim_process_smaps_kb(p, region, &kb))
		return fail(r, "unknown region '%s'", region);
	if (at && (!scn_parse_size(at + 1, &off) || fsim_process_page(p, region, off, &v)))
		return fail(r, "%s: offset outside the region", key);
	if (smaps_kb_field(base, &kb, &field)) {
		snprintf(buf, len, "%llu", (unsigned long long)field);
		return true;
	}
	return region_other_value(r, p, region, d, &v, buf, len);
}

/* expect P key=...: /proc/P/smaps_rollup. */
static bool expect_rollup(struct run *r, const struct stmt *st)
{
	struct fsim_process *p = get_process(r, st->op.name);
	struct fsim_smaps_kb kb;
	uint64_t field;
	char got[32];
	size_t i;

	if (!p)
		return false;
	if (fsim_process_smaps_rollup(p, &kb))
		return fail(r, "cannot read the smaps_rollup of %s", st->op.name);
	for (i = 0; i < st->nargs; i++) {
		if (!smaps_kb_field(st->args[i].key, &kb, &field))
			return fail(r, "unknown smaps_rollup key '%s'", st->args[i].key);
		snprintf(got, sizeof(got), "%llu", (unsigned long long)field);
		if (!compare(r, st->args[i].key, st->args[i].value, got))
			return false;
	}
	return true;
}

static bool expect_region(struct run *r, const struct stmt *st)
{
	struct fsim_process *p = get_process(r, st->op.name);
	char got[48];
	size_t i;

	if (!p)
		return false;
	for (i = 0; i < st->nargs; i++)
		if (!region_value(r, p, st->op.region, st->args[i].key, got, sizeof(got)) ||
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
	if (st->expect_mode >= 0 && st->expect_mode != (int)fsim_ctx_mode(r->ctx))
		return true;
	switch (st->op.target) {
	case FSIM_EXPECT_REGION:
		return expect_region(r, st);
	case FSIM_EXPECT_ROLLUP:
		return expect_rollup(r, st);
	case FSIM_EXPECT_FOLIO:
		return expect_folio(r, st);
	default:	/* stats, thp, vmstat, meminfo: counters */
		return expect_counters(r, st, st->op.target);
	}
}
