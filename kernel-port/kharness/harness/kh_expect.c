// SPDX-License-Identifier: GPL-2.0
/*
 * kharness, harness half: `expect` statements read on the kernel code.
 *
 * The keys are the library's (fsim_expect_key_find(): their target, value
 * type, whether they take a page index); this file only says where the
 * kernel state holds each one.  Every folio, stats, thp, vmstat and
 * meminfo key of the table must have a reader here:
 * kh_expect_missing_key() names the first that has none, and kh-run
 * refuses to start then.  The one key no kernel counter carries,
 * true_mapcount (the entries that really map a page: the page tables'
 * truth), is read from the model's oracle, which stands for the page
 * tables here.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kh_exec.h"

struct reader_args {
	struct kh_scn *scn;
	struct kh_name *subject;
	unsigned long page;
	unsigned int order;	/* thp order= */
	const struct kh_folio_state *fs;
	const struct kh_stats *now, *base;
};

typedef int64_t (*reader_fn)(const struct reader_args *a);

/* folio_average_page_mapcount() of prep/0020 on the tree's counters, for
 * 6.12, which has no such function. */
static int64_t avg_of(const struct kh_folio_state *fs, unsigned int order, bool large)
{
	int64_t mapcount = fs->large_mapcount, entire = fs->entire_mapcount, avg;

	if (fs->avg_mapcount >= 0)
		return fs->avg_mapcount;
	if (!large)
		return fs->mapcount;
	if (mapcount <= 0)
		return 0;
	if (mapcount <= entire)
		return entire;
	mapcount -= entire;
	avg = ((uint64_t)mapcount + ((1ull << order) / 2)) >> order;
	return avg + entire > 1 ? avg + entire : 1;
}

static struct kh_page_state page_of(const struct reader_args *a)
{
	struct kh_page_state p;

	kh_page_state(a->subject->kf, a->page, &p);
	return p;
}

static int64_t r_mapcount(const struct reader_args *a) { return a->fs->mapcount; }
static int64_t r_mapped(const struct reader_args *a) { return a->fs->mapped; }
static int64_t r_maybe_shared(const struct reader_args *a) { return a->fs->maybe_shared; }
static int64_t r_partially(const struct reader_args *a) { return a->fs->partially_mapped; }
static int64_t r_deferred(const struct reader_args *a) { return a->fs->deferred; }
/* A folio without _pincount (small; order 1 on 32-bit in 6.12 and prep)
 * has its pins only in the refcount's bias, which the refcount compare
 * checks: the number is the model's. */
static int64_t r_pincount(const struct reader_args *a)
{
	return a->fs->pincount >= 0 ? a->fs->pincount : fsim_folio_pincount(a->subject->f);
}
static int64_t r_refcount(const struct reader_args *a) { return a->fs->refcount; }
static int64_t r_shared_bit(const struct reader_args *a) { return a->fs->shared_bit; }
static int64_t r_entire(const struct reader_args *a) { return a->fs->entire_mapcount; }
static int64_t r_nr_pages_mapped(const struct reader_args *a) { return a->fs->nr_pages_mapped; }

static int64_t r_total(const struct reader_args *a)
{
	const struct kh_folio_state *fs = a->fs;

	if (fs->total_mapped_pages >= 0)
		return fs->total_mapped_pages;
	if (fs->entire_mapcount < 0)
		return fs->mapcount;	/* a small folio */
	return (int64_t)fs->large_mapcount - fs->entire_mapcount +
	       (int64_t)fs->entire_mapcount * (int64_t)fsim_folio_nr_pages(a->subject->f);
}

static int64_t r_avg(const struct reader_args *a)
{
	return avg_of(a->fs, fsim_folio_order(a->subject->f), fsim_folio_order(a->subject->f) > 0);
}

static int64_t r_true_mapcount(const struct reader_args *a)
{
	return (int64_t)fsim_oracle_true_mapcount(a->subject->f, a->page);
}

static int64_t r_kpagecount(const struct reader_args *a) { return (int64_t)page_of(a).kpagecount; }
static int64_t r_exclusive(const struct reader_args *a) { return page_of(a).pagemap_exclusive; }
static int64_t r_anon_exclusive(const struct reader_args *a) { return page_of(a).anon_exclusive; }
static int64_t r_mapmax(const struct reader_args *a) { return (int64_t)page_of(a).mapmax; }

