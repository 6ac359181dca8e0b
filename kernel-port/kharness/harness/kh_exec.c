// SPDX-License-Identifier: GPL-2.0
/*
 * kharness, harness half: one scenario on the kernel code, the model in
 * lockstep.  Each statement is read in the library's resolved form
 * (fsim_script_op()); the model runs it first, then the kernel code, and
 * after every call the folio it touched and the statistics are compared
 * value by value (kh_compare.c).  A call the model refuses is asked of
 * the kernel code in a child process (kh_probe.c): the scenario passes it
 * when the kernel warns, BUG()s or refuses too.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kh_exec.h"

static int scn_result(struct kh_scn *scn, enum fsim_outcome outcome, unsigned int line,
		      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int scn_result(struct kh_scn *scn, enum fsim_outcome outcome, unsigned int line,
		      const char *fmt, ...)
{
	size_t n = 0;
	va_list ap;

	scn->outcome = outcome;
	if (line)
		n = (size_t)snprintf(scn->message, sizeof(scn->message), "%s:%u: ",
				     fsim_script_file(scn->script), line);
	if (n >= sizeof(scn->message))
		n = sizeof(scn->message) - 1;
	va_start(ap, fmt);
	vsnprintf(scn->message + n, sizeof(scn->message) - n, fmt, ap);
	va_end(ap);
	return -1;
}

/* Does scenario @i have an `arch` line? */
static bool declares_arch(const struct fsim_script *s, size_t i)
{
	const size_t n = fsim_script_statements(s, i);
	struct fsim_stmt_op op;
	size_t k;

	for (k = 0; k < n; k++)
		if (!fsim_script_op(s, i, k, &op) && op.op == FSIM_OP_ARCH)
			return true;
	return false;
}

/* The arch scenario @i runs with: its own, or (no `arch` line: written
 * for x86_64) the tree's, which differs from x86_64's only on i386, where
 * the scenario then runs with 32-bit MM ids and mapcounts in both
 * executors (scn->arch_substituted). */
static void scenario_arch(const struct fsim_script *s, size_t i, struct kh_scn *scn)
{
	const struct kh_tree_info *t = kh_tree();
	const struct fsim_arch *a = fsim_script_arch(s, i);

	scn->arch = a ? *a : FSIM_ARCH_X86_64;
	if (declares_arch(s, i))
		return;
	scn->arch = (struct fsim_arch){ t->bits, t->page_shift, t->pmd_order, t->pud_order };
	scn->arch_substituted = memcmp(&scn->arch, &FSIM_ARCH_X86_64, sizeof(scn->arch)) != 0;
}

/* Why the tree cannot run scenario @i at all; NULL if it can. */
static const char *precheck(const struct fsim_script *s, size_t i, const struct kh_scn *scn,
			    char *buf, size_t len)
{
	const struct kh_tree_info *t = kh_tree();
	const struct fsim_arch *a = &scn->arch;

	if (!fsim_script_runs_in(s, i, scn->mode))
		return "the scenario does not run in this tree's mode";
	if (fsim_script_has_processes(s, i))
		return "process statements: the guest runner replays them (run-guest)";
	if (a->bits != t->bits || a->page_shift != t->page_shift ||
	    a->pmd_order != t->pmd_order || a->pud_order != t->pud_order) {
		snprintf(buf, len, "arch bits=%u page_shift=%u pmd_order=%u pud_order=%u: "
			 "this tree is built with %u, %u, %u, %u", a->bits, a->page_shift,
			 a->pmd_order, a->pud_order, t->bits, t->page_shift, t->pmd_order,
			 t->pud_order);
		return buf;
	}
	return NULL;
}

static struct kh_name *name_at(struct kh_scn *scn, int index)
{
	return index >= 0 && (size_t)index < scn->nnames ? &scn->names[index] : NULL;
}

/* The call of one rmap statement on the kernel code. */
struct kcall {
	const struct fsim_stmt_op *op;
	struct kh_name *subject, *mm, *src;
};

