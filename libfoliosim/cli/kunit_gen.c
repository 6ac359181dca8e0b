// SPDX-License-Identifier: MIT
/*
 * foliosim kunit-gen: the rmap scenarios as a C table for the kernel's
 * KUnit test (mm/folio_rmap_kunit.c of kernel-port/patches/kunit/);
 * docs/kunit-gen.md describes the table.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "foliosim/foliosim.h"
#include "foliosim/scenario.h"
#include "kunit_gen.h"

/* ------------------------------------------------------------------ */
/* kunit-gen: the rmap scenarios as a C table for the kernel's KUnit   */
/* test (docs/kunit-gen.md describes the table).                       */
/* ------------------------------------------------------------------ */

static const char kunit_gen_usage[] =
"usage: foliosim kunit-gen [-o FILE] FILE...\n"
"\n"
"Translate the rmap statements of every scenario of the scenario FILEs into\n"
"one self-contained C header: the table that the kernel's KUnit test\n"
"(CONFIG_FOLIO_RMAP_KUNIT_TEST, mm/folio_rmap_kunit.c) runs on real folios.\n"
"Names become small indices, defaults are filled in, keys become key codes\n"
"(a key this format does not know keeps its name, so that the kernel can\n"
"report it as skipped). Scenarios with process statements are listed with a\n"
"skip reason: the guest runner replays them. A scenario with \"part detect\"\n"
"is marked so that the kernel runs it with kernel-port's detect part on; one\n"
"with the part's walk (detect, deferred-split-scan) is listed as skipped.\n"
"\n"
"options:\n"
"  -o FILE, --output FILE   write the header to FILE (default: standard output);\n"
"                           nothing is written unless every scenario translates\n"
"  -h, --help               this text\n"
"\n"
"exit status: 0 success, 1 a scenario could not be translated (FILE:LINE: message\n"
"on standard error), 2 usage or file error\n";

#define KG_FORMAT 2
#define KG_PROCESS_REASON "process-level scenario, the guest runner replays it"
#define KG_BASE_REASON "runs in base mode only, which no KUnit kernel builds"
#define KG_HUGETLB_REASON "hugetlb folios: the KUnit executor allocates buddy folios only"
#define KG_WALK_REASON "the detect part's walk (detect, deferred-split-scan) reads page " \
	"tables, which the executor does not build: folio_detect tests the walk, " \
	"the guest runner replays the part's process scenarios"

enum kg_kind {
	KG_MM, KG_MMDROP, KG_FOLIO, KG_NEW_ANON, KG_ADD, KG_REMOVE, KG_DUP,
	KG_PIN, KG_UNPIN, KG_FREE, KG_EXPECT_FOLIO, KG_EXPECT_STATS,
	KG_EXPECT_THP, KG_EXPECT_VMSTAT, KG_EXPECT_MEMINFO, KG_NR_KINDS
};

static const char *const kg_kind_enum[KG_NR_KINDS] = {
	"MM", "MMDROP", "FOLIO", "NEW_ANON", "ADD", "REMOVE", "DUP", "PIN",
	"UNPIN", "FREE", "EXPECT_FOLIO", "EXPECT_STATS", "EXPECT_THP",
	"EXPECT_VMSTAT", "EXPECT_MEMINFO",
};

static const char *const kg_level_enum[] = { "PTE", "PMD", "PUD" };
static const char *const kg_folio_kind_enum[] = { "ANON", "FILE", "SHMEM" };
/* fails=E: the order of enum rmap_scn_err */
static const char *const kg_err_names[] = { "OK", "EBUSY", "EINVAL", "EOVERFLOW", "ENOSPC" };

#define KG_F_EXCLUSIVE	0x01	/* new-anon, add: RMAP_EXCLUSIVE */
#define KG_F_ID		0x02	/* mm: id=N given (in arg) */

/* Value kinds of keys. */
enum kg_vkind { KG_V_UINT, KG_V_SINT, KG_V_BOOL, KG_V_SLOT };

/* The targets of "expect": a folio, or one of the counter groups. */
enum kg_target { KG_T_FOLIO, KG_T_STATS, KG_T_THP, KG_T_VMSTAT, KG_T_MEMINFO };

struct kg_key {
	const char *name;	/* as written in scenario files */
	const char *code;	/* RMAP_SCN_KEY_<code> */
	enum kg_vkind vk;
	enum kg_target target;
};

/* Key codes are positions in this table + 1 (0 is RMAP_SCN_KEY_UNKNOWN):
 * only ever append, so that codes stay stable. */
