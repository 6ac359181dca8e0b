// SPDX-License-Identifier: MIT
/*
 * The scenario parser: lines to statements, with every check that needs no
 * state (known statement, known keys, well-formed values, required keys).
 * Names are resolved when the scenario runs.
 */
#include <ctype.h>
#include <stddef.h>
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "scenario_internal.h"

#define MAX_TOKENS 64

struct parser {
	struct fsim_script *script;
	struct scenario *cur;
	unsigned int line;
	char err[400];
	bool oom;	/* a scenario could not be added: the parse fails */
	bool nomem;	/* the last perr() was "out of memory" */
	char msg[300];	/* the last perr()'s message, without FILE:LINE: */
	/* stmt_load(): statement @step parsed again, nothing changed */
	bool replay;
	size_t step;
};

/* The number, in its scenario, of the statement being parsed. */
static size_t parser_step(const struct parser *p)
{
	return p->replay ? p->step : p->cur->nstmts;
}

static char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = malloc(n);

	if (p)
		memcpy(p, s, n);
	return p;
}

/* When memory runs out while a scenario is parsed, it must still fail:
 * these static strings stand in for the copies (never freed). */
static char oom_error[] = "out of memory while parsing this scenario";
static char oom_name[] = "(out-of-memory)";

/* A copy of a scenario's error message, or oom_error. */
static char *error_copy(const char *msg)
{
	char *copy = xstrdup(msg);

	return copy ? copy : oom_error;
}

static bool perr(struct parser *p, const char *fmt, ...)
{
	char msg[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(p->err, sizeof(p->err), "%s:%u: %s", p->script->file, p->line, msg);
	snprintf(p->msg, sizeof(p->msg), "%s", msg);
	p->nomem = !strcmp(fmt, "out of memory");
	return false;
}

bool scn_is_ident(const char *s)
{
	if (!(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (s++; *s; s++)
		if (!(isalnum((unsigned char)*s) || strchr("_.-", *s)))
			return false;
	return true;
}

/* Plain decimal integer, no sign. */
bool scn_parse_uint(const char *s, unsigned long long *out)
{
	unsigned long long v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s) || v > (ULLONG_MAX - 9) / 10)
			return false;
		v = v * 10 + (unsigned long long)(*s - '0');
	}
	*out = v;
	return true;
}

/* Sizes: decimal with an optional K, M or G suffix (powers of 1024). */
bool scn_parse_size(const char *s, unsigned long long *out)
{
	char buf[32];
	size_t n = strlen(s);
	unsigned int shift = 0;
	unsigned long long v;

	if (!n || n >= sizeof(buf))
		return false;
	memcpy(buf, s, n + 1);
	switch (buf[n - 1]) {
	case 'K': shift = 10; break;
	case 'M': shift = 20; break;
	case 'G': shift = 30; break;
	default: break;
	}
	if (shift)
		buf[n - 1] = '\0';
	if (!scn_parse_uint(buf, &v) || v > (ULLONG_MAX >> shift))
		return false;
	*out = v << shift;
	return true;
}

bool scn_parse_bool(const char *s, bool *out)
{
	if (!strcmp(s, "yes"))
		*out = true;
	else if (!strcmp(s, "no"))
		*out = false;
	else
		return false;
	return true;
}

int scn_parse_errno(const char *s)
{
	static const struct { const char *name; int err; } names[] = {
		{ "EBUSY", EBUSY }, { "EINVAL", EINVAL }, { "EOVERFLOW", EOVERFLOW },
		{ "ENOSPC", ENOSPC }, { "EAGAIN", EAGAIN }, { "ENOMEM", ENOMEM },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i].name))
			return -names[i].err;
	return 0;
}

const struct fsim_stmt_arg *stmt_arg(const struct stmt *st, const char *key)
{
	size_t i;

	for (i = 0; i < st->nargs; i++)
		if (!st->args[i].indexed && !strcmp(st->args[i].key, key))
			return &st->args[i];
	return NULL;
}

/* Splits a line into blank-separated tokens, cutting at '#'. */
static size_t tokenize(char *line, char **tok)
{
	size_t n = 0;
	char *s = strchr(line, '#');

	if (s)
		*s = '\0';
	s = line;
	for (;;) {
		while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\f' || *s == '\v')
			s++;
		if (!*s || n == MAX_TOKENS)
			break;
		tok[n++] = s;
		while (*s && !strchr(" \t\r\f\v", *s))
			s++;
		if (*s)
			*s++ = '\0';
	}
	return n;
}

/* key=value, key[i]=value, key[a:b]=value */
static bool parse_arg(struct parser *p, const char *tok, struct fsim_stmt_arg *a)
{
	const char *eq = strchr(tok, '='), *br;
	char key[64], idx[64];
	unsigned long long lo, hi;
	size_t klen;
	int k;

	memset(a, 0, sizeof(*a));
	klen = (size_t)(eq - tok);
	if (!klen || klen >= sizeof(key))
		return perr(p, "bad argument '%s'", tok);
	memcpy(key, tok, klen);
	key[klen] = '\0';
	br = strchr(key, '[');
	if (br) {
		size_t ilen = strlen(br + 1);
		char *colon;

		if (ilen < 2 || br[ilen] != ']' || ilen >= sizeof(idx))
			return perr(p, "bad index in '%s'", tok);
		memcpy(idx, br + 1, ilen - 1);
		idx[ilen - 1] = '\0';
		colon = strchr(idx, ':');
		if (colon) {
			*colon = '\0';
			if (!scn_parse_uint(idx, &lo) || !scn_parse_uint(colon + 1, &hi) ||
			    lo >= hi)
				return perr(p, "bad page range in '%s'", tok);
		} else {
			if (!scn_parse_uint(idx, &lo))
				return perr(p, "bad page index in '%s'", tok);
			hi = lo + 1;
		}
		a->indexed = true;
		a->lo = (unsigned long)lo;
		a->hi = (unsigned long)hi;
		key[br - key] = '\0';
	}
	if (!*key)
		return perr(p, "bad argument '%s'", tok);
	if (!eq[1])
		return perr(p, "missing value in '%s'", tok);
	/* The value stays in the token (the script's arena); keys are few and
	 * kept once per script.  A replay finds the key its first parse kept. */
	k = p->replay ? names_find(&p->script->keys, key)
		      : names_declare(&p->script->keys, key);
	if (k < 0)
		return perr(p, p->replay ? "internal error: key '%s' not kept" : "out of memory",
			    key);
	a->key = p->script->keys.name[k];
	a->value = (char *)eq + 1;
	return true;
}

/* Value kinds of keys. */
enum vkind { V_UINT, V_SIZE, V_BOOL, V_IDENT, V_LEVEL, V_ERRNO, V_SLOT, V_SINT, V_PROT,
	     V_KERNEL };

/*
 * One row per key of a statement: its value kind, whether it takes a page
 * index, whether it is required, and where its typed value goes in the
 * resolved form (struct fsim_stmt_op) with the default when it is absent.
 * The parser checks with it and resolve_op() fills with it: a key's type
 * and default are written here only.
 */
struct keyspec {
	const char *key;
	enum vkind kind;
	bool indexed;	/* takes [i] or [a:b] */
	bool required;
	size_t field;	/* offsetof(struct fsim_stmt_op, ...), or NO_FIELD */
	uint64_t dflt;	/* when absent; DFLT_PMD_ORDER: the arch's PMD order */
};