static int kernel_call(void *arg)
{
	const struct kcall *c = arg;
	const struct fsim_stmt_op *op = c->op;
	struct kh_folio *kf = c->subject->kf;
	const bool hugetlb = fsim_folio_test_hugetlb(c->subject->f);
	const bool anon = fsim_folio_kind(c->subject->f) == FSIM_KIND_ANON;

	switch (op->op) {
	case FSIM_OP_NEW_ANON:
		return hugetlb ? kh_hugetlb_add(kf, c->mm->kmm, true, op->exclusive) :
				 kh_add_new_anon(kf, c->mm->kmm, op->exclusive);
	case FSIM_OP_ADD:
		if (hugetlb)
			return kh_hugetlb_add(kf, c->mm->kmm, false, op->exclusive);
		return anon ? kh_add_anon(kf, c->mm->kmm, op->level, op->page, op->nr,
					  op->exclusive) :
			      kh_add_file(kf, c->mm->kmm, op->level, op->page, op->nr);
	case FSIM_OP_REMOVE:
		return hugetlb ? kh_hugetlb_remove(kf, c->mm->kmm) :
				 kh_remove(kf, c->mm->kmm, op->level, op->page, op->nr);
	case FSIM_OP_DUP:
		return hugetlb ? kh_hugetlb_dup(kf, c->mm->kmm, c->src->kmm) :
				 kh_dup(kf, c->mm->kmm, c->src->kmm, op->level, op->page, op->nr);
	case FSIM_OP_PIN:
		return kh_pin(kf, c->mm->kmm, (unsigned int)op->n);
	case FSIM_OP_UNPIN:
		return kh_unpin(kf, (unsigned int)op->n);
	default:
		return -EOPNOTSUPP;
	}
}

static int model_call(struct kh_scn *scn, const struct kcall *c)
{
	const struct fsim_stmt_op *op = c->op;
	struct fsim_folio *f = c->subject->f;

	(void)scn;
	switch (op->op) {
	case FSIM_OP_NEW_ANON:
		return fsim_folio_add_new_anon_rmap(f, c->mm->mm, op->exclusive);
	case FSIM_OP_ADD:
		if (fsim_folio_kind(f) == FSIM_KIND_ANON)
			return fsim_folio_add_anon_rmap(f, c->mm->mm, op->level, op->page,
							op->nr, op->exclusive);
		if (op->exclusive)
			return -EINVAL;
		return fsim_folio_add_file_rmap(f, c->mm->mm, op->level, op->page, op->nr);
	case FSIM_OP_REMOVE:
		return fsim_folio_remove_rmap(f, c->mm->mm, op->level, op->page, op->nr);
	case FSIM_OP_DUP:
		if (fsim_folio_kind(f) == FSIM_KIND_ANON)
			return fsim_folio_try_dup_anon_rmap(f, c->mm->mm, c->src->mm, op->level,
							    op->page, op->nr);
		return fsim_folio_dup_file_rmap(f, c->mm->mm, c->src->mm, op->level,
						op->page, op->nr);
	case FSIM_OP_PIN:
		return fsim_folio_pin(f, c->mm->mm, (unsigned int)op->n);
	case FSIM_OP_UNPIN:
		return fsim_folio_unpin(f, (unsigned int)op->n);
	default:
		return -EOPNOTSUPP;
	}
}

/* Why the kernel code cannot be asked a call the model refused: it names
 * pages outside the folio, or what no kernel function takes. */
