// SPDX-License-Identifier: MIT
/* The scenario executor's names (mms, folios, processes) and argument
 * helpers: the leaf the other scenario_*.c files share. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
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

/* FNV-1a: names are short; a generated scenario may declare 32k of them. */
static size_t name_hash(const char *name)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*name)
		h = (h ^ (unsigned char)*name++) * 0x100000001b3ull;
	return (size_t)h;
}

/* The slot of @name in the hash, or the free slot where it would go. */
static size_t *hash_slot(const struct run *r, const char *name)
{
	size_t mask = r->sym_hash_size - 1;
	size_t i = name_hash(name) & mask;

	while (r->sym_hash[i] &&
	       strcmp(r->syms[r->sym_hash[i] - 1].name, name))
		i = (i + 1) & mask;
	return &r->sym_hash[i];
}

/* Keep the hash at most half full: rebuild it twice as large. */
static bool hash_room(struct run *r)
{
	size_t size = r->sym_hash_size ? 2 * r->sym_hash_size : 64;
	size_t *old = r->sym_hash, k;

	if (2 * (r->nsyms + 1) < r->sym_hash_size)
		return true;
	r->sym_hash = calloc(size, sizeof(*r->sym_hash));
	if (!r->sym_hash) {
		r->sym_hash = old;
		return false;
	}
	r->sym_hash_size = size;
	for (k = 0; k < r->nsyms; k++)
		*hash_slot(r, r->syms[k].name) = k + 1;
	free(old);
	return true;
}

struct sym *lookup(struct run *r, const char *name)
{
	size_t *slot;

	if (!r->sym_hash_size)
		return NULL;
	slot = hash_slot(r, name);
	return *slot ? &r->syms[*slot - 1] : NULL;
}

bool declare(struct run *r, const char *name, enum sym_kind kind, void *obj)
{
	struct sym *s = lookup(r, name);
	char *copy;
	void *mem;

	if (s && !s->dead)
		return fail(r, "'%s' is already declared", name);
	if (s) {	/* a freed name may be declared again */
		s->kind = kind;
		s->obj = obj;
		s->dead = false;
		return true;
	}
	/* Everything that can fail first: a failed declare changes nothing. */
	mem = r->syms;
	copy = malloc(strlen(name) + 1);
	if (!copy || !scn_array_room(&mem, r->nsyms, sizeof(*r->syms))) {
		free(copy);
		return fail(r, "out of memory");
	}
	r->syms = mem;
	if (!hash_room(r)) {
		free(copy);
		return fail(r, "out of memory");
	}
	strcpy(copy, name);
	s = &r->syms[r->nsyms];
	s->name = copy;
	s->kind = kind;
	s->obj = obj;
	s->dead = false;
	*hash_slot(r, copy) = ++r->nsyms;
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
