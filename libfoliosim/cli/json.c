// SPDX-License-Identifier: MIT
/* JSON strings: whatever the input (names, messages, statement text), the
 * output is valid JSON. */
#include "json.h"

void json_str(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	for (; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		default:
			/* Bytes >= 0x80 (a message may quote a file's bytes,
			 * not always UTF-8) as Latin-1 code points: valid JSON
			 * whatever the input. */
			if (*p < 0x20 || *p >= 0x7f)
				fprintf(out, "\\u%04x", *p);
			else
				fputc(*p, out);
		}
	}
	fputc('"', out);
}

void json_kv_str(FILE *out, const char *key, const char *s)
{
	json_str(out, key);
	fputc(':', out);
	json_str(out, s);
}
