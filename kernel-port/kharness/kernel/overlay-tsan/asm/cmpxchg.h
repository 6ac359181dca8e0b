/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kharness: customised, ThreadSanitizer builds only.  Replaces
 * arch/x86/include/asm/cmpxchg.h (and cmpxchg_64.h): xchg and cmpxchg of
 * 1, 2, 4 and 8 bytes as __atomic builtins, fully ordered as x86's locked
 * instructions are, so that TSan sees them (overlay-tsan/asm/atomic.h).
 */
#ifndef ASM_X86_CMPXCHG_H
#define ASM_X86_CMPXCHG_H

#include <linux/compiler.h>

/* (the generic builtins: the page table helpers exchange pmd_t and pud_t) */
#define arch_xchg(ptr, v)						\
({									\
	__typeof__(*(ptr)) __kh_new = (v), __kh_ret;			\
	__atomic_exchange((ptr), &__kh_new, &__kh_ret, __ATOMIC_SEQ_CST);\
	__kh_ret;							\
})

#define arch_cmpxchg(ptr, old, new)					\
({									\
	__typeof__(*(ptr)) __kh_old = (old), __kh_new = (new);		\
	__atomic_compare_exchange((ptr), &__kh_old, &__kh_new, false,	\
				  __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);	\
	__kh_old;							\
})
#define arch_try_cmpxchg(ptr, pold, new)				\
({									\
	__typeof__(*(ptr)) __kh_new = (new);				\
	__atomic_compare_exchange((ptr), (pold), &__kh_new, false,	\
				  __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);	\
})

#define arch_cmpxchg_local(ptr, o, n)		arch_cmpxchg((ptr), (o), (n))
#define arch_sync_cmpxchg(ptr, o, n)		arch_cmpxchg((ptr), (o), (n))
#define arch_try_cmpxchg_local(ptr, po, n)	arch_try_cmpxchg((ptr), (po), (n))
#define arch_cmpxchg64(ptr, o, n)		arch_cmpxchg((ptr), (o), (n))
#define arch_cmpxchg64_local(ptr, o, n)		arch_cmpxchg((ptr), (o), (n))
#define arch_try_cmpxchg64(ptr, po, n)		arch_try_cmpxchg((ptr), (po), (n))
#define arch_try_cmpxchg64_local(ptr, po, n)	arch_try_cmpxchg((ptr), (po), (n))
#define xadd(ptr, inc)	__atomic_fetch_add((ptr), (inc), __ATOMIC_SEQ_CST)

#define system_has_cmpxchg64()		1
#define system_has_cmpxchg128()		0

#endif /* ASM_X86_CMPXCHG_H */