#define NO_FIELD	SIZE_MAX
#define DFLT_PMD_ORDER	(UINT64_MAX - 1)	/* not FSIM_LEN_TO_END */
/* Field types by value kind: V_UINT, V_SIZE uint64_t; V_BOOL bool; V_IDENT
 * const char *; V_LEVEL enum fsim_level; V_ERRNO int. */
#define KEY(k, kind, req, field, dflt) \
	{ k, kind, false, req, offsetof(struct fsim_stmt_op, field), dflt }
#define KEY_UNUSED(k, kind) { k, kind, false, false, NO_FIELD, 0 }
#define KEY_END { NULL, 0, false, false, NO_FIELD, 0 }
/* kernel=silent, beside fails= on an rmap call: the kernel code takes the
 * misuse the model refuses without a warning (kharness checks it); the
 * model's runner ignores it. */
#define KEY_KERNEL KEY_UNUSED("kernel", V_KERNEL)

static bool check_value(struct parser *p, const struct keyspec *ks, const struct fsim_stmt_arg *a)
{
	unsigned long long u;
	bool b;
	const char *v = a->value, *colon;

	switch (ks->kind) {
	case V_UINT:
		if (!scn_parse_uint(v, &u))
			return perr(p, "%s: '%s' is not a decimal number", a->key, v);
		return true;
	case V_SINT:
		if (!scn_parse_uint(v[0] == '-' ? v + 1 : v, &u))
			return perr(p, "%s: '%s' is not a number", a->key, v);
		return true;
	case V_SIZE:
		if (!scn_parse_size(v, &u))
			return perr(p, "%s: '%s' is not a size (N, NK, NM or NG)", a->key, v);
		return true;
	case V_BOOL:
		if (!scn_parse_bool(v, &b))
			return perr(p, "%s: '%s' is not yes or no", a->key, v);
		return true;
	case V_IDENT:
		if (!scn_is_ident(v))
			return perr(p, "%s: '%s' is not a name", a->key, v);
		return true;
	case V_LEVEL:
		if (strcmp(v, "pte") && strcmp(v, "pmd") && strcmp(v, "pud"))
			return perr(p, "level: '%s' is not pte, pmd or pud", v);
		return true;
	case V_PROT:
		if (strcmp(v, "none") && strcmp(v, "read") && strcmp(v, "rw"))
			return perr(p, "prot: '%s' is not none, read or rw", v);
		return true;
	case V_KERNEL:
		if (strcmp(v, "silent"))
			return perr(p, "kernel: '%s' is not silent", v);
		return true;
	case V_ERRNO:
		if (!scn_parse_errno(v))
			return perr(p, "fails: '%s' is not EBUSY, EINVAL, EOVERFLOW, ENOSPC, "
				    "EAGAIN or ENOMEM", v);
		return true;
	case V_SLOT:
		colon = strchr(v, ':');
		if (!strcmp(v, "none"))
			return true;
		if (colon) {
			char name[64];
			size_t n = (size_t)(colon - v);

			if (n < sizeof(name)) {
				memcpy(name, v, n);
				name[n] = '\0';
				if (scn_is_ident(name) && scn_parse_uint(colon + 1, &u))
					return true;
			}
		}
		return perr(p, "%s: '%s' is not M:count or none", a->key, v);
	}
	return true;
}

static const struct keyspec *find_key(const struct keyspec *ks, const char *key)
{
	for (; ks->key; ks++)
		if (!strcmp(ks->key, key))
			return ks;
	return NULL;
}

static bool check_args(struct parser *p, const struct stmt *st,
		       const struct keyspec *ks, const char *what)
{
	size_t i;

	for (i = 0; i < st->nargs; i++) {
		const struct fsim_stmt_arg *a = &st->args[i];
		const struct keyspec *k = find_key(ks, a->key);

		if (!k)
			return perr(p, "unknown key '%s' for %s", a->key, what);
		if (a->indexed != k->indexed)
			return perr(p, k->indexed ? "key '%s' needs a page index: %s[i]=..."
					          : "key '%s' takes no index", a->key, a->key);
		if (!check_value(p, k, a))
			return false;
	}
	for (; ks->key; ks++)
		if (ks->required && !stmt_arg(st, ks->key))
			return perr(p, "%s needs %s=", what, ks->key);
	if (stmt_arg(st, "kernel") && !stmt_arg(st, "fails"))
		return perr(p, "kernel=silent says what the kernel code does with a call "
			    "the model refuses: it needs fails=");
	return true;
}

/* arch sets the scenario's struct fsim_arch (parse_arch), not the op. */
static const struct keyspec keys_arch[] = {
	KEY_UNUSED("bits", V_UINT), KEY_UNUSED("page_shift", V_UINT),
	KEY_UNUSED("pmd_order", V_UINT), KEY_UNUSED("pud_order", V_UINT),
	KEY_END };
static const struct keyspec keys_mm[] = {
	KEY("id", V_UINT, false, id, 0), KEY("fails", V_ERRNO, false, fails, 0),
	KEY_END };
static const struct keyspec keys_fails[] = {
	KEY("fails", V_ERRNO, false, fails, 0), KEY_END };
static const struct keyspec keys_folio[] = {
	KEY("order", V_UINT, true, order, 0), KEY("fails", V_ERRNO, false, fails, 0),
	KEY_END };
/* folio_add_new_anon_rmap() callers map a new folio exclusively. */
static const struct keyspec keys_new_anon[] = {
	KEY("mm", V_IDENT, true, mm, 0), KEY("exclusive", V_BOOL, false, exclusive, 1),
	KEY("fails", V_ERRNO, false, fails, 0), KEY_KERNEL, KEY_END };
/* RMAP_EXCLUSIVE is a flag the caller passes: off unless said. */
static const struct keyspec keys_add[] = {
	KEY("mm", V_IDENT, true, mm, 0), KEY("level", V_LEVEL, true, level, 0),
	KEY("page", V_UINT, true, page, 0), KEY("nr", V_UINT, true, nr, 0),
	KEY("exclusive", V_BOOL, false, exclusive, 0),
	KEY("fails", V_ERRNO, false, fails, 0), KEY_KERNEL, KEY_END };
static const struct keyspec keys_remove[] = {
	KEY("mm", V_IDENT, true, mm, 0), KEY("level", V_LEVEL, true, level, 0),
	KEY("page", V_UINT, true, page, 0), KEY("nr", V_UINT, true, nr, 0),
	KEY("fails", V_ERRNO, false, fails, 0), KEY_KERNEL, KEY_END };
static const struct keyspec keys_dup[] = {
	KEY("mm", V_IDENT, true, mm, 0), KEY("src", V_IDENT, true, src, 0),
	KEY("level", V_LEVEL, true, level, 0), KEY("page", V_UINT, true, page, 0),
	KEY("nr", V_UINT, true, nr, 0), KEY("fails", V_ERRNO, false, fails, 0),
	KEY_KERNEL, KEY_END };
static const struct keyspec keys_pin[] = {
	KEY("mm", V_IDENT, true, mm, 0), KEY("n", V_UINT, false, n, 1),
	KEY("fails", V_ERRNO, false, fails, 0), KEY_END };
static const struct keyspec keys_unpin[] = {
	KEY("n", V_UINT, false, n, 1), KEY("fails", V_ERRNO, false, fails, 0),
	KEY_END };

/* mmap order=: the folio order of the region's faults (0: small folios);
 * hugetlb regions default to the PMD-sized hstate (resolve_op()). */
static const struct keyspec keys_mmap[] = {
	KEY("size", V_SIZE, true, size, 0), KEY("order", V_UINT, false, order, 0),
	KEY("file", V_IDENT, false, file, 0), KEY_END };
