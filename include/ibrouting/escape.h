/*
 * escape.h - bytes from files made safe to print in one log line.
 *
 * Text read from a file an administrator (or anyone) wrote may hold
 * control characters, escape sequences or bytes of another encoding; put
 * into OpenSM's log or a terminal as they are, they can forge lines or
 * garble it.  ibr_escape() keeps printable ASCII as it is, writes a
 * backslash as \\ and every other byte as \xHH, so the output is printable
 * ASCII and the input can be read back from it without ambiguity.
 */
#ifndef IBROUTING_ESCAPE_H
#define IBROUTING_ESCAPE_H

#include <stddef.h>

/* Escapes the first n bytes of s (NUL bytes included) into buf of len
 * bytes, always NUL-terminated (len >= 4); input that does not fit is cut
 * at a whole escape and marked with "...".  Returns buf. */
char *ibr_escape(const char *s, size_t n, char *buf, size_t len);

/* ibr_escape() of a C string. */
char *ibr_escape_str(const char *s, char *buf, size_t len);

#endif
