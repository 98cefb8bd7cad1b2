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
/* What a file may declare, far above any fabric the LID space (0xBFFF
 * LIDs) can route, but bounding memory: a 20-byte header of a 254-port
 * switch would otherwise cost 4 KiB of ports. */
#define IBR_MAX_READ_NODES (1u << 17)                 /* 131072 nodes */
#define IBR_MAX_READ_PORTS (1u << 21)                 /* 2097152 ports */

/* A message if one more node of `ports` ports would pass the limits above
 * (f_nodes, f_ports: the fabric's counts so far), else NULL. */
const char *ibr_read_limit(uint32_t f_nodes, uint32_t f_ports, unsigned ports);

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
