// SPDX-License-Identifier: MIT
/*
 * The oracle's per-page total, summed over every (mm, level): a segment
 * tree over the folio's page indices with range add and, at the root, the
 * minimum (and how many pages have it) and the maximum.  So the number of
 * pages mapped at all and the largest per-page mapcount, which every
 * removal's transition check needs, cost O(1) to read and O(log pages)
 * to keep, instead of a sweep over every segment of the oracle.
 *
 * Nodes are created on demand (a node never created is all zero) and
 * never pushed down: a node's `add` applies to its whole range, its
 * min/max include it.  cover_reserve() makes room for the nodes one
 * update can create, so that cover_add() cannot fail.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Nodes one update may create: two partly covered nodes per depth, each
 * creating both children, plus the root. */
static uint32_t nodes_per_update(unsigned long size)
{
	uint32_t depth = 1;

	while ((1ul << (depth - 1)) < size)
		depth++;
	return 4 * depth + 1;
}

void cover_init(struct cover_tree *t, unsigned long size)
{
	memset(t, 0, sizeof(*t));
	t->size = size ? size : 1;
}

void cover_destroy(struct cover_tree *t)
{
	free(t->node);
	cover_init(t, t->size);
}

int cover_reserve(struct cover_tree *t)
{
	const uint32_t want = t->n + nodes_per_update(t->size);
	uint32_t cap;
	void *p;

	if (want <= t->cap)
		return 0;
	cap = t->cap ? t->cap : 16;
	while (cap < want)
		cap *= 2;
	p = realloc(t->node, (size_t)cap * sizeof(*t->node));
	if (!p)
		return -ENOMEM;
	t->node = p;
	t->cap = cap;
	return 0;
}

static uint32_t new_node(struct cover_tree *t, unsigned long len)
{
	struct cover_node *n = &t->node[t->n];

	memset(n, 0, sizeof(*n));
	n->min_pages = len;
	return t->n++;
}

/* min, pages at min and max of child c of a node (0: never created). */
static void child_stats(const struct cover_tree *t, uint32_t c, unsigned long len,
			int64_t *min, unsigned long *min_pages, int64_t *max)
{
	if (!c) {
		*min = 0;
		*min_pages = len;
		*max = 0;
		return;
	}
	*min = t->node[c].min;
	*min_pages = t->node[c].min_pages;
	*max = t->node[c].max;
}

static void pull(struct cover_tree *t, uint32_t i, unsigned long llen,
		 unsigned long rlen)
{
	struct cover_node *n = &t->node[i];
	int64_t lmin, rmin, lmax, rmax;
	unsigned long lpages, rpages;

	child_stats(t, n->child[0], llen, &lmin, &lpages, &lmax);
	child_stats(t, n->child[1], rlen, &rmin, &rpages, &rmax);
	n->min = (lmin < rmin ? lmin : rmin) + n->add;
	n->min_pages = (lmin <= rmin ? lpages : 0) + (rmin <= lmin ? rpages : 0);
	n->max = (lmax > rmax ? lmax : rmax) + n->add;
}

static void update(struct cover_tree *t, uint32_t i, unsigned long lo,
		   unsigned long hi, unsigned long start, unsigned long end,
		   int64_t delta)
{
	const unsigned long mid = lo + (hi - lo) / 2;
	uint32_t c;

	if (start <= lo && hi <= end) {
		t->node[i].add += delta;
		t->node[i].min += delta;
		t->node[i].max += delta;
		return;
	}
	if (start < mid) {
		if (!t->node[i].child[0]) {
			c = new_node(t, mid - lo);
			t->node[i].child[0] = c;
		}
		update(t, t->node[i].child[0], lo, mid, start, end, delta);
	}
	if (end > mid) {
		if (!t->node[i].child[1]) {
			c = new_node(t, hi - mid);
			t->node[i].child[1] = c;
		}
		update(t, t->node[i].child[1], mid, hi, start, end, delta);
	}
	pull(t, i, mid - lo, hi - mid);
}

void cover_add(struct cover_tree *t, unsigned long start, unsigned long end,
	       int64_t delta)
{
	if (start >= end)
		return;
	if (!t->n)
		new_node(t, t->size);
	update(t, 0, 0, t->size, start, end, delta);
}

/* Back to no node at all once nothing is mapped: the tree's size stays
 * bounded by what is mapped now, not by the folio's history. */
void cover_reset_if_empty(struct cover_tree *t)
{
	if (t->n && t->node[0].min == 0 && t->node[0].max == 0)
		t->n = 0;
}

unsigned long cover_covered(const struct cover_tree *t)
{
	if (!t->n)
		return 0;
	return t->node[0].min > 0 ? t->size : t->size - t->node[0].min_pages;
}

uint64_t cover_max(const struct cover_tree *t)
{
	return t->n ? (uint64_t)t->node[0].max : 0;
}

uint64_t cover_at(const struct cover_tree *t, unsigned long page)
{
	unsigned long lo = 0, hi = t->size;
	int64_t sum = 0;
	uint32_t i = 0;

	if (!t->n || page >= t->size)
		return 0;
	for (;;) {
		const unsigned long mid = lo + (hi - lo) / 2;

		sum += t->node[i].add;
		i = t->node[i].child[page >= mid];
		if (!i)
			return (uint64_t)sum;
		if (page >= mid)
			lo = mid;
		else
			hi = mid;
	}
}
