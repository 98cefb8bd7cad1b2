/*
 * failing_alloc.h - makes the n-th allocation fail, for tests of failure
 * paths.  The test binary is linked with -Wl,--wrap=malloc,calloc,realloc,
 * so every such call of the core (a static library linked into it) goes
 * through here; libraries loaded at run time (cmocka, libc's own strdup)
 * are not affected.
 */
#ifndef FAILING_ALLOC_H
#define FAILING_ALLOC_H

/* From now on count allocations; the one numbered fail_at (0-based)
 * returns NULL, and so does none other.  fail_at < 0: never fail. */
void failing_alloc_arm(long fail_at);

/* Stops counting; returns how many allocations were made since arming. */
long failing_alloc_disarm(void);

/* The return address of the refused request (in its caller), NULL if
 * none was refused since arming: names the allocation site. */
void *failing_alloc_refused_caller(void);

#endif
