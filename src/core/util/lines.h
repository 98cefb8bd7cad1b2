/*
 * lines.h - the one way every reader of ibrouting takes a text file in,
 * line by line, within limits.
 *
 * Invariants: a line is never longer than IBR_MAX_LINE_BYTES and a file
 * never larger than its max_bytes (IBR_MAX_FILE_BYTES unless the caller
 * lowers it), so /dev/zero, a line without end or an endless stream stop
 * with a message instead of eating memory; a NUL byte is an error (text
 * files have none); an allocation that fails is an error, never the end
 * of the file; every error is "NAME:LINE: ..." with the number of the
 * line being read, whatever the length of the lines before it.
 */
#ifndef IBROUTING_UTIL_LINES_H
#define IBROUTING_UTIL_LINES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ibrouting/error.h"

#define IBR_MAX_LINE_BYTES (64u * 1024)               /* 64 KiB a line */
#define IBR_MAX_FILE_BYTES ((uint64_t)1 << 30)        /* 1 GiB a file */

struct ibr_lines {
	FILE *in;
	const char *name;     /* file name for messages */
	uint64_t max_bytes;   /* the file's limit */
	uint64_t bytes;       /* read so far */
	char *line;           /* the current line, end of line removed */
	size_t len;           /* its length (no NUL inside) */
	size_t cap;
	unsigned lineno;      /* 1-based number of the current line */
	bool eol;             /* the line ended with a newline */
};

/* Reads `in` under `name`, with the default limits. */
void ibr_lines_init(struct ibr_lines *l, FILE *in, const char *name);
/* 1: the next line is in l->line (CR LF and LF removed); 0: end of file;
 * -1: an error named after the file and line is in err. */
int ibr_lines_next(struct ibr_lines *l, struct ibr_error *err);
void ibr_lines_free(struct ibr_lines *l);

#endif