static const struct keyspec keys_range_opt[] = {
	KEY("off", V_SIZE, false, off, 0), KEY("len", V_SIZE, false, len, FSIM_LEN_TO_END),
	KEY_END };
static const struct keyspec keys_range[] = {
	KEY("off", V_SIZE, true, off, 0), KEY("len", V_SIZE, true, len, 0),
	KEY_END };
static const struct keyspec keys_mprotect[] = {
	KEY("off", V_SIZE, true, off, 0), KEY("len", V_SIZE, true, len, 0),
	KEY("prot", V_PROT, true, prot, 0), KEY_END };
static const struct keyspec keys_mremap[] = {
	KEY("to", V_IDENT, true, to, 0), KEY("keep_pmd", V_BOOL, false, keep_pmd, 1),
	KEY_END };
/* MADV_COLLAPSE may fail as the kernel says (madvise_collapse_errno()). */
static const struct keyspec keys_collapse[] = {
	KEY("off", V_SIZE, false, off, 0), KEY("len", V_SIZE, false, len, FSIM_LEN_TO_END),
	KEY("fails", V_ERRNO, false, fails, 0), KEY_END };
static const struct keyspec keys_none[] = { KEY_END };

struct stmt_spec {
	const char *name;
	enum stmt_kind kind;
	enum fsim_op op;
	size_t min_words, max_words;
	const struct keyspec *keys;
};

static const struct stmt_spec stmt_specs[] = {
	{ "mode", ST_MODE, FSIM_OP_MODE, 1, 1, keys_none },
	{ "arch", ST_ARCH, FSIM_OP_ARCH, 0, 0, keys_arch },
	{ "mm", ST_MM, FSIM_OP_MM, 1, 1, keys_mm },
	{ "mmdrop", ST_MMDROP, FSIM_OP_MMDROP, 1, 1, keys_fails },
	{ "folio", ST_FOLIO, FSIM_OP_FOLIO, 2, 3, keys_folio },
	{ "new-anon", ST_NEW_ANON, FSIM_OP_NEW_ANON, 1, 1, keys_new_anon },
	{ "add", ST_ADD, FSIM_OP_ADD, 1, 1, keys_add },
	{ "remove", ST_REMOVE, FSIM_OP_REMOVE, 1, 1, keys_remove },
	{ "dup", ST_DUP, FSIM_OP_DUP, 1, 1, keys_dup },
	{ "pin", ST_PIN, FSIM_OP_PIN, 1, 1, keys_pin },
	{ "unpin", ST_UNPIN, FSIM_OP_UNPIN, 1, 1, keys_unpin },
	{ "free", ST_FREE, FSIM_OP_FREE, 1, 1, keys_fails },
	{ "process", ST_PROCESS, FSIM_OP_PROCESS, 1, 1, keys_none },
	{ "part", ST_PART, FSIM_OP_PART, 1, 1, keys_none },
	{ "detect", ST_DETECT, FSIM_OP_DETECT, 1, 1, keys_fails },
	{ "deferred-split-scan", ST_SPLIT_SCAN, FSIM_OP_SPLIT_SCAN, 0, 0, keys_none },
	{ NULL, 0, 0, 0, 0, NULL } };

/* Process operations: "P verb ...". */
static const struct stmt_spec proc_specs[] = {
	{ "mmap", ST_PROC_OP, FSIM_OP_MMAP, 1, 3, keys_mmap },
	{ "touch", ST_PROC_OP, FSIM_OP_TOUCH, 1, 1, keys_range_opt },
	{ "read", ST_PROC_OP, FSIM_OP_READ, 1, 1, keys_range_opt },
	{ "fork", ST_PROC_OP, FSIM_OP_FORK, 1, 1, keys_none },
	{ "munmap", ST_PROC_OP, FSIM_OP_MUNMAP, 1, 1, keys_range },
	{ "dontneed", ST_PROC_OP, FSIM_OP_DONTNEED, 1, 1, keys_range },
	{ "exit", ST_PROC_OP, FSIM_OP_EXIT, 0, 0, keys_none },
	{ "mprotect", ST_PROC_OP, FSIM_OP_MPROTECT, 1, 1, keys_mprotect },
	{ "mremap", ST_PROC_OP, FSIM_OP_MREMAP, 1, 1, keys_mremap },
	{ "collapse", ST_PROC_OP, FSIM_OP_COLLAPSE, 1, 1, keys_collapse },
	{ "pageout", ST_PROC_OP, FSIM_OP_PAGEOUT, 1, 1, keys_range_opt },
	{ NULL, 0, 0, 0, 0, NULL } };

static const struct stmt_spec *find_spec(const struct stmt_spec *s, const char *name)
{
	for (; s->name; s++)
		if (!strcmp(s->name, name))
			return s;
	return NULL;
}

/* The number of @name if the scenario declared it at or before the
 * statement being parsed, else -1. */
static int name_at(const struct parser *p, const char *name)
{
	int k = names_find(&p->cur->names, name);

	return k >= 0 && p->cur->name_steps[k].declared <= parser_step(p) ? k : -1;
}

/* Is name a process declared before the statement being parsed? */
static bool is_process(const struct parser *p, const char *name)
{
	int k = names_find(&p->cur->names, name);

	return k >= 0 && p->cur->name_steps[k].process < parser_step(p);
}

/* Marks the scenario as one with processes (its first parse only: a
 * replay changes nothing). */
static void saw_processes(struct parser *p)
{
	if (!p->replay)
		p->cur->has_processes = true;
}

static bool check_words(struct parser *p, const struct stmt *st, size_t first,
			const struct stmt_spec *spec)
{
	size_t i, n = st->nwords - first;

	if (n < spec->min_words || n > spec->max_words)
		return perr(p, "'%s' takes %zu to %zu names, got %zu", spec->name,
			    spec->min_words, spec->max_words, n);
	for (i = first; i < st->nwords; i++)
		if (!scn_is_ident(st->words[i]))
			return perr(p, "'%s' is not a name", st->words[i]);
	return true;
}

/* The value kind the parser checks for a key of the `expect` table. */
static enum vkind value_kind(enum fsim_value_type t)
{
	switch (t) {
	case FSIM_VALUE_SINT: return V_SINT;
	case FSIM_VALUE_BOOL: return V_BOOL;
	case FSIM_VALUE_SLOT: return V_SLOT;
	case FSIM_VALUE_UINT: break;
	}
	return V_UINT;
}

/* An `expect` statement's keys against the key table (scenario_keys.c):
 * known for the target, indexed as the key says (folio: key[i]; region:
 * key@OFF with a size), and a value of the key's type. */
static bool check_expect_args(struct parser *p, const struct stmt *st,
			      enum fsim_expect_target target, const char *what)
{
	size_t i;