#define NODE(i) (a->now->node[i] - a->base->node[i])
static int64_t r_anon_mapped(const struct reader_args *a) { return NODE(0); }
static int64_t r_file_mapped(const struct reader_args *a) { return NODE(1); }
static int64_t r_anon_thps(const struct reader_args *a) { return NODE(2); }
static int64_t r_file_pmdmapped(const struct reader_args *a) { return NODE(3); }
static int64_t r_shmem_pmdmapped(const struct reader_args *a) { return NODE(4); }
static int64_t r_shmem(const struct reader_args *a) { return NODE(5); }

/* /proc/meminfo shows the node statistics in kB (K(x) = x << (PAGE_SHIFT - 10)) */
#define KB(v) ((v) << (kh_tree()->page_shift - 10))
static int64_t r_anon_pages_kb(const struct reader_args *a) { return KB(NODE(0)); }
static int64_t r_mapped_kb(const struct reader_args *a) { return KB(NODE(1)); }
static int64_t r_anon_huge_kb(const struct reader_args *a) { return KB(NODE(2)); }
static int64_t r_shmem_pmd_kb(const struct reader_args *a) { return KB(NODE(4)); }
static int64_t r_file_pmd_kb(const struct reader_args *a) { return KB(NODE(3)); }
static int64_t r_shmem_kb(const struct reader_args *a) { return KB(NODE(5)); }

#define ORDERED(field) (a->order < KH_MAX_ORDERS ? \
	a->now->field[a->order] - a->base->field[a->order] : 0)
static int64_t r_thp_nr_anon(const struct reader_args *a) { return ORDERED(nr_anon); }
static int64_t r_thp_partial(const struct reader_args *a) { return ORDERED(nr_anon_partially_mapped); }
static int64_t r_thp_split(const struct reader_args *a) { return ORDERED(split_deferred); }
static int64_t r_deferred_split_page(const struct reader_args *a)
{
	return a->now->thp_deferred_split_page - a->base->thp_deferred_split_page;
}

static const struct reader {
	enum fsim_expect_target target;
	const char *key;
	reader_fn fn;
	bool oracle;		/* from the model's oracle, not the kernel */
} readers[] = {
	{ FSIM_EXPECT_FOLIO, "mapcount", r_mapcount, false },
	{ FSIM_EXPECT_FOLIO, "total_mapped_pages", r_total, false },
	{ FSIM_EXPECT_FOLIO, "avg_mapcount", r_avg, false },
	{ FSIM_EXPECT_FOLIO, "mapped", r_mapped, false },
	{ FSIM_EXPECT_FOLIO, "maybe_shared", r_maybe_shared, false },
	{ FSIM_EXPECT_FOLIO, "partially_mapped", r_partially, false },
	{ FSIM_EXPECT_FOLIO, "deferred", r_deferred, false },
	{ FSIM_EXPECT_FOLIO, "pincount", r_pincount, false },
	{ FSIM_EXPECT_FOLIO, "refcount", r_refcount, false },
	{ FSIM_EXPECT_FOLIO, "true_mapcount", r_true_mapcount, true },
	{ FSIM_EXPECT_FOLIO, "kpagecount", r_kpagecount, false },
	{ FSIM_EXPECT_FOLIO, "exclusive", r_exclusive, false },
	{ FSIM_EXPECT_FOLIO, "anon_exclusive", r_anon_exclusive, false },
	{ FSIM_EXPECT_FOLIO, "mapmax", r_mapmax, false },
	{ FSIM_EXPECT_FOLIO, "slot0", NULL, false },	/* kh_expect_slot() */
	{ FSIM_EXPECT_FOLIO, "slot1", NULL, false },
	{ FSIM_EXPECT_FOLIO, "shared_bit", r_shared_bit, false },
	{ FSIM_EXPECT_FOLIO, "entire_mapcount", r_entire, false },
	{ FSIM_EXPECT_FOLIO, "nr_pages_mapped", r_nr_pages_mapped, false },
	{ FSIM_EXPECT_STATS, "anon_mapped", r_anon_mapped, false },
	{ FSIM_EXPECT_STATS, "file_mapped", r_file_mapped, false },
	{ FSIM_EXPECT_STATS, "anon_thps", r_anon_thps, false },
	{ FSIM_EXPECT_STATS, "file_pmdmapped", r_file_pmdmapped, false },
	{ FSIM_EXPECT_STATS, "shmem_pmdmapped", r_shmem_pmdmapped, false },
	{ FSIM_EXPECT_STATS, "shmem", r_shmem, false },
	{ FSIM_EXPECT_THP, "order", NULL, false },	/* the selector */
	{ FSIM_EXPECT_THP, "nr_anon", r_thp_nr_anon, false },
	{ FSIM_EXPECT_THP, "nr_anon_partially_mapped", r_thp_partial, false },
	{ FSIM_EXPECT_THP, "split_deferred", r_thp_split, false },
	{ FSIM_EXPECT_VMSTAT, "thp_deferred_split_page", r_deferred_split_page, false },
	{ FSIM_EXPECT_MEMINFO, "anon_pages_kb", r_anon_pages_kb, false },
	{ FSIM_EXPECT_MEMINFO, "mapped_kb", r_mapped_kb, false },
	{ FSIM_EXPECT_MEMINFO, "anon_huge_pages_kb", r_anon_huge_kb, false },
	{ FSIM_EXPECT_MEMINFO, "shmem_pmd_mapped_kb", r_shmem_pmd_kb, false },
	{ FSIM_EXPECT_MEMINFO, "file_pmd_mapped_kb", r_file_pmd_kb, false },
	{ FSIM_EXPECT_MEMINFO, "shmem_kb", r_shmem_kb, false },
};

