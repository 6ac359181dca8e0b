// SPDX-License-Identifier: GPL-2.0
/*
 * kharness, harness half: the model's folio against the kernel's, value by
 * value, wherever both have the value.  A value the tree does not keep
 * (the per-page mapcount after the series, the total of mapped pages
 * before it) is derived from the tree's own counters the way the model
 * defines it, or left out when no counter of the tree carries it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "kh_harness.h"

#define DIFFER(what, m, k)						\
	do {								\
		snprintf(why, len, "%s: model %" PRId64 ", kernel %" PRId64, \
			 what, (int64_t)(m), (int64_t)(k));		\
		return -1;						\
	} while (0)

#define CHECK(what, m, k)						\
	do {								\
		if ((int64_t)(m) != (int64_t)(k))			\
			DIFFER(what, m, k);				\
	} while (0)

static int compare_pages(const struct fsim_folio *mf, struct kh_folio *kf,
			 unsigned long first, unsigned long nr, char *why, size_t len)
{
	const unsigned long nr_pages = fsim_folio_nr_pages(mf);
	unsigned long i;
	size_t v;

	for (i = first; i < first + nr && i < nr_pages; i++) {
		struct fsim_page_info mp;
		struct kh_page_state kp;

		if (fsim_folio_page_info(mf, i, &mp) || kh_page_state(kf, i, &kp)) {
			snprintf(why, len, "page %lu: cannot read it", i);
			return -1;
		}
		/* each value of the page, in both; a precise mapcount only
		 * where both keep one (-1: none) */
		const struct { const char *what; int64_t m, k; bool both; } vals[] = {
			{ "mapcount", mp.precise_mapcount, kp.mapcount,
			  mp.precise_mapcount >= 0 && kp.mapcount >= 0 },
			{ "anon_exclusive", mp.anon_exclusive, kp.anon_exclusive, true },
			{ "kpagecount", (int64_t)mp.kpagecount, (int64_t)kp.kpagecount, true },
			{ "pagemap exclusive", mp.pagemap_exclusive, kp.pagemap_exclusive, true },
			{ "numa mapcount", (int64_t)mp.numa_mapmax, (int64_t)kp.mapmax, true },
		};

		for (v = 0; v < sizeof(vals) / sizeof(vals[0]); v++)
			if (vals[v].both && vals[v].m != vals[v].k) {
				snprintf(why, len, "page %lu %s: model %" PRId64 ", kernel %" PRId64,
					 i, vals[v].what, vals[v].m, vals[v].k);
				return -1;
			}
	}
	return 0;
}

