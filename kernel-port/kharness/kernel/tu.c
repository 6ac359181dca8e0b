// SPDX-License-Identifier: GPL-2.0
/*
 * kharness: the one kernel translation unit.  Compiled per tree with that
 * tree's headers, generated config and flags (kernel-port/scripts/
 * build-kharness), it takes the tree's mm/rmap.c whole and unmodified, and
 * around it the glue, one file per reason it exists (as tools/testing/vma
 * splits its shims):
 *
 *   duplicated.c      kernel code outside mm/rmap.c that the accounting
 *                     runs, copied and kept in sync with each tree (the
 *                     deferred split queue, folio_anon_vma(), the /proc
 *                     readers, prep_compound_page());
 *   stubbed.c         symbols mm/rmap.c links against whose work is not
 *                     accounting: no-ops, and the data they read;
 *   stubbed_abort.c   (its own unit, no kernel headers) functions that the
 *                     accounting never reaches: calling one aborts;
 *   customised_*.c    written for the harness: the memory map and folio
 *                     allocator, the statistics recorder, locks without a
 *                     scheduler, and kapi.c, the plain-C interface of
 *                     include/kh_api.h;
 *   overlay/, overlay-tsan/  headers found before the tree's: BUG()/WARN()
 *                     calling the harness; under ThreadSanitizer, x86's
 *                     atomics, bitops and barriers as __atomic builtins.
 *
 * The tree's parts arrive as -DKH_PREP (the prep part: MM owner slots,
 * PUD rmap, enum pgtable_level), -DKH_RFC (the 13 patches), -DKH_FIXES and
 * -DKH_DETECT; CONFIG_* come from the tree's own .config.
 */
#include "rmap.c"		/* the tree's mm/rmap.c, via -I$(TREE)/mm */

#include <generated/utsrelease.h>

#include "kh_api.h"
#include "fs/proc/internal.h"	/* folio_precise_page_mapcount() */

#include "customised_lock.c"
#include "customised_stat.c"
#include "duplicated.c"
#include "stubbed.c"
#include "customised_mem.c"
#include "kapi.c"
#ifdef KH_TSAN
#include "customised_tsan.c"
#endif
