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

struct sym *lookup(struct run *r, const char *name)
{
	int k = names_find(&r->names, name);

	return k >= 0 ? &r->syms[k] : NULL;
}

bool declare(struct run *r, const char *name, enum sym_kind kind, void *obj)
{
	struct sym *s = lookup(r, name);
	void *mem = r->syms;
	int k;

	if (s && !s->dead)
		return fail(r, "'%s' is already declared", name);
	if (!s) {
		/* Room first: a name numbered without its symbol would shift
		 * every later symbol. */
		if (!scn_array_room(&mem, r->nsyms, sizeof(*r->syms)))
			return fail(r, "out of memory");
		r->syms = mem;
		k = names_declare(&r->names, name);
		if (k < 0)
			return fail(r, "out of memory");
		s = &r->syms[r->nsyms++];
		s->name = r->names.name[k];
	}
	/* A freed name may be declared again, as anything. */
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
