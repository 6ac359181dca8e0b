/* SPDX-License-Identifier: MIT */
/* The parsed form of scenario files, shared by the parser and executors. */
#ifndef FOLIOSIM_SCENARIO_INTERNAL_H
#define FOLIOSIM_SCENARIO_INTERNAL_H

#include "foliosim/scenario.h"

enum stmt_kind {
	ST_MODE, ST_ARCH,
	ST_MM, ST_MMDROP, ST_FOLIO, ST_NEW_ANON, ST_ADD, ST_REMOVE, ST_DUP,
	ST_PIN, ST_UNPIN, ST_FREE,
	ST_EXPECT,
	ST_PROCESS, ST_PROC_OP,
	ST_PART, ST_DETECT, ST_SPLIT_SCAN,	/* the detect part (detect.c) */
};

struct stmt {
	enum stmt_kind kind;
	unsigned int line;
	unsigned long repeat;	/* "repeat N": 1 when absent */
	int expect_mode;	/* expect[legacy|base|rfc]: the mode, else -1 */
	char **words;		/* positional tokens after the keyword */
	size_t nwords;
	struct fsim_stmt_arg *args;
	size_t nargs;
	int fails;		/* fails=E: -E, else 0 */
	struct fsim_stmt_op op;	/* the resolved form (fsim_script_op) */
};

/* Names numbered in declaration order, found by hash (scenario_names.c). */
struct name_table {
	char **name;		/* owned copies, by number */
	size_t n;
	size_t *hash;		/* open addressing: number + 1, 0 free */
	size_t hash_size;	/* 0 or a power of two > 2 * n */
};

/* The number of @name, or -1. */
int names_find(const struct name_table *t, const char *name);
/* The number of @name, declaring it if new; -1 when memory runs out. */
int names_declare(struct name_table *t, const char *name);
void names_free(struct name_table *t);

/* By name number: the statement at which the name was first declared, and
 * first declared as a process (SIZE_MAX: never).  Statements are parsed
 * again when they run (stmt_load()), and must see the names as they were
 * at their own line, not as the whole scenario declares them. */
struct name_steps {
	size_t declared;
	size_t process;
};

struct scenario {
	char *name;
	unsigned int line;
	unsigned int modes;	/* bit FSIM_MODE_*; all by default */
	struct fsim_arch arch;
	size_t first;		/* its statements: the script's first..first+nstmts-1 */
	size_t nstmts;
	bool body_started;	/* a statement other than mode, arch, part was read */
	char *error;		/* first parse error: "FILE:LINE: message" */
	bool has_processes;
	struct name_table names;	/* the numbers of fsim_stmt_op's *_index */
	unsigned char *name_kinds;	/* by number: NAME_* of its declarations */
	struct name_steps *name_steps;	/* by number */
	/* fsim_script_statement()'s views, all statements loaded at its first
	 * call (the views' pointers must live as long as the script). */
	_Atomic(struct stmt *) views;
};

/*
 * A parsed script keeps each statement as its tokens, not in the parsed
 * form (struct stmt is about 30 times the size of its line): the tokens of
 * statement k, NUL-terminated, one after the other, then an empty string,
 * start at arena[stmt_off[k]].  stmt_load() parses them again when they
 * run, so a scenario of 50 MB takes about 2.5 times its size, not 22.
 */
struct fsim_script {
	char *file;
	struct scenario *sc;
	size_t n;
	char *arena;
	size_t arena_used, arena_size;
	size_t *stmt_off;		/* by statement, over all scenarios */
	unsigned int *stmt_line;
	size_t nstmts, stmts_size;
	struct name_table keys;		/* the arguments' keys, one copy each */
};

/* Statement @k of scenario @sc, parsed again from its tokens into @out
 * (words, args and the op's names point into the script); release it
 * with stmt_release().  0; -ENOMEM; -EPROTO if it no longer parses (a
 * bug: @why, if not NULL, says how). */
int stmt_load(const struct fsim_script *s, const struct scenario *sc, size_t k,
	      struct stmt *out, char *why, size_t whylen);
void stmt_release(struct stmt *st);
/* The line of statement @k of @sc. */
unsigned int stmt_line(const struct fsim_script *s, const struct scenario *sc, size_t k);

/* What a name was declared as (a name freed may come back as another). */
#define NAME_MM		0x1
#define NAME_FOLIO	0x2
#define NAME_PROCESS	0x4

#define FSIM_ALL_MODES ((1u << FSIM_NR_MODES) - 1)

/* fsim_script_parse() of text whose first line is line @first_line of
 * file @name (scenario_reader.c parses a file one scenario at a time). */
int script_parse_lines(const char *name, const char *text, size_t len,
		       unsigned int first_line, struct fsim_script **out);

/* "NAME: reason" for a file that could not be read (-@ret) in @err; @ret.
 * One wording for fsim_script_load() and fsim_script_reader_next(). */
int script_read_error(const char *name, int ret, char *err, size_t errlen);

const char *stmt_keyword(const struct stmt *st);
const struct fsim_stmt_arg *stmt_arg(const struct stmt *st, const char *key);

/* Lexical helpers of the scenario language. */
bool scn_is_ident(const char *s);
bool scn_parse_uint(const char *s, unsigned long long *out);
bool scn_parse_size(const char *s, unsigned long long *out);
bool scn_parse_bool(const char *s, bool *out);
int scn_parse_errno(const char *s);
/* Whether the @len bytes of @line hold a token: not blank, not only a
 * comment (a NUL byte counts: the parser reports it as binary data). */
bool scn_has_token(const char *line, size_t len);

/*
 * Make room for element @n of the array *@arr of @n elements of @size
 * bytes, which only ever grows by appending: capacities are powers of two,
 * so appending n elements costs O(n) copies, not O(n^2) (a 32k-statement
 * scenario took minutes under ASan, whose realloc always moves).  False,
 * with *@arr untouched, when memory runs out.
 */
bool scn_array_room(void **arr, size_t n, size_t size);

#endif /* FOLIOSIM_SCENARIO_INTERNAL_H */
