// SPDX-License-Identifier: MIT
/*
 * The resolved statement form (fsim_script_op): what other executors
 * (kunit-gen, the guest runner) read instead of re-decoding text.  Each
 * test is one default or numbering rule that an executor used to restate.
 * A script keeps its statements as tokens and parses one again when asked
 * (stmt_load()); the last tests hold that to what the first parse saw.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <foliosim/scenario.h>

static struct fsim_script *parse(const char *text)
{
	struct fsim_script *s = NULL;

	assert_int_equal(fsim_script_parse("t.scn", text, strlen(text), &s), 0);
	assert_non_null(s);
	assert_null(fsim_script_error(s, 0));
	return s;
}

static struct fsim_stmt_op op_at(const struct fsim_script *s, size_t k)
{
	struct fsim_stmt_op op;

	assert_int_equal(fsim_script_op(s, 0, k, &op), 0);
	return op;
}

static void rmap_defaults_are_filled_in(void **state)
{
	struct fsim_script *s = parse(
		"scenario t\n"
		"mm M\n"
		"folio F order=4 anon\n"
		"new-anon F mm=M\n"
		"add F mm=M level=pte page=0 nr=16\n"
		"new-anon F mm=M exclusive=no\n"
		"pin F mm=M\n"
		"repeat 3 unpin F n=2 fails=EINVAL\n");
	struct fsim_stmt_op op;

	(void)state;
	op = op_at(s, 1);
	assert_int_equal(op.op, FSIM_OP_FOLIO);
	assert_int_equal(op.order, 4);
	assert_int_equal(op.kind, FSIM_KIND_ANON);
	assert_false(op.hugetlb);
	assert_true(op_at(s, 2).exclusive);	/* new-anon: exclusive by default */
	op = op_at(s, 3);
	assert_false(op.exclusive);		/* add: RMAP_EXCLUSIVE only if said */
	assert_int_equal(op.level, FSIM_LEVEL_PTE);
	assert_int_equal(op.nr, 16);
	assert_false(op_at(s, 4).exclusive);
	assert_int_equal(op_at(s, 5).n, 1);
	op = op_at(s, 6);
	assert_int_equal(op.op, FSIM_OP_UNPIN);
	assert_int_equal(op.n, 2);
	assert_int_equal(op.repeat, 3);
	assert_int_equal(op.fails, -EINVAL);
	assert_int_equal(op.line, 8);
	assert_int_equal(fsim_script_op(s, 0, 7, &op), -EINVAL);
	assert_int_equal(fsim_script_op(s, 1, 0, &op), -EINVAL);
	fsim_script_free(s);
}

static void folio_kinds_follow_the_kind_rule(void **state)
{
	struct fsim_script *s = parse(
		"scenario t\n"
		"folio A order=0 file\n"
		"folio B order=0 file shmem\n"
		"folio C order=0 shmem\n"
		"folio D order=9 anon hugetlb\n"
		"folio E order=9 file hugetlb\n");

	(void)state;
	assert_int_equal(op_at(s, 0).kind, FSIM_KIND_FILE);
	assert_int_equal(op_at(s, 1).kind, FSIM_KIND_SHMEM);
	assert_int_equal(op_at(s, 2).kind, FSIM_KIND_SHMEM);
	assert_int_equal(op_at(s, 3).kind, FSIM_KIND_ANON);
	assert_true(op_at(s, 3).hugetlb);
	assert_int_equal(op_at(s, 4).kind, FSIM_KIND_FILE);
	assert_true(op_at(s, 4).hugetlb);
	fsim_script_free(s);
}

/* The THP order defaults to the scenario's PMD order, not to 9. */
static void orders_default_to_the_arch_pmd_order(void **state)
{
	struct fsim_script *s = parse(
		"scenario t\n"
		"arch page_shift=16 pmd_order=13 pud_order=26\n"
		"expect thp nr_anon=0\n"
		"expect thp order=4 nr_anon=0\n"
		"process P\n"
		"P mmap H size=512M hugetlb\n"
		"P mmap S size=1M shmem\n"
		"P mmap A size=1M anon order=4\n");
	struct fsim_stmt_op op;

	(void)state;
	op = op_at(s, 1);
	assert_int_equal(op.op, FSIM_OP_EXPECT);
	assert_int_equal(op.target, FSIM_EXPECT_THP);
	assert_int_equal(op.order, 13);
	assert_int_equal(op_at(s, 2).order, 4);
	op = op_at(s, 4);
	assert_int_equal(op.op, FSIM_OP_MMAP);
	assert_true(op.hugetlb);
	assert_int_equal(op.order, 13);
	assert_int_equal(op.size, 512ull << 20);
	op = op_at(s, 5);
	assert_int_equal(op.kind, FSIM_KIND_SHMEM);
	assert_int_equal(op.order, 0);
	assert_false(op.hugetlb);
	assert_int_equal(op_at(s, 6).order, 4);
	fsim_script_free(s);
}

