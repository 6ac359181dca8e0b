// SPDX-License-Identifier: MIT
/*
 * The oracle: an exact record of the mappings of one folio, independent of
 * the kernel's counters.  Per (mm, level) it keeps a piecewise-constant
 * count over page indices, so that the same mapping repeated a million
 * times is one segment with a large count (O(log n) per repeat).  Beside
 * it, the per-page total over all groups (oracle_cover.c) and the number
 * of mms, so that the profile every removal checks costs O(1).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The i-th segment in order, wherever the gap is (internal.h). */
#define SEG(o, i) (*oracle_seg_at((o), (i)))

void oracle_init(struct oracle *o, unsigned long nr_pages)
{
	memset(o, 0, sizeof(*o));
	cover_init(&o->cover, nr_pages);
}

void oracle_destroy(struct oracle *o)
{
	free(o->buf);
	cover_destroy(&o->cover);
	oracle_init(o, o->cover.size);
}

/* Is segment s ordered before every segment of (mm_id, level) that ends
 * after page?  Groups sort by (mm_id, level), segments in a group by start
 * (and, being disjoint, by end). */
static bool before(const struct oracle_seg *s, unsigned int mm_id,
		   enum fsim_level level, unsigned long page)
{
	if (s->mm_id != mm_id)
		return s->mm_id < mm_id;
	if (s->level != (unsigned char)level)
		return s->level < (unsigned char)level;
	return s->end <= page;
}

/* First segment of (mm, level) whose end is > page, or the group's end. */
static size_t seek(const struct oracle *o, unsigned int mm_id,
		   enum fsim_level level, unsigned long page)
{
	size_t lo = 0, hi = o->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (before(&SEG(o, mid), mm_id, level, page))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool in_group(const struct oracle *o, size_t i, unsigned int mm_id,
		     enum fsim_level level)
{
	return i < o->n && SEG(o, i).mm_id == mm_id && SEG(o, i).level == level;
}

bool oracle_covers(const struct oracle *o, unsigned int mm_id,
		   enum fsim_level level, unsigned long start, unsigned long nr,
		   uint64_t times)
{
	unsigned long pos = start, end = start + nr;
	size_t i = seek(o, mm_id, level, start);

	while (pos < end) {
		if (!in_group(o, i, mm_id, level) || SEG(o, i).start > pos ||
		    SEG(o, i).count < times)
			return false;
		pos = SEG(o, i).end;
		i++;
	}
	return true;
}

int oracle_reserve(struct oracle *o, unsigned int mm_id, enum fsim_level level,
		   unsigned long start, unsigned long nr)
{
	size_t i = seek(o, mm_id, level, start), touched = 0, want, cap;
	void *p;

	while (in_group(o, i + touched, mm_id, level) &&
	       SEG(o, i + touched).start < start + nr)
		touched++;
	if (!o->cover_stale && cover_reserve(&o->cover))
		return -ENOMEM;
	/* Two edge splits, a gap per touched segment and one more. */
	want = o->n + touched + 3;
	if (want <= o->cap)
		return 0;
	cap = o->cap ? o->cap : 4;
	while (cap < want)
		cap *= 2;
	p = realloc(o->buf, cap * sizeof(*o->buf));
	if (!p)
		return -ENOMEM;
	o->buf = p;
	/* the segments after the gap go to the end of the larger buffer */
	memmove(&o->buf[cap - (o->n - o->gap)], &o->buf[o->cap - (o->n - o->gap)],
		(o->n - o->gap) * sizeof(*o->buf));
	o->cap = cap;
	return 0;
}

/*
 * Moves the gap to start before segment pos.  Consecutive edits at one
 * place (a mapping and its unmapping, a fork's dups of one range) then
 * move nothing, however many segments other mms have: the cost of an
 * edit is the distance from the previous one, not the array's length.
 */
static void move_gap(struct oracle *o, size_t pos)
{
	const size_t gap_len = o->cap - o->n;

	if (pos < o->gap)
		memmove(&o->buf[pos + gap_len], &o->buf[pos],
			(o->gap - pos) * sizeof(*o->buf));
	else if (pos > o->gap)
		memmove(&o->buf[o->gap], &o->buf[o->gap + gap_len],
			(pos - o->gap) * sizeof(*o->buf));
	o->gap = pos;
}

/* Does segment i's mm have another segment beside it?  Segments of one
 * mm are adjacent (sorted by mm first). */
static bool mm_neighbour(const struct oracle *o, size_t i, unsigned int mm_id)
{
	return (i > 0 && SEG(o, i - 1).mm_id == mm_id) ||
	       (i + 1 < o->n && SEG(o, i + 1).mm_id == mm_id);
}

static void insert_at(struct oracle *o, size_t i, struct oracle_seg s)
{
	move_gap(o, i);		/* oracle_reserve() left room: cap > n */
	o->buf[o->gap++] = s;
	o->n++;
	if (!mm_neighbour(o, i, s.mm_id))
		o->nr_mms++;
}

static void erase_at(struct oracle *o, size_t i)
{
	const bool last_of_mm = !mm_neighbour(o, i, SEG(o, i).mm_id);

	move_gap(o, i);		/* segment i now follows the gap ... */
	o->n--;			/* ... which grows over it */
	if (last_of_mm)
		o->nr_mms--;
}

/* Splits the group's segment containing page (strictly inside) in two. */
static void split_at(struct oracle *o, unsigned int mm_id,
		     enum fsim_level level, unsigned long page)
{
	size_t i = seek(o, mm_id, level, page);
	struct oracle_seg right;

