/* SPDX-License-Identifier: MIT */
/* The little JSON the command line writes (--format json). */
#ifndef FOLIOSIM_CLI_JSON_H
#define FOLIOSIM_CLI_JSON_H

#include <stdio.h>

/* @s as a JSON string (quotes, escapes; control bytes as \u00XX), or null. */
void json_str(FILE *out, const char *s);
/* "key": then the string @s. */
void json_kv_str(FILE *out, const char *key, const char *s);

#endif /* FOLIOSIM_CLI_JSON_H */
