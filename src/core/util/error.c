/*
 * error.c - the single error report of a failed call (see error.h).
 * The first message wins: the deepest caller knows the most precise cause.
 */
#include <stdarg.h>
#include <stdio.h>

#include "ibrouting/error.h"

int ibr_error_set(struct ibr_error *err, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || err->msg[0] != '\0')
		return -1;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}
