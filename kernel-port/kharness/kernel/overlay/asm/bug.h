/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kharness: customised.  Replaces arch/x86/include/asm/bug.h (found first on
 * the include path): the kernel's BUG() and WARN() execute ud2 and look
 * their file and line up in __bug_table from the trap handler, which a
 * userspace process does not have.  Here they call the harness instead,
 * with the kernel source's file and line (-fmacro-prefix-map makes
 * __FILE__ "mm/rmap.c").  Everything else comes from asm-generic/bug.h,
 * as on x86: WARN_ON(), WARN_ON_ONCE(), VM_WARN_ON_FOLIO() and
 * VM_BUG_ON() expand to the two macros below.
 */
#ifndef _ASM_X86_BUG_H
#define _ASM_X86_BUG_H

#include <linux/stringify.h>
#include <linux/instrumentation.h>
#include <linux/objtool.h>

#include "kh_api.h"	/* kh_kernel_bug(), kh_kernel_warn() */

#define HAVE_ARCH_BUG
#define BUG() kh_kernel_bug(__FILE__, __LINE__)
#define __WARN_FLAGS(flags) kh_kernel_warn(__FILE__, __LINE__, BUGFLAG_WARNING | (flags))

#include <asm-generic/bug.h>

#endif /* _ASM_X86_BUG_H */