	for (i = 0; i < st->nargs; i++) {
		const struct fsim_stmt_arg *a = &st->args[i];
		const char *at = target == FSIM_EXPECT_REGION ? strchr(a->key, '@') : NULL;
		char base[64];
		const struct fsim_expect_key *k;
		struct keyspec ks;
		unsigned long long off;
		bool indexed;

		snprintf(base, sizeof(base), "%.*s",
			 at ? (int)(at - a->key) : (int)strlen(a->key), a->key);
		k = fsim_expect_key_find(target, base);
		if (!k)
			return perr(p, "unknown key '%s' for %s", a->key, what);
		indexed = target == FSIM_EXPECT_REGION ? at != NULL : a->indexed;
		if (target == FSIM_EXPECT_REGION && a->indexed)
			return perr(p, "key '%s': a region's page is key@OFF, not [i]", a->key);
		if (indexed != !!(k->flags & FSIM_KEY_INDEXED))
			return perr(p, (k->flags & FSIM_KEY_INDEXED) ?
				    (at || target != FSIM_EXPECT_REGION ?
				     "key '%s' needs a page index: %s[i]=..." :
				     "key '%s' needs a byte offset: %s@OFF=...") :
				    "key '%s' takes no index", a->key, base);
		if (at && !scn_parse_size(at + 1, &off))
			return perr(p, "%s: bad offset '%s'", a->key, at + 1);
		ks.key = k->name;
		ks.kind = value_kind(k->type);
		ks.indexed = indexed;
		ks.required = false;
		ks.field = NO_FIELD;
		ks.dflt = 0;
		/* order@OFF of an unmapped page reads "none" (the key's meaning) */
		if (target == FSIM_EXPECT_REGION && !strcmp(base, "order") &&
		    !strcmp(a->value, "none"))
			continue;
		if (!check_value(p, &ks, a))
			return false;
	}
	return true;
}

/* P mmap R [anon|shmem] [hugetlb]: the kind, then hugetlb. */
static bool check_mmap_words(struct parser *p, const struct stmt *st)
{
	size_t i;

	if (stmt_arg(st, "file")) {	/* MAP_PRIVATE of a file: [shmem] (tmpfs) */
		if (st->nwords > 4 || (st->nwords == 4 && strcmp(st->words[3], "shmem")))
			return perr(p, "usage: P mmap R size=S file=F [shmem] [order=K]");
		return true;
	}
	for (i = 3; i < st->nwords; i++) {
		const char *w = st->words[i];
		const bool kind = !strcmp(w, "anon") || !strcmp(w, "shmem");

		if ((i == 3 && !kind && strcmp(w, "hugetlb")) ||
		    (i == 4 && (strcmp(w, "hugetlb") || !strcmp(st->words[3], "hugetlb"))))
			return perr(p, "usage: P mmap R size=S [anon|shmem] [hugetlb] [order=K]");
	}
	return true;
}

/* The targets named by a word (expect stats ...): checked and resolved by
 * this one table, so a group word means the same to both. */
struct expect_group {
	const char *word;
	const char *what;	/* in check_expect_args()'s messages */
	enum fsim_expect_target t;
};

static const struct expect_group expect_groups[] = {
	{ "stats", "expect stats", FSIM_EXPECT_STATS },
	{ "thp", "expect thp", FSIM_EXPECT_THP },
	{ "vmstat", "expect vmstat", FSIM_EXPECT_VMSTAT },
	{ "meminfo", "expect meminfo", FSIM_EXPECT_MEMINFO },
};

/* The row of expect_groups[] named @word, or NULL. */
static const struct expect_group *expect_group(const char *word)
{
	size_t i;

	for (i = 0; i < sizeof(expect_groups) / sizeof(expect_groups[0]); i++)
		if (!strcmp(word, expect_groups[i].word))
			return &expect_groups[i];
	return NULL;
}

static bool check_expect_target(struct parser *p, struct stmt *st)
{
	const struct expect_group *group;
	const char *t;

	if (st->nwords < 1)
		return perr(p, "expect needs a target: a folio, stats, meminfo, thp, "
			    "vmstat or PROCESS REGION");
	t = st->words[0];
	if (!st->nargs || (!strcmp(t, "thp") && st->nargs == 1 && stmt_arg(st, "order")))
		return perr(p, "expect %s: nothing to compare", t);
	group = expect_group(t);
	if (group && st->nwords != 1)
		return perr(p, "expect %s takes no name after it, got '%s'", t, st->words[1]);
	if (group)
		return check_expect_args(p, st, group->t, group->what);
	if (st->nwords == 2) {
		if (!is_process(p, t))
			return perr(p, "expect %s %s: %s is not a process", t,
				    st->words[1], t);
		saw_processes(p);
		return check_expect_args(p, st, FSIM_EXPECT_REGION, "expect PROCESS REGION");
	}
	if (st->nwords != 1)
		return perr(p, "expect takes one target");
	if (!scn_is_ident(t))
		return perr(p, "'%s' is not a name", t);
	if (is_process(p, t)) {	/* the process's smaps_rollup */
		saw_processes(p);
		return check_expect_args(p, st, FSIM_EXPECT_ROLLUP, "expect PROCESS");
	}
	return check_expect_args(p, st, FSIM_EXPECT_FOLIO, "expect FOLIO");
}

static bool parse_arch(struct parser *p, struct stmt *st)
{
	static const char *const keys[] = { "bits", "page_shift", "pmd_order", "pud_order" };
	struct fsim_arch a = p->cur->arch;
	unsigned int *field[] = { &a.bits, &a.page_shift, &a.pmd_order, &a.pud_order };
	unsigned long long v;
	size_t i;

	if (!check_args(p, st, keys_arch, "arch"))
		return false;
	if (p->replay)
		return true;	/* the scenario's arch is set already */
	if (p->cur->body_started)
		return perr(p, "arch must come before the scenario's other statements");
	for (i = 0; i < 4; i++) {
		const struct fsim_stmt_arg *arg = stmt_arg(st, keys[i]);

		if (arg && scn_parse_uint(arg->value, &v))
			*field[i] = v > 64 ? 65 : (unsigned int)v;
	}
	if (fsim_arch_validate(&a))
		return perr(p, "arch: bits must be 32 or 64, page_shift 10..16, "
			    "1 <= pmd_order < pud_order <= 30");
	p->cur->arch = a;
	return true;
}

/* "[legacy]", "[base]", "[rfc]": the mode of an expect[MODE] statement. */
static bool parse_expect_mode(const char *m, int *mode)
{
	char name[16];
	size_t len = strlen(m);
	enum fsim_mode md;

	if (len < 3 || len - 2 >= sizeof(name) || m[0] != '[' || m[len - 1] != ']')
		return false;
	memcpy(name, m + 1, len - 2);
	name[len - 2] = '\0';
	if (fsim_mode_from_name(name, &md))
		return false;
	*mode = (int)md;
	return true;
}

static bool parse_statement(struct parser *p, char **tok, size_t ntok,
			    struct stmt *st, bool nested);

/* Words and args of @st from tokens @first_arg..: the words are the tokens
 * themselves (in the script's arena), the arrays are sized once. */
static bool parse_tokens_into(struct parser *p, char **tok, size_t ntok,
			      size_t first_arg, struct stmt *st)
{
	size_t i, nargs = 0, nwords;

	for (i = first_arg; i < ntok; i++)
		nargs += strchr(tok[i], '=') != NULL;
	nwords = ntok - first_arg - nargs;
	st->words = nwords ? malloc(nwords * sizeof(*st->words)) : NULL;
	st->args = nargs ? malloc(nargs * sizeof(*st->args)) : NULL;
	if ((nwords && !st->words) || (nargs && !st->args))
		return perr(p, "out of memory");
	for (i = first_arg; i < ntok; i++) {
		if (!strchr(tok[i], '='))
			st->words[st->nwords++] = tok[i];
		else if (!parse_arg(p, tok[i], &st->args[st->nargs++]))
			return false;
	}
	return true;
}

/* "part detect": a header, like arch; detect is the only part so far. */
static bool check_part(struct parser *p, const struct stmt *st)
{
	if (strcmp(st->words[0], "detect"))
		return perr(p, "usage: part detect (the only part beyond the series)");
	if (!p->replay && p->cur->body_started)
		return perr(p, "part must come before the scenario's other statements");
	return true;
}