static const struct kg_key kg_keys[] = {
	{ "mapcount", "MAPCOUNT", KG_V_UINT, KG_T_FOLIO },
	{ "total_mapped_pages", "TOTAL_MAPPED_PAGES", KG_V_UINT, KG_T_FOLIO },
	{ "avg_mapcount", "AVG_MAPCOUNT", KG_V_UINT, KG_T_FOLIO },
	{ "mapped", "MAPPED", KG_V_BOOL, KG_T_FOLIO },
	{ "maybe_shared", "MAYBE_SHARED", KG_V_BOOL, KG_T_FOLIO },
	{ "partially_mapped", "PARTIALLY_MAPPED", KG_V_BOOL, KG_T_FOLIO },
	{ "true_mapcount", "TRUE_MAPCOUNT", KG_V_UINT, KG_T_FOLIO },
	{ "kpagecount", "KPAGECOUNT", KG_V_UINT, KG_T_FOLIO },
	{ "exclusive", "EXCLUSIVE", KG_V_BOOL, KG_T_FOLIO },
	{ "anon_exclusive", "ANON_EXCLUSIVE", KG_V_BOOL, KG_T_FOLIO },
	{ "mapmax", "MAPMAX", KG_V_UINT, KG_T_FOLIO },
	{ "slot0", "SLOT0", KG_V_SLOT, KG_T_FOLIO },
	{ "slot1", "SLOT1", KG_V_SLOT, KG_T_FOLIO },
	{ "pincount", "PINCOUNT", KG_V_UINT, KG_T_FOLIO },
	{ "refcount", "REFCOUNT", KG_V_UINT, KG_T_FOLIO },
	{ "entire_mapcount", "ENTIRE_MAPCOUNT", KG_V_UINT, KG_T_FOLIO },
	{ "nr_pages_mapped", "NR_PAGES_MAPPED", KG_V_UINT, KG_T_FOLIO },
	{ "shared_bit", "SHARED_BIT", KG_V_BOOL, KG_T_FOLIO },
	{ "deferred", "DEFERRED", KG_V_BOOL, KG_T_FOLIO },
	{ "anon_mapped", "ANON_MAPPED", KG_V_SINT, KG_T_STATS },
	{ "file_mapped", "FILE_MAPPED", KG_V_SINT, KG_T_STATS },
	{ "anon_thps", "ANON_THPS", KG_V_SINT, KG_T_STATS },
	{ "file_pmdmapped", "FILE_PMDMAPPED", KG_V_SINT, KG_T_STATS },
	{ "shmem_pmdmapped", "SHMEM_PMDMAPPED", KG_V_SINT, KG_T_STATS },
	{ "nr_anon", "THP_NR_ANON", KG_V_SINT, KG_T_THP },
	{ "nr_anon_partially_mapped", "THP_NR_ANON_PARTIALLY_MAPPED", KG_V_SINT, KG_T_THP },
	{ "split_deferred", "THP_SPLIT_DEFERRED", KG_V_SINT, KG_T_THP },
	{ "thp_deferred_split_page", "THP_DEFERRED_SPLIT_PAGE", KG_V_SINT, KG_T_VMSTAT },
	{ "anon_pages_kb", "ANON_PAGES_KB", KG_V_SINT, KG_T_MEMINFO },
};
#define KG_NR_KEYS (sizeof(kg_keys) / sizeof(kg_keys[0]))

struct kg_expect {
	const char *key;
	unsigned int code;	/* 0: unknown */
	bool indexed;
	unsigned long lo, hi;
	long mm;		/* slots: mm index or -1 */
	unsigned long long value;
	bool negative;		/* value is -value */
};

struct kg_stmt {
	enum kg_kind kind;
	unsigned int line;
	int level, folio_kind, fails;
	unsigned int flags, mode;
	long folio, mm, src;
	unsigned long repeat;
	unsigned long long page, nr, arg;
	struct kg_expect *ex;
	size_t nex;
};

struct kg_scn {
	const char *name;
	const char *file;	/* base name */
	unsigned int line, modes;
	struct fsim_arch arch;
	const char *skip;
	unsigned int parts;	/* KG_PART_* */
	unsigned long long work;
	char **mms, **folios;	/* names by index (borrowed from the script) */
	size_t nmms, nfolios;
	struct kg_stmt *st;
	size_t nst;
};

struct kg_sym {
	const char *name;
	bool folio;
	long index;
	bool live;
	unsigned int order;	/* folios */
};

struct kg_gen {
	const char *path;	/* of the file being translated, for messages */
	unsigned int line;	/* of the statement being translated */
	const struct fsim_script *script;
	size_t scenario;	/* its index in script */
	struct kg_sym *syms;	/* by the library's name numbers */
	struct kg_scn *scn;
	bool failed;
};

static void *kg_alloc(void *p, size_t n, size_t size)
{
	void *mem = n ? realloc(p, n * size) : p;

	if (n && !mem) {
		fprintf(stderr, "foliosim kunit-gen: out of memory\n");
		exit(2);
	}
	return mem;
}