static void process_ranges_are_typed(void **state)
{
	struct fsim_script *s = parse(
		"scenario t\n"
		"process P\n"
		"P mmap R size=2M\n"
		"P touch R\n"
		"P read R off=64K len=4K\n"
		"P dontneed R off=1M len=8K\n"
		"P fork C\n"
		"expect C R rss_kb=0\n"
		"C exit\n");
	struct fsim_stmt_op op;

	(void)state;
	op = op_at(s, 2);
	assert_int_equal(op.op, FSIM_OP_TOUCH);
	assert_string_equal(op.region, "R");
	assert_int_equal(op.off, 0);
	assert_true(op.len == FSIM_LEN_TO_END);
	op = op_at(s, 3);
	assert_int_equal(op.off, 64 << 10);
	assert_int_equal(op.len, 4 << 10);
	assert_int_equal(op_at(s, 4).op, FSIM_OP_DONTNEED);
	op = op_at(s, 5);
	assert_int_equal(op.op, FSIM_OP_FORK);
	assert_string_equal(op.child, "C");
	assert_null(op.region);
	op = op_at(s, 6);
	assert_int_equal(op.target, FSIM_EXPECT_REGION);
	assert_string_equal(op.name, "C");
	assert_string_equal(op.region, "R");
	assert_int_equal(op_at(s, 7).op, FSIM_OP_EXIT);
	fsim_script_free(s);
}

/* Names are numbered once, in declaration order; a freed name declared
 * again keeps its number; a refused declaration numbers nothing. */
static void names_are_numbered_in_declaration_order(void **state)
{
	struct fsim_script *s = parse(
		"scenario t\n"
		"mm A\n"
		"mm X fails=ENOSPC\n"
		"folio F order=0 anon\n"
		"mm B\n"
		"dup F mm=B src=A level=pte page=0 nr=1\n"
		"free F\n"
		"folio F order=2 anon\n"
		"add G mm=A level=pte page=0 nr=1\n"
		"process P\n"
		"P fork Q\n");
	struct fsim_stmt_op op;

	(void)state;
	assert_int_equal(fsim_script_name_count(s, 0), 5);
	assert_string_equal(fsim_script_name_at(s, 0, 0), "A");
	assert_string_equal(fsim_script_name_at(s, 0, 1), "F");
	assert_string_equal(fsim_script_name_at(s, 0, 2), "B");
	assert_string_equal(fsim_script_name_at(s, 0, 3), "P");
	assert_string_equal(fsim_script_name_at(s, 0, 4), "Q");
	assert_null(fsim_script_name_at(s, 0, 5));
	assert_int_equal(op_at(s, 1).name_index, -1);	/* X: refused */
	op = op_at(s, 4);
	assert_int_equal(op.name_index, 1);
	assert_int_equal(op.mm_index, 2);
	assert_int_equal(op.src_index, 0);
	assert_int_equal(op_at(s, 6).name_index, 1);	/* F again */
	op = op_at(s, 7);
	assert_int_equal(op.name_index, -1);		/* G: never declared */
	assert_int_equal(op.mm_index, 0);
	op = op_at(s, 9);
	assert_int_equal(op.name_index, 3);
	assert_int_equal(op.child_index, 4);
	fsim_script_free(s);
}

/* A statement parsed again sees the names of its own line: a name declared
 * later is still unknown to it, and a process declared later does not turn
 * an earlier `expect P` into a rollup or `P ...` into a process operation. */
