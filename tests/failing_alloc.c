/*
 * failing_alloc.c - the counter behind failing_alloc.h.
 *
 * Invariant: while armed, `made` counts every wrapped allocation request,
 * and exactly the request numbered fail_at (if any) is refused; `caller`
 * is the return address of that refused request (NULL until one is).
 * The count is atomic: the core's worker threads allocate too, and two
 * requests at once still get two numbers (which request gets which
 * depends on the scheduling then; the tests allow for that).
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "failing_alloc.h"

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);

static atomic_bool armed;
static long fail_at = -1;
static atomic_long made;
static void *_Atomic caller;

void failing_alloc_arm(long at)
{
	armed = true;
	fail_at = at;
	made = 0;
	caller = NULL;
}

long failing_alloc_disarm(void)
{
	armed = false;
	return made;
}

void *failing_alloc_refused_caller(void)
{
	return caller;
}

static bool refuse(void *from)
{
	if (!armed || atomic_fetch_add(&made, 1) != fail_at)
		return false;
	caller = from;
	return true;
}

void *__wrap_malloc(size_t size)
{
	return refuse(__builtin_return_address(0)) ? NULL : __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
	return refuse(__builtin_return_address(0)) ? NULL :
	       __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size)
{
	return refuse(__builtin_return_address(0)) ? NULL :
	       __real_realloc(p, size);
}