static const char *not_askable(const struct kcall *c)
{
	const struct fsim_stmt_op *op = c->op;
	const unsigned long nr_pages = fsim_folio_nr_pages(c->subject->f);

	if (op->op == FSIM_OP_PIN || op->op == FSIM_OP_UNPIN)
		return "pins are counted by the harness (mm/gup.c), not by mm/rmap.c";
	if (fsim_folio_test_hugetlb(c->subject->f) && op->op != FSIM_OP_NEW_ANON &&
	    (op->page || op->nr != nr_pages ||
	     op->level != (fsim_folio_order(c->subject->f) >= kh_tree()->pud_order ?
			   FSIM_LEVEL_PUD : FSIM_LEVEL_PMD)))
		return "a hugetlb folio is mapped whole: hugetlb_*_rmap() take no range";
	if (op->op == FSIM_OP_NEW_ANON && fsim_folio_test_hugetlb(c->subject->f) &&
	    !op->exclusive)
		return "hugetlb_add_new_anon_rmap() takes no flags: it maps exclusively";
	if (op->op == FSIM_OP_NEW_ANON)
		return NULL;
	if (op->nr == 0 || op->page >= nr_pages || op->nr > nr_pages - op->page)
		return "the range leaves the folio";
	if (op->level > FSIM_LEVEL_PUD)
		return "no such level";
	if (op->level != FSIM_LEVEL_PTE && !fsim_folio_test_hugetlb(c->subject->f) &&
	    (op->nr & ((1ul << (op->level == FSIM_LEVEL_PMD ? kh_tree()->pmd_order :
				 kh_tree()->pud_order)) - 1)))
		return "a PMD (PUD) call of part of an entry: each kernel call maps one whole entry";
	if (op->op == FSIM_OP_DUP && c->mm == c->src)
		return "a dup from an mm to itself";
	if (op->op == FSIM_OP_ADD && op->exclusive &&
	    fsim_folio_kind(c->subject->f) != FSIM_KIND_ANON)
		return "RMAP_EXCLUSIVE of a file folio: no kernel function takes it";
	return NULL;
}

/* After a call: the subject's counters, and with @whole (the last call of
 * a statement) every page of it and the statistics too. */
static int check_after(struct kh_scn *scn, unsigned int line, struct kh_name *subject,
		       bool whole)
{
	char why[256];

	if (subject && subject->f && subject->kf &&
	    (whole ? kh_compare_folio(subject->f, subject->kf, why, sizeof(why)) :
		     kh_compare_folio_pages(subject->f, subject->kf, 0, 0, why, sizeof(why))))
		return scn_result(scn, FSIM_FAIL, line, "after the call the kernel code and "
				  "the model differ: %s", why);
	if (whole && kh_compare_stats(scn->ctx, why, sizeof(why)))
		return scn_result(scn, FSIM_FAIL, line, "after the call the kernel code and "
				  "the model differ: %s", why);
	return 0;
}

/*
 * Whether the kernel's EOVERFLOW for a call the model takes is fixes/0003's
 * headroom (folio_mappings_would_overflow() refuses FOLIO_MAPPINGS_HEADROOM
 * below INT_MAX and ULONG_MAX, and counts the refcount; the model refuses
 * at the limits): the folio's refcount, mapcount or total mapped pages,
 * plus the call's nr, reach into the headroom.
 */
static bool in_overflow_headroom(struct kh_folio *kf, const struct fsim_stmt_op *op)
{
	const unsigned long room = kh_tree()->overflow_headroom;
	const u64 int_limit = (u64)INT_MAX - room;
	const u64 total_limit = (kh_tree()->bits == 32 ? (u64)UINT_MAX : UINT64_MAX) - room;
	struct kh_folio_state st;

	if (!room || kh_folio_state(kf, &st))
		return false;
	return (u64)st.refcount + op->nr > int_limit ||
	       (u64)st.mapcount + op->nr > int_limit ||
	       (st.total_mapped_pages >= 0 &&
		(u64)st.total_mapped_pages > total_limit - op->nr);
}