static bool parse_statement(struct parser *p, char **tok, size_t ntok,
			    struct stmt *st, bool nested)
{
	const struct stmt_spec *spec;
	const struct fsim_stmt_arg *fails;
	unsigned long long n;

	st->line = p->line;
	st->repeat = 1;
	st->expect_mode = -1;
	if (!strcmp(tok[0], "repeat")) {
		if (nested)
			return perr(p, "repeat cannot be nested");
		if (ntok < 3 || !scn_parse_uint(tok[1], &n) || n == 0)
			return perr(p, "usage: repeat N STATEMENT (N >= 1)");
		if (!parse_statement(p, tok + 2, ntok - 2, st, true))
			return false;
		if (st->kind == ST_MODE || st->kind == ST_ARCH || st->kind == ST_PROCESS ||
		    st->kind == ST_PART)
			return perr(p, "'%s' cannot be repeated", tok[2]);
		st->repeat = (unsigned long)n;
		return true;
	}
	if (!strncmp(tok[0], "expect", 6)) {
		const char *m = tok[0] + 6;

		if (*m && strcmp(m, "[any]") && !parse_expect_mode(m, &st->expect_mode))
			return perr(p, "unknown statement '%s'", tok[0]);
		st->kind = ST_EXPECT;
		return parse_tokens_into(p, tok, ntok, 1, st) &&
		       check_expect_target(p, st);
	}
	spec = find_spec(stmt_specs, tok[0]);
	if (!spec && is_process(p, tok[0])) {
		if (ntok < 2 || !(spec = find_spec(proc_specs, tok[1])))
			return perr(p, "unknown process operation '%s'",
				    ntok < 2 ? "" : tok[1]);
		st->kind = ST_PROC_OP;
		saw_processes(p);
		if (!parse_tokens_into(p, tok, ntok, 0, st))
			return false;
		if (!check_words(p, st, 2, spec))
			return false;
		if (!strcmp(tok[1], "mmap") && !check_mmap_words(p, st))
			return false;
		return check_args(p, st, spec->keys, tok[1]);
	}
	if (!spec)
		return perr(p, "unknown statement '%s'", tok[0]);
	st->kind = spec->kind;
	if (!parse_tokens_into(p, tok, ntok, 1, st))
		return false;
	if (st->kind == ST_MODE) {
		if (st->nwords != 1 || (strcmp(st->words[0], "any") &&
		    fsim_mode_from_name(st->words[0], NULL)))
			return perr(p, "usage: mode legacy|base|rfc|any");
		return true;
	}
	if (st->kind == ST_ARCH)
		return st->nwords == 0 ? parse_arch(p, st) : perr(p, "arch takes key=value only");
	if (!check_words(p, st, 0, spec) || !check_args(p, st, spec->keys, spec->name))
		return false;
	if (st->kind == ST_FOLIO) {
		const char *k = st->words[1];
		bool shm = st->nwords == 3 && !strcmp(st->words[2], "shmem");
		bool htlb = st->nwords == 3 && !strcmp(st->words[2], "hugetlb");

		if ((strcmp(k, "anon") && strcmp(k, "file") && strcmp(k, "shmem")) ||
		    (st->nwords == 3 && !((shm && !strcmp(k, "file")) ||
					  (htlb && strcmp(k, "shmem")))))
			return perr(p, "usage: folio F order=N anon|file [shmem|hugetlb]");
	}
	if (st->kind == ST_PART && !check_part(p, st))
		return false;
	if (st->kind == ST_PROCESS)
		saw_processes(p);
	fails = stmt_arg(st, "fails");
	if (fails)
		st->fails = scn_parse_errno(fails->value);
	return true;
}

/* The strings are the script's: only the arrays are the statement's. */
void stmt_release(struct stmt *st)
{
	free(st->words);
	free(st->args);
	st->words = NULL;
	st->args = NULL;
}

static bool new_scenario(struct parser *p, const char *name)
{
	struct fsim_script *s = p->script;
	void *mem = s->sc;
	struct scenario *sc;

	if (!scn_array_room(&mem, s->n, sizeof(*s->sc))) {
		p->oom = true;
		p->cur = NULL;
		return false;
	}
	s->sc = mem;
	sc = &s->sc[s->n++];
	memset(sc, 0, sizeof(*sc));
	sc->name = xstrdup(name);
	sc->line = p->line;
	sc->modes = FSIM_ALL_MODES;
	sc->arch = FSIM_ARCH_X86_64;
	sc->first = s->nstmts;
	p->cur = sc;
	if (!sc->name) {
		sc->name = oom_name;
		sc->error = oom_error;
	}
	return sc->name != oom_name;
}

/* Fills the op fields of the keys in @ks: the typed value, or the default. */
static void fill_keys(const struct stmt *st, const struct keyspec *ks,
		      unsigned int pmd_order, struct fsim_stmt_op *op)
{
	for (; ks->key; ks++) {
		const struct fsim_stmt_arg *a = stmt_arg(st, ks->key);
		unsigned long long u = ks->dflt == DFLT_PMD_ORDER ? pmd_order : ks->dflt;
		bool b = ks->dflt != 0;
		char *field;

		if (ks->field == NO_FIELD)
			continue;	/* before the offset is applied: NO_FIELD is huge */
		field = (char *)op + ks->field;
		switch (ks->kind) {
		case V_UINT:
		case V_SINT:
			if (a)
				scn_parse_uint(a->value, &u);
			*(uint64_t *)(void *)field = u;
			break;
		case V_SIZE:
			if (a)
				scn_parse_size(a->value, &u);
			*(uint64_t *)(void *)field = u;
			break;
		case V_BOOL:
			if (a)
				scn_parse_bool(a->value, &b);
			*(bool *)field = b;
			break;
		case V_IDENT:
		case V_SLOT:
			*(const char **)(void *)field = a ? a->value : NULL;
			break;
		case V_LEVEL:
			*(enum fsim_level *)(void *)field =
				!a || !strcmp(a->value, "pte") ? FSIM_LEVEL_PTE :
				!strcmp(a->value, "pmd") ? FSIM_LEVEL_PMD : FSIM_LEVEL_PUD;
			break;
		case V_ERRNO:
			*(int *)(void *)field = a ? scn_parse_errno(a->value) : 0;
			break;
		case V_PROT:	/* PROT_READ 1, PROT_WRITE 2, as FSIM_PROT_* */
			*(uint64_t *)(void *)field = !a || !strcmp(a->value, "none") ? 0 :
						     !strcmp(a->value, "read") ? 1 : 3;
			break;
		case V_KERNEL:	/* KEY_UNUSED only: read by the kernel executors */
			break;
		}
	}
}

/* Declares @name as a @kind (NAME_*) of the current scenario: its number.
 * A replay declares nothing: the number its first parse gave. */
static int declare_name(struct parser *p, const char *name, unsigned char kind)
{
	struct scenario *sc = p->cur;
	size_t before = sc->names.n;
	int k;

	if (p->replay)
		return name_at(p, name);
	if (names_find(&sc->names, name) < 0) {
		/* Room for its kinds and steps first: a replay of an earlier
		 * statement reads them for every name it finds. */
		void *kinds = sc->name_kinds, *steps = sc->name_steps;

		if (!scn_array_room(&kinds, before, 1))
			return -1;
		sc->name_kinds = kinds;
		if (!scn_array_room(&steps, before, sizeof(*sc->name_steps)))
			return -1;
		sc->name_steps = steps;
	}
	k = names_declare(&sc->names, name);
	if (k < 0)
		return -1;
	if (sc->names.n > before) {	/* new: its kinds start empty */
		sc->name_kinds[k] = 0;
		sc->name_steps[k].declared = parser_step(p);
		sc->name_steps[k].process = SIZE_MAX;
	}
	sc->name_kinds[k] |= kind;
	if ((kind & NAME_PROCESS) && sc->name_steps[k].process == SIZE_MAX)
		sc->name_steps[k].process = parser_step(p);
	return k;
}

