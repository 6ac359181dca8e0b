/* SPDX-License-Identifier: MIT */
/*
 * Kernel shims: atomic_t, atomic_long_t and bit spinlocks on C11 atomics,
 * named like the kernel's so that the model code reads like mm/rmap.c.
 *
 * Ordering: the kernel's value-returning atomics (atomic_add_return,
 * atomic_inc_and_test, ...) are fully ordered; plain atomic_add/atomic_set/
 * atomic_read are unordered.  We use seq_cst for the former and relaxed for
 * the latter, which is at least as strong as the kernel on every arch.
 */
#ifndef FOLIOSIM_KSHIM_H
#define FOLIOSIM_KSHIM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct { _Atomic int counter; } atomic_t;
/* 64 bits even on 32-bit hosts: the model's "unsigned long" width is the
 * context's arch, enforced by the overflow checks, not by the host. */
typedef struct { _Atomic uint64_t counter; } atomic_long_t;

static inline int atomic_read(const atomic_t *v)
{
	return atomic_load_explicit(&((atomic_t *)v)->counter, memory_order_relaxed);
}

static inline void atomic_set(atomic_t *v, int i)
{
	atomic_store_explicit(&v->counter, i, memory_order_relaxed);
}

static inline void atomic_add(int i, atomic_t *v)
{
	atomic_fetch_add_explicit(&v->counter, i, memory_order_relaxed);
}

static inline void atomic_sub(int i, atomic_t *v)
{
	atomic_fetch_sub_explicit(&v->counter, i, memory_order_relaxed);
}

static inline void atomic_inc(atomic_t *v) { atomic_add(1, v); }
static inline void atomic_dec(atomic_t *v) { atomic_sub(1, v); }

static inline int atomic_add_return(int i, atomic_t *v)
{
	return atomic_fetch_add(&v->counter, i) + i;
}

static inline int atomic_sub_return(int i, atomic_t *v)
{
	return atomic_fetch_sub(&v->counter, i) - i;
}

static inline int atomic_add_return_relaxed(int i, atomic_t *v)
{
	return atomic_fetch_add_explicit(&v->counter, i, memory_order_relaxed) + i;
}

static inline int atomic_sub_return_relaxed(int i, atomic_t *v)
{
	return atomic_fetch_sub_explicit(&v->counter, i, memory_order_relaxed) - i;
}

/* True if the result is zero (mapcounts start at -1: "first mapping"). */
static inline bool atomic_inc_and_test(atomic_t *v)
{
	return atomic_add_return(1, v) == 0;
}

/* True if the result is negative ("last mapping gone"). */
static inline bool atomic_add_negative(int i, atomic_t *v)
{
	return atomic_add_return(i, v) < 0;
}

static inline uint64_t atomic_long_read(const atomic_long_t *v)
{
	return atomic_load_explicit(&((atomic_long_t *)v)->counter,
				    memory_order_relaxed);
}

static inline void atomic_long_set(atomic_long_t *v, uint64_t i)
{
	atomic_store_explicit(&v->counter, i, memory_order_relaxed);
}

/*
 * Bit spinlocks on a 64-bit word (include/linux/bit_spinlock.h).
 * bit_spin_lock() is test_and_set_bit_lock() in a loop: acquire ordering.
 * __bit_spin_unlock() is a non-atomic store-release of the word: safe
 * because only the holder changes the other bits while the lock is held,
 * and a waiter's failed test-and-set writes back the bit already set.
 */
static inline bool test_bit64(unsigned int nr, const _Atomic uint64_t *word)
{
	uint64_t v = atomic_load_explicit((_Atomic uint64_t *)word,
					  memory_order_relaxed);
	return (v >> nr) & 1u;
}

/* cpu_relax(): the pause hint x86 spin loops use (the other hyperthread
 * runs, the loop's exit is not mispredicted); elsewhere a compiler barrier. */
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	atomic_signal_fence(memory_order_seq_cst);
#endif
}

static inline void bit_spin_lock(unsigned int nr, _Atomic uint64_t *word)
{
	const uint64_t bit = (uint64_t)1 << nr;

	while (atomic_fetch_or_explicit(word, bit, memory_order_acquire) & bit) {
		while (atomic_load_explicit(word, memory_order_relaxed) & bit)
			cpu_relax();
	}
}

static inline bool bit_spin_trylock(unsigned int nr, _Atomic uint64_t *word)
{
	const uint64_t bit = (uint64_t)1 << nr;

	return !(atomic_fetch_or_explicit(word, bit, memory_order_acquire) & bit);
}

static inline void __bit_spin_unlock(unsigned int nr, _Atomic uint64_t *word)
{
	uint64_t v = atomic_load_explicit(word, memory_order_relaxed);

	atomic_store_explicit(word, v & ~((uint64_t)1 << nr), memory_order_release);
}

/* Plain (lock-protected) read-modify-write of the word, as the kernel's
 * non-atomic folio->_mm_ids |= BIT updates under the bit spinlock. */
static inline uint64_t word_read(const _Atomic uint64_t *word)
{
	return atomic_load_explicit((_Atomic uint64_t *)word, memory_order_relaxed);
}

static inline void word_write(_Atomic uint64_t *word, uint64_t v)
{
	atomic_store_explicit(word, v, memory_order_relaxed);
}

/* A tiny test-and-set lock for model-only state (the oracle, the sparse
 * AnonExclusive set, the deferred split queue). */
typedef struct { _Atomic bool locked; } fsim_spinlock_t;
#define FSIM_SPINLOCK_INIT { false }

static inline void fsim_spin_init(fsim_spinlock_t *l)
{
	atomic_init(&l->locked, false);
}

/* Test-and-test-and-set: waiters spin on a plain load (the line stays
 * shared in their caches) and try the RMW only when the lock looks free,
 * as the kernel's queued spinlocks avoid hammering the owner's line. */
static inline void fsim_spin_lock(fsim_spinlock_t *l)
{
	while (atomic_exchange_explicit(&l->locked, true, memory_order_acquire))
		while (atomic_load_explicit(&l->locked, memory_order_relaxed))
			cpu_relax();
}

static inline void fsim_spin_unlock(fsim_spinlock_t *l)
{
	atomic_store_explicit(&l->locked, false, memory_order_release);
}

#endif /* FOLIOSIM_KSHIM_H */
