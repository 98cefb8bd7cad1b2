/*
 * escape.c - printable, unambiguous renderings of untrusted bytes (see
 * escape.h).
 *
 * Invariant: the output holds only bytes 0x20..0x7e and is NUL-terminated
 * within len; an escape is never cut in half (the "..." mark, when the
 * input is cut, always fits).
 */
#include <stdio.h>
#include <string.h>

#include "ibrouting/escape.h"

#define CUT_MARK "..."

/* The escape of byte c into one[5]; its length. */
static size_t escape_byte(unsigned char c, char one[5])
{
	if (c == '\\')
		return (size_t)snprintf(one, 5, "\\\\");
	if (c >= 0x20 && c < 0x7f)
		return (size_t)snprintf(one, 5, "%c", c);
	return (size_t)snprintf(one, 5, "\\x%02x", c);
}

char *ibr_escape(const char *s, size_t n, char *buf, size_t len)
{
	size_t whole = 0, room, o = 0, i;
	char one[5];

	if (len == 0)
		return buf;
	for (i = 0; i < n && whole < len; i++)
		whole += escape_byte((unsigned char)s[i], one);
	/* all of it fits: no mark; else keep room for the mark and NUL */
	room = whole < len ? len - 1 :
	       len > sizeof(CUT_MARK) ? len - sizeof(CUT_MARK) : 0;
	for (i = 0; i < n; i++) {
		size_t w = escape_byte((unsigned char)s[i], one);
		if (o + w > room)
			break;
		memcpy(buf + o, one, w);
		o += w;
	}
	if (i < n && o + sizeof(CUT_MARK) <= len) {
		memcpy(buf + o, CUT_MARK, sizeof(CUT_MARK) - 1);
		o += sizeof(CUT_MARK) - 1;
	}
	buf[o < len ? o : len - 1] = '\0';
	return buf;
}

char *ibr_escape_str(const char *s, char *buf, size_t len)
{
	return ibr_escape(s, strlen(s), buf, len);
}
