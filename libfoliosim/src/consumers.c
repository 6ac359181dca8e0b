// SPDX-License-Identifier: MIT
/*
 * Real readers of /proc and the figure each computes, derived in the model
 * from the fields the tool reads, with the tool's own arithmetic (its kB
 * rounding, which file it prefers).  Each row cites the tool's source;
 * docs/consumers.md quotes the lines.  The modes differ only in what the
 * kernel writes into those fields.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "foliosim/process.h"
#include "internal.h"

/* ------------------------------------------------------------------ */
/* What the tools read: a process's fields, gathered region by region  */
/* ------------------------------------------------------------------ */

void consumer_inputs_init(struct consumer_inputs *in, const struct fsim_ctx *ctx)
{
	memset(in, 0, sizeof(*in));
	in->page_kb = (1ull << fsim_ctx_arch(ctx)->page_shift) >> 10;
}

/* One region's raw smaps: smaps_rollup sums these over every VMA. */
void consumer_inputs_add_raw(struct consumer_inputs *in, const struct fsim_smaps *v)
{
	in->raw.resident += v->resident;
	in->raw.private_clean += v->private_clean;
	in->raw.private_dirty += v->private_dirty;
	in->raw.shared_clean += v->shared_clean;
	in->raw.shared_dirty += v->shared_dirty;
	in->raw.pss += v->pss;
	in->raw.pss_anon += v->pss_anon;
	in->raw.pss_file += v->pss_file;
	in->raw.pss_shmem += v->pss_shmem;
	in->raw.pss_dirty += v->pss_dirty;
	in->raw.anonymous += v->anonymous;
	in->raw.anonymous_thp += v->anonymous_thp;
	in->raw.shmem_thp += v->shmem_thp;
	in->raw.file_thp += v->file_thp;
	in->raw.shared_hugetlb += v->shared_hugetlb;
	in->raw.private_hugetlb += v->private_hugetlb;
	in->raw.swap += v->swap;
}

/* One region's smaps in kB (its VMAs already shifted one by one): what a
 * tool summing /proc/PID/smaps adds up. */
void consumer_inputs_add_kb(struct consumer_inputs *in, const struct fsim_smaps_kb *kb)
{
	in->smaps.rss += kb->rss;
	in->smaps.pss += kb->pss;
	in->smaps.private_clean += kb->private_clean;
	in->smaps.private_dirty += kb->private_dirty;
	in->smaps.shared_clean += kb->shared_clean;
	in->smaps.shared_dirty += kb->shared_dirty;
	in->smaps.private_hugetlb += kb->private_hugetlb;
	in->smaps.shared_hugetlb += kb->shared_hugetlb;
}

/* One page of /proc/PID/pagemap, as libmeminfo's ReadVmaStats() and
 * page-types read it. */
void consumer_inputs_add_page(struct consumer_inputs *in, const struct fsim_page_view *v)
{
	in->exclusive_pages += (v->present || v->zero_page) && v->pm_exclusive;
	/* libmeminfo divides by the PFN's kpagecount; the model has no PFN
	 * (nor a count) for the zeropage, which it leaves out. */
	if (!v->present || !v->kpagecount)
		return;
	in->pm_rss_kb += (int64_t)in->page_kb;
	in->pm_uss_kb += v->kpagecount == 1 ? (int64_t)in->page_kb : 0;
	in->pm_pss_kb += (int64_t)(in->page_kb / v->kpagecount);
}

/* show_smaps_rollup(): one accumulator over every VMA, printed in kB. */
static void rollup_kb(const struct fsim_smaps *raw, struct fsim_smaps_kb *out)
{
	memset(out, 0, sizeof(*out));
	smaps_kb_add(out, raw);
}

#define WALK_BATCH 512

struct walk {
	const struct fsim_process *p;
	struct consumer_inputs *in;
	struct fsim_page_view views[WALK_BATCH];
	bool pages;		/* walk the pages too */
	int err;
};

