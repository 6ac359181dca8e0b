/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kharness: customised, ThreadSanitizer builds only.  Replaces
 * arch/x86/include/asm/barrier.h: x86 orders smp_load_acquire() and
 * smp_store_release() by TSO alone (plain accesses), and its fences are
 * inline asm; TSan sees neither, so here they are acquire loads, release
 * stores and __atomic fences (overlay-tsan/asm/atomic.h says why).
 */
#ifndef _ASM_X86_BARRIER_H
#define _ASM_X86_BARRIER_H

/* The type of @x without its qualifiers, structs and pointers too (a
 * function's return type drops them), for a local to load into. */
#define __kh_unqual_typeof(x) __typeof__(((__typeof__(x) (*)(void))0)())

/* (asm-generic/barrier.h makes mb(), rmb() and wmb() of these) */
#define __mb()	__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define __rmb()	__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define __wmb()	__atomic_thread_fence(__ATOMIC_RELEASE)

#define barrier_nospec()	barrier()
#define __dma_rmb()	barrier()
#define __dma_wmb()	barrier()

#define __smp_mb()	__mb()
#define __smp_rmb()	__rmb()
#define __smp_wmb()	__wmb()
#define __smp_store_mb(var, value) do { (void)xchg(&var, value); } while (0)

#define __smp_store_release(p, v)					\
do {									\
	__kh_unqual_typeof(*(p)) __kh_v = (v);				\
	__atomic_store((p), &__kh_v, __ATOMIC_RELEASE);			\
} while (0)

#define __smp_load_acquire(p)						\
({									\
	__kh_unqual_typeof(*(p)) __kh_v;				\
	__atomic_load((p), &__kh_v, __ATOMIC_ACQUIRE);			\
	__kh_v;								\
})

#define __smp_mb__before_atomic()	do { } while (0)
#define __smp_mb__after_atomic()	do { } while (0)
#define smp_mb__after_switch_mm()	do { } while (0)

#include <asm-generic/barrier.h>

#endif /* _ASM_X86_BARRIER_H */
