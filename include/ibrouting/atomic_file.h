/*
 * atomic_file.h - files replaced whole: a reader sees the old version or
 * the new one, never a part.
 *
 * The new version is written under a temporary name in the same directory
 * (".NAME.tmp.PID": same file system, so rename() is atomic; a leading dot
 * hides it from `ls` and from globs of the real names) and renamed over
 * NAME once complete.  On any failure the temporary file is removed and
 * NAME keeps its old version.  One writer per (directory, process) at a
 * time.
 */
#ifndef IBROUTING_ATOMIC_FILE_H
#define IBROUTING_ATOMIC_FILE_H

#include <stdio.h>

#include "ibrouting/error.h"

struct ibr_atomic_file {
	FILE *out;                     /* write here */
	char path[4096];               /* DIR/NAME */
	char tmp[4096];                /* DIR/.NAME.tmp.PID */
};

/* Creates the temporary file; -1 and err on failure (nothing left). */
int ibr_atomic_open(struct ibr_atomic_file *af, const char *dir,
		    const char *name, struct ibr_error *err);

/* Closes and renames over DIR/NAME; on a write error removes the
 * temporary file instead, returns -1 and sets err. */
int ibr_atomic_commit(struct ibr_atomic_file *af, struct ibr_error *err);

/* Gives up: closes and removes the temporary file. */
void ibr_atomic_abort(struct ibr_atomic_file *af);

#endif