static void walk_region(void *arg, const char *region)
{
	struct walk *w = arg;
	struct fsim_smaps raw;
	struct fsim_smaps_kb kb;
	uint64_t bytes, pages, i, n, k;
	unsigned int shift = 10;

	if (w->err || (w->err = fsim_process_smaps(w->p, region, &raw)) ||
	    (w->err = fsim_process_smaps_kb(w->p, region, &kb)) ||
	    (w->err = fsim_process_region_size(w->p, region, &bytes)))
		return;
	consumer_inputs_add_raw(w->in, &raw);
	consumer_inputs_add_kb(w->in, &kb);
	if (!w->pages)
		return;
	while ((1ull << shift) < w->in->page_kb << 10)
		shift++;
	pages = bytes >> shift;
	for (i = 0; i < pages; i += n) {
		n = pages - i < WALK_BATCH ? pages - i : WALK_BATCH;
		if ((w->err = fsim_process_pages(w->p, region, i, n, w->views)))
			return;
		for (k = 0; k < n; k++)
			consumer_inputs_add_page(w->in, &w->views[k]);
	}
}

static int gather(const struct fsim_process *p, bool pages, struct consumer_inputs *in)
{
	struct walk *w = malloc(sizeof(*w));
	int err;

	if (!w)
		return -ENOMEM;
	consumer_inputs_init(in, fsim_process_mm(p)->ctx);
	w->p = p;
	w->in = in;
	w->pages = pages;
	w->err = 0;
	fsim_process_regions(p, walk_region, w);
	err = w->err;
	free(w);
	return err;
}

int fsim_process_smaps_rollup(const struct fsim_process *p, struct fsim_smaps_kb *out)
{
	struct consumer_inputs in;
	int err;

	if (!p || !out)
		return -EINVAL;
	err = gather(p, false, &in);
	if (!err)
		rollup_kb(&in.raw, out);
	return err;
}

/* ------------------------------------------------------------------ */
/* The consumers                                                       */
/* ------------------------------------------------------------------ */

enum consumer_id {
	C_PSUTIL_USS, C_PSUTIL_PSS, C_SMEM_USS, C_SMEM_PSS, C_PSMEM_PRIVATE,
	C_PSMEM_SHARED, C_LIBMEMINFO_USS, C_LIBMEMINFO_PSS, C_REDIS_COW,
	C_PMAP_DIRTY, C_PAGE_TYPES_EXCLUSIVE,
	C_NUMASTAT_ANON, C_NUMASTAT_MAPPED, C_CADVISOR_RSS, C_CADVISOR_MAPPED,
	C_NR
};

