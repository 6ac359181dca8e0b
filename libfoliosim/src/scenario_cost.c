// SPDX-License-Identifier: MIT
/*
 * The cost of a scenario, estimated from its statements (fsim_script_cost()):
 * what the fuzz target bounds before it runs a scenario, and what kunit-gen
 * writes into the KUnit table as each scenario's rmap work.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "foliosim/scenario.h"

static unsigned long long add_sat(unsigned long long a, unsigned long long b)
{
	return a + b < a ? ~0ULL : a + b;
}

static unsigned long long mul_sat(unsigned long long a, unsigned long long b)
{
	return a && b > ~0ULL / a ? ~0ULL : a * b;
}

/* Per-page rmap updates of one execution of a statement; @order holds the
 * order of each folio by name number, for new-anon's work. */
static unsigned long long rmap_work(const struct fsim_stmt_op *op,
				    const struct fsim_stmt_view *v,
				    const unsigned long long *order)
{
	unsigned long long per = 1, o;
	size_t i;

	switch (op->op) {
	case FSIM_OP_MM:
	case FSIM_OP_MMDROP:
		per = 1024;	/* mm_alloc()/mmput(): a few page allocations */
		break;
	case FSIM_OP_NEW_ANON:
		o = op->name_index >= 0 ? order[op->name_index] : 0;
		per = 1ULL << (o < 63 ? o : 63);
		break;
	case FSIM_OP_ADD:
	case FSIM_OP_REMOVE:
	case FSIM_OP_DUP:
		per = op->level == FSIM_LEVEL_PTE ? op->nr : 1;
		break;
	case FSIM_OP_EXPECT:
		for (i = 0; i < v->nargs; i++)
			if (v->args[i].indexed)
				per = add_sat(per, v->args[i].hi - v->args[i].lo);
		break;
	default:
		break;
	}
	return mul_sat(op->repeat, per ? per : 1);
}

static unsigned long long pages_of(const struct fsim_stmt_op *op)
{
	if (op->op == FSIM_OP_FOLIO)
		return op->order > 62 ? ~0ULL : 1ULL << op->order;
	if (op->op == FSIM_OP_MMAP)
		return op->size >> 10;
	return 0;
}

int fsim_script_cost(const struct fsim_script *s, size_t i, unsigned int modes,
		     struct fsim_cost *out)
{
	unsigned long long *order;
	struct fsim_stmt_view v;
	struct fsim_stmt_op op;
	size_t k, n;

	if (!s || !out || i >= fsim_script_count(s))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->processes = 1;
	n = fsim_script_statements(s, i);
	order = calloc(fsim_script_name_count(s, i) + 1, sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (k = 0; k < n; k++) {
		int err = fsim_script_statement(s, i, k, &v);

		if (!err)
			err = fsim_script_op(s, i, k, &op);
		if (err) {	/* a cost too low would be worse than none */
			free(order);
			return err;
		}
		out->steps = add_sat(out->steps, add_sat(1, op.repeat));
		if (op.repeat > out->max_repeat)
			out->max_repeat = op.repeat;
		out->pages = add_sat(out->pages, pages_of(&op));
		out->processes += op.op == FSIM_OP_PROCESS || op.op == FSIM_OP_FORK;
		if (op.op == FSIM_OP_FOLIO && op.name_index >= 0)
			order[op.name_index] = op.order;
		if (op.op == FSIM_OP_MODE || op.op == FSIM_OP_ARCH ||
		    (modes && op.expect_mode >= 0 && !((modes >> op.expect_mode) & 1)))
			continue;
		out->rmap_work = add_sat(out->rmap_work, rmap_work(&op, &v, order));
	}
	out->check_work = mul_sat(mul_sat(out->steps, add_sat(out->pages, 1)),
				  out->processes);
	free(order);
	return 0;
}
