/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kharness: customised, ThreadSanitizer builds only.  Wraps the tree's
 * linux/kcsan-checks.h: data_race() is the kernel's mark of an access
 * that races by design (folio_test_hugetlb() reading page_type, which
 * shares page 0's _mapcount with every mapper's atomic update).  It calls
 * kcsan_disable_current() and kcsan_enable_current_nowarn() around the
 * expression, no-ops without CONFIG_KCSAN; here they tell TSan to ignore
 * the accesses between them, as KCSAN does.
 */
#ifndef _KH_TSAN_KCSAN_CHECKS_H
#define _KH_TSAN_KCSAN_CHECKS_H

/* the tree's no-op definitions, renamed out of the way */
#define kcsan_disable_current kh_kcsan_disable_current_noop
#define kcsan_enable_current_nowarn kh_kcsan_enable_current_nowarn_noop
#include_next <linux/kcsan-checks.h>
#undef kcsan_disable_current
#undef kcsan_enable_current_nowarn

/* ThreadSanitizer's dynamic annotations (libtsan) */
void AnnotateIgnoreReadsBegin(const char *file, int line);
void AnnotateIgnoreReadsEnd(const char *file, int line);
void AnnotateIgnoreWritesBegin(const char *file, int line);
void AnnotateIgnoreWritesEnd(const char *file, int line);

static __always_inline void kcsan_disable_current(void)
{
	AnnotateIgnoreReadsBegin(__FILE__, __LINE__);
	AnnotateIgnoreWritesBegin(__FILE__, __LINE__);
}

static __always_inline void kcsan_enable_current_nowarn(void)
{
	AnnotateIgnoreWritesEnd(__FILE__, __LINE__);
	AnnotateIgnoreReadsEnd(__FILE__, __LINE__);
}

#endif /* _KH_TSAN_KCSAN_CHECKS_H */
