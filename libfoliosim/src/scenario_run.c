// SPDX-License-Identifier: MIT
/* Running a parsed scenario in the model: rmap statements, `fails=`,
 * process operations, the invariant check after every statement. */
#include <inttypes.h>
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

/* Executes one rmap statement once; returns the call's result (0/-E) or
 * 1 after a scenario error already recorded by fail(). */
static int exec_rmap(struct run *r, const struct stmt *st, struct fsim_folio **touched)
{
	struct fsim_folio *f = NULL;
	struct fsim_mm *mm, *src;
	int err;

	*touched = NULL;
	switch (st->kind) {
	case ST_MM:
		err = fsim_mm_create(r->ctx, (unsigned int)num(st, "id", 0), &mm);
		if (!err && !declare(r, st->words[0], SYM_MM, mm))
			return 1;
		return err;
	case ST_MMDROP: {
		struct sym *s = lookup(r, st->words[0]);

		if (!get_mm(r, st->words[0]))
			return 1;
		err = fsim_mm_destroy(s->obj);
		if (!err)
			s->dead = true;
		return err;
	}
	case ST_FOLIO: {
		const char *k = st->words[1];
		const bool hugetlb = st->nwords == 3 && !strcmp(st->words[2], "hugetlb");
		enum fsim_kind kind = !strcmp(k, "anon") ? FSIM_KIND_ANON :
				      !strcmp(k, "shmem") || (st->nwords == 3 && !hugetlb) ?
				      FSIM_KIND_SHMEM : FSIM_KIND_FILE;
		const unsigned int order = (unsigned int)num(st, "order", 0);

		err = hugetlb ? fsim_folio_create_hugetlb(r->ctx, order, kind, &f)
			      : fsim_folio_create(r->ctx, order, kind, &f);
		if (!err && !declare(r, st->words[0], SYM_FOLIO, f))
			return 1;
		*touched = f;
		return err;
	}
	default:
		break;
	}
	f = get_folio(r, st->words[0]);
	if (!f)
		return 1;
	*touched = f;
	switch (st->kind) {
	case ST_NEW_ANON:
		if (!(mm = get_mm(r, stmt_arg(st, "mm")->value)))
			return 1;
		return fsim_folio_add_new_anon_rmap(f, mm, flag(st, "exclusive", true));
	case ST_ADD:
		if (!(mm = get_mm(r, stmt_arg(st, "mm")->value)))
			return 1;
		if (fsim_folio_kind(f) == FSIM_KIND_ANON)
			return fsim_folio_add_anon_rmap(f, mm, level_of(st), num(st, "page", 0),
							num(st, "nr", 0),
							flag(st, "exclusive", false));
		if (stmt_arg(st, "exclusive") && flag(st, "exclusive", false))
			return -EINVAL;	/* RMAP_EXCLUSIVE is for anon folios */
		return fsim_folio_add_file_rmap(f, mm, level_of(st), num(st, "page", 0),
						num(st, "nr", 0));
	case ST_REMOVE:
		if (!(mm = get_mm(r, stmt_arg(st, "mm")->value)))
			return 1;
		return fsim_folio_remove_rmap(f, mm, level_of(st), num(st, "page", 0),
					      num(st, "nr", 0));
	case ST_DUP:
		if (!(mm = get_mm(r, stmt_arg(st, "mm")->value)) ||
		    !(src = get_mm(r, stmt_arg(st, "src")->value)))
			return 1;
		if (fsim_folio_kind(f) == FSIM_KIND_ANON)
			return fsim_folio_try_dup_anon_rmap(f, mm, src, level_of(st),
							    num(st, "page", 0), num(st, "nr", 0));
		return fsim_folio_dup_file_rmap(f, mm, src, level_of(st),
						num(st, "page", 0), num(st, "nr", 0));
	case ST_PIN:
		if (!(mm = get_mm(r, stmt_arg(st, "mm")->value)))
			return 1;
		return fsim_folio_pin(f, mm, (unsigned int)num(st, "n", 1));
	case ST_UNPIN:
		return fsim_folio_unpin(f, (unsigned int)num(st, "n", 1));
	case ST_FREE: {
		struct fsim_violation v;

		err = fsim_folio_free(f);
		if (err == -EFAULT) {
			folio_free_checks(f, &v);
			fail(r, "free %s: %s: %s", st->words[0], v.invariant, v.detail);
			return 1;
		}
		if (!err) {
			lookup(r, st->words[0])->dead = true;
			*touched = NULL;
		}
		return err;
	}
	default:
		return fail(r, "internal: not an rmap statement"), 1;
	}
}

