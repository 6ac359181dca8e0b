// SPDX-License-Identifier: GPL-2.0
/*
 * kunit-init: /init of the KUnit-only initramfs (i386 guests, where the
 * x86_64 busybox and selftests cannot run). The KUnit suites built into the
 * kernel have run before init starts; this program only frames the serial
 * log the way kernel-port/initramfs/init does (begin marker, an empty TAP
 * plan, end marker), so that parse-log reads a complete run, and reboots
 * (QEMU runs with -no-reboot, so it exits).
 *
 * Freestanding: raw i386 system calls through int $0x80, no libc, so it
 * builds with any gcc that supports -m32, without a 32-bit libc.
 */
#define NR_WRITE	4
#define NR_SYNC		36
#define NR_REBOOT	88
#define REBOOT_MAGIC1	0xfee1deadL
#define REBOOT_MAGIC2	672274793L
#define REBOOT_RESTART	0x01234567L

static long syscall4(long nr, long a, long b, long c, long d)
{
	long ret;

	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d)
			 : "memory");
	return ret;
}

static void say(const char *s)
{
	long n = 0;

	while (s[n])
		n++;
	syscall4(NR_WRITE, 1, (long)s, n, 0);
}

void _start(void)
{
	say("FOLIOSIM-KTEST-BEGIN kernel=i386 mode=kunit selftests=none\n");
	say("# kunit-init: KUnit-only guest, no selftests and no scenarios\n");
	say("TAP version 13\n1..0\n# summary: 0 run, 0 failed\n");
	say("FOLIOSIM-KTEST-END status=pass failed=0 total=0\n");
	syscall4(NR_SYNC, 0, 0, 0, 0);
	syscall4(NR_REBOOT, REBOOT_MAGIC1, REBOOT_MAGIC2, REBOOT_RESTART, 0);
	for (;;)
		;
}