/* An rmap statement, repeat times; @silent_ok: it says kernel=silent. */
static int run_rmap(struct kh_scn *scn, const struct fsim_stmt_op *op, bool silent_ok)
{
	struct kcall c = { .op = op };
	const char *cannot;
	unsigned long r;
	int err, kerr;

	c.subject = name_at(scn, op->name_index);
	c.mm = name_at(scn, op->mm_index);
	c.src = name_at(scn, op->src_index);
	if (!c.subject || !c.subject->f ||
	    (op->op != FSIM_OP_UNPIN && (!c.mm || !c.mm->mm)) ||
	    (op->op == FSIM_OP_DUP && (!c.src || !c.src->mm)))
		return scn_result(scn, FSIM_FAIL, op->line, "a name is not declared or gone");
	for (r = 0; r < op->repeat; r++) {
		kh_events_reset();
		err = model_call(scn, &c);
		scn->calls++;
		if (err != op->fails)
			return scn->expectation_failed = true,
			       scn_result(scn, FSIM_FAIL, op->line, "the model returned %s, the "
					  "scenario says %s (%s)", fsim_errname(err),
					  fsim_errname(op->fails), fsim_last_refusal());
		if (err) {
			struct kh_probe_result pr;
			const char *why = not_askable(&c);

			if (why) {
				scn->refusals.not_asked++;
				continue;
			}
			if (kh_probe(kernel_call, &c, &pr))
				return scn_result(scn, FSIM_FAIL, op->line, "cannot fork a probe");
			switch (pr.outcome) {
			case KH_PROBE_WARN:
				scn->refusals.warn++;
				break;
			case KH_PROBE_BUG:
				scn->refusals.bug++;
				break;
			case KH_PROBE_REFUSED:
				if (pr.err != err && pr.err != -EOPNOTSUPP)
					return scn_result(scn, FSIM_FAIL, op->line, "the model refuses "
							  "with %s, the kernel code with %s",
							  fsim_errname(err), fsim_errname(pr.err));
				if (pr.err == -EOPNOTSUPP)
					scn->refusals.not_asked++;
				else
					scn->refusals.refused++;
				break;
			case KH_PROBE_SILENT:
				if (silent_ok) {
					scn->refusals.silent_declared++;
					break;
				}
				/* fall through */
			default:
				return scn_result(scn, FSIM_FAIL, op->line, "the model refuses this "
						  "call (%s: %s) but the kernel code %s%s",
						  fsim_errname(err), fsim_last_refusal(),
						  kh_probe_outcome_name(pr.outcome),
						  pr.outcome == KH_PROBE_CRASH ? "" :
						  ": it corrupts its counters without a warning "
						  "(if that is so, say kernel=silent)");
			}
			continue;
		}
		cannot = kh_tree_cannot(&(struct kh_call_desc){
			.op = op->op, .f = c.subject->f, .kf = c.subject->kf, .level = op->level,
			.page = op->page, .nr = op->nr, .exclusive = op->exclusive });
		if (cannot)
			return scn_result(scn, FSIM_SKIP, op->line, "%s", cannot);
		kerr = kernel_call(&c);
		if (kerr == -EOPNOTSUPP)
			return scn_result(scn, FSIM_SKIP, op->line, "a call this tree has no "
					  "function for");
		if (kerr == -EOVERFLOW && in_overflow_headroom(c.subject->kf, op))
			return scn_result(scn, FSIM_SKIP, op->line, "fixes/0003 refuses mappings "
					  "within its headroom of the limits, the model at "
					  "the limits");
		if (kerr)
			return scn_result(scn, FSIM_FAIL, op->line, "the model accepts the call, "
					  "the kernel code refuses it with %s", fsim_errname(kerr));
		if (kh_events()->warnings)
			return scn_result(scn, FSIM_FAIL, op->line, "the model accepts the call, "
					  "the kernel code warns at %s:%d%s%s",
					  kh_events()->last.file, kh_events()->last.line,
					  kh_events()->last.printed[0] ? ": " : "",
					  kh_events()->last.printed);
		if (check_after(scn, op->line, c.subject, r + 1 == op->repeat))
			return -1;
	}
	return 0;
}