	if (!in_group(o, i, mm_id, level) || SEG(o, i).start >= page)
		return;
	right = SEG(o, i);
	right.start = page;
	SEG(o, i).end = page;
	insert_at(o, i + 1, right);
}

/* Merges neighbours of the group that touch and carry equal counts. */
static void merge_around(struct oracle *o, unsigned int mm_id,
			 enum fsim_level level, unsigned long start,
			 unsigned long end)
{
	size_t i = seek(o, mm_id, level, start);

	if (i > 0 && in_group(o, i - 1, mm_id, level))
		i--;
	while (in_group(o, i + 1, mm_id, level) && SEG(o, i).start <= end) {
		struct oracle_seg *a = &SEG(o, i), *b = &SEG(o, i + 1);

		if (a->end == b->start && a->count == b->count) {
			a->end = b->end;
			erase_at(o, i + 1);
		} else {
			i++;
		}
	}
}

void oracle_add(struct oracle *o, unsigned int mm_id, enum fsim_level level,
		unsigned long start, unsigned long nr, unsigned long unit)
{
	unsigned long pos = start, end = start + nr;
	size_t i = seek(o, mm_id, level, start);

	o->entries += nr / unit;
	o->pages += nr;
	if (!o->cover_stale)
		cover_add(&o->cover, start, end, 1);
	/* Fast path: the very same range again. */
	if (in_group(o, i, mm_id, level) && SEG(o, i).start == start &&
	    SEG(o, i).end == end) {
		SEG(o, i).count++;
		return;
	}
	split_at(o, mm_id, level, start);
	split_at(o, mm_id, level, end);
	i = seek(o, mm_id, level, start);
	while (pos < end) {
		if (in_group(o, i, mm_id, level) && SEG(o, i).start == pos) {
			SEG(o, i).count++;
			pos = SEG(o, i).end;
		} else {
			unsigned long gap_end = end;
			struct oracle_seg s;

			if (in_group(o, i, mm_id, level) && SEG(o, i).start < end)
				gap_end = SEG(o, i).start;
			s.mm_id = mm_id;
			s.level = (unsigned char)level;
			s.start = pos;
			s.end = gap_end;
			s.count = 1;
			insert_at(o, i, s);
			pos = gap_end;
		}
		i++;
	}
	merge_around(o, mm_id, level, start, end);
}

void oracle_remove(struct oracle *o, unsigned int mm_id, enum fsim_level level,
		   unsigned long start, unsigned long nr, unsigned long unit)
{
	unsigned long end = start + nr;
	size_t i;

	o->entries -= nr / unit;
	o->pages -= nr;
	if (!o->cover_stale) {
		cover_add(&o->cover, start, end, -1);
		cover_reset_if_empty(&o->cover);
	}
	split_at(o, mm_id, level, start);
	split_at(o, mm_id, level, end);
	i = seek(o, mm_id, level, start);
	while (in_group(o, i, mm_id, level) && SEG(o, i).start < end) {
		if (--SEG(o, i).count == 0)
			erase_at(o, i);
		else
			i++;
	}
	merge_around(o, mm_id, level, start, end);
}

uint64_t oracle_page_count(const struct oracle *o, unsigned long page)
{
	uint64_t sum = 0;
	size_t i;

	if (!o->cover_stale)
		return cover_at(&o->cover, page);
	for (i = 0; i < o->n; i++) {	/* after concurrent calls */
		const struct oracle_seg *sg = oracle_seg_at(o, i);

		if (sg->start <= page && page < sg->end)
			sum += sg->count;
	}
	return sum;
}

uint64_t oracle_mm_entries(const struct oracle *o, unsigned int mm_id,
			   const struct fsim_arch *arch)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < o->n; i++) {
		const struct oracle_seg *s = &SEG(o, i);

		if (s->mm_id == mm_id)
			sum += s->count * ((s->end - s->start) >>
					   level_order(arch, s->level));
	}
	return sum;
}

bool oracle_mm_maps(const struct oracle *o, unsigned int mm_id)
{
	size_t i;

	for (i = 0; i < o->n; i++)
		if (SEG(o, i).mm_id == mm_id)
			return true;
	return false;
}

/* The per-page total again from the segments, after concurrent calls
 * left it behind; -ENOMEM leaves it stale. */
static int cover_rebuild(struct oracle *o)
{
	size_t i;

	o->cover.n = 0;
	for (i = 0; i < o->n; i++) {
		const struct oracle_seg *sg = oracle_seg_at(o, i);

		if (cover_reserve(&o->cover))
			return -ENOMEM;
		cover_add(&o->cover, sg->start, sg->end, (int64_t)sg->count);
	}
	o->cover_stale = false;
	return 0;
}

int oracle_track_cover(struct oracle *o, bool on)
{
	if (!on) {
		o->cover_stale = true;
		return 0;
	}
	return o->cover_stale ? cover_rebuild(o) : 0;
}

unsigned long oracle_covered(const struct oracle *o)
{
	return cover_covered(&o->cover);
}

void oracle_profile(const struct oracle *o, struct oracle_profile *p)
{
	p->covered = cover_covered(&o->cover);
	p->max_count = cover_max(&o->cover);
	p->nr_mms = o->nr_mms;
}

uint64_t oracle_level_entries(const struct oracle *o, enum fsim_level level,
			      unsigned long unit)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < o->n; i++)
		if (SEG(o, i).level == (unsigned char)level)
			n += SEG(o, i).count * ((SEG(o, i).end - SEG(o, i).start) / unit);
	return n;
}

uint64_t oracle_level_overlaps(const struct oracle *o, enum fsim_level level,
			       unsigned long start, unsigned long nr)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < o->n; i++)
		if (SEG(o, i).level == (unsigned char)level &&
		    SEG(o, i).start < start + nr && SEG(o, i).end > start)
			n += SEG(o, i).count;
	return n;
}
