/* SPDX-License-Identifier: MIT */
/*
 * ThreadSanitizer does not see the happens-before edges that liburcu
 * guarantees: the library is not instrumented (Debian's liburcu8), and a
 * grace period is built from membarrier()/futexes TSan cannot follow.  We
 * tell it about the two edges the test relies on, no more:
 *   - a reader's rcu_read_unlock() happens before any call_rcu() callback
 *     that runs after it (release on an anchor at unlock, acquire in the
 *     callback): the free of a retired folio is ordered after the reads;
 *   - a call_rcu() callback happens before rcu_barrier() returns: the
 *     invariant check walks the folio list the callback changed.
 * Outside TSan builds these are no-ops.
 */
#ifndef FOLIOSIM_STRESS_TSAN_ANNOTATE_H
#define FOLIOSIM_STRESS_TSAN_ANNOTATE_H

#if defined(__SANITIZE_THREAD__)
#define FOLIOSIM_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FOLIOSIM_TSAN 1
#endif
#endif

#ifdef FOLIOSIM_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define tsan_acquire(p) __tsan_acquire((void *)(p))
#define tsan_release(p) __tsan_release((void *)(p))
#else
#define tsan_acquire(p) ((void)(p))
#define tsan_release(p) ((void)(p))
#endif

#endif /* FOLIOSIM_STRESS_TSAN_ANNOTATE_H */
