// SPDX-License-Identifier: GPL-2.0
/*
 * kharness: customised.  The node statistics of the rmap paths.
 *
 * __lruvec_stat_mod_folio() (mm/memcontrol.c) and __mod_node_page_state()
 * (mm/vmstat.c) update per-memcg, per-lruvec and per-cpu counters with
 * thresholds and folding; the harness has one node and no memcg, so both
 * add to one atomic counter per node_stat_item, which kh_stats() reads.
 * What this leaves out (the memcg's own counters, the per-cpu batching)
 * costs the kernel time in every rmap call that changes a statistic: the
 * benchmark's figures say so (docs/kharness.md).
 */

static atomic_long_t kh_node_stat[NR_VM_NODE_STAT_ITEMS];
#ifdef CONFIG_NUMA
static struct pglist_data kh_pgdat;	/* NODE_DATA(0); !NUMA has contig_page_data */
#endif

void __lruvec_stat_mod_folio(struct folio *folio, enum node_stat_item idx, int val)
{
	atomic_long_add(val, &kh_node_stat[idx]);
}

void __mod_node_page_state(struct pglist_data *pgdat, enum node_stat_item item, long delta)
{
	atomic_long_add(delta, &kh_node_stat[item]);
}
