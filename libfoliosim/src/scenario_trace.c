// SPDX-License-Identifier: MIT
/* The trace of `foliosim run` and the text of a statement. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "foliosim/process.h"
#include "internal.h"
#include "scenario_exec.h"

/* ------------------------------------------------------------------ */
/* The trace of `foliosim run`                                         */
/* ------------------------------------------------------------------ */

/* A statement as the trace prints it (after its line number):
 * "repeat 3 add F mm=A level=pte page=0 nr=1", "P munmap R off=0 len=4K". */
void stmt_format(const struct stmt *st, char *buf, size_t len)
{
	size_t used = 0, i;
	const char *kw = st->kind == ST_PROC_OP ? NULL : stmt_keyword(st);

#define PUT(...)							\
	do {								\
		if (used < len)						\
			used += (size_t)snprintf(buf + used, len - used, __VA_ARGS__); \
	} while (0)
	buf[0] = '\0';
	if (st->repeat > 1)
		PUT("repeat %lu ", st->repeat);
	if (st->kind == ST_EXPECT && st->expect_mode >= 0)
		PUT("expect[%s]", fsim_mode_name((enum fsim_mode)st->expect_mode));
	else if (kw)
		PUT("%s", kw);
	for (i = 0; i < st->nwords; i++)
		PUT("%s%s", used ? " " : "", st->words[i]);
	for (i = 0; i < st->nargs; i++) {
		if (st->args[i].indexed)
			PUT(" %s[%lu:%lu]=%s", st->args[i].key, st->args[i].lo,
			    st->args[i].hi, st->args[i].value);
		else
			PUT(" %s=%s", st->args[i].key, st->args[i].value);
	}
#undef PUT
}

void trace_statement(struct run *r, const struct stmt *st)
{
	char text[1024];

	stmt_format(st, text, sizeof(text));
	fprintf(r->opts->trace, "%4u  %s\n", st->line, text);
}

void trace_folio(struct run *r, const char *name, struct fsim_folio *f)
{
	char s0[48], s1[48];
	struct fsim_slot slots[2];
	FILE *t = r->opts->trace;

	fprintf(t, "      %-6s order %-2u mapcount %-6d total %-8" PRIu64 " avg %-3lu "
		"shared %-3s partial %-3s pins %d",
		name, fsim_folio_order(f), fsim_folio_mapcount(f),
		fsim_folio_total_mapped_pages(f), fsim_folio_average_page_mapcount(f),
		yn(fsim_folio_maybe_mapped_shared(f)), yn(fsim_folio_partially_mapped(f)),
		fsim_folio_pincount(f));
	if (!fsim_folio_slots(f, slots, NULL)) {
		slot_value(r, f, 0, s0, sizeof(s0));
		slot_value(r, f, 1, s1, sizeof(s1));
		fprintf(t, " slots [%s, %s]", s0, s1);
	}
	if (fsim_folio_entire_mapcount(f) >= 0)
		fprintf(t, " entire %d nr_pages_mapped %d",
			fsim_folio_entire_mapcount(f), fsim_folio_nr_pages_mapped(f));
	fputc('\n', t);
}

void trace_stats(struct run *r)
{
	int s;

	fprintf(r->opts->trace, "      stats");
	for (s = 0; s < FSIM_NR_STATS; s++)
		fprintf(r->opts->trace, " %s=%lld", fsim_stat_name((enum fsim_stat)s),
			(long long)fsim_ctx_stat(r->ctx, (enum fsim_stat)s));
	fputc('\n', r->opts->trace);
}

/* After a process statement: a table per live process and the folios. */
struct folio_list {
	struct fsim_folio *f[64];
	size_t n;
	bool more;
};

static void collect_folio(void *arg, struct fsim_folio *f)
{
	struct folio_list *l = arg;
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->f[i] == f)
			return;
	if (l->n < 64)
		l->f[l->n++] = f;
	else
		l->more = true;
}

void trace_processes(struct run *r)
{
	FILE *t = r->opts->trace;
	struct folio_list fl = { { NULL }, 0, false };
	size_t k, i;

	fprintf(t, "      %-8s %-8s %8s %8s %8s %8s %8s\n", "process", "region",
		"Rss", "Pss", "Private", "Shared", "AnonHuge");
	for (k = 0; k < r->nsyms; k++) {
		struct region_names rn;

		if (r->syms[k].kind != SYM_PROCESS || r->syms[k].dead)
			continue;
		regions_of(r, r->syms[k].obj, &rn);
		for (i = 0; i < rn.n; i++) {
			struct fsim_smaps_kb kb;

			fsim_process_smaps_kb(r->syms[k].obj, rn.name[i], &kb);
			fprintf(t, "      %-8s %-8s %6llukB %6llukB %6llukB %6llukB %6llukB\n",
				r->syms[k].name, rn.name[i], (unsigned long long)kb.rss,
				(unsigned long long)kb.pss,
				(unsigned long long)kb.private_total,
				(unsigned long long)kb.shared_total,
				(unsigned long long)kb.anon_huge);
			fsim_process_region_folios(r->syms[k].obj, rn.name[i],
						   collect_folio, &fl);
		}
	}
	for (i = 0; i < fl.n; i++) {
		char name[32];

		snprintf(name, sizeof(name), "folio%zu", i);
		trace_folio(r, name, fl.f[i]);
	}
	if (fl.more)
		fprintf(t, "      (more folios not shown)\n");
	fprintf(t, "      meminfo AnonPages %lld kB\n", (long long)anon_pages_kb(r));
}
