// SPDX-License-Identifier: MIT
/* Running a parsed scenario in the model: rmap statements, `fails=`,
 * process operations, the invariant check after every statement. */
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "foliosim/process.h"
#include "internal.h"
#include "scenario_exec.h"

/* ------------------------------------------------------------------ */
/* Rmap statements                                                     */
/* ------------------------------------------------------------------ */

/* The digest of the live folio a name stands for, 0 if none. */
static uint64_t digest_of_name(struct run *r, const char *name)
{
	struct sym *s = lookup(r, name);

	return s && s->kind == SYM_FOLIO && !s->dead ? fsim_folio_state_digest(s->obj) : 0;
}

/* A count for an unsigned int parameter: too large stays too large
 * (UINT_MAX), so the call refuses it instead of seeing it wrapped. */
static unsigned int u32_sat(uint64_t v)
{
	return v > UINT_MAX ? UINT_MAX : (unsigned int)v;
}

/* The objects a statement names, resolved once however often it repeats. */
struct operands {
	struct fsim_folio *f;
	struct fsim_mm *mm, *src;
};

/* Resolves the folio, mm= and src= of a call on an existing folio; false
 * after a scenario error already recorded by get_folio()/get_mm(). */
static bool resolve(struct run *r, const struct fsim_stmt_op *op, struct operands *o)
{
	memset(o, 0, sizeof(*o));
	o->f = get_folio(r, op->name);
	if (!o->f)
		return false;
	if (op->mm && !(o->mm = get_mm(r, op->mm)))
		return false;
	if (op->op == FSIM_OP_DUP && !(o->src = get_mm(r, op->src)))
		return false;
	return true;
}

/* Declares, drops or frees: statements that change the symbol table. */
static int exec_symbol_op(struct run *r, const struct fsim_stmt_op *op,
			  struct fsim_folio **touched)
{
	struct fsim_folio *f = NULL;
	struct fsim_mm *mm = NULL;
	int err;

	switch (op->op) {
	case FSIM_OP_MM:
		err = fsim_mm_create(r->ctx, u32_sat(op->id), &mm);
		if (!err && !declare(r, op->name, SYM_MM, mm))
			return 1;
		return err;
	case FSIM_OP_MMDROP: {
		struct sym *s = lookup(r, op->name);

		if (!get_mm(r, op->name))
			return 1;
		err = fsim_mm_destroy(s->obj);
		if (!err)
			s->dead = true;
		return err;
	}
	case FSIM_OP_FOLIO:
		err = op->hugetlb ?
		      fsim_folio_create_hugetlb(r->ctx, u32_sat(op->order), op->kind, &f) :
		      fsim_folio_create(r->ctx, u32_sat(op->order), op->kind, &f);
		if (!err && !declare(r, op->name, SYM_FOLIO, f))
			return 1;
		*touched = f;
		return err;
	default: {	/* FSIM_OP_FREE */
		struct fsim_violation v;

		f = get_folio(r, op->name);
		if (!f)
			return 1;
		*touched = f;
		err = fsim_folio_free(f);
		if (err == -EFAULT) {
			folio_free_checks(f, &v);
			fail(r, "free %s: %s: %s", op->name, v.invariant, v.detail);
			return 1;
		}
		if (!err) {
			lookup(r, op->name)->dead = true;
			*touched = NULL;
		}
		return err;
	}
	}
}

/* One rmap call on resolved operands: the call's result (0/-E), or 1
 * after a scenario error. */
static int call_rmap(struct run *r, const struct fsim_stmt_op *op,
		     const struct operands *o)
{
	struct fsim_folio *f = o->f;

	switch (op->op) {
	case FSIM_OP_NEW_ANON:
		return fsim_folio_add_new_anon_rmap(f, o->mm, op->exclusive);
	case FSIM_OP_ADD:
		if (fsim_folio_kind(f) == FSIM_KIND_ANON)
			return fsim_folio_add_anon_rmap(f, o->mm, op->level, op->page, op->nr,
							op->exclusive);
		if (op->exclusive)
			return -EINVAL;	/* RMAP_EXCLUSIVE is for anon folios */
		return fsim_folio_add_file_rmap(f, o->mm, op->level, op->page, op->nr);
	case FSIM_OP_REMOVE:
		return fsim_folio_remove_rmap(f, o->mm, op->level, op->page, op->nr);
	case FSIM_OP_DUP:
		if (fsim_folio_kind(f) == FSIM_KIND_ANON)
			return fsim_folio_try_dup_anon_rmap(f, o->mm, o->src, op->level,
							    op->page, op->nr);
		return fsim_folio_dup_file_rmap(f, o->mm, o->src, op->level, op->page,
						op->nr);
	case FSIM_OP_PIN:
		return fsim_folio_pin(f, o->mm, u32_sat(op->n));
	case FSIM_OP_UNPIN:
		return fsim_folio_unpin(f, u32_sat(op->n));
	case FSIM_OP_DETECT: {
		int got = fsim_folio_detect_partial(f);

		return got < 0 ? got : 0;
	}
	default:
		return fail(r, "internal: not an rmap statement"), 1;
	}
}

