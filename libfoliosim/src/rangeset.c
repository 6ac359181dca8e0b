// SPDX-License-Identifier: MIT
/*
 * Sparse sets of page indices as sorted disjoint intervals.  They hold
 * PageAnonExclusive for folios of any order without a per-page array:
 * an order-18 folio mapped by one PUD keeps one interval.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void rangeset_init(struct rangeset *rs)
{
	rs->n = rs->cap = 0;
	rs->r = NULL;
}

void rangeset_destroy(struct rangeset *rs)
{
	free(rs->r);
	rangeset_init(rs);
}

int rangeset_reserve(struct rangeset *rs, size_t extra)
{
	size_t want = rs->n + extra, cap = rs->cap ? rs->cap : 4;
	void *p;

	if (want <= rs->cap)
		return 0;
	while (cap < want)
		cap *= 2;
	p = realloc(rs->r, cap * sizeof(*rs->r));
	if (!p)
		return -ENOMEM;
	rs->r = p;
	rs->cap = cap;
	return 0;
}

/* Index of the first interval whose end is >= page (may be rs->n). */
static size_t first_ending_at_or_after(const struct rangeset *rs,
				       unsigned long page)
{
	size_t lo = 0, hi = rs->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rs->r[mid].end < page)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool rangeset_contains(const struct rangeset *rs, unsigned long page)
{
	size_t i = first_ending_at_or_after(rs, page + 1);

	return i < rs->n && rs->r[i].start <= page;
}

int rangeset_add(struct rangeset *rs, unsigned long start, unsigned long end)
{
	size_t i, j;

	if (start >= end)
		return 0;
	/* Intervals touching or overlapping [start, end) merge with it. */
	i = first_ending_at_or_after(rs, start);
	j = i;
	while (j < rs->n && rs->r[j].start <= end)
		j++;
	if (i == j) {
		if (rangeset_reserve(rs, 1))
			return -ENOMEM;
		memmove(&rs->r[i + 1], &rs->r[i], (rs->n - i) * sizeof(*rs->r));
		rs->r[i].start = start;
		rs->r[i].end = end;
		rs->n++;
		return 0;
	}
	if (rs->r[i].start < start)
		start = rs->r[i].start;
	if (rs->r[j - 1].end > end)
		end = rs->r[j - 1].end;
	rs->r[i].start = start;
	rs->r[i].end = end;
	memmove(&rs->r[i + 1], &rs->r[j], (rs->n - j) * sizeof(*rs->r));
	rs->n -= j - i - 1;
	return 0;
}

bool rangeset_remove_needs_slot(const struct rangeset *rs, unsigned long start,
				unsigned long end)
{
	size_t i = first_ending_at_or_after(rs, start + 1);

	return i < rs->n && rs->r[i].start < start && rs->r[i].end > end;
}

int rangeset_remove(struct rangeset *rs, unsigned long start, unsigned long end)
{
	size_t i, j;

	if (start >= end)
		return 0;
	i = first_ending_at_or_after(rs, start + 1);
	if (i == rs->n || rs->r[i].start >= end)
		return 0;
	if (rs->r[i].start < start && rs->r[i].end > end) {
		/* Punch a hole: one interval becomes two. */
		if (rangeset_reserve(rs, 1))
			return -ENOMEM;
		memmove(&rs->r[i + 1], &rs->r[i], (rs->n - i) * sizeof(*rs->r));
		rs->r[i].end = start;
		rs->r[i + 1].start = end;
		rs->n++;
		return 0;
	}
	if (rs->r[i].start < start) {
		rs->r[i].end = start;
		i++;
	}
	j = i;
	while (j < rs->n && rs->r[j].end <= end)
		j++;
	if (j < rs->n && rs->r[j].start < end)
		rs->r[j].start = end;
	memmove(&rs->r[i], &rs->r[j], (rs->n - j) * sizeof(*rs->r));
	rs->n -= j - i;
	return 0;
}
