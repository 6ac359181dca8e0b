// SPDX-License-Identifier: MIT
/*
 * The oracle: an exact record of the mappings of one folio, independent of
 * the kernel's counters.  Per (mm, level) it keeps a piecewise-constant
 * count over page indices, so that the same mapping repeated a million
 * times is one segment with a large count (O(log n) per repeat).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void oracle_init(struct oracle *o)
{
	memset(o, 0, sizeof(*o));
}

void oracle_destroy(struct oracle *o)
{
	free(o->seg);
	oracle_init(o);
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

		if (before(&o->seg[mid], mm_id, level, page))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool in_group(const struct oracle *o, size_t i, unsigned int mm_id,
		     enum fsim_level level)
{
	return i < o->n && o->seg[i].mm_id == mm_id && o->seg[i].level == level;
}

bool oracle_covers(const struct oracle *o, unsigned int mm_id,
		   enum fsim_level level, unsigned long start, unsigned long nr,
		   uint64_t times)
{
	unsigned long pos = start, end = start + nr;
	size_t i = seek(o, mm_id, level, start);

	while (pos < end) {
		if (!in_group(o, i, mm_id, level) || o->seg[i].start > pos ||
		    o->seg[i].count < times)
			return false;
		pos = o->seg[i].end;
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
	       o->seg[i + touched].start < start + nr)
		touched++;
	/* Two edge splits, a gap per touched segment and one more. */
	want = o->n + touched + 3;
	if (want <= o->cap)
		return 0;
	cap = o->cap ? o->cap : 4;
	while (cap < want)
		cap *= 2;
	p = realloc(o->seg, cap * sizeof(*o->seg));
	if (!p)
		return -ENOMEM;
	o->seg = p;
	o->cap = cap;
	return 0;
}

static void insert_at(struct oracle *o, size_t i, struct oracle_seg s)
{
	memmove(&o->seg[i + 1], &o->seg[i], (o->n - i) * sizeof(*o->seg));
	o->seg[i] = s;
	o->n++;
}

static void erase_at(struct oracle *o, size_t i)
{
	memmove(&o->seg[i], &o->seg[i + 1], (o->n - i - 1) * sizeof(*o->seg));
	o->n--;
}

/* Splits the group's segment containing page (strictly inside) in two. */
static void split_at(struct oracle *o, unsigned int mm_id,
		     enum fsim_level level, unsigned long page)
{
	size_t i = seek(o, mm_id, level, page);
	struct oracle_seg right;

	if (!in_group(o, i, mm_id, level) || o->seg[i].start >= page)
		return;
	right = o->seg[i];
	right.start = page;
	o->seg[i].end = page;
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
	while (in_group(o, i + 1, mm_id, level) && o->seg[i].start <= end) {
		struct oracle_seg *a = &o->seg[i], *b = &o->seg[i + 1];

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
	/* Fast path: the very same range again. */
	if (in_group(o, i, mm_id, level) && o->seg[i].start == start &&
	    o->seg[i].end == end) {
		o->seg[i].count++;
		return;
	}
	split_at(o, mm_id, level, start);
	split_at(o, mm_id, level, end);
	i = seek(o, mm_id, level, start);
	while (pos < end) {
		if (in_group(o, i, mm_id, level) && o->seg[i].start == pos) {
			o->seg[i].count++;
			pos = o->seg[i].end;
		} else {
			unsigned long gap_end = end;
			struct oracle_seg s;

			if (in_group(o, i, mm_id, level) && o->seg[i].start < end)
				gap_end = o->seg[i].start;
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
	split_at(o, mm_id, level, start);
	split_at(o, mm_id, level, end);
	i = seek(o, mm_id, level, start);
	while (in_group(o, i, mm_id, level) && o->seg[i].start < end) {
		if (--o->seg[i].count == 0)
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

	for (i = 0; i < o->n; i++)
		if (o->seg[i].start <= page && page < o->seg[i].end)
			sum += o->seg[i].count;
	return sum;
}

uint64_t oracle_mm_entries(const struct oracle *o, unsigned int mm_id,
			   const struct fsim_arch *arch)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < o->n; i++) {
		const struct oracle_seg *s = &o->seg[i];

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
		if (o->seg[i].mm_id == mm_id)
			return true;
	return false;
}

struct sweep_event {
	unsigned long pos;
	int64_t delta;
};

static int event_cmp(const void *a, const void *b)
{
	const struct sweep_event *x = a, *y = b;

	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	return 0;
}

int oracle_profile(const struct oracle *o, struct oracle_profile *p)
{
	struct sweep_event *ev;
	uint64_t running = 0;
	unsigned long last = 0;
	size_t i, k = 0;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < o->n; i++)
		if (i == 0 || o->seg[i].mm_id != o->seg[i - 1].mm_id)
			p->nr_mms++;
	if (!o->n)
		return 0;
	ev = malloc(2 * o->n * sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	for (i = 0; i < o->n; i++) {
		ev[k].pos = o->seg[i].start;
		ev[k++].delta = (int64_t)o->seg[i].count;
		ev[k].pos = o->seg[i].end;
		ev[k++].delta = -(int64_t)o->seg[i].count;
	}
	qsort(ev, k, sizeof(*ev), event_cmp);
	for (i = 0; i < k; i++) {
		if (running > 0)
			p->covered += ev[i].pos - last;
		running = (uint64_t)((int64_t)running + ev[i].delta);
		last = ev[i].pos;
		/* Only the running sum after all events at one position counts. */
		if ((i + 1 == k || ev[i + 1].pos != ev[i].pos) &&
		    running > p->max_count)
			p->max_count = running;
	}
	free(ev);
	return 0;
}

uint64_t oracle_level_overlaps(const struct oracle *o, enum fsim_level level,
			       unsigned long start, unsigned long nr)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < o->n; i++)
		if (o->seg[i].level == (unsigned char)level &&
		    o->seg[i].start < start + nr && o->seg[i].end > start)
			n += o->seg[i].count;
	return n;
}