/* mm, mmdrop, folio, free: the harness's own bookkeeping in the kernel
 * half (mm_init()'s mm id is the model's, so that the slots compare). */
static int run_symbol(struct kh_scn *scn, const struct fsim_stmt_op *op)
{
	struct kh_name scratch = { 0 }, *n = name_at(scn, op->name_index);
	int err = 0;

	/* a declaration with fails= declares no name */
	if (!n && op->fails && (op->op == FSIM_OP_MM || op->op == FSIM_OP_FOLIO))
		n = &scratch;
	if (!n)
		return scn_result(scn, FSIM_FAIL, op->line, "a name is not declared");
	switch (op->op) {
	case FSIM_OP_MM:
		err = fsim_mm_create(scn->ctx, (unsigned int)op->id, &n->mm);
		if (!err) {
			n->kmm = kh_mm_create(fsim_mm_id(n->mm));
			if (!n->kmm)
				return scn_result(scn, FSIM_FAIL, op->line, "out of memory");
		}
		break;
	case FSIM_OP_MMDROP:
		err = n->mm ? fsim_mm_destroy(n->mm) : -EINVAL;
		if (!err) {
			kh_mm_destroy(n->kmm);
			n->mm = NULL;
			n->kmm = NULL;
		}
		break;
	case FSIM_OP_FOLIO:
		err = op->hugetlb ?
		      fsim_folio_create_hugetlb(scn->ctx, (unsigned int)op->order, op->kind, &n->f) :
		      fsim_folio_create(scn->ctx, (unsigned int)op->order, op->kind, &n->f);
		if (!err) {
			n->kf = kh_folio_alloc((unsigned int)op->order, (int)op->kind, op->hugetlb);
			if (!n->kf)
				return scn_result(scn, FSIM_SKIP, op->line, "an order-%" PRIu64
						  " folio: the harness allocates up to order %u",
						  op->order, kh_tree()->max_order);
		}
		break;
	case FSIM_OP_FREE:
		err = n->f ? fsim_folio_free(n->f) : -EINVAL;
		if (!err) {
			int kerr = kh_folio_free(n->kf);

			if (kerr)
				return scn_result(scn, FSIM_FAIL, op->line, "the model frees the "
						  "folio, the kernel half finds it %s",
						  fsim_errname(kerr));
			n->f = NULL;
			n->kf = NULL;
		}
		break;
	default:
		break;
	}
	if (err != op->fails)
		return scn->expectation_failed = true,
		       scn_result(scn, FSIM_FAIL, op->line, "the model returned %s, the "
				  "scenario says %s (%s)", fsim_errname(err),
				  fsim_errname(op->fails), fsim_last_refusal());
	if (err)
		scn->refusals.not_asked++;
	return check_after(scn, op->line, NULL, true);
}