/* Runs an rmap statement (repeat times) with its `fails=` contract. */
static bool run_rmap(struct run *r, const struct stmt *st, struct fsim_folio **touched)
{
	unsigned long i;

	for (i = 0; i < st->repeat; i++) {
		struct fsim_folio *f = NULL;
		uint64_t before = 0;
		int err;

		if (st->fails && st->kind != ST_MM && st->kind != ST_MMDROP &&
		    st->kind != ST_FOLIO) {
			struct sym *s = lookup(r, st->words[0]);

			if (s && s->kind == SYM_FOLIO && !s->dead)
				before = fsim_folio_state_digest(s->obj);
		}
		err = exec_rmap(r, st, &f);
		if (err == 1)
			return false;
		*touched = f;
		if (!st->fails && err)
			return fail(r, "the call was refused with %s", fsim_errname(err));
		if (st->fails && !err)
			return fail(r, "expected the call to fail with %s, it succeeded",
				    fsim_errname(st->fails));
		if (st->fails && err != st->fails)
			return fail(r, "expected the call to fail with %s, it failed with %s",
				    fsim_errname(st->fails), fsim_errname(err));
		if (st->fails && f && fsim_folio_state_digest(f) != before)
			return fail(r, "the refused call changed the folio's state");
	}
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
	default:
		return fsim_errname(err);
	}
}

static bool run_process_op(struct run *r, const struct stmt *st)
{
	const char *verb = st->words[1], *region = st->nwords > 2 ? st->words[2] : NULL;
	struct fsim_process *p = get_process(r, st->words[0]), *child;
	uint64_t off, len, bytes;
	int err = 0;

	if (!p)
		return false;
	if (!strcmp(verb, "mmap")) {
		const bool shmem = st->nwords > 3 && !strcmp(st->words[3], "shmem");
		const bool hugetlb = !strcmp(st->words[st->nwords - 1], "hugetlb");

		if (hugetlb)	/* the hstate: PMD-sized unless order= says */
			err = fsim_process_mmap_hugetlb(p, region, size_arg(st, "size", 0),
					shmem, (unsigned int)num(st, "order",
						fsim_ctx_arch(r->ctx)->pmd_order));
		else
			err = fsim_process_mmap(p, region, size_arg(st, "size", 0), shmem,
						(unsigned int)num(st, "order", 0));
	} else if (!strcmp(verb, "touch") || !strcmp(verb, "read")) {
		if (!region_bytes(r, p, region, &bytes))
			return false;
		off = size_arg(st, "off", 0);
		len = size_arg(st, "len", bytes > off ? bytes - off : 0);
		err = fsim_process_access(p, region, off, len, verb[0] == 't');
	} else if (!strcmp(verb, "munmap")) {
		err = fsim_process_munmap(p, region, size_arg(st, "off", 0),
					  size_arg(st, "len", 0));
	} else if (!strcmp(verb, "dontneed")) {
		err = fsim_process_dontneed(p, region, size_arg(st, "off", 0),
					    size_arg(st, "len", 0));
	} else if (!strcmp(verb, "fork")) {
		err = fsim_process_fork(p, &child);
		if (!err && !declare(r, st->words[2], SYM_PROCESS, child)) {
			fsim_process_exit(child);
			return false;
		}
	} else if (!strcmp(verb, "exit")) {
		err = fsim_process_exit(p);
		if (!err)
			lookup(r, st->words[0])->dead = true;
	}
	if (err)
		return fail(r, "%s %s: %s", st->words[0], verb, proc_err(err));
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
		if (ok && r->opts->trace)
			fprintf(r->opts->trace, "      ok\n");
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
			ok = run_process_op(r, st);
		break;
	default:
		ok = run_rmap(r, st, &touched);
		break;
	}
	if (!ok)
		return false;
	if (r->opts->trace) {
		if (st->kind == ST_PROCESS || st->kind == ST_PROC_OP)
			trace_processes(r);
		else if (touched)
			trace_folio(r, st->words[0], touched);
		if (st->kind != ST_MM && st->kind != ST_MMDROP && st->kind != ST_FOLIO &&
		    st->kind != ST_PROCESS && st->kind != ST_PROC_OP)
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
	for (k = 0; k < r->nsyms; k++)
		free(r->syms[k].name);
	free(r->syms);
	r->syms = NULL;
	r->nsyms = 0;
	free(r->sym_hash);
	r->sym_hash = NULL;
	r->sym_hash_size = 0;
}

void fsim_script_run(const struct fsim_script *script, size_t i,
		     const struct fsim_run_options *opts, struct fsim_result *res)
{
	struct run r;
	size_t k;

	if (!run_begin(&r, script, i, opts, res))
		return;
	if (opts->trace)
		fprintf(opts->trace, "scenario %s (%s mode, %u-bit)\n", r.sc->name,
			fsim_mode_name(opts->mode), r.sc->arch.bits);
	for (k = 0; k < r.sc->nstmts; k++) {
		if (!run_statement(&r, &r.sc->stmts[k]))
			break;
		res->statements++;
	}
	run_end(&r);
}
