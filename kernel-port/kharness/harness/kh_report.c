// SPDX-License-Identifier: GPL-2.0
/*
 * kharness, harness half: what the kernel half calls back.
 *
 * A WARN() is counted and reported with the kernel source's file:line and
 * a backtrace; a BUG() does the same and then longjmp()s back to the
 * harness call that entered the kernel code (kh_call_begin()), whose
 * state is then lost: the harness stops using it.  An aborting stub ends
 * the process.  Reports go to stderr unless kh_report_quiet() asks for a
 * count only (the refusal probes, which expect them).
 */
#include <execinfo.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kh_api.h"
#include "kh_harness.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KH_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define KH_ASAN 1
#endif
#ifdef KH_ASAN
#include <sanitizer/asan_interface.h>
#endif

static struct kh_events kh_ev;
static bool kh_quiet;
static jmp_buf *kh_bug_jump;
static char kh_printed[sizeof(((struct kh_event_site *)0)->printed)];

const struct kh_events *kh_events(void)
{
	return &kh_ev;
}

void kh_events_reset(void)
{
	memset(&kh_ev, 0, sizeof(kh_ev));
}

void kh_report_quiet(bool quiet)
{
	kh_quiet = quiet;
}

void kh_set_bug_jump(jmp_buf *jump)
{
	kh_bug_jump = jump;
}

static void kh_backtrace(void)
{
	void *frames[24];
	int n = backtrace(frames, 24);

	/* The frames of the kernel code carry the symbols of the tree's own
	 * functions (the kernel unit is built with -g; addr2line -e on the
	 * binary gives their lines). */
	backtrace_symbols_fd(frames, n, STDERR_FILENO);
}

static void kh_record(const char *what, const char *file, int line)
{
	struct kh_event_site *site = &kh_ev.last;

	snprintf(site->file, sizeof(site->file), "%s", file);
	site->line = line;
	snprintf(site->printed, sizeof(site->printed), "%s", kh_printed);
	if (!kh_quiet) {
		fprintf(stderr, "kharness: kernel %s at %s:%d\n", what, file, line);
		if (kh_printed[0])
			fprintf(stderr, "kharness:   %s\n", kh_printed);
		kh_backtrace();
	}
	kh_printed[0] = '\0';
}

KH_ABI void kh_kernel_warn(const char *file, int line, unsigned int flags)
{
	(void)flags;
	kh_ev.warnings++;
	kh_record("WARNING", file, line);
}

KH_ABI void kh_kernel_bug(const char *file, int line)
{
	kh_ev.bugs++;
	kh_record("BUG", file, line);
	if (kh_bug_jump)
		longjmp(*kh_bug_jump, 1);
	fprintf(stderr, "kharness: kernel BUG outside a harness call: aborting\n");
	abort();
}

KH_ABI void kh_kernel_print(const char *text)
{
	size_t len = strlen(kh_printed), room;

	if (len && len + 2 < sizeof(kh_printed)) {
		memcpy(kh_printed + len, "; ", 3);
		len += 2;
	}
	room = sizeof(kh_printed) - len - 1;
	strncat(kh_printed + len, text, room);
}

KH_ABI void kh_kernel_unreachable(const char *symbol)
{
	fprintf(stderr, "kharness: the kernel code called %s(), which the harness "
		"stubs as unreachable: the accounting left the paths it models\n", symbol);
	kh_backtrace();
	abort();
}

/* One printk line to the report of the next WARN or BUG (lib/vsprintf.c's
 * formats the kernel half uses are plain printf ones). */
static int kh_vprintk(const char *fmt, va_list ap)
{
	char buf[512];
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);

	buf[strcspn(buf, "\n")] = '\0';
	kh_kernel_print(buf);
	return n;
}

int __warn_printk(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = kh_vprintk(fmt, ap);
	va_end(ap);
	return n;
}

int _printk(const char *fmt, ...)
{
	va_list ap;
	int n;

	/* KERN_<LEVEL> is "\001" and a digit */
	if (fmt[0] == '\001' && fmt[1])
		fmt += 2;
	va_start(ap, fmt);
	n = kh_vprintk(fmt, ap);
	va_end(ap);
	return n;
}

KH_ABI void *kh_zalloc(unsigned long size)
{
	return calloc(1, size);
}

KH_ABI void kh_free(void *p)
{
	free(p);
}

KH_ABI void *kh_map_reserve(unsigned long size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

KH_ABI void kh_mem_poison(const void *addr, unsigned long size, bool poison)
{
#ifdef KH_ASAN
	if (poison)
		ASAN_POISON_MEMORY_REGION(addr, size);
	else
		ASAN_UNPOISON_MEMORY_REGION(addr, size);
#else
	(void)addr;
	(void)size;
	(void)poison;
#endif
}