static const struct reader *reader_find(enum fsim_expect_target target, const char *key)
{
	size_t i;

	for (i = 0; i < sizeof(readers) / sizeof(readers[0]); i++)
		if (readers[i].target == target && !strcmp(readers[i].key, key))
			return &readers[i];
	return NULL;
}

const char *kh_expect_missing_key(void)
{
	static char name[96];
	const struct fsim_expect_key *k;
	size_t i;

	for (i = 0; (k = fsim_expect_key_at(i)); i++) {
		if (k->target == FSIM_EXPECT_REGION || k->target == FSIM_EXPECT_ROLLUP)
			continue;	/* process level: the guest runner's */
		if (!reader_find(k->target, k->name)) {
			snprintf(name, sizeof(name), "%s %s", fsim_expect_target_name(k->target),
				 k->name);
			return name;
		}
	}
	return NULL;
}

/* A value of the key's type: decimal, yes/no. */
static int parse_value(const struct fsim_expect_key *key, const char *text, int64_t *out)
{
	char *end;

	if (key->type == FSIM_VALUE_BOOL) {
		if (!strcmp(text, "yes"))
			*out = 1;
		else if (!strcmp(text, "no"))
			*out = 0;
		else
			return -EINVAL;
		return 0;
	}
	errno = 0;
	*out = strtoll(text, &end, 10);
	return errno || end == text || *end ? -EINVAL : 0;
}

/* slotN=M:count or none, against the tree's _mm_id[N] and mapcount. */
static int expect_slot(struct kh_scn *scn, const struct fsim_stmt_op *op,
		       const struct kh_folio_state *fs, int slot, const char *text)
{
	unsigned int want_id = 0;
	long want_count = 0;

	if (strcmp(text, "none")) {
		const char *colon = strchr(text, ':');
		char mmname[64];
		int idx;

		if (!colon || (size_t)(colon - text) >= sizeof(mmname))
			goto bad;
		memcpy(mmname, text, (size_t)(colon - text));
		mmname[colon - text] = '\0';
		idx = fsim_script_name_find(scn->script, scn->index, mmname);
		if (idx < 0 || (size_t)idx >= scn->nnames || !scn->names[idx].mm)
			goto bad;
		want_id = fsim_mm_id(scn->names[idx].mm);
		want_count = strtol(colon + 1, NULL, 10);
	}
	if (!fs->has_slots)
		return 0;
	if (fs->slot_id[slot] != want_id || (want_id && fs->slot_mapcount[slot] != want_count))
		return scn->outcome = FSIM_FAIL, scn->expectation_failed = true,
		       snprintf(scn->message, sizeof(scn->message),
				"%s:%u: expected slot%d=%s, the kernel code has mm id %u with %d",
				fsim_script_file(scn->script), op->line, slot, text,
				fs->slot_id[slot], fs->slot_mapcount[slot]), -1;
	scn->expects_checked++;
	return 0;
bad:
	snprintf(scn->message, sizeof(scn->message), "%s:%u: slot%d=%s: not an mm of the "
		 "scenario", fsim_script_file(scn->script), op->line, slot, text);
	scn->outcome = FSIM_FAIL;
	return -1;
}