static int run_statement(struct kh_scn *scn, size_t k)
{
	struct fsim_stmt_op op;
	struct fsim_stmt_view view;

	if (fsim_script_op(scn->script, scn->index, k, &op))
		return scn_result(scn, FSIM_FAIL, 0, "statement %zu cannot be read", k);
	scn->statements++;
	switch (op.op) {
	case FSIM_OP_MODE:
	case FSIM_OP_ARCH:
		return 0;
	case FSIM_OP_PART:
		if (!(kh_tree()->features & KH_HAS_DETECT))
			return scn_result(scn, FSIM_SKIP, op.line, "part detect: this tree lacks "
					  "kernel-port's detect part");
		if (fsim_ctx_set_detect(scn->ctx, true))
			return scn_result(scn, FSIM_FAIL, op.line, "the model has no detect part "
					  "in this mode");
		kh_set_detect(true);
		return 0;
	case FSIM_OP_DETECT:
	case FSIM_OP_SPLIT_SCAN:
		return scn_result(scn, FSIM_SKIP, op.line, "the deferred split scan walks page "
				  "tables (mm/huge_memory.c), which the harness does not have");
	case FSIM_OP_MM:
	case FSIM_OP_MMDROP:
	case FSIM_OP_FOLIO:
	case FSIM_OP_FREE:
		return run_symbol(scn, &op);
	case FSIM_OP_EXPECT:
		if (op.expect_mode >= 0 && op.expect_mode != (int)scn->mode)
			return 0;
		if (fsim_script_statement(scn->script, scn->index, k, &view))
			return scn_result(scn, FSIM_FAIL, op.line, "cannot read the statement");
		return kh_expect(scn, &op, &view);
	case FSIM_OP_NEW_ANON:
	case FSIM_OP_ADD:
	case FSIM_OP_REMOVE:
	case FSIM_OP_DUP:
	case FSIM_OP_PIN:
	case FSIM_OP_UNPIN:
		if (fsim_script_statement(scn->script, scn->index, k, &view))
			return scn_result(scn, FSIM_FAIL, op.line, "cannot read the statement");
		return run_rmap(scn, &op, fsim_stmt_value(&view, "kernel") != NULL);
	default:
		return scn_result(scn, FSIM_SKIP, op.line, "a process statement");
	}
}

static jmp_buf scn_bug_jump;

void kh_scenario_run(const struct fsim_script *script, size_t index, struct kh_scn *scn)
{
	char buf[200];
	const char *why;
	size_t k, n;

	memset(scn, 0, sizeof(*scn));
	scn->script = script;
	scn->index = index;
	scn->mode = kh_tree_mode();
	scn->outcome = FSIM_PASS;
	if (fsim_script_error(script, index)) {
		scn_result(scn, FSIM_FAIL, 0, "%s", fsim_script_error(script, index));
		return;
	}
	scenario_arch(script, index, scn);
	why = precheck(script, index, scn, buf, sizeof(buf));
	if (why) {
		scn_result(scn, FSIM_SKIP, 0, "%s", why);
		return;
	}
	if (fsim_ctx_create(scn->mode, &scn->arch, &scn->ctx)) {
		scn_result(scn, FSIM_FAIL, 0, "cannot create the model's context");
		return;
	}
	scn->nnames = fsim_script_name_count(script, index);
	scn->names = calloc(scn->nnames ? scn->nnames : 1, sizeof(*scn->names));
	if (!scn->names) {
		scn_result(scn, FSIM_FAIL, 0, "out of memory");
		return;
	}
	kh_set_detect(false);
	kh_compare_baseline(scn->ctx);
	n = fsim_script_statements(script, index);
	kh_set_bug_jump(&scn_bug_jump);
	if (setjmp(scn_bug_jump)) {
		const struct kh_event_site *s = &kh_events()->last;

		scn_result(scn, FSIM_FAIL, 0, "the kernel code BUG()s at %s:%d%s%s on a call "
			   "the model accepts", s->file, s->line, s->printed[0] ? ": " : "",
			   s->printed);
		return;
	}
	for (k = 0; k < n; k++)
		if (run_statement(scn, k))
			break;
	kh_set_bug_jump(NULL);
	if (scn->outcome == FSIM_FAIL && scn->arch_substituted && scn->expectation_failed) {
		/* "FILE:LINE: what" -> "FILE:LINE: reason [what]" */
		const char *scn_at = strstr(scn->message, ".scn:");
		const char *what = scn_at ? strstr(scn_at, ": ") : NULL;
		char why[sizeof(scn->message)];
		int at = what ? (int)(what - scn->message) : 0;

		snprintf(why, sizeof(why), "%.*s%swritten for x86_64's limits: with %u-bit MM "
			 "ids and mapcounts its own expectation fails, the model and the kernel "
			 "code agreeing [%.400s]", at, scn->message, at ? ": " : "",
			 scn->arch.bits, what ? what + 2 : scn->message);
		memcpy(scn->message, why, sizeof(why));
		scn->outcome = FSIM_SKIP;
	}
}
