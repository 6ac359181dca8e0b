/* SPDX-License-Identifier: MIT */
/*
 * Everything a user can read after a statement, as numbers, collected in
 * an order that is the same in every mode (names in declaration order,
 * regions in mmap() order, pages in address order): what lockstep runs
 * compare value by value.  No fixed-size table: the array grows, up to a
 * bound that fails the diff with a clear message instead of cutting it.
 */
#ifndef FOLIOSIM_SCENARIO_VALUES_H
#define FOLIOSIM_SCENARIO_VALUES_H

#include "scenario_exec.h"

enum vkey {
	/* folio (rmap scenarios) */
	VK_MAPCOUNT, VK_TOTAL_MAPPED, VK_AVG_MAPCOUNT, VK_MAYBE_SHARED,
	VK_PARTIALLY_MAPPED,
	VK_F_KPAGECOUNT, VK_F_EXCLUSIVE, VK_F_MAPMAX,		/* per page */
	/* a process's region */
	VK_RSS, VK_PSS, VK_PRIVATE, VK_SHARED, VK_ANON_HUGE, VK_MAPMAX,
	VK_SHARED_HUGETLB, VK_PRIVATE_HUGETLB,
	VK_R_KPAGECOUNT, VK_R_EXCLUSIVE, VK_R_ORDER,		/* per page */
	/* system-wide */
	VK_STAT,		/* aux: enum fsim_stat */
	VK_ANON_PAGES_KB,	/* meminfo AnonPages */
	VK_THP_PARTIAL,		/* aux: the order */
	/* a real tool's figure (consumers.c): of a process, or system-wide */
	VK_CONSUMER,		/* aux: the consumer */
	VK_NR
};

struct vkey_def {
	const char *name;	/* as in the scenario language's keys */
	const char *group;	/* "folio", "region", "stats", "meminfo", "thp" */
	bool per_page;
	bool boolean;		/* yes/no */
	bool order;		/* -1 is "none" */
	int reader;		/* the /proc reader of the report's summary, or -1 */
};

extern const struct vkey_def vkey_defs[VK_NR];

/* One value, or for a per-page key a run of pages with the same value
 * (a fully mapped THP is one entry, not 512): what it is (subject, region,
 * key, aux), the pages, and what it reads. */
struct dval {
	uint32_t subject;	/* the symbol number of the folio or process */
	uint32_t region;	/* the region's place in mmap() order */
	uint32_t key;		/* enum vkey */
	uint32_t aux;		/* VK_STAT: the statistic; VK_THP_PARTIAL: the order */
	uint64_t page;		/* per-page keys: the first page in the folio or region */
	uint64_t npages;	/* per-page keys: the run's length; else 1 */
	int64_t value;
	const char *region_name;
};

struct values {
	struct dval *v;
	size_t n, cap;
	size_t limit;		/* more values than this: -E2BIG */
};

/* Collects @r's values after a statement into @v (emptied first).
 * 0, -ENOMEM, or -E2BIG when more than v->limit values would be needed. */
int collect_values(struct run *r, struct values *v);
void values_free(struct values *v);

/* Are a and b values of the same key of the same thing (pages aside)? */
bool dval_same_key(const struct dval *a, const struct dval *b);

/* "-511 (-99.8%)": mode @to's value minus mode @from's, absolute and
 * relative to @from's; empty for yes/no and orders (scenario_diff.c). */
void diff_size_text(const struct fsim_diff_value *v, size_t from, size_t to,
		    char *buf, size_t len);

#endif /* FOLIOSIM_SCENARIO_VALUES_H */