static const struct fsim_consumer consumers[C_NR] = {
	[C_PSUTIL_USS] = { "psutil", "uss",
		"memory_full_info().uss: Private_Clean + Private_Dirty + Private_Hugetlb of /proc/PID/smaps_rollup",
		"giampaolo/psutil psutil/_pslinux.py: _parse_smaps_rollup()",
		"once a second process maps any page of a large folio, every page of it counts as Shared in every process that maps it (folio_maybe_mapped_shared(), 06/13): USS loses the whole folio",
		true, "kB" },
	[C_PSUTIL_PSS] = { "psutil", "pss",
		"memory_full_info().pss: Pss of /proc/PID/smaps_rollup",
		"giampaolo/psutil psutil/_pslinux.py: _parse_smaps_rollup()",
		"when processes map different parts of a large folio, Pss charges each by the folio's average mapcount instead of each page's own: those mapping pages others unmapped are charged less, the others more",
		true, "kB" },
	[C_SMEM_USS] = { "smem", "USS",
		"sum over /proc/PID/smaps of Private_Clean + Private_Dirty",
		"smem: pidmaps(), pidtotals() (Matt Mackall's script, read in a port)",
		"as psutil uss: a large folio two processes map, even in part, is Shared for both",
		true, "kB" },
	[C_SMEM_PSS] = { "smem", "PSS", "sum over /proc/PID/smaps of Pss",
		"smem: pidmaps(), pidtotals()",
		"as psutil pss: Pss from the average mapcount of a partly unmapped large folio", true, "kB" },
	[C_PSMEM_PRIVATE] = { "ps_mem", "Private",
		"Private_Clean + Private_Dirty + Private_Hugetlb of smaps_rollup",
		"pixelb/ps_mem ps_mem.py: getMemStats() (V3.14)",
		"as psutil uss: a large folio two processes map, even in part, is Shared for both", true, "kB" },
	[C_PSMEM_SHARED] = { "ps_mem", "Shared",
		"Pss - (Private_Clean + Private_Dirty) + Shared_Hugetlb of smaps_rollup "
		"(ps_mem adds 0.5 kB per Pss line against truncation; omitted here)",
		"pixelb/ps_mem ps_mem.py: getMemStats() (V3.14)",
		"Shared = Pss - Private grows by what Private loses: the pages of a large folio a second process maps in part", true, "kB" },
	[C_LIBMEMINFO_USS] = { "libmeminfo", "USS",
		"Android's pagemap path (procrank with page-flag filters): pages of /proc/PID/pagemap whose /proc/kpagecount is 1, times the page size",
		"platform/system/memory/libmeminfo procmeminfo.cpp: ReadVmaStats()",
		"kpagecount reads the folio's average mapcount (04/13): a page only this process maps reads more than 1 when others map other pages of the folio (not in USS), and a page several map can read 1 (in USS)",
		true, "kB" },
	[C_LIBMEMINFO_PSS] = { "libmeminfo", "PSS",
		"Android's pagemap path: sum over present pagemap pages of page_kB / kpagecount (integer kB)",
		"platform/system/memory/libmeminfo procmeminfo.cpp: ReadVmaStats()",
		"page_kB / kpagecount with the average mapcount: the drift of Pss, page by page",
		true, "kB" },
	[C_REDIS_COW] = { "Redis", "fork CoW",
		"\"Fork CoW for RDB\": sum of Private_Dirty over the child's /proc/self/smaps",
		"redis/redis src/zmalloc.c: zmalloc_get_private_dirty(); childinfo.c",
		"while parent and child both still map any page of a THP, none of it counts as Private_Dirty: the fork copy-on-write figure stays low until whole THPs are copied or unmapped",
		true, "kB" },
	[C_PMAP_DIRTY] = { "procps pmap -x", "Dirty",
		"Private_Dirty + Shared_Dirty of each mapping in /proc/PID/smaps, summed",
		"procps-ng src/pmap.c: print_extended_maps()", NULL, true, "kB" },
	[C_PAGE_TYPES_EXCLUSIVE] = { "page-types -r", "mmap_exclusive",
		"pages whose /proc/PID/pagemap entry has bit 56 (PM_MMAP_EXCLUSIVE)",
		"torvalds/linux tools/mm/page-types.c: expand_overloaded_flags()",
		"bit 56 is cleared for every page of a large folio two processes map, even in part, and set for the huge zeropage (a folio with mapcount 0 is not maybe-shared)",
		true, "pages" },
	[C_NUMASTAT_ANON] = { "numastat -m", "AnonPages",
		"AnonPages of /sys/devices/system/node/nodeN/meminfo (NR_ANON_MAPPED)",
		"numactl/numactl numastat.c: show_info_from_system_file()",
		"a partly unmapped anonymous THP stays counted whole in AnonPages until its last page is unmapped (01/13: no per-page counts): up to a whole folio per partly mapped folio",
		false, "kB" },
	[C_NUMASTAT_MAPPED] = { "numastat -m", "Mapped",
		"Mapped of the node's meminfo (NR_FILE_MAPPED)",
		"numactl/numactl numastat.c: show_info_from_system_file()",
		"a partly mapped page-cache folio counts whole in Mapped (NR_FILE_MAPPED) while any of it is mapped",
		false, "kB" },
	[C_CADVISOR_RSS] = { "cAdvisor", "RSS",
		"anon of the cgroup's memory.stat (v1: rss; both NR_ANON_MAPPED)",
		"google/cadvisor container/libcontainer/handler.go: setMemoryStats()",
		"as numastat AnonPages: a partly unmapped THP counts whole in the cgroup's anon",
		false, "kB" },
	[C_CADVISOR_MAPPED] = { "cAdvisor", "MappedFile",
		"file_mapped of memory.stat (v1: mapped_file; NR_FILE_MAPPED)",
		"google/cadvisor container/libcontainer/handler.go: setMemoryStats()",
		"as numastat Mapped: a partly mapped page-cache folio counts whole in file_mapped",
		false, "kB" },
};

