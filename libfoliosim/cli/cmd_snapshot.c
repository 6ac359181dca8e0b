// SPDX-License-Identifier: MIT
/*
 * foliosim snapshot [--modes M,M...] (PID... | --all): what the processes'
 * /proc would read in each mode, next to what the running kernel shows,
 * and which mode's accounting the running kernel matches.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json.h"
#include "snapshot_read.h"

static const char snapshot_usage[] =
"usage: foliosim snapshot [--format text|json] [--modes MODE[,MODE...]] (PID... | --all)\n"
"\n"
"Reads the processes' /proc/PID/maps, smaps and pagemap (with PAGEMAP_SCAN),\n"
"/proc/kpageflags and /proc/kpagecount (root only), rebuilds their folios and\n"
"mappings, replays them into the model in each mode (default legacy,base,rfc)\n"
"and prints, per region with resident pages, Rss, Pss, Private, Shared,\n"
"AnonHugePages (kB), the kpagecount sum and the pages with pagemap bit 56,\n"
"as the running kernel shows them and as each mode predicts; then the\n"
"process totals and the modes whose prediction equals the kernel everywhere.\n"
"Hugetlb, KSM and zero pages are left out (counted).  --format json: the\n"
"same figures for programs (schema: docs/json.md).  docs/snapshot.md\n"
"describes the replay and its limits.\n";

struct snap_cmd {
	bool json;
	enum fsim_mode modes[FSIM_NR_MODES];
	int nmodes;
	struct snap_process *proc;
	size_t nproc;
	struct fsim_snapshot *s;
	struct fsim_snapshot_values *pred[FSIM_NR_MODES];
	struct fsim_snapshot_notes notes[FSIM_NR_MODES];
	struct read_stats st;
};

static bool parse_modes(const char *list, struct snap_cmd *c)
{
	char buf[64], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", list);
	c->nmodes = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (c->nmodes == FSIM_NR_MODES || fsim_mode_from_name(tok, &c->modes[c->nmodes])) {
			fprintf(stderr, "foliosim snapshot: unknown mode '%s' (legacy, base, rfc)\n",
				tok);
			return false;
		}
		c->nmodes++;
	}
	return c->nmodes > 0;
}

static bool add_pid(struct snap_cmd *c, pid_t pid, size_t *cap)
{
	if (c->nproc == *cap) {
		void *m = realloc(c->proc, (*cap ? 2 * *cap : 16) * sizeof(*c->proc));

		if (!m)
			return false;
		c->proc = m;
		*cap = *cap ? 2 * *cap : 16;
	}
	c->proc[c->nproc++].pid = pid;
	return true;
}

static bool all_pids(struct snap_cmd *c, size_t *cap)
{
	DIR *d = opendir("/proc");
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (isdigit((unsigned char)e->d_name[0]) && !add_pid(c, atoi(e->d_name), cap))
			break;
	if (d)
		closedir(d);
	return c->nproc > 0;
}

/* Reads every process; those that vanish are dropped with a message. */
static bool read_all(struct snap_cmd *c)
{
	struct snap_reader *r = snap_reader_open(c->s, &c->st);
	size_t i, kept = 0;

	if (!r)
		return false;
	for (i = 0; i < c->nproc; i++) {
		struct snap_process p;

		snap_reader_progress(r, i + 1, c->nproc);
		if (!snap_read_process(r, c->proc[i].pid, (unsigned int)kept, &p)) {
			free(p.vma);
			continue;
		}
		c->proc[kept++] = p;
	}
	c->nproc = kept;
	snap_reader_close(r);
	return true;
}

static bool predict_all(struct snap_cmd *c)
{
	const size_t n = fsim_snapshot_regions(c->s) + 1;
	int m;

	for (m = 0; m < c->nmodes; m++) {
		c->pred[m] = calloc(n, sizeof(*c->pred[m]));
		if (!c->pred[m] ||
		    fsim_snapshot_predict(c->s, c->modes[m], c->pred[m], &c->notes[m])) {
			fprintf(stderr, "foliosim snapshot: the %s replay failed\n",
				fsim_mode_name(c->modes[m]));
			return false;
		}
	}
	return true;
}

