// SPDX-License-Identifier: GPL-2.0
/*
 * kharness: customised.  Locks without a scheduler or interrupts.
 *
 * The out-of-line spinlock entry points (kernel/locking/spinlock.c) are a
 * test-and-set on the queued spinlock's word: the harness never queues, so
 * queued_spin_unlock()'s store of the locked byte releases it as in the
 * kernel.  The irqsave forms return flags with interrupts "disabled", so
 * that local_irq_restore() in the inlined unlock executes no sti, which a
 * userspace process may not.  folio_unlock() (mm/filemap.c) has no waiters
 * to wake.
 */

static void kh_raw_spin_lock(raw_spinlock_t *lock)
{
	preempt_disable();
	while (atomic_cmpxchg_acquire(&lock->raw_lock.val, 0, _Q_LOCKED_VAL) != 0)
		cpu_relax();
}

static void kh_raw_spin_unlock(raw_spinlock_t *lock)
{
	queued_spin_unlock(&lock->raw_lock);
	preempt_enable();
}

/* Each entry point exists out of line only where the config does not
 * inline it: spinlock_api_smp.h then defines it as a macro. */
#ifndef _raw_spin_lock
void __lockfunc _raw_spin_lock(raw_spinlock_t *lock)
{
	kh_raw_spin_lock(lock);
}
#endif

#ifndef _raw_spin_lock_irqsave
unsigned long __lockfunc _raw_spin_lock_irqsave(raw_spinlock_t *lock)
{
	kh_raw_spin_lock(lock);
	return 0;	/* X86_EFLAGS_IF clear: the restore does nothing */
}
#endif

#ifndef _raw_spin_unlock
void __lockfunc _raw_spin_unlock(raw_spinlock_t *lock)
{
	kh_raw_spin_unlock(lock);
}
#endif

#ifndef _raw_spin_unlock_irqrestore
void __lockfunc _raw_spin_unlock_irqrestore(raw_spinlock_t *lock, unsigned long flags)
{
	kh_raw_spin_unlock(lock);
}
#endif

void folio_unlock(struct folio *folio)
{
	clear_bit_unlock(PG_locked, folio_flags(folio, 0));
}

/* The folio lock, as the rmap callers take it (they may sleep in
 * folio_lock(); here a contended lock spins). */
static void kh_folio_lock(struct folio *folio)
{
	while (!folio_trylock(folio))
		cpu_relax();
}
