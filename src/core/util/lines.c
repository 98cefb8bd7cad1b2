/*
 * lines.c - bounded line reading (see lines.h).
 *
 * getline() is not used: it grows its buffer until the line ends, so a
 * file without newlines (/dev/zero) takes all memory before any check
 * can run, and its -1 means both "end of file" and "out of memory".
 * Here each byte is counted against the limits before it is stored.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/lines.h"

const char *ibr_read_limit(uint32_t f_nodes, uint32_t f_ports, unsigned ports)
{
	if (f_nodes >= IBR_MAX_READ_NODES)
		return "more than 131072 nodes, the limit of ibrouting's readers";
	if ((uint64_t)f_ports + ports + 1 > IBR_MAX_READ_PORTS)
		return "more than 2097152 ports, the limit of ibrouting's readers";
	return NULL;
}

void ibr_lines_init(struct ibr_lines *l, FILE *in, const char *name)
{
	memset(l, 0, sizeof(*l));
	l->in = in;
	l->name = name;
	l->max_bytes = IBR_MAX_FILE_BYTES;
}

void ibr_lines_free(struct ibr_lines *l)
{
	free(l->line);
	l->line = NULL;
	l->cap = 0;
}

/* Room for one more byte and the terminating NUL. */
static int grow(struct ibr_lines *l, struct ibr_error *err)
{
	size_t cap = l->cap ? 2 * l->cap : 256;
	char *b;

	if (cap > IBR_MAX_LINE_BYTES + 2)
		cap = IBR_MAX_LINE_BYTES + 2;
	b = realloc(l->line, cap);
	if (!b)
		return ibr_error_set(err, "%s:%u: out of memory reading this "
				     "line", l->name, l->lineno);
	l->line = b;
	l->cap = cap;
	return 0;
}

int ibr_lines_next(struct ibr_lines *l, struct ibr_error *err)
{
	int c = EOF;

	l->len = 0;
	l->eol = false;
	l->lineno++;
	while ((c = getc_unlocked(l->in)) != EOF) {
		if (++l->bytes > l->max_bytes)
			return ibr_error_set(err, "%s:%u: file larger than %llu "
					     "bytes, the limit of ibrouting's "
					     "readers", l->name, l->lineno,
					     (unsigned long long)l->max_bytes);
		if (c == '\n') {
			l->eol = true;
			break;
		}
		if (c == '\0')
			return ibr_error_set(err, "%s:%u: expected text, found a "
					     "NUL byte at column %zu", l->name,
					     l->lineno, l->len + 1);
		if (l->len == IBR_MAX_LINE_BYTES)
			return ibr_error_set(err, "%s:%u: line longer than %u "
					     "bytes, the limit of ibrouting's "
					     "readers", l->name, l->lineno,
					     IBR_MAX_LINE_BYTES);
		if (l->len + 2 > l->cap && grow(l, err))
			return -1;
		l->line[l->len++] = (char)c;
	}
	if (c == EOF && ferror(l->in))
		return ibr_error_set(err, "%s:%u: read error: %s", l->name,
				     l->lineno, strerror(errno ? errno : EIO));
	if (c == EOF && l->len == 0) {
		l->lineno--;
		return 0;
	}
	if (!l->line && grow(l, err))
		return -1;
	if (l->len > 0 && l->line[l->len - 1] == '\r')
		l->len--;
	l->line[l->len] = '\0';
	return 1;
}
