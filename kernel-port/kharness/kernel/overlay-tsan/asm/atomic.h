/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kharness: customised, ThreadSanitizer builds only (build-kharness
 * --sanitize thread puts overlay-tsan/ first on the include path).
 * Replaces arch/x86/include/asm/atomic.h and atomic64_64.h: x86's atomics
 * are locked instructions in inline asm, which TSan neither sees nor
 * orders, so every access they protect would be reported as a race.
 * Here each arch_atomic*() op is the __atomic builtin of the same order
 * (a locked x86 RMW is a full barrier: __ATOMIC_SEQ_CST; a plain read or
 * write: relaxed), which TSan intercepts.  The generic fallbacks
 * (linux/atomic/atomic-arch-fallback.h) build the rest as they do on x86.
 */
#ifndef _ASM_X86_ATOMIC_H
#define _ASM_X86_ATOMIC_H

#include <linux/compiler.h>
#include <linux/types.h>
#include <asm/cmpxchg.h>
#include <asm/barrier.h>

#define KH_ATOMIC_OPS(pfx, T, A)					\
static __always_inline T arch_##pfx##_read(const A *v)			\
{ return __atomic_load_n(&v->counter, __ATOMIC_RELAXED); }		\
static __always_inline void arch_##pfx##_set(A *v, T i)			\
{ __atomic_store_n(&v->counter, i, __ATOMIC_RELAXED); }			\
static __always_inline void arch_##pfx##_add(T i, A *v)			\
{ __atomic_fetch_add(&v->counter, i, __ATOMIC_SEQ_CST); }		\
static __always_inline void arch_##pfx##_sub(T i, A *v)			\
{ __atomic_fetch_sub(&v->counter, i, __ATOMIC_SEQ_CST); }		\
static __always_inline T arch_##pfx##_add_return(T i, A *v)		\
{ return __atomic_add_fetch(&v->counter, i, __ATOMIC_SEQ_CST); }	\
static __always_inline T arch_##pfx##_sub_return(T i, A *v)		\
{ return __atomic_sub_fetch(&v->counter, i, __ATOMIC_SEQ_CST); }	\
static __always_inline T arch_##pfx##_fetch_add(T i, A *v)		\
{ return __atomic_fetch_add(&v->counter, i, __ATOMIC_SEQ_CST); }	\
static __always_inline T arch_##pfx##_fetch_sub(T i, A *v)		\
{ return __atomic_fetch_sub(&v->counter, i, __ATOMIC_SEQ_CST); }	\
static __always_inline void arch_##pfx##_and(T i, A *v)			\
{ __atomic_fetch_and(&v->counter, i, __ATOMIC_SEQ_CST); }		\
static __always_inline void arch_##pfx##_or(T i, A *v)			\
{ __atomic_fetch_or(&v->counter, i, __ATOMIC_SEQ_CST); }		\
static __always_inline void arch_##pfx##_xor(T i, A *v)			\
{ __atomic_fetch_xor(&v->counter, i, __ATOMIC_SEQ_CST); }		\
static __always_inline T arch_##pfx##_fetch_and(T i, A *v)		\
{ return __atomic_fetch_and(&v->counter, i, __ATOMIC_SEQ_CST); }	\
static __always_inline T arch_##pfx##_fetch_or(T i, A *v)		\
{ return __atomic_fetch_or(&v->counter, i, __ATOMIC_SEQ_CST); }		\
static __always_inline T arch_##pfx##_fetch_xor(T i, A *v)		\
{ return __atomic_fetch_xor(&v->counter, i, __ATOMIC_SEQ_CST); }	\
static __always_inline T arch_##pfx##_xchg(A *v, T n)			\
{ return __atomic_exchange_n(&v->counter, n, __ATOMIC_SEQ_CST); }	\
static __always_inline T arch_##pfx##_cmpxchg(A *v, T o, T n)		\
{									\
	__atomic_compare_exchange_n(&v->counter, &o, n, false,		\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);\
	return o;							\
}									\
static __always_inline bool arch_##pfx##_try_cmpxchg(A *v, T *o, T n)	\
{									\
	return __atomic_compare_exchange_n(&v->counter, o, n, false,	\
					   __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
}

KH_ATOMIC_OPS(atomic, int, atomic_t)
KH_ATOMIC_OPS(atomic64, s64, atomic64_t)

/* what x86 provides, so that the fallbacks do not define their own */
#define arch_atomic_add_return arch_atomic_add_return
#define arch_atomic_sub_return arch_atomic_sub_return
#define arch_atomic_fetch_add arch_atomic_fetch_add
#define arch_atomic_fetch_sub arch_atomic_fetch_sub
#define arch_atomic_fetch_and arch_atomic_fetch_and
#define arch_atomic_fetch_or arch_atomic_fetch_or
#define arch_atomic_fetch_xor arch_atomic_fetch_xor
#define arch_atomic_xchg arch_atomic_xchg
#define arch_atomic_cmpxchg arch_atomic_cmpxchg
#define arch_atomic_try_cmpxchg arch_atomic_try_cmpxchg
#define arch_atomic64_add_return arch_atomic64_add_return
#define arch_atomic64_sub_return arch_atomic64_sub_return
#define arch_atomic64_fetch_add arch_atomic64_fetch_add
#define arch_atomic64_fetch_sub arch_atomic64_fetch_sub
#define arch_atomic64_fetch_and arch_atomic64_fetch_and
#define arch_atomic64_fetch_or arch_atomic64_fetch_or
#define arch_atomic64_fetch_xor arch_atomic64_fetch_xor
#define arch_atomic64_xchg arch_atomic64_xchg
#define arch_atomic64_cmpxchg arch_atomic64_cmpxchg
#define arch_atomic64_try_cmpxchg arch_atomic64_try_cmpxchg

#define ATOMIC64_INIT(i)	{ (i) }

#endif /* _ASM_X86_ATOMIC_H */