static void row(const char *who, long long rss, long long pss, long long priv,
		long long shared, long long huge, unsigned long long kpc,
		unsigned long long excl)
{
	printf("    %-8s %10lld %10lld %10lld %10lld %10lld %11llu %7llu\n", who, rss, pss,
	       priv, shared, huge, kpc, excl);
}

/* The figures compared with the kernel's, for the self-check. */
enum { F_RSS, F_PSS, F_PRIVATE, F_SHARED, F_ANON_HUGE, F_KPAGECOUNT, F_BIT56, NR_FIELDS };
static const char *const field_name[NR_FIELDS] = {
	"Rss", "Pss", "Private", "Shared", "AnonHugePages", "kpagecount", "bit 56" };

/* Counts, per field, the regions where mode's prediction @p differs from
 * the kernel's figures @v; differences MM-id history can explain
 * (snap_within_history()) go to @history instead. */
static void compare_fields(const struct kernel_vma *v, const struct fsim_snapshot_values *p,
			   unsigned long differ[NR_FIELDS], unsigned long *history)
{
	const long long priv = (long long)p->kb.private_total, shared = (long long)p->kb.shared_total,
			excl = (long long)p->exclusive_pages;
	bool hist = false;

	differ[F_RSS] += (long long)p->kb.rss != v->rss;
	differ[F_PSS] += (long long)p->kb.pss != v->pss;
	differ[F_ANON_HUGE] += (long long)p->kb.anon_huge != v->anon_huge;
	differ[F_KPAGECOUNT] += p->kpagecount_sum != v->kpagecount_sum;
	if (snap_within_history(SNAP_PRIVATE_KB, v->private_kb, priv, p))
		hist = true;
	else
		differ[F_PRIVATE] += priv != v->private_kb;
	if (snap_within_history(SNAP_SHARED_KB, v->shared_kb, shared, p))
		hist = true;
	else
		differ[F_SHARED] += shared != v->shared_kb;
	if (snap_within_history(SNAP_EXCLUSIVE_PAGES, (long long)v->exclusive_pages, excl, p))
		hist = true;
	else
		differ[F_BIT56] += excl != (long long)v->exclusive_pages;
	*history += hist;
}

static void print_process(const struct snap_cmd *c, const struct snap_process *p,
			  unsigned long differ[][NR_FIELDS], unsigned long *history,
			  unsigned long *regions, unsigned long *changed)
{
	size_t i;
	int m;

	printf("PID %d (%s)\n", (int)p->pid, p->comm);
	for (i = 0; i < p->nvma; i++) {
		const struct kernel_vma *v = &p->vma[i];

		if (!v->resident)
			continue;
		++*regions;
		printf("  %llx-%llx %s%s\n", (unsigned long long)v->start,
		       (unsigned long long)v->end, v->name,
		       v->changed ? "  (changed while read: not compared)" : "");
		*changed += v->changed;
		printf("    %-8s %10s %10s %10s %10s %10s %11s %7s\n", "", "Rss kB", "Pss kB",
		       "Private kB", "Shared kB", "AnonHuge", "kpagecount", "bit 56");
		row("kernel", v->rss, v->pss, v->private_kb, v->shared_kb, v->anon_huge,
		    (unsigned long long)v->kpagecount_sum,
		    (unsigned long long)v->exclusive_pages);
		for (m = 0; m < c->nmodes; m++) {
			const struct fsim_snapshot_values *pv = &c->pred[m][v->region];

			row(fsim_mode_name(c->modes[m]), (long long)pv->kb.rss,
			    (long long)pv->kb.pss, (long long)pv->kb.private_total,
			    (long long)pv->kb.shared_total, (long long)pv->kb.anon_huge,
			    (unsigned long long)pv->kpagecount_sum,
			    (unsigned long long)pv->exclusive_pages);
			if (!v->changed)
				compare_fields(v, pv, differ[m], &history[m]);
		}
	}
}