int kh_expect(struct kh_scn *scn, const struct fsim_stmt_op *op,
	      const struct fsim_stmt_view *view)
{
	struct reader_args a = { .scn = scn };
	struct kh_folio_state fs;
	struct kh_stats now, base;
	size_t j;

	memset(&fs, 0, sizeof(fs));
	if (op->target == FSIM_EXPECT_FOLIO) {
		a.subject = op->name_index >= 0 && (size_t)op->name_index < scn->nnames ?
			    &scn->names[op->name_index] : NULL;
		if (!a.subject || !a.subject->f) {
			snprintf(scn->message, sizeof(scn->message), "%s:%u: no such folio",
				 fsim_script_file(scn->script), op->line);
			scn->outcome = FSIM_FAIL;
			return -1;
		}
		kh_folio_state(a.subject->kf, &fs);
	} else if (op->target > FSIM_EXPECT_MEMINFO) {
		snprintf(scn->message, sizeof(scn->message), "%s:%u: a process expectation",
			 fsim_script_file(scn->script), op->line);
		scn->outcome = FSIM_SKIP;
		return -1;
	}
	kh_stats(&now);
	kh_compare_baseline_get(&base);
	a.fs = &fs;
	a.now = &now;
	a.base = &base;
	a.order = (unsigned int)op->order;
	for (j = 0; j < view->nargs; j++) {
		const struct fsim_stmt_arg *arg = &view->args[j];
		const struct fsim_expect_key *key = fsim_expect_key_find(op->target, arg->key);
		const struct reader *r = reader_find(op->target, arg->key);
		unsigned long lo = 0, hi = 1, p;
		int64_t want, got;

		if (!key || !r) {
			snprintf(scn->message, sizeof(scn->message), "%s:%u: key %s has no kernel "
				 "reader", fsim_script_file(scn->script), op->line, arg->key);
			scn->outcome = FSIM_FAIL;
			return -1;
		}
		if ((key->flags & FSIM_KEY_SELECTOR) || !fsim_expect_key_in_mode(key, scn->mode))
			continue;
		if (key->type == FSIM_VALUE_SLOT) {
			if (expect_slot(scn, op, &fs, !strcmp(arg->key, "slot1"), arg->value))
				return -1;
			continue;
		}
		if (parse_value(key, arg->value, &want)) {
			snprintf(scn->message, sizeof(scn->message), "%s:%u: %s=%s: not a value "
				 "of its type", fsim_script_file(scn->script), op->line, arg->key,
				 arg->value);
			scn->outcome = FSIM_FAIL;
			return -1;
		}
		if (arg->indexed) {
			lo = arg->lo;
			hi = arg->hi;
		}
		for (p = lo; p < hi; p++) {
			a.page = p;
			got = r->fn(&a);
			scn->expects_checked++;
			if (got == want)
				continue;
			snprintf(scn->message, sizeof(scn->message),
				 "%s:%u: expected %s=%s, %s %" PRId64,
				 fsim_script_file(scn->script), op->line, arg->key, arg->value,
				 r->oracle ? "the oracle has" : "the kernel code has", got);
			if (arg->indexed) {
				char at[32];

				snprintf(at, sizeof(at), " (page %lu)", p);
				strncat(scn->message, at,
					sizeof(scn->message) - strlen(scn->message) - 1);
			}
			scn->outcome = FSIM_FAIL;
			scn->expectation_failed = true;
			return -1;
		}
	}
	return 0;
}
