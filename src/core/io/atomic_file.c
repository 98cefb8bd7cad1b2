/*
 * atomic_file.c - write to a temporary name, rename over the real one
 * (see atomic_file.h).
 *
 * Invariant: after any call returns, the temporary file exists only while
 * af->out is open; the real file is either untouched or the complete new
 * version.  The temporary file is created with O_EXCL (never through a
 * planted symlink) and mode 0666 less the umask, as fopen(..., "w") would.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ibrouting/atomic_file.h"

int ibr_atomic_open(struct ibr_atomic_file *af, const char *dir,
		    const char *name, struct ibr_error *err)
{
	int fd;

	af->out = NULL;
	if ((size_t)snprintf(af->path, sizeof(af->path), "%s/%s", dir, name) >=
	    sizeof(af->path) ||
	    (size_t)snprintf(af->tmp, sizeof(af->tmp), "%s/.%s.tmp.%ld", dir,
			     name, (long)getpid()) >= sizeof(af->tmp))
		return ibr_error_set(err, "%s/%s: path too long", dir, name);
	fd = open(af->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0 && errno == EEXIST) {
		/* left by a process of our pid that died writing it */
		unlink(af->tmp);
		fd = open(af->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	}
	if (fd < 0)
		return ibr_error_set(err, "%s: cannot create: %s", af->tmp,
				     strerror(errno));
	af->out = fdopen(fd, "w");
	if (!af->out) {
		int e = errno;
		close(fd);
		unlink(af->tmp);
		return ibr_error_set(err, "%s: cannot create: %s", af->tmp,
				     strerror(e));
	}
	return 0;
}

int ibr_atomic_commit(struct ibr_atomic_file *af, struct ibr_error *err)
{
	int bad = ferror(af->out);
	int e = errno;

	if (fclose(af->out) != 0 && !bad) {
		bad = 1;
		e = errno;
	}
	af->out = NULL;
	if (bad) {
		unlink(af->tmp);
		return ibr_error_set(err, "%s: write failed: %s", af->tmp,
				     strerror(e ? e : EIO));
	}
	if (rename(af->tmp, af->path) != 0) {
		e = errno;
		unlink(af->tmp);
		return ibr_error_set(err, "%s: cannot replace: %s", af->path,
				     strerror(e));
	}
	return 0;
}

void ibr_atomic_abort(struct ibr_atomic_file *af)
{
	if (!af->out)
		return;
	fclose(af->out);
	af->out = NULL;
	unlink(af->tmp);
}