/* The target of expect T ... (check_expect_target() accepted it). */
static enum fsim_expect_target expect_target(const struct parser *p,
					    const struct stmt *st)
{
	const struct expect_group *group = expect_group(st->words[0]);

	/* In check_expect_target()'s order: a group word wins over a process
	 * of that name, whose keys it was checked against. */
	if (group)
		return group->t;
	if (st->nwords == 2)
		return FSIM_EXPECT_REGION;
	if (is_process(p, st->words[0]))
		return FSIM_EXPECT_ROLLUP;
	return FSIM_EXPECT_FOLIO;
}

/* folio F order=N anon|file [shmem|hugetlb]: "file shmem" and "shmem" are
 * shmem; "anon hugetlb" and "file hugetlb" are hugetlb folios of that kind. */
static void folio_kind(const struct stmt *st, struct fsim_stmt_op *op)
{
	const char *k = st->words[1];

	op->hugetlb = st->nwords == 3 && !strcmp(st->words[2], "hugetlb");
	op->kind = !strcmp(k, "anon") ? FSIM_KIND_ANON :
		   !strcmp(k, "shmem") || (st->nwords == 3 && !op->hugetlb) ?
		   FSIM_KIND_SHMEM : FSIM_KIND_FILE;
}

/* P mmap R [anon|shmem] [hugetlb]: hugetlb regions default to the
 * PMD-sized hstate, other regions to small folios (order 0). */
static void mmap_kind(const struct stmt *st, unsigned int pmd_order,
		      struct fsim_stmt_op *op)
{
	const bool shmem = st->nwords > 3 && !strcmp(st->words[3], "shmem");

	op->kind = shmem ? FSIM_KIND_SHMEM : op->file ? FSIM_KIND_FILE : FSIM_KIND_ANON;
	op->hugetlb = st->nwords > 3 && !strcmp(st->words[st->nwords - 1], "hugetlb");
	if (op->hugetlb && !stmt_arg(st, "order"))
		op->order = pmd_order;
}

/* expect thp [order=K]: the other keys are the expect key table's. */
static const struct keyspec keys_expect_thp[] = {
	KEY("order", V_UINT, false, order, DFLT_PMD_ORDER), KEY_END };

/* Declarations number their names; then every name gets its number. */
static bool number_names(struct parser *p, struct fsim_stmt_op *op)
{
	int k = 0;

	if (op->op == FSIM_OP_MM && !op->fails)
		k = declare_name(p, op->name, NAME_MM);
	else if (op->op == FSIM_OP_FOLIO && !op->fails)
		k = declare_name(p, op->name, NAME_FOLIO);
	else if (op->op == FSIM_OP_PROCESS)
		k = declare_name(p, op->name, NAME_PROCESS);
	else if (op->op == FSIM_OP_FORK)
		k = declare_name(p, op->child, NAME_PROCESS);
	if (k < 0)
		return perr(p, "out of memory");
	op->name_index = name_at(p, op->name);
	op->mm_index = name_at(p, op->mm);
	op->src_index = name_at(p, op->src);
	op->child_index = name_at(p, op->child);
	return true;
}

/*
 * The resolved form of a statement the parser accepted: op, typed keys
 * with their defaults (fill_keys() over the statement's key table), and
 * the numbers of its names; declarations number new names.
 */
static bool resolve_op(struct parser *p, struct stmt *st)
{
	struct fsim_stmt_op *op = &st->op;
	const unsigned int pmd_order = p->cur->arch.pmd_order;
	const struct stmt_spec *spec = NULL;

	memset(op, 0, sizeof(*op));
	op->line = st->line;
	op->repeat = st->repeat;
	op->expect_mode = st->expect_mode;
	op->name_index = op->mm_index = op->src_index = op->child_index = -1;
	if (st->kind == ST_EXPECT) {
		op->op = FSIM_OP_EXPECT;
		op->target = expect_target(p, st);
		if (op->target == FSIM_EXPECT_THP)
			fill_keys(st, keys_expect_thp, pmd_order, op);
		if (op->target == FSIM_EXPECT_FOLIO || op->target == FSIM_EXPECT_REGION ||
		    op->target == FSIM_EXPECT_ROLLUP)
			op->name = st->words[0];
		if (op->target == FSIM_EXPECT_REGION)
			op->region = st->words[1];
	} else {
		spec = st->kind == ST_PROC_OP ? find_spec(proc_specs, st->words[1])
					      : find_spec(stmt_specs, stmt_keyword(st));
		op->op = spec->op;
		fill_keys(st, spec->keys, pmd_order, op);
		if (st->kind != ST_MODE && st->kind != ST_ARCH && st->nwords)
			op->name = st->words[0];
	}
	if (op->op == FSIM_OP_FOLIO)
		folio_kind(st, op);
	if (op->op == FSIM_OP_MMAP)
		mmap_kind(st, pmd_order, op);
	if (st->kind == ST_PROC_OP && op->op != FSIM_OP_EXIT) {
		if (op->op == FSIM_OP_FORK)
			op->child = st->words[2];
		else
			op->region = st->words[2];
	}
	st->fails = op->fails;
	return number_names(p, op);
}

/* Copies tokens @tok into the arena as a statement's entry (each token
 * with its NUL, then an empty string) and points @tok at the copies; the
 * entry's size.  script_parse_lines() sized the arena for every line. */
static size_t store_tokens(struct fsim_script *s, char **tok, size_t ntok)
{
	char *dst = s->arena + s->arena_used;
	size_t i, n;

	for (i = 0; i < ntok; i++) {
		n = strlen(tok[i]) + 1;
		memcpy(dst, tok[i], n);
		tok[i] = dst;
		dst += n;
	}
	*dst = '\0';
	return (size_t)(dst + 1 - (s->arena + s->arena_used));
}

/* The tokens of the entry at @entry (store_tokens()); their number. */
static size_t entry_tokens(char *entry, char **tok)
{
	size_t n = 0;

	while (*entry && n < MAX_TOKENS) {
		tok[n++] = entry;
		entry += strlen(entry) + 1;
	}
	return n;
}

/* Keeps the statement just parsed: its tokens (@size bytes, stored by
 * store_tokens()) stay in the arena. */
static void keep_statement(struct parser *p, const struct stmt *st, size_t size)
{
	struct fsim_script *s = p->script;

	s->stmt_off[s->nstmts] = s->arena_used;
	s->stmt_line[s->nstmts++] = st->line;
	s->arena_used += size;
	p->cur->nstmts++;
	if (st->kind != ST_MODE && st->kind != ST_ARCH && st->kind != ST_PART)
		p->cur->body_started = true;
}

/*
 * Debug builds (the sanitizer suites, where every scenario file, unit test
 * and fuzz corpus runs) parse each kept statement again at once, as
 * stmt_load() will when it runs, and stop on any difference: a replay that
 * resolved otherwise would run another statement than the one checked.
 */
