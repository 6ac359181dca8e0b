// SPDX-License-Identifier: MIT
/* The turn-taking scheduler of turns.h. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "turns.h"

enum where_kind { W_OTHER, W_OP, W_LOCK, W_INSIDE, W_UNLOCK };

struct thread_state {
	bool started, done, writer;
	enum where_kind at;
	const void *folio;	/* folio of the current rmap call */
	const void *holds;	/* folio whose _mm_ids lock it holds */
};

struct turns {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned int n, current;
	uint64_t rng, switches, hash, checks;
	turns_quiescent_fn quiescent;
	void *arg;
	struct thread_state th[TURNS_MAX_THREADS];
};

static _Thread_local unsigned int self;
static _Thread_local const void *self_folio;

struct turns *turns_create(unsigned int nthreads, uint64_t seed,
			   turns_quiescent_fn quiescent, void *arg)
{
	struct turns *t = calloc(1, sizeof(*t));

	if (!t || nthreads == 0 || nthreads > TURNS_MAX_THREADS) {
		free(t);
		return NULL;
	}
	pthread_mutex_init(&t->mu, NULL);
	pthread_cond_init(&t->cv, NULL);
	t->n = nthreads;
	t->rng = seed;
	t->hash = 0xcbf29ce484222325ull;	/* FNV-1a offset basis */
	t->quiescent = quiescent;
	t->arg = arg;
	/* Nobody runs until every thread has entered: thread 0 starts. */
	t->current = 0;
	return t;
}

void turns_destroy(struct turns *t)
{
	if (!t)
		return;
	pthread_mutex_destroy(&t->mu);
	pthread_cond_destroy(&t->cv);
	free(t);
}

static enum where_kind classify(const char *where)
{
	if (!strcmp(where, "op"))
		return W_OP;
	if (!strcmp(where, "folio_lock_large_mapcount"))
		return W_LOCK;
	if (!strcmp(where, "folio_unlock_large_mapcount"))
		return W_UNLOCK;
	if (!strcmp(where, "large_mapcount") || !strcmp(where, "total_mapped_pages"))
		return W_INSIDE;
	return W_OTHER;
}

static bool lock_held_by_other(const struct turns *t, unsigned int id,
			       const void *folio)
{
	unsigned int i;

	for (i = 0; i < t->n; i++)
		if (i != id && t->th[i].holds == folio)
			return true;
	return false;
}

/* Runnable: started, not done, and not about to spin on a held lock.
 * Threads that have not entered yet are waited for (see turns_enter). */
static bool runnable(const struct turns *t, unsigned int i)
{
	const struct thread_state *s = &t->th[i];

	if (!s->started || s->done)
		return false;
	return !(s->at == W_LOCK && lock_held_by_other(t, i, s->folio));
}

static bool all_writers_between_calls(const struct turns *t)
{
	unsigned int i;

	for (i = 0; i < t->n; i++) {
		const struct thread_state *s = &t->th[i];

		if (s->writer && s->started && !s->done && s->at != W_OP)
			return false;
	}
	return true;
}

/* Picks the next thread from the seeded PRNG among the runnable ones. */
static void pick_next(struct turns *t)
{
	unsigned int cand[TURNS_MAX_THREADS], nc = 0, i;

	for (i = 0; i < t->n; i++)
		if (runnable(t, i))
			cand[nc++] = i;
	if (!nc)
		return;	/* everyone done */
	t->current = cand[turns_rand(&t->rng) % nc];
	t->switches++;
	t->hash = (t->hash ^ (t->current + 1)) * 0x100000001b3ull;
	pthread_cond_broadcast(&t->cv);
}

static void wait_turn(struct turns *t)
{
	while (t->current != self)
		pthread_cond_wait(&t->cv, &t->mu);
}

void turns_enter(struct turns *t, unsigned int id, bool writer)
{
	unsigned int i;
	bool all;

	self = id;
	pthread_mutex_lock(&t->mu);
	t->th[id].started = true;
	t->th[id].writer = writer;
	t->th[id].at = writer ? W_OP : W_OTHER;
	/* The last thread to enter lets thread 0 (already chosen) go: the
	 * start is independent of thread creation timing. */
	for (all = true, i = 0; i < t->n; i++)
		all = all && t->th[i].started;
	if (all)
		pthread_cond_broadcast(&t->cv);
	while (!all || t->current != self) {
		pthread_cond_wait(&t->cv, &t->mu);
		for (all = true, i = 0; i < t->n; i++)
			all = all && t->th[i].started;
	}
	pthread_mutex_unlock(&t->mu);
}

void turns_exit(struct turns *t)
{
	pthread_mutex_lock(&t->mu);
	t->th[self].done = true;
	t->th[self].holds = NULL;
	pick_next(t);
	pthread_mutex_unlock(&t->mu);
}

void turns_set_folio(const void *folio)
{
	self_folio = folio;
}

void turns_yield(struct turns *t, const char *where)
{
	struct thread_state *s;

	pthread_mutex_lock(&t->mu);
	s = &t->th[self];
	s->at = classify(where);
	s->folio = self_folio;
	if (s->at == W_UNLOCK)
		s->holds = NULL;
	if (all_writers_between_calls(t) && t->quiescent) {
		t->checks++;
		t->quiescent(t->arg);
	}
	pick_next(t);
	wait_turn(t);
	/* Resumed at the lock hook: it takes the lock right away, and
	 * runnable() made sure nobody else holds it. */
	if (s->at == W_LOCK)
		s->holds = s->folio;
	pthread_mutex_unlock(&t->mu);
}

void turns_hook(void *arg, const char *where)
{
	turns_yield(arg, where);
}

uint64_t turns_switches(const struct turns *t)
{
	return t->switches;
}

uint64_t turns_trace_hash(const struct turns *t)
{
	return t->hash;
}

uint64_t turns_quiescent_checks(const struct turns *t)
{
	return t->checks;
}
