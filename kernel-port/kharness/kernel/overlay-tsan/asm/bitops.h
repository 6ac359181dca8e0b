/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kharness: customised, ThreadSanitizer builds only.  Replaces
 * arch/x86/include/asm/bitops.h with the generic bitops (asm-generic/
 * bitops.h), whose atomic ones (set_bit(), test_and_set_bit_lock(), the
 * bit spinlock of folio_lock_large_mapcount()...) are atomic_long ops,
 * which overlay-tsan/asm/atomic.h makes visible to TSan, and test_bit()
 * a relaxed atomic load, as x86 marks it.  The generic
 * hweight calls __sw_hweight*() (lib/hweight.c): customised_tsan.c.
 */
#ifndef _ASM_X86_BITOPS_H
#define _ASM_X86_BITOPS_H

#ifndef _LINUX_BITOPS_H
#error only <linux/bitops.h> can be included directly
#endif

#include <asm-generic/bitops.h>

/* x86's test_bit() is a marked (volatile) read, instrumented as an atomic
 * one (instrumented-non-atomic.h); the generic one is a plain read, which
 * TSan reports beside every bit spinlock's waiter: a relaxed load here
 * (_test_bit() expands to arch_test_bit() where it is used). */
#undef arch_test_bit
#define arch_test_bit kh_tsan_test_bit
static __always_inline bool kh_tsan_test_bit(unsigned long nr, const volatile unsigned long *addr)
{
	return 1UL & (__atomic_load_n(addr + BIT_WORD(nr), __ATOMIC_RELAXED) >>
		      (nr & (BITS_PER_LONG - 1)));
}

#endif /* _ASM_X86_BITOPS_H */