static void check_replay(const struct parser *p, const struct stmt *st)
{
#ifndef NDEBUG
	struct stmt again;
	char why[400];
	int ret = stmt_load(p->script, p->cur, p->cur->nstmts - 1, &again, why, sizeof(why));

	if (ret == -ENOMEM)
		return;
	if (ret || again.kind != st->kind || again.nwords != st->nwords ||
	    again.nargs != st->nargs || memcmp(&again.op, &st->op, sizeof(st->op))) {
		fprintf(stderr, "foliosim: %s:%u: internal error: the statement resolves "
			"otherwise when parsed again%s%s\n", p->script->file, st->line,
			ret ? ": " : "", ret ? why : "");
		abort();
	}
	stmt_release(&again);
#else
	(void)p;
	(void)st;
#endif
}

static void parse_line(struct parser *p, char *line)
{
	char *tok[MAX_TOKENS + 1];
	size_t ntok = tokenize(line, tok);
	struct stmt st;
	size_t size;

	if (!ntok)
		return;
	if (!strcmp(tok[0], "scenario")) {
		bool ok = ntok == 2 && scn_is_ident(tok[1]);

		if (!new_scenario(p, ok ? tok[1] : "(unnamed)"))
			return;
		if (!ok)
			perr(p, "usage: scenario NAME");
		if (!ok && !p->cur->error)
			p->cur->error = error_copy(p->err);
		return;
	}
	if (!p->cur) {
		new_scenario(p, "(before-first-scenario)");
		if (!p->cur)
			return;
		perr(p, "'%s' outside a scenario: a file starts with 'scenario NAME'",
		     tok[0]);
		p->cur->error = error_copy(p->err);
	}
	if (p->cur->error)
		return;		/* the scenario already failed to parse */
	if (ntok == MAX_TOKENS) {
		perr(p, "more than %d tokens on a line", MAX_TOKENS - 1);
		p->cur->error = error_copy(p->err);
		return;
	}
	/* Parsed from the arena, as stmt_load() will: the words and values
	 * of the resolved form point there. */
	size = store_tokens(p->script, tok, ntok);
	memset(&st, 0, sizeof(st));
	if (!parse_statement(p, tok, ntok, &st, false) || !resolve_op(p, &st)) {
		stmt_release(&st);
		p->cur->error = error_copy(p->err);
		return;
	}
	if (st.kind == ST_MODE) {
		const char *m = st.words[0];
		enum fsim_mode mode;

		p->cur->modes = fsim_mode_from_name(m, &mode) ? FSIM_ALL_MODES
							      : 1u << mode;
	}
	keep_statement(p, &st, size);
	check_replay(p, &st);
	stmt_release(&st);
}

int stmt_load(const struct fsim_script *s, const struct scenario *sc, size_t k,
	      struct stmt *out, char *why, size_t whylen)
{
	char *tok[MAX_TOKENS + 1];
	struct parser p;
	size_t ntok;

	memset(&p, 0, sizeof(p));
	memset(out, 0, sizeof(*out));
	p.script = (struct fsim_script *)s;	/* read only: p.replay */
	p.cur = (struct scenario *)sc;
	p.replay = true;
	p.step = k;
	p.line = s->stmt_line[sc->first + k];
	ntok = entry_tokens(s->arena + s->stmt_off[sc->first + k], tok);
	if (parse_statement(&p, tok, ntok, out, false) && resolve_op(&p, out))
		return 0;
	stmt_release(out);
	if (why && whylen)	/* the message, without perr()'s FILE:LINE: */
		snprintf(why, whylen, "%s", p.msg);
	return p.nomem ? -ENOMEM : -EPROTO;
}

unsigned int stmt_line(const struct fsim_script *s, const struct scenario *sc, size_t k)
{
	return s->stmt_line[sc->first + k];
}

bool scn_has_token(const char *line, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (line[i] == '#')
			return false;
		if (!strchr(" \t\r\f\v\n", line[i]) || !line[i])
			return true;
	}
	return false;
}

/* The length of the longest line of @text (the one line buffer's size),
 * the number of lines with a token and their bytes. */
static size_t longest_line(const char *text, size_t len, size_t *lines, size_t *bytes)
{
	size_t pos = 0, longest = 0;

	*lines = *bytes = 0;
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) : len;

		if (end - pos > longest)
			longest = end - pos;
		if (scn_has_token(text + pos, end - pos)) {
			++*lines;
			*bytes += end - pos;
		}
		pos = end + 1;
	}
	return longest;
}

/*
 * Room for every statement @text can hold, allocated once: a line of L
 * bytes with a token stores at most L + 2 (its tokens with their NULs,
 * then the entry's empty string), and is at most one statement; blank and
 * comment lines store nothing.  @lines, @bytes: those lines, their bytes.
 * Growing by doubling instead would reserve up to twice the memory.
 */
static bool script_room(struct fsim_script *s, size_t bytes, size_t lines)
{
	if (lines > (SIZE_MAX - bytes - 1) / 2 || lines > SIZE_MAX / sizeof(*s->stmt_off))
		return false;
	s->arena_size = bytes + 2 * lines + 1;
	s->stmts_size = lines;
	s->arena = malloc(s->arena_size);
	s->stmt_off = malloc((lines ? lines : 1) * sizeof(*s->stmt_off));
	s->stmt_line = malloc((lines ? lines : 1) * sizeof(*s->stmt_line));
	return s->arena && s->stmt_off && s->stmt_line;
}

/* Gives back what script_room() reserved and the statements did not use. */
static void script_trim(struct fsim_script *s)
{
	void *mem;

	if (s->arena_used < s->arena_size && (mem = realloc(s->arena, s->arena_used + 1)))
		s->arena = mem;
	if (s->nstmts < s->stmts_size && s->nstmts) {
		if ((mem = realloc(s->stmt_off, s->nstmts * sizeof(*s->stmt_off))))
			s->stmt_off = mem;
		if ((mem = realloc(s->stmt_line, s->nstmts * sizeof(*s->stmt_line))))
			s->stmt_line = mem;
	}
}

int script_parse_lines(const char *name, const char *text, size_t len,
		       unsigned int first_line, struct fsim_script **out)
{
	struct parser p;
	size_t pos = 0, lines, bytes;
	char *line;

	memset(&p, 0, sizeof(p));
	p.line = first_line - 1;
	p.script = calloc(1, sizeof(*p.script));
	if (!p.script)
		return -ENOMEM;
	p.script->file = xstrdup(name ? name : "<input>");
	line = malloc(longest_line(text, len, &lines, &bytes) + 1);
	if (!p.script->file || !line || !script_room(p.script, bytes, lines)) {
		free(line);
		fsim_script_free(p.script);
		return -ENOMEM;
	}
	while (pos < len && !p.oom) {
		size_t end = pos;

		while (end < len && text[end] != '\n')
			end++;
		memcpy(line, text + pos, end - pos);
		line[end - pos] = '\0';
		/* A NUL byte inside a line is not text. */
		p.line++;
		if (memchr(text + pos, '\0', end - pos)) {
			if (p.cur && !p.cur->error) {
				perr(&p, "binary data (NUL byte)");
				p.cur->error = error_copy(p.err);
			}
		} else {
			parse_line(&p, line);
		}
		pos = end + 1;
	}
	free(line);
	if (p.oom) {
		fsim_script_free(p.script);
		return -ENOMEM;
	}
	script_trim(p.script);
	*out = p.script;
	return 0;
}

int fsim_script_parse(const char *name, const char *text, size_t len,
		      struct fsim_script **out)
{
	return script_parse_lines(name, text, len, 1, out);
}