static bool changes_symbols(const struct fsim_stmt_op *op)
{
	return op->op == FSIM_OP_MM || op->op == FSIM_OP_MMDROP ||
	       op->op == FSIM_OP_FOLIO || op->op == FSIM_OP_FREE;
}

/* Runs an rmap statement (repeat times) with its `fails=` contract.  The
 * names are resolved once: a call on a folio cannot change what a name
 * stands for (only mm, mmdrop, folio and free do, and they run once). */
static bool run_rmap(struct run *r, const struct stmt *st, struct fsim_folio **touched)
{
	const struct fsim_stmt_op *op = &st->op;
	const bool symbol_op = changes_symbols(op);
	struct operands o;
	unsigned long i;

	if (!symbol_op && !resolve(r, op, &o))
		return false;
	for (i = 0; i < st->repeat; i++) {
		struct fsim_folio *f = symbol_op ? NULL : o.f;
		uint64_t before = 0;
		int err;

		if (!run_tick(r))
			return false;

		/* a refused call must leave its folio as it was */
		if (st->fails && !symbol_op)
			before = fsim_folio_state_digest(o.f);
		else if (st->fails && op->op == FSIM_OP_FREE)
			before = digest_of_name(r, op->name);
		err = symbol_op ? exec_symbol_op(r, op, &f) : call_rmap(r, op, &o);
		if (err == 1)
			return false;
		*touched = f;
		if (!st->fails && err)
			return fail(r, "the call was refused with %s%s%s", fsim_errname(err),
				    *fsim_last_refusal() ? ": " : "", fsim_last_refusal());
		if (st->fails && !err)
			return fail(r, "expected the call to fail with %s, it succeeded",
				    fsim_errname(st->fails));
		if (st->fails && err != st->fails)
			return fail(r, "expected the call to fail with %s, it failed with %s (%s)",
				    fsim_errname(st->fails), fsim_errname(err),
				    fsim_last_refusal());
		if (st->fails && f && fsim_folio_state_digest(f) != before)
			return fail(r, "the refused call changed the folio's state");
	}
	return true;
}

/* deferred-split-scan: the shrinker's scan (detect.c), traced. */
static bool run_split_scan(struct run *r)
{
	struct fsim_split_scan s;
	int err = fsim_ctx_deferred_split_scan(r->ctx, &s);

	if (err)
		return fail(r, "deferred-split-scan: %s", fsim_errname(err));
	if (r->opts->trace)
		fprintf(r->opts->trace, "      queued %zu, walked %zu, detected %zu, "
			"split %zu, %llu pages freed\n", s.queued, s.walked, s.detected,
			s.split, (unsigned long long)s.pages_freed);
	return true;
}

static const char *proc_err(int err)
{
	switch (err) {
	case -EFAULT:
		return "outside a live mapping (the process would get SIGSEGV)";
	case -EEXIST:
		return "the region exists already";
	case -EINVAL:
		return "bad region, size, order or range (page-aligned, inside the region)";
	case -EOPNOTSUPP:
		return "EOPNOTSUPP: a case the model does not cover (see process.h: faults "
		       "in a region mremap() moved off its alignment, swap entries across "
		       "fork, MADV_PAGEOUT of a folio it cuts or shares, collapse of shmem)";
	case -ENOMEM:
		return "a hole in the range (or no memory)";
	default:
		return fsim_errname(err);
	}
}