size_t fsim_consumer_count(void)
{
	return C_NR;
}

const struct fsim_consumer *fsim_consumer_at(size_t i)
{
	return i < C_NR ? &consumers[i] : NULL;
}

int fsim_consumer_find(const char *tool, const char *figure)
{
	size_t i;

	if (!tool || !figure)
		return -EINVAL;
	for (i = 0; i < C_NR; i++)
		if (!strcmp(consumers[i].tool, tool) && !strcmp(consumers[i].figure, figure))
			return (int)i;
	return -ENOENT;
}

static int64_t pages_kb(const struct fsim_ctx *ctx, enum fsim_stat stat)
{
	return fsim_ctx_stat(ctx, stat) << (fsim_ctx_arch(ctx)->page_shift - 10);
}

int fsim_consumer_system_value(size_t i, const struct fsim_ctx *ctx, int64_t *out)
{
	if (!ctx || !out || i >= C_NR || consumers[i].per_process)
		return -EINVAL;
	switch (i) {
	case C_NUMASTAT_ANON:
	case C_CADVISOR_RSS:
		*out = pages_kb(ctx, FSIM_NR_ANON_MAPPED);
		return 0;
	default:	/* numastat Mapped, cAdvisor MappedFile */
		*out = pages_kb(ctx, FSIM_NR_FILE_MAPPED);
		return 0;
	}
}

int64_t consumer_compute(size_t i, const struct consumer_inputs *in)
{
	const struct consumer_smaps_sum *s = &in->smaps;
	struct fsim_smaps_kb r;

	rollup_kb(&in->raw, &r);
	switch (i) {
	case C_PSUTIL_USS:
	case C_PSMEM_PRIVATE:
		return (int64_t)(r.private_clean + r.private_dirty + r.private_hugetlb);
	case C_PSUTIL_PSS:
		return (int64_t)r.pss;
	case C_PSMEM_SHARED:
		return (int64_t)r.pss - (int64_t)(r.private_clean + r.private_dirty) +
		       (int64_t)r.shared_hugetlb;
	case C_SMEM_USS:
		return (int64_t)(s->private_clean + s->private_dirty);
	case C_SMEM_PSS:
		return (int64_t)s->pss;
	case C_REDIS_COW:
		return (int64_t)s->private_dirty;
	case C_PMAP_DIRTY:
		return (int64_t)(s->private_dirty + s->shared_dirty);
	case C_LIBMEMINFO_USS:
		return in->pm_uss_kb;
	case C_LIBMEMINFO_PSS:
		return in->pm_pss_kb;
	case C_PAGE_TYPES_EXCLUSIVE:
		return in->exclusive_pages;
	default:
		return 0;
	}
}

int fsim_consumer_value(size_t i, const struct fsim_process *p, int64_t *out)
{
	struct consumer_inputs in;
	int err;

	if (!p || !out || i >= C_NR || !consumers[i].per_process)
		return -EINVAL;
	err = gather(p, i == C_LIBMEMINFO_USS || i == C_LIBMEMINFO_PSS ||
			i == C_PAGE_TYPES_EXCLUSIVE, &in);
	if (err)
		return err;
	*out = consumer_compute(i, &in);
	return 0;
}
