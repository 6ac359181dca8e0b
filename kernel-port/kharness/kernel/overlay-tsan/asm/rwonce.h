/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kharness: customised, ThreadSanitizer builds only.  READ_ONCE() and
 * WRITE_ONCE() are volatile accesses, which the kernel's memory model
 * counts as marked but TSan as plain: each is a relaxed __atomic access
 * here, so that a lockless reader (folio_mapcount(), the MM-id slots)
 * beside an atomic writer is not reported as a race.
 */
#ifndef _KH_TSAN_RWONCE_H
#define _KH_TSAN_RWONCE_H

/* (the type of @x without qualifiers: a function's return type drops them) */
#define __READ_ONCE(x)							\
({									\
	__typeof__(((__typeof__(x) (*)(void))0)()) __kh_r;		\
	__atomic_load(&(x), &__kh_r, __ATOMIC_RELAXED);			\
	__kh_r;								\
})

#include <asm-generic/rwonce.h>

#undef __WRITE_ONCE
#define __WRITE_ONCE(x, val)						\
do {									\
	__typeof__(((__typeof__(x) (*)(void))0)()) __kh_w = (val);	\
	__atomic_store(&(x), &__kh_w, __ATOMIC_RELAXED);		\
} while (0)

#endif /* _KH_TSAN_RWONCE_H */