static bool run_process_op(struct run *r, const struct stmt *st)
{
	const struct fsim_stmt_op *op = &st->op;
	struct fsim_process *p = get_process(r, op->name), *child;
	uint64_t bytes, len = op->len;
	int err = 0;

	if (!p)
		return false;
	/* touch, read, pageout, collapse without len=: to the region's end */
	if (len == FSIM_LEN_TO_END) {
		if (!region_bytes(r, p, op->region, &bytes))
			return false;
		len = bytes > op->off ? bytes - op->off : 0;
	}
	switch (op->op) {
	case FSIM_OP_MMAP:
		if (op->file)
			err = fsim_process_mmap_file(p, op->region, op->size, op->file,
						     op->kind == FSIM_KIND_SHMEM,
						     u32_sat(op->order));
		else if (op->hugetlb)
			err = fsim_process_mmap_hugetlb(p, op->region, op->size,
							op->kind == FSIM_KIND_SHMEM,
							u32_sat(op->order));
		else
			err = fsim_process_mmap(p, op->region, op->size,
						op->kind == FSIM_KIND_SHMEM,
						u32_sat(op->order));
		break;
	case FSIM_OP_TOUCH:
	case FSIM_OP_READ:
		err = fsim_process_access(p, op->region, op->off, len,
					  op->op == FSIM_OP_TOUCH);
		break;
	case FSIM_OP_MUNMAP:
		err = fsim_process_munmap(p, op->region, op->off, op->len);
		break;
	case FSIM_OP_DONTNEED:
		err = fsim_process_dontneed(p, op->region, op->off, op->len);
		break;
	case FSIM_OP_MPROTECT:
		err = fsim_process_mprotect(p, op->region, op->off, op->len,
					    (unsigned int)op->prot);
		break;
	case FSIM_OP_MREMAP:
		err = fsim_process_mremap(p, op->region, op->to, op->keep_pmd);
		break;
	case FSIM_OP_PAGEOUT:
		err = fsim_process_pageout(p, op->region, op->off, len);
		break;
	case FSIM_OP_COLLAPSE:
		err = fsim_process_collapse(p, op->region, op->off, len);
		if (op->fails && err == op->fails)
			return true;
		if (op->fails)
			return fail(r, "%s collapse: expected %s, got %s", op->name,
				    fsim_errname(op->fails), fsim_errname(err));
		break;
	case FSIM_OP_FORK:
		err = fsim_process_fork(p, &child);
		if (!err && !declare(r, op->child, SYM_PROCESS, child)) {
			fsim_process_exit(child);
			return false;
		}
		break;
	case FSIM_OP_EXIT:
		err = fsim_process_exit(p);
		if (!err)
			lookup(r, op->name)->dead = true;
		break;
	default:
		return fail(r, "internal: not a process operation");
	}
	if (err)
		return fail(r, "%s %s: %s", op->name, stmt_keyword(st), proc_err(err));
	return true;
}


bool run_statement(struct run *r, const struct stmt *st)
{
	struct fsim_folio *touched = NULL;
	struct fsim_violation v;
	bool ok;

	r->st = st;
	if (r->opts->trace && st->kind != ST_MODE && st->kind != ST_ARCH)
		trace_statement(r, st);
	switch (st->kind) {
	case ST_MODE:
	case ST_ARCH:
		return true;
	case ST_EXPECT:
		if (r->skip_expects)
			return true;
		ok = run_expect(r, st);
		if (ok && r->opts->trace) {
			if (st->expect_mode >= 0 &&
			    st->expect_mode != (int)fsim_ctx_mode(r->ctx))
				fprintf(r->opts->trace, "      not checked (%s mode only)\n",
					fsim_mode_name((enum fsim_mode)st->expect_mode));
			else
				fprintf(r->opts->trace, "      ok\n");
		}
		return ok;
	case ST_PROCESS: {
		struct fsim_process *p;
		int err = fsim_process_create(r->ctx, &p);

		if (err)
			return fail(r, "process %s: %s", st->words[0], fsim_errname(err));
		if (!declare(r, st->words[0], SYM_PROCESS, p)) {
			fsim_process_exit(p);
			return false;
		}
		ok = true;
		break;
	}
	case ST_PROC_OP:
		ok = true;
		for (unsigned long k = 0; ok && k < st->repeat; k++)
			ok = run_tick(r) && run_process_op(r, st);
		break;
	case ST_PART:
		/* The part is a patch on the series: 6.12 and the base tree
		 * run the scenario as they are. */
		if (fsim_mode_has(fsim_ctx_mode(r->ctx), FSIM_HAS_DETECT_PART)) {
			int err = fsim_ctx_set_detect(r->ctx, true);

			if (err)
				return fail(r, "part detect: %s", fsim_errname(err));
		}
		return true;
	case ST_SPLIT_SCAN:
		ok = true;
		for (unsigned long k = 0; ok && k < st->repeat; k++)
			ok = run_tick(r) && run_split_scan(r);
		break;
	default:
		ok = run_rmap(r, st, &touched);
		break;
	}
	if (!ok)
		return false;
	if (r->opts->trace) {
		if (st->kind == ST_PROCESS || st->kind == ST_PROC_OP ||
		    (st->kind == ST_SPLIT_SCAN && r->sc->has_processes))
			trace_processes(r);
		else if (touched)
			trace_folio(r, st->words[0], touched);
		if (st->kind != ST_MM && st->kind != ST_MMDROP && st->kind != ST_FOLIO &&
		    st->kind != ST_PROCESS && st->kind != ST_PROC_OP && st->kind != ST_PART)
			trace_stats(r);
	}
	if (!r->opts->no_invariants && fsim_check_ctx(r->ctx, &v))
		return fail(r, "invariant %s broken: %s", v.invariant, v.detail);
	return true;
}