/* Reads all of @f into *@buf; 0 or -errno. */
static int read_all(FILE *f, char **buf, size_t *len)
{
	size_t cap = 0, n;

	*buf = NULL;
	*len = 0;
	do {
		if (*len + 4096 > cap) {
			char *mem = realloc(*buf, cap = cap ? 2 * cap : 8192);

			if (!mem) {
				free(*buf);
				*buf = NULL;
				return -ENOMEM;
			}
			*buf = mem;
		}
		n = fread(*buf + *len, 1, cap - *len, f);
		*len += n;
	} while (n > 0);
	if (ferror(f)) {
		free(*buf);
		*buf = NULL;
		return -EIO;
	}
	return 0;
}

int script_read_error(const char *name, int ret, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s: %s", name,
		 ret == -EISDIR ? "is a directory, not a scenario file" :
		 ret == -ENOMEM ? "out of memory" : strerror(-ret));
	return ret;
}

int fsim_script_load(const char *path, struct fsim_script **out, char *err,
		     size_t errlen)
{
	/* "-": standard input, named <stdin> in messages (FILE:LINE). */
	const bool std_in = !strcmp(path, "-");
	const char *name = std_in ? "<stdin>" : path;
	FILE *f = std_in ? stdin : fopen(path, "rb");
	char *buf;
	size_t len;
	int ret;

	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return ret;
	}
	errno = 0;
	ret = read_all(f, &buf, &len);
	if (ret == -EIO && errno)
		ret = -errno;	/* EISDIR for a directory */
	if (!std_in)
		fclose(f);
	if (ret)
		return script_read_error(name, ret, err, errlen);
	ret = fsim_script_parse(name, buf ? buf : "", len, out);
	if (ret)
		snprintf(err, errlen, "%s: out of memory", name);
	free(buf);
	return ret;
}

/* Releases the first @n statements of @views, then the array. */
static void views_free(struct stmt *views, size_t n)
{
	while (n--)
		stmt_release(&views[n]);
	free(views);
}

void fsim_script_free(struct fsim_script *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++) {
		struct stmt *views = atomic_load(&s->sc[i].views);

		if (views)
			views_free(views, s->sc[i].nstmts);
		if (s->sc[i].name != oom_name)
			free(s->sc[i].name);
		if (s->sc[i].error != oom_error)
			free(s->sc[i].error);
		names_free(&s->sc[i].names);
		free(s->sc[i].name_kinds);
		free(s->sc[i].name_steps);
	}
	free(s->sc);
	free(s->arena);
	free(s->stmt_off);
	free(s->stmt_line);
	names_free(&s->keys);
	free(s->file);
	free(s);
}

size_t fsim_script_count(const struct fsim_script *s)
{
	return s->n;
}

const char *fsim_script_name(const struct fsim_script *s, size_t i)
{
	return i < s->n ? s->sc[i].name : NULL;
}

bool fsim_script_runs_in(const struct fsim_script *s, size_t i, enum fsim_mode mode)
{
	return i < s->n && (s->sc[i].modes >> mode) & 1;
}

bool fsim_script_has_processes(const struct fsim_script *s, size_t i)
{
	return i < s->n && s->sc[i].has_processes;
}

static const char *const kind_names[] = {
	[ST_MODE] = "mode", [ST_ARCH] = "arch", [ST_MM] = "mm", [ST_MMDROP] = "mmdrop",
	[ST_FOLIO] = "folio", [ST_NEW_ANON] = "new-anon", [ST_ADD] = "add",
	[ST_REMOVE] = "remove", [ST_DUP] = "dup", [ST_PIN] = "pin", [ST_UNPIN] = "unpin",
	[ST_FREE] = "free", [ST_EXPECT] = "expect", [ST_PROCESS] = "process",
	[ST_PART] = "part", [ST_DETECT] = "detect", [ST_SPLIT_SCAN] = "deferred-split-scan",
};

/* The keyword of a statement ("add", "expect", ...; a process operation's
 * verb is its second word). */
const char *stmt_keyword(const struct stmt *st)
{
	return st->kind == ST_PROC_OP ? st->words[1] : kind_names[st->kind];
}

const char *fsim_script_file(const struct fsim_script *s)
{
	return s->file;
}

unsigned int fsim_script_line(const struct fsim_script *s, size_t i)
{
	return i < s->n ? s->sc[i].line : 0;
}

const char *fsim_script_error(const struct fsim_script *s, size_t i)
{
	return i < s->n ? s->sc[i].error : NULL;
}

const struct fsim_arch *fsim_script_arch(const struct fsim_script *s, size_t i)
{
	return i < s->n ? &s->sc[i].arch : NULL;
}

size_t fsim_script_statements(const struct fsim_script *s, size_t i)
{
	return i < s->n ? s->sc[i].nstmts : 0;
}

/* Every statement of scenario @i loaded, once: the views' arrays live as
 * long as the script.  Threads may race here; one set wins.  NULL with
 * *@err (stmt_load()'s) if one does not load. */
static const struct stmt *scenario_views(const struct fsim_script *s, size_t i, int *err)
{
	struct scenario *sc = (struct scenario *)&s->sc[i];
	struct stmt *views = atomic_load(&sc->views), *none = NULL;
	size_t k, n = sc->nstmts;

	if (views)
		return views;
	views = calloc(n, sizeof(*views));
	*err = views ? 0 : -ENOMEM;
	for (k = 0; views && k < n; k++) {
		*err = stmt_load(s, sc, k, &views[k], NULL, 0);
		if (*err) {
			views_free(views, k);
			views = NULL;
		}
	}
	if (!views)
		return NULL;
	if (atomic_compare_exchange_strong(&sc->views, &none, views))
		return views;
	views_free(views, n);
	return none;	/* another thread's */
}

int fsim_script_statement(const struct fsim_script *s, size_t i, size_t k,
			  struct fsim_stmt_view *v)
{
	const struct stmt *st;
	int err;

	if (i >= s->n || k >= s->sc[i].nstmts)
		return -EINVAL;
	st = scenario_views(s, i, &err);
	if (!st)
		return err;
	st += k;
	v->line = st->line;
	v->keyword = stmt_keyword(st);
	v->expect_mode = st->expect_mode;
	v->repeat = st->repeat;
	v->nwords = st->nwords;
	v->words = st->words;
	v->nargs = st->nargs;
	v->args = st->args;
	return 0;
}

int fsim_script_op(const struct fsim_script *s, size_t i, size_t k,
		   struct fsim_stmt_op *out)
{
	struct stmt st;
	int ret;

	if (i >= s->n || k >= s->sc[i].nstmts)
		return -EINVAL;
	ret = stmt_load(s, &s->sc[i], k, &st, NULL, 0);
	if (ret)
		return ret;
	*out = st.op;	/* its names point into the script, not into st */
	stmt_release(&st);
	return 0;
}

size_t fsim_script_name_count(const struct fsim_script *s, size_t i)
{
	return i < s->n ? s->sc[i].names.n : 0;
}

const char *fsim_script_name_at(const struct fsim_script *s, size_t i, size_t index)
{
	return i < s->n && index < s->sc[i].names.n ? s->sc[i].names.name[index] : NULL;
}

int fsim_script_name_find(const struct fsim_script *s, size_t i, const char *name)
{
	int k;

	if (!s || i >= s->n || !name)
		return -EINVAL;
	k = names_find(&s->sc[i].names, name);
	return k < 0 ? -ENOENT : k;
}

const char *fsim_stmt_value(const struct fsim_stmt_view *v, const char *key)
{
	size_t i;

	for (i = 0; i < v->nargs; i++)
		if (!v->args[i].indexed && !strcmp(v->args[i].key, key))
			return v->args[i].value;
	return NULL;
}

bool fsim_parse_size(const char *s, unsigned long long *out)
{
	return scn_parse_size(s, out);
}