static void statements_see_the_names_of_their_line(void **state)
{
	struct fsim_script *s = parse(
		"scenario t\n"
		"add F mm=A level=pte page=0 nr=1 fails=EINVAL\n"
		"mm A\n"
		"folio F order=0 anon\n"
		"expect P mapcount=0\n"
		"folio P order=0 anon\n"
		"free P\n"
		"process P\n"
		"expect P rss_kb=0\n");
	struct fsim_stmt_op op;

	(void)state;
	op = op_at(s, 0);
	assert_int_equal(op.name_index, -1);	/* F, A: declared below */
	assert_int_equal(op.mm_index, -1);
	assert_int_equal(op_at(s, 2).name_index, 1);
	op = op_at(s, 3);
	assert_int_equal(op.target, FSIM_EXPECT_FOLIO);
	assert_int_equal(op.name_index, -1);	/* P: not yet */
	assert_int_equal(op_at(s, 4).name_index, 2);
	assert_int_equal(op_at(s, 7).target, FSIM_EXPECT_ROLLUP);
	fsim_script_free(s);
}

/* The names of a resolved statement and the arrays of a view live as long
 * as the script: later calls, for other statements, move nothing. */
static void views_and_names_live_as_long_as_the_script(void **state)
{
	struct fsim_script *s = parse(
		"scenario t\n"
		"mm A\n"
		"folio F order=9 anon\n"
		"new-anon F mm=A\n"
		"expect F mapcount=1 true_mapcount[0:512]=1\n");
	struct fsim_stmt_view v1, v2, again;
	struct fsim_stmt_op op;

	(void)state;
	op = op_at(s, 2);
	assert_int_equal(fsim_script_statement(s, 0, 2, &v1), 0);
	assert_int_equal(fsim_script_statement(s, 0, 3, &v2), 0);
	(void)op_at(s, 3);
	assert_int_equal(fsim_script_statement(s, 0, 2, &again), 0);
	assert_ptr_equal(again.words, v1.words);
	assert_ptr_equal(again.args, v1.args);
	assert_string_equal(op.name, "F");
	assert_string_equal(op.mm, "A");
	assert_string_equal(v1.keyword, "new-anon");
	assert_string_equal(v1.words[0], "F");
	assert_int_equal(v2.nargs, 2);
	assert_string_equal(v2.args[1].key, "true_mapcount");
	assert_string_equal(v2.args[1].value, "1");
	assert_true(v2.args[1].indexed);
	assert_int_equal(v2.args[1].hi, 512);
	fsim_script_free(s);
}

static void *view_all(void *arg)
{
	const struct fsim_script *s = arg;
	struct fsim_stmt_view v;
	size_t k;

	for (k = 0; k < fsim_script_statements(s, 0); k++)
		if (fsim_script_statement(s, 0, k, &v) || v.line != k + 2)
			return NULL;
	return (void *)s;
}

/* Two threads asking for the first views of one script at once: both get
 * the same, complete views (one set is kept; TSan runs this too). */
static void first_views_may_be_asked_by_two_threads(void **state)
{
	struct fsim_script *s = parse(
		"scenario t\n"
		"mm A\n"
		"folio F order=2 anon\n"
		"new-anon F mm=A\n"
		"add F mm=A level=pte page=1 nr=1\n"
		"remove F mm=A level=pte page=1 nr=1\n");
	pthread_t t[2];
	void *ret[2];
	struct fsim_stmt_view a, b;
	int i;

	(void)state;
	for (i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, view_all, s), 0);
	for (i = 0; i < 2; i++) {
		assert_int_equal(pthread_join(t[i], &ret[i]), 0);
		assert_ptr_equal(ret[i], s);
	}
	assert_int_equal(fsim_script_statement(s, 0, 3, &a), 0);
	assert_int_equal(fsim_script_statement(s, 0, 3, &b), 0);
	assert_ptr_equal(a.args, b.args);
	fsim_script_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rmap_defaults_are_filled_in),
		cmocka_unit_test(folio_kinds_follow_the_kind_rule),
		cmocka_unit_test(orders_default_to_the_arch_pmd_order),
		cmocka_unit_test(process_ranges_are_typed),
		cmocka_unit_test(names_are_numbered_in_declaration_order),
		cmocka_unit_test(statements_see_the_names_of_their_line),
		cmocka_unit_test(views_and_names_live_as_long_as_the_script),
		cmocka_unit_test(first_views_may_be_asked_by_two_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