/* "runs in rfc mode only", "runs in legacy and base modes only" */
static void modes_text(unsigned int modes, char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len, "runs in");
	unsigned int i, m, n = 0, total = 0;

	for (i = 0; i < FSIM_NR_MODES; i++)
		total += (modes >> i) & 1;
	for (i = 0; i < FSIM_NR_MODES && used < len; i++) {
		m = (unsigned int)fsim_mode_at(i);
		if (!((modes >> m) & 1))
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 n == 0 ? " " : n + 1 == total ? " and " : ", ",
					 fsim_mode_name((enum fsim_mode)m));
		n++;
	}
	if (used < len)
		snprintf(buf + used, len - used, " mode%s only", total > 1 ? "s" : "");
}

/* Sets up a run; false (with res filled) if the scenario does not run. */
bool run_begin(struct run *r, const struct fsim_script *script, size_t i,
		      const struct fsim_run_options *opts, struct fsim_result *res)
{
	const struct scenario *sc = &script->sc[i];
	unsigned int o;
	int c;

	memset(res, 0, sizeof(*res));
	memset(r, 0, sizeof(*r));
	r->script = script;
	r->sc = sc;
	r->opts = opts;
	r->res = res;
	if (sc->error) {
		res->outcome = FSIM_FAIL;
		snprintf(res->message, sizeof(res->message), "%s", sc->error);
		return false;
	}
	if (!((sc->modes >> opts->mode) & 1)) {
		res->outcome = FSIM_SKIP;
		modes_text(sc->modes, res->message, sizeof(res->message));
		return false;
	}
	if (fsim_ctx_create(opts->mode, &sc->arch, &r->ctx)) {
		fail(r, "cannot create a context");
		return false;
	}
	for (o = 1; o <= sc->arch.pmd_order && o < 32; o++)
		for (c = 0; c < FSIM_THP_NR_COUNTERS; c++)
			r->thp0[o][c] = fsim_ctx_thp_counter(r->ctx, o, (enum fsim_thp_counter)c);
	r->split0 = fsim_ctx_thp_deferred_split_page(r->ctx);
	res->outcome = FSIM_PASS;
	return true;
}

void run_end(struct run *r)
{
	size_t k;

	/* Processes first: their exit unmaps folios the context then frees. */
	for (k = 0; k < r->nsyms; k++)
		if (r->syms[k].kind == SYM_PROCESS && !r->syms[k].dead)
			fsim_process_exit(r->syms[k].obj);
	fsim_ctx_destroy(r->ctx);
	free(r->syms);
	r->syms = NULL;
	r->nsyms = 0;
	names_free(&r->names);
}

bool run_tick(struct run *r)
{
	if (++r->calls % FSIM_PROGRESS_CALLS || !r->progress)
		return true;
	if (!r->progress(r->progress_arg, r->st ? r->st->line : r->sc->line, r->calls))
		return true;
	return fail(r, "stopped by the progress callback after %llu calls", r->calls);
}

void fsim_script_run(const struct fsim_script *script, size_t i,
		     const struct fsim_run_options *opts, struct fsim_result *res)
{
	fsim_script_run_progress(script, i, opts, NULL, NULL, res);
}

void fsim_script_run_progress(const struct fsim_script *script, size_t i,
			      const struct fsim_run_options *opts,
			      fsim_progress_fn progress, void *arg,
			      struct fsim_result *res)
{
	struct run r;
	size_t k;

	if (!run_begin(&r, script, i, opts, res))
		return;
	r.progress = progress;
	r.progress_arg = arg;
	if (opts->trace)
		fprintf(opts->trace, "scenario %s (%s mode, %u-bit)\n", r.sc->name,
			fsim_mode_name(opts->mode), r.sc->arch.bits);
	for (k = 0; k < r.sc->nstmts; k++) {
		struct stmt st;
		char why[400];
		bool ok;

		int err = stmt_load(script, r.sc, k, &st, why, sizeof(why));

		if (err) {
			struct stmt at = { .line = stmt_line(script, r.sc, k) };

			r.st = &at;	/* fail()'s FILE:LINE is the statement's */
			fail(&r, "%s%s", err == -ENOMEM ? "" : "internal error: ", why);
			r.st = NULL;
			break;
		}
		ok = run_statement(&r, &st);
		r.st = NULL;
		stmt_release(&st);
		if (!ok)
			break;
		res->statements++;
	}
	run_end(&r);
}
