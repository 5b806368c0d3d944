/* SPDX-License-Identifier: MIT */
/*
 * Just enough JSON to read QMP messages: look up a member by a dotted path ("data.reason")
 * in one JSON text. No allocation; malformed input makes the look-up fail.
 */
#ifndef HOST_JSON_H
#define HOST_JSON_H

#include <stdbool.h>
#include <stddef.h>

/* String member; decoded (\uXXXX above 0x7f becomes '?'). False if absent or not a string. */
bool json_get_str(const char *js, const char *path, char *out, size_t outsz);
/* True if the member exists (any type). */
bool json_has(const char *js, const char *path);
/* Integer member. */
bool json_get_int(const char *js, const char *path, long long *out);
/* Quotes and escapes s as a JSON string into out; returns false if it does not fit. */
bool json_quote(const char *s, char *out, size_t outsz);

#endif
