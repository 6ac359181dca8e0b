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

/* The descent's helpers run once per level of every update: inlined
 * (GCC leaves them out of line next to the recursive update()). */
#if defined(__GNUC__)
#define COVER_INLINE static inline __attribute__((always_inline))
#else
#define COVER_INLINE static inline
#endif

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

COVER_INLINE uint32_t new_node(struct cover_tree *t, unsigned long len)
{
	struct cover_node *n = &t->node[t->n];

	memset(n, 0, sizeof(*n));
	n->min_pages = len;
	return t->n++;
}

/* A node's min, pages at min and max from its children's (a child never
 * created is all zero: min = max = 0 over its len pages) and its add. */
COVER_INLINE void pull(struct cover_tree *t, uint32_t i, unsigned long llen,
		       unsigned long rlen)
{
	struct cover_node *n = &t->node[i];
	const struct cover_node *l = n->child[0] ? &t->node[n->child[0]] : NULL;
	const struct cover_node *r = n->child[1] ? &t->node[n->child[1]] : NULL;
	const int64_t lmin = l ? l->min : 0, rmin = r ? r->min : 0;
	const int64_t lmax = l ? l->max : 0, rmax = r ? r->max : 0;
	const unsigned long lpages = l ? l->min_pages : llen;
	const unsigned long rpages = r ? r->min_pages : rlen;

	n->min = (lmin < rmin ? lmin : rmin) + n->add;
	n->min_pages = (lmin <= rmin ? lpages : 0) + (rmin <= lmin ? rpages : 0);
	n->max = (lmax > rmax ? lmax : rmax) + n->add;
}

COVER_INLINE void apply(struct cover_node *n, int64_t delta)
{
	n->add += delta;
	n->min += delta;
	n->max += delta;
}

COVER_INLINE uint32_t child(struct cover_tree *t, uint32_t i, int side, unsigned long len)
{
	if (!t->node[i].child[side]) {
		uint32_t c = new_node(t, len);

		t->node[i].child[side] = c;
	}
	return t->node[i].child[side];
}

/*
 * Adds delta to [start, end) within node i's range [lo, hi).  While the
 * range lies in one child the descent is a loop (the common case: a batch
 * inside one PMD, a single page); only a range that straddles a midpoint
 * recurses, once per side.  The path is pulled up on the way back.
 */
static void update(struct cover_tree *t, uint32_t i, unsigned long lo,
		   unsigned long hi, unsigned long start, unsigned long end,
		   int64_t delta)
{
	struct { uint32_t node; unsigned long lo, hi; } path[8 * sizeof(long) + 1];
	int depth = 0;

	for (;;) {
		const unsigned long mid = lo + (hi - lo) / 2;

		if (start <= lo && hi <= end) {
			apply(&t->node[i], delta);
			break;
		}
		if (end <= mid || start >= mid) {
			const int side = start >= mid;

			path[depth].node = i;
			path[depth].lo = lo;
			path[depth].hi = hi;
			depth++;
			i = child(t, i, side, side ? hi - mid : mid - lo);
			if (side)
				lo = mid;
			else
				hi = mid;
			continue;
		}
		update(t, child(t, i, 0, mid - lo), lo, mid, start, end, delta);
		update(t, child(t, i, 1, hi - mid), mid, hi, start, end, delta);
		pull(t, i, mid - lo, hi - mid);
		break;
	}
	while (depth--) {
		const unsigned long plo = path[depth].lo, phi = path[depth].hi;
		const unsigned long pmid = plo + (phi - plo) / 2;

		pull(t, path[depth].node, pmid - plo, phi - pmid);
	}
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

/* Back to no node at all once nothing is mapped, when the tree has grown
 * beyond a few paths: its size stays bounded by what was mapped since the
 * folio was last unmapped, while a folio mapped and unmapped again and
 * again (a pair of calls on an otherwise unmapped folio) keeps its path
 * instead of creating it anew each time. */
void cover_reset_if_empty(struct cover_tree *t)
{
	if (t->n > 4 * nodes_per_update(t->size) && t->node[0].min == 0 &&
	    t->node[0].max == 0)
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
