/*
 * error.h - one error report, filled by whoever fails first.
 *
 * Every fallible call of the core takes a struct ibr_error * (may be NULL)
 * and returns -1 / IBR_NONE / NULL after writing a single human-readable
 * message into it: "file:line: what was expected, what was found".  The
 * first error wins; callers print it as it is.
 */
#ifndef IBROUTING_ERROR_H
#define IBROUTING_ERROR_H

struct ibr_error {
	char msg[512];
};

/* printf-style; never overwrites an earlier message.  Returns -1. */
int ibr_error_set(struct ibr_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