static void print_report(const struct snap_cmd *c)
{
	unsigned long differ[FSIM_NR_MODES][NR_FIELDS], history[FSIM_NR_MODES], regions = 0,
		      changed = 0;
	int m, f;
	size_t i;

	memset(differ, 0, sizeof(differ));
	memset(history, 0, sizeof(history));
	printf("snapshot: %zu processes, %llu pages in %llu folios; kpagecount per page: %s%s\n",
	       c->nproc, (unsigned long long)c->st.pages, (unsigned long long)c->st.folios,
	       c->st.precise_why, c->st.no_pagemap_scan ?
	       "; no PAGEMAP_SCAN: PMD mappings guessed from alignment" : "");
	if (c->st.skipped_zero + c->st.skipped_hugetlb + c->st.skipped_ksm + c->st.skipped_unknown)
		printf("left out: %llu zero pages, %llu hugetlb, %llu KSM, %llu unreadable or "
		       "changed while read\n", (unsigned long long)c->st.skipped_zero,
		       (unsigned long long)c->st.skipped_hugetlb,
		       (unsigned long long)c->st.skipped_ksm,
		       (unsigned long long)c->st.skipped_unknown);
	for (i = 0; i < c->nproc; i++)
		print_process(c, &c->proc[i], differ, history, &regions, &changed);
	if (c->nmodes) {
		const struct fsim_snapshot_notes *n = &c->notes[0];

		printf("notes: %llu folios mapped by processes outside the snapshot; %llu large "
		       "anon folios one process maps (base and rfc would read them shared if "
		       "an earlier sharer left the MM-id shared bit set); %llu mappings the "
		       "model refused\n", (unsigned long long)n->folios_shared_elsewhere,
		       (unsigned long long)n->folios_history_dependent,
		       (unsigned long long)n->refused);
	}
	/* which mode's accounting the running kernel has, field by field */
	for (m = 0; m < c->nmodes; m++) {
		bool all = true;

		printf("self-check %s:", fsim_mode_name(c->modes[m]));
		for (f = 0; f < NR_FIELDS; f++) {
			all &= !differ[m][f];
			if (differ[m][f])
				printf(" %s differs in %lu of %lu regions;", field_name[f],
				       differ[m][f], regions - changed);
		}
		printf("%s", all ? " equals the kernel in every region" : "");
		if (history[m])
			printf(" (%lu regions within MM-id history bounds)", history[m]);
		if (changed)
			printf(" (%lu regions changed while read, not compared)", changed);
		putchar('\n');
	}
}

/* One object of figures; @history: a mode's history_pages (-1: the
 * kernel's own, which has none). */
static void json_values(const char *name, long long rss, long long pss, long long priv,
			long long shared, long long huge, unsigned long long kpc,
			unsigned long long excl, long long history)
{
	printf("\"%s\":{\"rss_kb\":%lld,\"pss_kb\":%lld,\"private_kb\":%lld,"
	       "\"shared_kb\":%lld,\"anon_huge_kb\":%lld,\"kpagecount_sum\":%llu,"
	       "\"exclusive_pages\":%llu", name, rss, pss, priv, shared, huge, kpc, excl);
	if (history >= 0)
		printf(",\"history_pages\":%lld", history);
	putchar('}');
}

/* {"processes":[{"pid","comm","regions":[{"start","end","name","kernel":{},
 *  "modes":{"legacy":{},...}}]}],"notes":{...}} */
