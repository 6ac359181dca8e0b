/* SPDX-License-Identifier: MIT */
/*
 * Snapshots: what a running system's /proc would read in each mode.  The
 * caller (`foliosim snapshot`, which reads /proc/PID/maps, pagemap,
 * PAGEMAP_SCAN, /proc/kpageflags and /proc/kpagecount) describes what it
 * saw: folios (head PFN, order, kind, the kernel's kpagecount of each
 * page) and which page of which region maps which folio page, by a PTE or
 * as part of a PMD.  fsim_snapshot_predict() replays those mappings into
 * the model of a mode and returns each region's smaps figures.
 *
 * A snapshot sees the mappings, not their history: an anon folio is
 * replayed as faulted by the first process that maps it, then mapped by
 * the others (as fork would), and what the history could change is
 * counted in the notes and bounded per region rather than guessed.
 * fsim_snapshot_predict() replays one folio at a time: its memory is the
 * observation's plus one folio.  Functions return 0 or a negative errno
 * (-EINVAL for a bad argument, -ENOMEM, -E2BIG beyond 2^32 folios, folio
 * pages or regions).
 */
#ifndef FOLIOSIM_SNAPSHOT_H
#define FOLIOSIM_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "foliosim/foliosim.h"
#include "foliosim/process.h"

#ifdef __cplusplus
extern "C" {
#endif

struct fsim_snapshot;

/** An empty snapshot of a machine with @arch (NULL: x86_64). */
FSIM_API int fsim_snapshot_create(const struct fsim_arch *arch, struct fsim_snapshot **out);
FSIM_API void fsim_snapshot_destroy(struct fsim_snapshot *s);

/** A folio of 2^@order pages (anon, file or shmem), with the kernel's
 *  /proc/kpagecount of each page in @kpagecount[0 .. 2^order - 1] (copied;
 *  NULL if unknown).  @kpagecount_precise: the kernel has per-page
 *  mapcounts (CONFIG_PAGE_MAPCOUNT), so kpagecount minus the mappings the
 *  snapshot saw is what other address spaces map.  *@index: its number. */
FSIM_API int fsim_snapshot_add_folio(struct fsim_snapshot *s, unsigned int order,
				     enum fsim_kind kind, const uint64_t *kpagecount,
				     bool kpagecount_precise, size_t *index);
/** A region (one VMA) of process @proc (0, 1, ...: the caller's numbers)
 *  of @npages pages.  *@index: its number. */
FSIM_API int fsim_snapshot_add_region(struct fsim_snapshot *s, unsigned int proc,
				      uint64_t npages, size_t *index);
/** Page @page of region @region maps page @fpage of folio @folio: by a PTE
 *  (FSIM_LEVEL_PTE) or as part of a PMD mapping the whole folio
 *  (FSIM_LEVEL_PMD: give every page it covers).  Mappings given in address
 *  order are stored as runs (a PMD, a range of one folio, or pages each
 *  mapping the next small folio), which is what keeps a snapshot small. */
FSIM_API int fsim_snapshot_map(struct fsim_snapshot *s, size_t region, uint64_t page,
			       size_t folio, unsigned long fpage, enum fsim_level level);

/** One region's figures in a mode. */
struct fsim_snapshot_values {
	struct fsim_smaps_kb kb;	/* smaps, one VMA (Private/Shared: totals) */
	uint64_t kpagecount_sum;	/* /proc/kpagecount over its mapped pages */
	uint64_t exclusive_pages;	/* pagemap bit 56 set */
	/* base, rfc: its pages in large anon folios only its process maps
	 * (fsim_snapshot_notes.folios_history_dependent).  They read private
	 * and exclusive here; had an earlier sharer left the MM-id shared bit
	 * set they would read shared, so the kernel's Private lies in
	 * [private_total - history_pages * 4 kB, private_total], Shared and
	 * bit 56 likewise.  0 in legacy: per-page mapcounts have no history. */
	uint64_t history_pages;
};

/** What the replay could not know or do. */
struct fsim_snapshot_notes {
	uint64_t folios, mappings;	/* replayed */
	uint64_t folios_shared_elsewhere;	/* mapped by address spaces outside
						 * the snapshot (from kpagecount) */
	uint64_t folios_history_dependent;	/* large anon folios one process maps:
						 * base and rfc read them shared if an
						 * earlier sharer left the MM-id shared
						 * bit set, which /proc does not show */
	uint64_t refused;		/* mappings the model refused (shapes it does
					 * not take): left out */
};

/** The figures of every region in @mode into @out[0 .. regions - 1]. */
FSIM_API int fsim_snapshot_predict(const struct fsim_snapshot *s, enum fsim_mode mode,
				   struct fsim_snapshot_values *out,
				   struct fsim_snapshot_notes *notes);
/** The kpagecount recorded for page @fpage of folio @folio (0 if none). */
FSIM_API uint64_t fsim_snapshot_kpagecount(const struct fsim_snapshot *s, size_t folio,
					   unsigned long fpage);
/** Bytes the observation holds (what `foliosim snapshot` keeps per
 *  resident page: 8 per folio, 4 per folio page, 24 per run of mappings). */
FSIM_API size_t fsim_snapshot_bytes(const struct fsim_snapshot *s);
/** The number of regions added. */
FSIM_API size_t fsim_snapshot_regions(const struct fsim_snapshot *s);

#ifdef __cplusplus
}
#endif

#endif /* FOLIOSIM_SNAPSHOT_H */
