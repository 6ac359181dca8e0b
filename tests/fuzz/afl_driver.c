// SPDX-License-Identifier: MIT
/*
 * A tiny AFL++ persistent-mode main, used by the `afl` preset only when
 * AFL++'s own libAFLDriver.a is not installed.  Compiled with afl-cc the
 * __AFL_* macros give shared-memory test cases and a 10000-iteration
 * persistent loop; compiled with anything else it runs each input once
 * from stdin (or the files named on the command line) so that it still
 * builds and can replay a crash.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_stream(FILE *f)
{
	static uint8_t buf[1 << 20];
	size_t n = fread(buf, 1, sizeof(buf), f);

	LLVMFuzzerTestOneInput(buf, n);
	return 0;
}

#ifdef __AFL_FUZZ_TESTCASE_LEN
__AFL_FUZZ_INIT();

int main(int argc, char **argv)
{
	unsigned char *buf;

	if (argc > 1) {	/* replay mode: afl-fuzz never passes arguments here */
		FILE *f = fopen(argv[1], "rb");

		return f ? run_stream(f) : 1;
	}
	__AFL_INIT();
	buf = __AFL_FUZZ_TESTCASE_BUF;
	while (__AFL_LOOP(10000))
		LLVMFuzzerTestOneInput(buf, (size_t)__AFL_FUZZ_TESTCASE_LEN);
	return 0;
}
#else
int main(int argc, char **argv)
{
	FILE *f = argc > 1 ? fopen(argv[1], "rb") : stdin;

	return f ? run_stream(f) : 1;
}
#endif