static void print_json(const struct snap_cmd *c)
{
	const struct fsim_snapshot_notes *n = &c->notes[0];
	size_t i, j;
	int m, first_region;

	printf("{\"processes\":[");
	for (i = 0; i < c->nproc; i++) {
		const struct snap_process *p = &c->proc[i];

		printf("%s{\"pid\":%d,", i ? "," : "", (int)p->pid);
		json_kv_str(stdout, "comm", p->comm);
		printf(",\"regions\":[");
		for (j = 0, first_region = 1; j < p->nvma; j++) {
			const struct kernel_vma *v = &p->vma[j];

			if (!v->resident)
				continue;
			printf("%s{\"start\":\"0x%llx\",\"end\":\"0x%llx\",", first_region ? "" : ",",
			       (unsigned long long)v->start, (unsigned long long)v->end);
			first_region = 0;
			json_kv_str(stdout, "name", v->name);
			printf(",\"changed_while_read\":%s,", v->changed ? "true" : "false");
			json_values("kernel", v->rss, v->pss, v->private_kb, v->shared_kb,
				    v->anon_huge, (unsigned long long)v->kpagecount_sum,
				    (unsigned long long)v->exclusive_pages, -1);
			printf(",\"modes\":{");
			for (m = 0; m < c->nmodes; m++) {
				const struct fsim_snapshot_values *pv = &c->pred[m][v->region];

				if (m)
					putchar(',');
				json_values(fsim_mode_name(c->modes[m]), (long long)pv->kb.rss,
					    (long long)pv->kb.pss, (long long)pv->kb.private_total,
					    (long long)pv->kb.shared_total, (long long)pv->kb.anon_huge,
					    (unsigned long long)pv->kpagecount_sum,
					    (unsigned long long)pv->exclusive_pages,
					    (long long)pv->history_pages);
			}
			printf("}}");
		}
		printf("]}");
	}
	printf("],\"pages\":%llu,\"folios\":%llu,\"kpagecount_per_page\":%s,"
	       "\"pagemap_scan\":%s,\"notes\":{\"folios_mapped_elsewhere\":%llu,"
	       "\"folios_history_dependent\":%llu,\"refused\":%llu}}\n",
	       (unsigned long long)c->st.pages, (unsigned long long)c->st.folios,
	       c->st.kpagecount_precise ? "true" : "false",
	       c->st.no_pagemap_scan ? "false" : "true",
	       c->nmodes ? (unsigned long long)n->folios_shared_elsewhere : 0ull,
	       c->nmodes ? (unsigned long long)n->folios_history_dependent : 0ull,
	       c->nmodes ? (unsigned long long)n->refused : 0ull);
}

int cmd_snapshot(int argc, char **argv)
{
	struct snap_cmd c;
	size_t cap = 0, i;
	bool all = false;
	int a, m, ret = 1;

	memset(&c, 0, sizeof(c));
	parse_modes("legacy,base,rfc", &c);
	for (a = 0; a < argc; a++) {
		if (!strcmp(argv[a], "-h") || !strcmp(argv[a], "--help")) {
			fputs(snapshot_usage, stdout);
			return 0;
		} else if (!strcmp(argv[a], "--all")) {
			all = true;
		} else if (!strcmp(argv[a], "--format") && a + 1 < argc &&
			   (!strcmp(argv[a + 1], "json") || !strcmp(argv[a + 1], "text"))) {
			c.json = !strcmp(argv[++a], "json");
		} else if (!strcmp(argv[a], "--modes") && a + 1 < argc) {
			if (!parse_modes(argv[++a], &c))
				return 2;
		} else if (isdigit((unsigned char)argv[a][0])) {
			if (!add_pid(&c, atoi(argv[a]), &cap))
				return 2;
		} else {
			fprintf(stderr, "foliosim snapshot: unknown argument '%s'\n\n%s", argv[a],
				snapshot_usage);
			return 2;
		}
	}
	if ((all && !all_pids(&c, &cap)) || (!all && !c.nproc)) {
		fprintf(stderr, "%s", snapshot_usage);
		free(c.proc);
		return 2;
	}
	if (!fsim_snapshot_create(NULL, &c.s) && read_all(&c) && predict_all(&c)) {
		if (c.json)
			print_json(&c);
		else
			print_report(&c);
		ret = 0;
	}
	for (i = 0; i < c.nproc; i++)
		free(c.proc[i].vma);
	for (m = 0; m < c.nmodes; m++)
		free(c.pred[m]);
	free(c.proc);
	fsim_snapshot_destroy(c.s);
	return ret;
}