int kh_compare_folio_pages(const struct fsim_folio *mf, struct kh_folio *kf,
			   unsigned long first, unsigned long nr, char *why, size_t len)
{
	struct kh_folio_state k;
	struct fsim_slot slots[2];
	bool shared_bit;
	int64_t total;

	kh_folio_state(kf, &k);
	CHECK("mapcount", fsim_folio_mapcount(mf), k.mapcount);
	CHECK("mapped", fsim_folio_mapped(mf), k.mapped);
	/* the model keeps the refcount 64 bits wide; the kernel's is an int */
	CHECK("refcount", (int32_t)(uint32_t)fsim_folio_refcount(mf), (int32_t)k.refcount);
	if (k.pincount >= 0)	/* else only the refcount counts the pins */
		CHECK("pincount", fsim_folio_pincount(mf), k.pincount);
	CHECK("maybe_shared", fsim_folio_maybe_mapped_shared(mf), k.maybe_shared);
	CHECK("partially_mapped", fsim_folio_partially_mapped(mf), k.partially_mapped);
	CHECK("deferred", fsim_folio_on_deferred_split(mf), k.deferred);
	if (k.avg_mapcount >= 0)
		CHECK("avg_mapcount", fsim_folio_average_page_mapcount(mf), k.avg_mapcount);
	if (fsim_folio_entire_mapcount(mf) >= 0 && k.entire_mapcount >= 0)
		CHECK("entire_mapcount", fsim_folio_entire_mapcount(mf), k.entire_mapcount);
	if (fsim_folio_nr_pages_mapped(mf) >= 0 && k.nr_pages_mapped >= 0)
		CHECK("nr_pages_mapped", fsim_folio_nr_pages_mapped(mf), k.nr_pages_mapped);
	total = k.total_mapped_pages;
	if (total < 0 && k.entire_mapcount >= 0 && !fsim_folio_test_hugetlb(mf))
		/* 6.12 and the base tree: every entry that is not an entire
		 * one maps one page (the model's legacy definition) */
		total = (int64_t)k.large_mapcount - k.entire_mapcount +
			(int64_t)k.entire_mapcount * (int64_t)fsim_folio_nr_pages(mf);
	if (total >= 0 && !fsim_folio_test_hugetlb(mf))
		CHECK("total_mapped_pages", fsim_folio_total_mapped_pages(mf), total);
	if (k.has_slots && fsim_folio_slots(mf, slots, &shared_bit) == 0) {
		CHECK("slot0 mm id", slots[0].mm_id, k.slot_id[0]);
		CHECK("slot1 mm id", slots[1].mm_id, k.slot_id[1]);
		CHECK("slot0 mapcount", slots[0].mapcount, k.slot_mapcount[0]);
		CHECK("slot1 mapcount", slots[1].mapcount, k.slot_mapcount[1]);
		CHECK("shared_bit", shared_bit, k.shared_bit);
	}
	return compare_pages(mf, kf, first, nr, why, len);
}

int kh_compare_folio(const struct fsim_folio *mf, struct kh_folio *kf, char *why, size_t len)
{
	return kh_compare_folio_pages(mf, kf, 0, fsim_folio_nr_pages(mf), why, len);
}

static struct kh_stats kh_base;

void kh_compare_baseline(const struct fsim_ctx *ctx)
{
	(void)ctx;
	kh_stats(&kh_base);
}

void kh_compare_baseline_get(struct kh_stats *out)
{
	*out = kh_base;
}

int kh_compare_stats(const struct fsim_ctx *ctx, char *why, size_t len)
{
	static const char *const names[KH_NR_STATS] = {
		"nr_anon_mapped", "nr_file_mapped", "nr_anon_thps",
		"nr_file_pmdmapped", "nr_shmem_pmdmapped", "nr_shmem" };
	struct kh_stats k;
	unsigned int i, order;
	char what[64];

	kh_stats(&k);
	for (i = 0; i < KH_NR_STATS; i++)
		CHECK(names[i], fsim_ctx_stat(ctx, (enum fsim_stat)i),
		      k.node[i] - kh_base.node[i]);
	for (order = 1; order <= kh_tree()->pmd_order && order < KH_MAX_ORDERS; order++) {
		snprintf(what, sizeof(what), "order-%u nr_anon", order);
		CHECK(what, fsim_ctx_thp_counter(ctx, order, FSIM_THP_NR_ANON),
		      k.nr_anon[order] - kh_base.nr_anon[order]);
		snprintf(what, sizeof(what), "order-%u nr_anon_partially_mapped", order);
		CHECK(what, fsim_ctx_thp_counter(ctx, order, FSIM_THP_NR_ANON_PARTIALLY_MAPPED),
		      k.nr_anon_partially_mapped[order] - kh_base.nr_anon_partially_mapped[order]);
		snprintf(what, sizeof(what), "order-%u split_deferred", order);
		CHECK(what, fsim_ctx_thp_counter(ctx, order, FSIM_THP_SPLIT_DEFERRED),
		      k.split_deferred[order] - kh_base.split_deferred[order]);
	}
	CHECK("thp_deferred_split_page", fsim_ctx_thp_deferred_split_page(ctx),
	      k.thp_deferred_split_page - kh_base.thp_deferred_split_page);
	CHECK("deferred split queue length", fsim_ctx_deferred_split_len(ctx),
	      k.split_queue_len - kh_base.split_queue_len);
	return 0;
}