/* Room for element @n of an array of @n elements: capacities are powers of 2. */
static void *kg_grow(void *p, size_t n, size_t size)
{
	return n & (n - 1) ? p : kg_alloc(p, n ? 2 * n : 1, size);
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static bool kg_error(struct kg_gen *g, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%u: ", g->path, g->line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	g->failed = true;
	return false;
}

/* Plain decimal value (the parser checked the syntax already). */
static unsigned long long kg_num(const char *s)
{
	unsigned long long v = 0;

	if (s && fsim_parse_size(s, &v))
		return v;
	return 0;
}

/* The symbol of @name: the library numbers a scenario's names. */
static struct kg_sym *kg_lookup(struct kg_gen *g, const char *name)
{
	int k = name ? fsim_script_name_find(g->script, g->scenario, name) : -1;

	if (k < 0)
		return NULL;
	g->syms[k].name = name;
	return &g->syms[k];
}

/* Declares @name as the next mm or folio index; -1 after an error. */
static long kg_declare(struct kg_gen *g, const char *name, bool folio, unsigned int order)
{
	struct kg_scn *sc = g->scn;
	struct kg_sym *s = kg_lookup(g, name);
	long index;

	if (!s)
		return kg_error(g, "internal: '%s' has no number", name), -1;
	if (s->live)
		return kg_error(g, "'%s' is already declared", name), -1;
	if (folio) {
		index = (long)sc->nfolios;
		sc->folios = kg_grow(sc->folios, sc->nfolios, sizeof(*sc->folios));
		sc->folios[sc->nfolios++] = (char *)name;
	} else {
		index = (long)sc->nmms;
		sc->mms = kg_grow(sc->mms, sc->nmms, sizeof(*sc->mms));
		sc->mms[sc->nmms++] = (char *)name;
	}
	/* a name freed or dropped before may be declared again */
	s->folio = folio;
	s->index = index;
	s->live = true;
	s->order = order;
	return index;
}

/* The index of the live mm or folio @name; -1 after an error. */
static long kg_resolve(struct kg_gen *g, const char *name, bool folio, const char *what)
{
	struct kg_sym *s = name ? kg_lookup(g, name) : NULL;

	if (!s)
		return kg_error(g, "unknown %s '%s' (%s)", folio ? "folio" : "mm",
				name ? name : "", what), -1;
	if (s->folio != folio)
		return kg_error(g, "'%s' is not %s (%s)", name, folio ? "a folio" : "an mm",
				what), -1;
	if (!s->live)
		return kg_error(g, "%s '%s' was %s before (%s)", folio ? "folio" : "mm", name,
				folio ? "freed" : "dropped", what), -1;
	return s->index;
}

/* fails=E as an index into kg_err_names; -1 if it has no RMAP_SCN_ name. */
static int kg_errno(int fails)
{
	size_t i;

	for (i = 1; i < sizeof(kg_err_names) / sizeof(kg_err_names[0]); i++)
		if (fails && !strcmp(fsim_errname(fails), kg_err_names[i]))
			return (int)i;
	return fails ? -1 : 0;
}

/* The keys of one expect statement. */
static bool kg_expect_keys(struct kg_gen *g, const struct fsim_stmt_view *v,
			   enum kg_target target, struct kg_stmt *st)
{
	size_t i, k;

	st->ex = kg_alloc(NULL, v->nargs, sizeof(*st->ex));
	for (i = 0; i < v->nargs; i++) {
		const struct fsim_stmt_arg *a = &v->args[i];
		struct kg_expect *e = &st->ex[st->nex];
		const char *val = a->value;
		enum kg_vkind vk = KG_V_UINT;

		if (target == KG_T_THP && !a->indexed && !strcmp(a->key, "order"))
			continue;	/* the order the counters are read for */
		memset(e, 0, sizeof(*e));
		e->key = a->key;
		e->indexed = a->indexed;
		e->lo = a->indexed ? a->lo : 0;
		e->hi = a->indexed ? a->hi : 0;
		for (k = 0; k < KG_NR_KEYS; k++)
			if (kg_keys[k].target == target && !strcmp(kg_keys[k].name, a->key))
				break;
		if (k < KG_NR_KEYS) {
			e->code = (unsigned int)k + 1;
			vk = kg_keys[k].vk;
		} else if (!strcmp(val, "yes") || !strcmp(val, "no")) {
			vk = KG_V_BOOL;		/* unknown key: keep what we can */
		} else if (val[0] == '-') {
			vk = KG_V_SINT;
		} else if (strchr(val, ':') || !strcmp(val, "none")) {
			vk = KG_V_SLOT;
		}
		switch (vk) {
		case KG_V_BOOL:
			e->value = !strcmp(val, "yes");
			break;
		case KG_V_SINT:
			e->negative = val[0] == '-';
			e->value = kg_num(val + e->negative);
			e->negative = e->negative && e->value;
			break;
		case KG_V_SLOT:
			e->mm = -1;
			if (strcmp(val, "none")) {
				const char *colon = strchr(val, ':');
				char name[128];
				size_t n = colon ? (size_t)(colon - val) : 0;

				if (!colon || n >= sizeof(name))
					return kg_error(g, "%s: bad slot value '%s'", a->key, val);
				memcpy(name, val, n);
				name[n] = '\0';
				e->mm = kg_resolve(g, name, false, a->key);
				if (e->mm < 0)
					return false;
				e->value = kg_num(colon + 1);
			}
			break;
		default:
			e->value = kg_num(val);
			break;
		}
		st->nex++;
	}
	return true;
}


/* Translates statement @v into @st; false after an error. */
/* The KUnit executor's RMAP_SCN_MODE_* bits: a kernel with the kunit part
 * runs the scenarios as 6.12 (legacy) or as the series (rfc); base, the
 * prep tree, never carries the executor. */
static const struct { const char *mode; unsigned int bit; } kg_modes[] = {
	{ "legacy", 1 }, { "rfc", 2 },
};
#define KG_MODE_ANY 3u

static unsigned int kg_mode_bit(const char *mode)
{
	size_t i;

	for (i = 0; i < sizeof(kg_modes) / sizeof(kg_modes[0]); i++)
		if (!strcmp(kg_modes[i].mode, mode))
			return kg_modes[i].bit;
	return 0;
}

/* The model's modes whose expect[MODE] lines the table carries (bit
 * 1 << mode), for the rmap work estimate. */
static unsigned int kg_kernel_modes(void)
{
	unsigned int bits = 0;
	enum fsim_mode m;
	size_t k;

	for (k = 0; k < sizeof(kg_modes) / sizeof(kg_modes[0]); k++)
		if (!fsim_mode_from_name(kg_modes[k].mode, &m))
			bits |= 1u << m;
	return bits;
}

/* The kernel modes scenario @i runs in. */
static unsigned int kg_scenario_modes(const struct fsim_script *s, size_t i)
{
	unsigned int bits = 0;
	enum fsim_mode m;
	size_t k;

	for (k = 0; k < sizeof(kg_modes) / sizeof(kg_modes[0]); k++)
		if (!fsim_mode_from_name(kg_modes[k].mode, &m) &&
		    fsim_script_runs_in(s, i, m))
			bits |= kg_modes[k].bit;
	return bits;
}

/* The KUnit table's statement kinds of the rmap operations. */
static int kg_rmap_kind(enum fsim_op op)
{
	switch (op) {
	case FSIM_OP_NEW_ANON: return KG_NEW_ANON;
	case FSIM_OP_ADD: return KG_ADD;
	case FSIM_OP_REMOVE: return KG_REMOVE;
	case FSIM_OP_DUP: return KG_DUP;
	case FSIM_OP_PIN: return KG_PIN;
	case FSIM_OP_UNPIN: return KG_UNPIN;
	case FSIM_OP_FREE: return KG_FREE;
	default: return -1;
	}
}

/* The KUnit table's expect kinds by target (process targets never come
 * here: kunit-gen skips scenarios with processes). */
static enum kg_kind kg_expect_kind(enum fsim_expect_target t, enum kg_target *kt)
{
	switch (t) {
	case FSIM_EXPECT_STATS: *kt = KG_T_STATS; return KG_EXPECT_STATS;
	case FSIM_EXPECT_THP: *kt = KG_T_THP; return KG_EXPECT_THP;
	case FSIM_EXPECT_VMSTAT: *kt = KG_T_VMSTAT; return KG_EXPECT_VMSTAT;
	case FSIM_EXPECT_MEMINFO: *kt = KG_T_MEMINFO; return KG_EXPECT_MEMINFO;
	default: *kt = KG_T_FOLIO; return KG_EXPECT_FOLIO;
	}
}

/* Translates one statement from its resolved form @op (keys typed,
 * defaults filled in by the library); @v gives expect's key=value list. */
static bool kg_stmt(struct kg_gen *g, const struct fsim_stmt_op *op,
		    const struct fsim_stmt_view *v, struct kg_stmt *st)
{
	const char *kw = v->keyword;
	int kind;

	memset(st, 0, sizeof(*st));
	st->line = op->line;
	st->repeat = op->repeat;
	st->fails = kg_errno(op->fails);
	st->folio = st->mm = st->src = -1;
	if (st->fails < 0)
		return kg_error(g, "fails=%s: unknown error name", fsim_errname(op->fails));
	switch (op->op) {
	case FSIM_OP_MM:
		st->kind = KG_MM;
		if (op->id) {
			st->flags |= KG_F_ID;
			st->arg = op->id;
		}
		/* A refused declaration declares nothing (as in the model). */
		if (!st->fails && (st->mm = kg_declare(g, op->name, false, 0)) < 0)
			return false;
		return true;
	case FSIM_OP_MMDROP:
		st->kind = KG_MMDROP;
		if ((st->mm = kg_resolve(g, op->name, false, kw)) < 0)
			return false;
		if (!st->fails)
			kg_lookup(g, op->name)->live = false;
		return true;
	case FSIM_OP_FOLIO:
		st->kind = KG_FOLIO;
		st->arg = op->order;
		st->folio_kind = (int)op->kind;	/* 0 anon, 1 file, 2 shmem */
		if (!st->fails &&
		    (st->folio = kg_declare(g, op->name, true, (unsigned int)op->order)) < 0)
			return false;
		return true;
	case FSIM_OP_EXPECT: {
		enum kg_target t;

		st->mode = op->expect_mode < 0 ? KG_MODE_ANY :
			   kg_mode_bit(fsim_mode_name((enum fsim_mode)op->expect_mode));
		st->kind = kg_expect_kind(op->target, &t);
		if (t == KG_T_FOLIO && (st->folio = kg_resolve(g, op->name, true, "expect")) < 0)
			return false;
		if (t == KG_T_THP)
			st->arg = op->order;
		return kg_expect_keys(g, v, t, st);
	}
	default:
		break;
	}
	kind = kg_rmap_kind(op->op);
	if (kind < 0)
		return kg_error(g, "statement '%s' has no kernel equivalent", kw);
	st->kind = (enum kg_kind)kind;
	if ((st->folio = kg_resolve(g, op->name, true, kw)) < 0)
		return false;
	if (op->mm && (st->mm = kg_resolve(g, op->mm, false, kw)) < 0)
		return false;
	if (op->src && (st->src = kg_resolve(g, op->src, false, kw)) < 0)
		return false;
	st->level = (int)op->level;
	st->page = op->page;
	st->nr = op->nr;
	if (op->exclusive && (op->op == FSIM_OP_NEW_ANON || op->op == FSIM_OP_ADD))
		st->flags |= KG_F_EXCLUSIVE;
	if (op->op == FSIM_OP_PIN || op->op == FSIM_OP_UNPIN)
		st->arg = op->n;
	if (op->op == FSIM_OP_FREE && !st->fails)
		kg_lookup(g, op->name)->live = false;
	return true;
}

/* Statement @k of scenario @i resolved; a statement that cannot be (out
 * of memory) ends kunit-gen: a table with it left out would be wrong. */
static void kg_op(const struct fsim_script *s, size_t i, size_t k, struct fsim_stmt_op *op)
{
	int err = fsim_script_op(s, i, k, op);

	if (err) {
		fprintf(stderr, "foliosim kunit-gen: %s: scenario %s, statement %zu: %s\n",
			fsim_script_file(s), fsim_script_name(s, i), k + 1, strerror(-err));
		exit(2);
	}
}

/* Does scenario @i declare a hugetlb folio? */
static bool kg_has_hugetlb(const struct fsim_script *s, size_t i)
{
	size_t k, n = fsim_script_statements(s, i);
	struct fsim_stmt_op op;

	for (k = 0; k < n; k++) {
		kg_op(s, i, k, &op);
		if (op.op == FSIM_OP_FOLIO && op.hugetlb)
			return true;
	}
	return false;
}

/* The table's RMAP_SCN_PART_* bits. */
#define KG_PART_DETECT 0x1u

/* The kernel-port parts scenario @i asks for with "part": only detect. */
static unsigned int kg_parts(const struct fsim_script *s, size_t i)
{
	size_t k, n = fsim_script_statements(s, i);
	struct fsim_stmt_op op;

	for (k = 0; k < n; k++) {
		kg_op(s, i, k, &op);
		if (op.op == FSIM_OP_PART)
			return KG_PART_DETECT;
	}
	return 0;
}

/* Statements of the detect part's walk: it reads page tables, which the
 * executor's rmap calls do not build, so it would see nothing mapped. */
static bool kg_has_walk(const struct fsim_script *s, size_t i)
{
	size_t k, n = fsim_script_statements(s, i);
	struct fsim_stmt_op op;

	for (k = 0; k < n; k++) {
		kg_op(s, i, k, &op);
		if (op.op == FSIM_OP_DETECT || op.op == FSIM_OP_SPLIT_SCAN)
			return true;
	}
	return false;
}

static const char *kg_basename(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* Translates scenario @i of @s into @sc; false after an error. */
static bool kg_scenario(const struct fsim_script *s, size_t i, struct kg_scn *sc)
{
	struct kg_gen g;
	size_t k, n = fsim_script_statements(s, i);

	memset(&g, 0, sizeof(g));
	memset(sc, 0, sizeof(*sc));
	g.path = fsim_script_file(s);
	g.line = fsim_script_line(s, i);
	g.script = s;
	g.scenario = i;
	g.scn = sc;
	sc->name = fsim_script_name(s, i);
	sc->file = kg_basename(fsim_script_file(s));
	sc->line = fsim_script_line(s, i);
	sc->modes = kg_scenario_modes(s, i);
	sc->arch = *fsim_script_arch(s, i);
	if (fsim_script_error(s, i)) {
		fprintf(stderr, "%s\n", fsim_script_error(s, i));
		return false;
	}
	if (!sc->modes) {
		sc->skip = KG_BASE_REASON;
		return true;
	}
	if (fsim_script_has_processes(s, i)) {
		sc->skip = KG_PROCESS_REASON;
		return true;
	}
	if (kg_has_hugetlb(s, i)) {
		sc->skip = KG_HUGETLB_REASON;
		return true;
	}
	if (kg_has_walk(s, i)) {
		sc->skip = KG_WALK_REASON;
		return true;
	}
	sc->parts = kg_parts(s, i);
	sc->st = kg_alloc(NULL, n, sizeof(*sc->st));
	g.syms = kg_alloc(NULL, fsim_script_name_count(s, i) + 1, sizeof(*g.syms));
	memset(g.syms, 0, (fsim_script_name_count(s, i) + 1) * sizeof(*g.syms));
	for (k = 0; k < n; k++) {
		struct fsim_stmt_view v;
		struct fsim_stmt_op op;

		int err = fsim_script_statement(s, i, k, &v);

		if (err) {
			kg_error(&g, "%s", strerror(-err));
			break;
		}
		kg_op(s, i, k, &op);
		g.line = op.line;
		if (op.op == FSIM_OP_MODE || op.op == FSIM_OP_ARCH || op.op == FSIM_OP_PART)
			continue;	/* in the scenario's header fields */
		if (op.expect_mode >= 0 &&
		    !kg_mode_bit(fsim_mode_name((enum fsim_mode)op.expect_mode)))
			continue;	/* expect[base]: no kernel runs KUnit in base */
		if (kg_stmt(&g, &op, &v, &sc->st[sc->nst]))
			sc->nst++;
		else
			break;
	}
	if (!g.failed) {
		struct fsim_cost cost;

		if (fsim_script_cost(s, i, kg_kernel_modes(), &cost))
			kg_error(&g, "out of memory");
		sc->work = cost.rmap_work;
	}
	free(g.syms);
	return !g.failed;
}

static void kg_free_scn(struct kg_scn *sc)
{
	size_t k;

	for (k = 0; k < sc->nst; k++)
		free(sc->st[k].ex);
	free(sc->st);
	free(sc->mms);
	free(sc->folios);
}

/* A C string literal in @buf (keys are short: the parser limits them). */
static const char *kg_cstr_buf(char *buf, size_t len, const char *s)
{
	size_t n = 0;

	buf[n++] = '"';
	for (; *s && n + 6 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			n += (size_t)snprintf(buf + n, len - n, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			n += (size_t)snprintf(buf + n, len - n, "\\%03o", c);
		else
			buf[n++] = (char)c;
	}
	buf[n++] = '"';
	buf[n] = '\0';
	return buf;
}

/* A C string literal. */
static void kg_cstr(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(out, "\\%03o", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void kg_names(FILE *out, const char *what, size_t i, char **names, size_t n)
{
	size_t k;

	if (!n)
		return;
	fprintf(out, "static const char *const rmap_scn_%s_%zu[] = {", what, i);
	for (k = 0; k < n; k++) {
		fputs(k % 8 ? " " : "\n\t", out);
		kg_cstr(out, names[k]);
		fputc(',', out);
	}
	fprintf(out, "\n};\n\n");
}

/* One table entry: "{ FIELD, FIELD, ... }," wrapped at 100 columns. */
struct kg_entry {
	char field[16][160];
	size_t n;
};

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void kg_field(struct kg_entry *en, const char *fmt, ...)
{
	va_list ap;

	if (en->n == sizeof(en->field) / sizeof(en->field[0]))
		return;
	va_start(ap, fmt);
	vsnprintf(en->field[en->n++], sizeof(en->field[0]), fmt, ap);
	va_end(ap);
}

static void kg_entry_write(FILE *out, const struct kg_entry *en)
{
	size_t col = 10, i;	/* "\t{ " */

	fputs("\t{ ", out);
	for (i = 0; i < en->n; i++) {
		size_t len = strlen(en->field[i]);

		if (i && col + 2 + len + 3 > 100) {
			fputs(",\n\t  ", out);
			col = 10;
		} else if (i) {
			fputs(", ", out);
			col += 2;
		}
		fputs(en->field[i], out);
		col += len;
	}
	fputs(" },\n", out);
}

static void kg_emit_expects(FILE *out, size_t i, size_t k, const struct kg_stmt *st)
{
	size_t j;

	fprintf(out, "static const struct rmap_scn_expect rmap_scn_expect_%zu_%zu[] = {\n", i, k);
	for (j = 0; j < st->nex; j++) {
		const struct kg_expect *e = &st->ex[j];
		struct kg_entry en;
		char key[128];

		en.n = 0;
		kg_field(&en, ".key = %s", kg_cstr_buf(key, sizeof(key), e->key));
		kg_field(&en, ".code = RMAP_SCN_KEY_%s",
			 e->code ? kg_keys[e->code - 1].code : "UNKNOWN");
		if (e->indexed)
			kg_field(&en, ".indexed = 1, .lo = %lu, .hi = %lu", e->lo, e->hi);
		if (e->code && kg_keys[e->code - 1].vk == KG_V_SLOT)
			kg_field(&en, ".mm = %ld", e->mm);
		if (e->negative)
			kg_field(&en, ".value = (u64)-%lluLL", e->value);
		else if (e->value)
			kg_field(&en, ".value = %lluULL", e->value);
		kg_entry_write(out, &en);
	}
	fputs("};\n\n", out);
}

static void kg_emit_stmt(FILE *out, size_t i, size_t k, const struct kg_stmt *st)
{
	struct kg_entry en;

	en.n = 0;
	kg_field(&en, ".kind = RMAP_SCN_%s", kg_kind_enum[st->kind]);
	kg_field(&en, ".line = %u", st->line);
	if (st->repeat != 1)
		kg_field(&en, ".repeat = %lu", st->repeat);
	/* -1 (not declared: fails=) is written out where the kind has the field */
	if (st->folio >= 0 || st->kind == KG_FOLIO)
		kg_field(&en, ".folio = %ld", st->folio);
	if (st->mm >= 0 || st->kind == KG_MM)
		kg_field(&en, ".mm = %ld", st->mm);
	if (st->src >= 0)
		kg_field(&en, ".src = %ld", st->src);
	switch (st->kind) {
	case KG_FOLIO:
		kg_field(&en, ".folio_kind = RMAP_SCN_%s", kg_folio_kind_enum[st->folio_kind]);
		break;
	case KG_ADD:
	case KG_REMOVE:
	case KG_DUP:
		kg_field(&en, ".level = RMAP_SCN_%s", kg_level_enum[st->level]);
		kg_field(&en, ".page = %llu", st->page);
		kg_field(&en, ".nr = %llu", st->nr);
		break;
	default:
		break;
	}
	if (st->arg || st->kind == KG_FOLIO || st->kind == KG_EXPECT_THP)
		kg_field(&en, ".arg = %llu", st->arg);
	if (st->flags)
		kg_field(&en, ".flags = %s%s%s",
			 st->flags & KG_F_EXCLUSIVE ? "RMAP_SCN_F_EXCLUSIVE" : "",
			 (st->flags & KG_F_EXCLUSIVE) && (st->flags & KG_F_ID) ? " | " : "",
			 st->flags & KG_F_ID ? "RMAP_SCN_F_ID" : "");
	if (st->fails)
		kg_field(&en, ".fails = RMAP_SCN_%s", kg_err_names[st->fails]);
	if (st->kind >= KG_EXPECT_FOLIO) {
		kg_field(&en, ".mode = RMAP_SCN_MODE_%s",
			 st->mode == 1 ? "LEGACY" : st->mode == 2 ? "RFC" : "ANY");
		kg_field(&en, ".nexpect = %zu", st->nex);
		kg_field(&en, ".expect = rmap_scn_expect_%zu_%zu", i, k);
	}
	kg_entry_write(out, &en);
}

static const char kg_header_types[] =
"/*\n"
" * The format (RMAP_SCN_FORMAT).  Integers are the kernel's u8..u64; nothing\n"
" * else is needed.  A scenario is a list of statements executed in order;\n"
" * mms and folios are numbered 0, 1, ... in the order of their declaration\n"
" * (a name declared again after mmdrop/free gets a new number).\n"
" */\n"
"#define RMAP_SCN_FORMAT %d\n"
"\n"
"enum rmap_scn_kind {\n"
"\tRMAP_SCN_MM,\t\t/* mm_alloc(); .arg = id if RMAP_SCN_F_ID */\n"
"\tRMAP_SCN_MMDROP,\t/* drop mm .mm (it maps nothing) */\n"
"\tRMAP_SCN_FOLIO,\t\t/* new folio .folio of order .arg, .folio_kind */\n"
"\tRMAP_SCN_NEW_ANON,\t/* folio_add_new_anon_rmap(.folio) in .mm */\n"
"\tRMAP_SCN_ADD,\t\t/* folio_add_{anon,file}_rmap_<.level>() */\n"
"\tRMAP_SCN_REMOVE,\t/* folio_remove_rmap_<.level>() */\n"
"\tRMAP_SCN_DUP,\t\t/* fork: .src -> .mm, folio_{try_dup_anon,dup_file}_rmap_*() */\n"
"\tRMAP_SCN_PIN,\t\t/* .arg GUP pins, .mm gets MMF_HAS_PINNED */\n"
"\tRMAP_SCN_UNPIN,\t\t/* drop .arg pins */\n"
"\tRMAP_SCN_FREE,\t\t/* the folio is unmapped and unpinned: put it */\n"
"\tRMAP_SCN_EXPECT_FOLIO,\t/* keys of folio .folio */\n"
"\tRMAP_SCN_EXPECT_STATS,\t/* node statistics, deltas since the start */\n"
"\tRMAP_SCN_EXPECT_THP,\t/* mTHP counters of order .arg, deltas */\n"
"\tRMAP_SCN_EXPECT_VMSTAT,\t/* vm events, deltas */\n"
"\tRMAP_SCN_EXPECT_MEMINFO,\t/* /proc/meminfo, deltas */\n"
"};\n"
"\n"
"enum rmap_scn_level { RMAP_SCN_PTE, RMAP_SCN_PMD, RMAP_SCN_PUD };\n"
"enum rmap_scn_folio_kind { RMAP_SCN_ANON, RMAP_SCN_FILE, RMAP_SCN_SHMEM };\n"
"/* fails=E: the call must be refused with -E */\n"
"enum rmap_scn_err { RMAP_SCN_OK, RMAP_SCN_EBUSY, RMAP_SCN_EINVAL, RMAP_SCN_EOVERFLOW,\n"
"\t\t    RMAP_SCN_ENOSPC };\n"
"\n"
"/* Accounting modes: rmap_scn.modes, rmap_scn_stmt.mode of expectations */\n"
"#define RMAP_SCN_MODE_LEGACY\t0x1\t/* Linux 6.12 */\n"
"#define RMAP_SCN_MODE_RFC\t0x2\t/* after \"mm/rmap: support arbitrary folio mappings\" */\n"
"#define RMAP_SCN_MODE_ANY\t0x3\n"
"\n"
"#define RMAP_SCN_F_EXCLUSIVE\t0x1\t/* new-anon, add: RMAP_EXCLUSIVE */\n"
"#define RMAP_SCN_F_ID\t\t0x2\t/* mm: the scenario wants id .arg */\n"
"\n"
"/* kernel-port parts beyond the series that rmap_scn.parts needs (rfc mode) */\n"
"#define RMAP_SCN_PART_DETECT\t0x1\t/* \"part detect\": removals queue candidates */\n"
"\n";

static void kg_emit(FILE *out, const struct kg_scn *scn, size_t nscn, char **files, int nfiles)
{
	size_t i, k;
	int f;

	fprintf(out, "/* SPDX-License-Identifier: GPL-2.0 OR MIT */\n/*\n"
		" * Folio rmap scenarios for the KUnit test in mm/folio_rmap_kunit.c.\n"
		" *\n * Generated by \"foliosim kunit-gen\" (format %d) from:\n", KG_FORMAT);
	for (f = 0; f < nfiles; f++)
		fprintf(out, " *   %s\n", kg_basename(files[f]));
	fprintf(out, " * Do not edit: change the scenario files and generate it again.\n */\n"
		"#ifndef _FOLIO_RMAP_KUNIT_SCENARIOS_H\n#define _FOLIO_RMAP_KUNIT_SCENARIOS_H\n\n");
	fprintf(out, kg_header_types, KG_FORMAT);
	fputs("enum rmap_scn_key {\n\tRMAP_SCN_KEY_UNKNOWN,\t/* not known to this format: .key says which */\n", out);
	for (k = 0; k < KG_NR_KEYS; k++)
		fprintf(out, "\tRMAP_SCN_KEY_%s,\t/* %s%s */\n", kg_keys[k].code,
			kg_keys[k].target == KG_T_FOLIO ? "" :
			kg_keys[k].target == KG_T_STATS ? "stats " :
			kg_keys[k].target == KG_T_THP ? "thp " :
			kg_keys[k].target == KG_T_VMSTAT ? "vmstat " : "meminfo ",
			kg_keys[k].name);
	fprintf(out, "};\n\n#define RMAP_SCN_NR_KEYS %zu\n\n", KG_NR_KEYS + 1);
	fputs("struct rmap_scn_expect {\n"
	      "\tconst char *key;\t/* as written in the scenario */\n"
	      "\tu16 code;\t\t/* enum rmap_scn_key */\n"
	      "\tu8 indexed;\t\t/* key[lo:hi]: each page lo <= i < hi */\n"
	      "\ts32 mm;\t\t\t/* slot0/slot1: mm index, -1 for \"none\" */\n"
	      "\tu64 lo, hi;\n"
	      "\t/* yes/no: 1/0; slots: the count; stats, thp, vmstat, meminfo: s64 */\n"
	      "\tu64 value;\n"
	      "};\n\n"
	      "struct rmap_scn_stmt {\n"
	      "\tu8 kind;\t\t/* enum rmap_scn_kind */\n"
	      "\tu8 level;\t\t/* add, remove, dup: enum rmap_scn_level */\n"
	      "\tu8 folio_kind;\t\t/* folio: enum rmap_scn_folio_kind */\n"
	      "\tu8 flags;\t\t/* RMAP_SCN_F_* */\n"
	      "\tu8 fails;\t\t/* enum rmap_scn_err */\n"
	      "\tu8 mode;\t\t/* expectations: RMAP_SCN_MODE_* they apply in */\n"
	      "\tu16 nexpect;\n"
	      "\tu32 line;\t\t/* in rmap_scn.file */\n"
	      "\ts32 folio;\t\t/* folio index */\n"
	      "\ts32 mm;\t\t\t/* mm index (dup: the child) */\n"
	      "\ts32 src;\t\t/* dup: the parent's mm index */\n"
	      "\tu64 repeat;\t\t/* \"repeat N\": N times; 0 means 1 */\n"
	      "\tu64 page, nr;\t\t/* add, remove, dup: pages page .. page + nr - 1 */\n"
	      "\tu64 arg;\t\t/* folio: order; mm: id; pin, unpin: n; expect thp: order */\n"
	      "\tconst struct rmap_scn_expect *expect;\n"
	      "};\n\n"
	      "struct rmap_scn {\n"
	      "\tconst char *name;\n"
	      "\tconst char *file;\t/* base name of the scenario file */\n"
	      "\tu32 line;\t\t/* of \"scenario NAME\" */\n"
	      "\tu8 modes;\t\t/* RMAP_SCN_MODE_*: the modes it runs in */\n"
	      "\tu8 bits, page_shift, pmd_order, pud_order;\t/* \"arch\" */\n"
	      "\tconst char *skip;\t/* non-NULL: report as skipped, with this reason */\n"
	      "\tu8 parts;\t\t/* RMAP_SCN_PART_*: run with these parts on (rfc mode) */\n"
	      "\tu64 work;\t\t/* estimated per-page rmap updates */\n"
	      "\tu32 nr_mms, nr_folios, nr_stmts;\n"
	      "\tconst char *const *mm_names;\t/* by index */\n"
	      "\tconst char *const *folio_names;\n"
	      "\tconst struct rmap_scn_stmt *stmts;\n"
	      "};\n\n", out);
	for (i = 0; i < nscn; i++) {
		const struct kg_scn *sc = &scn[i];

		fprintf(out, "/* %s:%u: %s */\n", sc->file, sc->line, sc->name);
		kg_names(out, "mms", i, sc->mms, sc->nmms);
		kg_names(out, "folios", i, sc->folios, sc->nfolios);
		for (k = 0; k < sc->nst; k++)
			if (sc->st[k].kind >= KG_EXPECT_FOLIO)
				kg_emit_expects(out, i, k, &sc->st[k]);
		if (!sc->nst)
			continue;
		fprintf(out, "static const struct rmap_scn_stmt rmap_scn_stmts_%zu[] = {\n", i);
		for (k = 0; k < sc->nst; k++)
			kg_emit_stmt(out, i, k, &sc->st[k]);
		fputs("};\n\n", out);
	}
	fputs("static const struct rmap_scn rmap_scn_table[] = {\n", out);
	for (i = 0; i < nscn; i++) {
		const struct kg_scn *sc = &scn[i];

		fputs("\t{\n\t\t.name = ", out);
		kg_cstr(out, sc->name);
		fputs(",\n\t\t.file = ", out);
		kg_cstr(out, sc->file);
		fprintf(out, ", .line = %u,\n\t\t.modes = RMAP_SCN_MODE_%s,\n\t\t.bits = %u, "
			".page_shift = %u, .pmd_order = %u, .pud_order = %u,\n",
			sc->line, sc->modes == 1 ? "LEGACY" : sc->modes == 2 ? "RFC" : "ANY",
			sc->arch.bits, sc->arch.page_shift, sc->arch.pmd_order, sc->arch.pud_order);
		if (sc->skip) {
			fputs("\t\t.skip = ", out);
			kg_cstr(out, sc->skip);
			fputs(",\n", out);
		}
		if (sc->parts & KG_PART_DETECT)
			fputs("\t\t.parts = RMAP_SCN_PART_DETECT,\n", out);
		fprintf(out, "\t\t.work = %lluULL, .nr_mms = %zu, .nr_folios = %zu, .nr_stmts = %zu,\n",
			sc->work, sc->nmms, sc->nfolios, sc->nst);
		if (sc->nmms)
			fprintf(out, "\t\t.mm_names = rmap_scn_mms_%zu,\n", i);
		if (sc->nfolios)
			fprintf(out, "\t\t.folio_names = rmap_scn_folios_%zu,\n", i);
		if (sc->nst)
			fprintf(out, "\t\t.stmts = rmap_scn_stmts_%zu,\n", i);
		fputs("\t},\n", out);
	}
	if (!nscn)
		fputs("\t{ .name = NULL }\t/* no scenario: an empty table is no C */\n", out);
	fprintf(out, "};\n\n#define RMAP_SCN_COUNT %zu\n\n#endif /* _FOLIO_RMAP_KUNIT_SCENARIOS_H */\n",
		nscn);
}

int cmd_kunit_gen(int argc, char **argv)
{
	struct fsim_script **scripts;
	struct kg_scn *scn = NULL;
	size_t nscn = 0, i;
	const char *output = NULL;
	char **files;
	int nfiles = 0, a, status = 0;

	files = kg_alloc(NULL, (size_t)argc + 1, sizeof(*files));
	for (a = 0; a < argc; a++) {
		if (!strcmp(argv[a], "-h") || !strcmp(argv[a], "--help")) {
			fputs(kunit_gen_usage, stdout);
			free(files);
			return 0;
		} else if (!strcmp(argv[a], "-o") || !strcmp(argv[a], "--output")) {
			if (a + 1 == argc) {
				fprintf(stderr, "foliosim kunit-gen: %s needs a file name\n", argv[a]);
				free(files);
				return 2;
			}
			output = argv[++a];
		} else if (!strncmp(argv[a], "--output=", 9)) {
			output = argv[a] + 9;
		} else if (argv[a][0] == '-' && argv[a][1]) {
			fprintf(stderr, "foliosim kunit-gen: unknown option '%s'\n"
				"try 'foliosim kunit-gen --help'\n", argv[a]);
			free(files);
			return 2;
		} else {
			files[nfiles++] = argv[a];
		}
	}
	if (!nfiles) {
		fprintf(stderr, "foliosim kunit-gen: no scenario file given\n"
			"try 'foliosim kunit-gen --help'\n");
		free(files);
		return 2;
	}
	scripts = kg_alloc(NULL, (size_t)nfiles, sizeof(*scripts));
	memset(scripts, 0, (size_t)nfiles * sizeof(*scripts));
	for (a = 0; a < nfiles && status != 2; a++) {
		char err[512];
		size_t k;

		if (fsim_script_load(files[a], &scripts[a], err, sizeof(err))) {
			fprintf(stderr, "foliosim: %s\n", err);
			scripts[a] = NULL;
			status = 2;
			break;
		}
		for (k = 0; k < fsim_script_count(scripts[a]); k++) {
			scn = kg_grow(scn, nscn, sizeof(*scn));
			if (kg_scenario(scripts[a], k, &scn[nscn]))
				nscn++;
			else {
				kg_free_scn(&scn[nscn]);
				status = 1;
			}
		}
	}
	if (!status) {
		FILE *out = stdout;
		char *tmp = NULL;

		if (output && strcmp(output, "-")) {
			tmp = kg_alloc(NULL, strlen(output) + 5, 1);
			sprintf(tmp, "%s.tmp", output);
			out = fopen(tmp, "w");
			if (!out) {
				fprintf(stderr, "foliosim kunit-gen: %s: %s\n", tmp, strerror(errno));
				status = 2;
			}
		}
		if (out) {
			kg_emit(out, scn, nscn, files, nfiles);
			if (fflush(out) || ferror(out)) {
				fprintf(stderr, "foliosim kunit-gen: %s: write error\n",
					tmp ? tmp : "standard output");
				status = 2;
			}
			if (tmp) {
				if (fclose(out) && !status) {
					fprintf(stderr, "foliosim kunit-gen: %s: %s\n", tmp, strerror(errno));
					status = 2;
				}
				if (status)
					remove(tmp);
				else if (rename(tmp, output)) {
					fprintf(stderr, "foliosim kunit-gen: %s: %s\n", output, strerror(errno));
					remove(tmp);
					status = 2;
				}
			}
		}
		free(tmp);
	} else if (status == 1) {
		fprintf(stderr, "foliosim kunit-gen: nothing written: a scenario could not be translated\n");
	}
	for (i = 0; i < nscn; i++)
		kg_free_scn(&scn[i]);
	free(scn);
	for (a = 0; a < nfiles; a++)
		fsim_script_free(scripts[a]);
	free(scripts);
	free(files);
	return status;
}
