// SPDX-License-Identifier: MIT
/* The scenario executor's names (mms, folios, processes) and argument
 * helpers: the leaf the other scenario_*.c files share. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "foliosim/process.h"
#include "internal.h"
#include "scenario_exec.h"

bool fail(struct run *r, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r->res->outcome = FSIM_FAIL;
	snprintf(r->res->message, sizeof(r->res->message), "%s:%u: %s",
		 r->script->file, r->st ? r->st->line : r->sc->line, msg);
	return false;
}

struct sym *lookup(struct run *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->nsyms; i++)
		if (!strcmp(r->syms[i].name, name))
			return &r->syms[i];
	return NULL;
}

bool declare(struct run *r, const char *name, enum sym_kind kind, void *obj)
{
	struct sym *s = lookup(r, name);
	void *mem;

	if (s && !s->dead)
		return fail(r, "'%s' is already declared", name);
	if (s) {	/* a freed name may be declared again */
		s->kind = kind;
		s->obj = obj;
		s->dead = false;
		return true;
	}
	mem = realloc(r->syms, (r->nsyms + 1) * sizeof(*r->syms));
	if (!mem)
		return fail(r, "out of memory");
	r->syms = mem;
	s = &r->syms[r->nsyms++];
	s->name = malloc(strlen(name) + 1);
	if (!s->name)
		return fail(r, "out of memory");
	strcpy(s->name, name);
	s->kind = kind;
	s->obj = obj;
	s->dead = false;
	return true;
}

struct fsim_mm *get_mm(struct run *r, const char *name)
{
	struct sym *s = lookup(r, name);

	if (!s || s->kind != SYM_MM) {
		fail(r, s ? "'%s' is not an mm" : "unknown mm '%s'", name);
		return NULL;
	}
	if (s->dead) {
		fail(r, "mm '%s' was dropped", name);
		return NULL;
	}
	return s->obj;
}

struct fsim_folio *get_folio(struct run *r, const char *name)
{
	struct sym *s = lookup(r, name);

	if (!s || s->kind != SYM_FOLIO) {
		fail(r, s ? "'%s' is not a folio" : "unknown folio '%s'", name);
		return NULL;
	}
	if (s->dead) {
		fail(r, "folio '%s' was freed", name);
		return NULL;
	}
	return s->obj;
}

const char *mm_name(struct run *r, unsigned int id, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < r->nsyms; i++)
		if (r->syms[i].kind == SYM_MM && !r->syms[i].dead &&
		    fsim_mm_id(r->syms[i].obj) == id)
			return r->syms[i].name;
	for (i = 0; i < r->nsyms; i++)
		if (r->syms[i].kind == SYM_PROCESS && !r->syms[i].dead &&
		    fsim_mm_id(fsim_process_mm(r->syms[i].obj)) == id)
			return r->syms[i].name;
	snprintf(buf, len, "#%u", id);
	return buf;
}

unsigned long num(const struct stmt *st, const char *key, unsigned long dflt)
{
	const struct arg *a = stmt_arg(st, key);
	unsigned long long v;

	if (!a || !scn_parse_uint(a->value, &v))
		return dflt;
	return v > ULONG_MAX ? ULONG_MAX : (unsigned long)v;
}

bool flag(const struct stmt *st, const char *key, bool dflt)
{
	const struct arg *a = stmt_arg(st, key);
	bool v;

	if (!a || !scn_parse_bool(a->value, &v))
		return dflt;
	return v;
}

enum fsim_level level_of(const struct stmt *st)
{
	const char *v = stmt_arg(st, "level")->value;

	return !strcmp(v, "pud") ? FSIM_LEVEL_PUD :
	       !strcmp(v, "pmd") ? FSIM_LEVEL_PMD : FSIM_LEVEL_PTE;
}


/* ------------------------------------------------------------------ */
/* Process statements                                                  */
/* ------------------------------------------------------------------ */

struct fsim_process *get_process(struct run *r, const char *name)
{
	struct sym *s = lookup(r, name);

	if (!s || s->kind != SYM_PROCESS) {
		fail(r, s ? "'%s' is not a process" : "unknown process '%s'", name);
		return NULL;
	}
	if (s->dead) {
		fail(r, "process '%s' has exited", name);
		return NULL;
	}
	return s->obj;
}

uint64_t size_arg(const struct stmt *st, const char *key, uint64_t dflt)
{
	const struct arg *a = stmt_arg(st, key);
	unsigned long long v;

	if (!a || !scn_parse_size(a->value, &v))
		return dflt;
	return v;
}

/* Default range of touch/read: from off to the region's end. */
bool region_bytes(struct run *r, struct fsim_process *p, const char *region,
			 uint64_t *bytes)
{
	if (fsim_process_region_size(p, region, bytes))
		return fail(r, "unknown region '%s'", region);
	return true;
}

static void add_region_name(void *arg, const char *name)
{
	struct region_names *rn = arg;

	if (rn->n < 64)
		rn->name[rn->n++] = name;
}

void regions_of(struct run *r, struct fsim_process *p, struct region_names *rn)
{
	(void)r;
	rn->n = 0;
	fsim_process_regions(p, add_region_name, rn);
}
