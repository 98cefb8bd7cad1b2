/*
 * parallel.h - independent tasks spread over worker threads: the
 * engines' per-destination work.
 *
 * Invariants the callers keep, so that a result never depends on the
 * thread count or on which worker ran which task:
 *   - tasks are numbered 0 .. n-1 and a task writes only what is its own
 *     (slots indexed by its number, or by the worker running it when the
 *     caller merges those by a commutative, exact operation: integer sums,
 *     bitwise or);
 *   - whatever is merged in order is merged by task number, after
 *     ibr_parallel returns;
 *   - no task touches OpenSM: inside the plugin the engines run on
 *     OpenSM's thread with its lock held, and only our own structures
 *     are handed to the workers.
 * Workers take the next task number from a shared counter, so uneven
 * tasks do not leave a thread idle.  The calling thread is worker 0.
 *
 * ibr_pipeline serves work that is one sequence (each step depends on
 * the ones before, like a balanced choice on the loads of the routes
 * before it) but whose steps need some preparation that does not
 * (candidates, distances): the workers prepare the batches ahead while
 * the calling thread works through them in order, so the sequence itself,
 * and its result, stay what one thread gives.
 */
#ifndef IBR_PARALLEL_H
#define IBR_PARALLEL_H

#include <stdint.h>

#define IBR_MAX_THREADS 256u

/* Tasks of `per` consecutive items each over n items (the last may be
 * shorter): the slices the passes over ports hand to the workers. */
static inline unsigned ibr_slice_count(uint32_t n, uint32_t per)
{
	return (n + per - 1) / per;
}

/* The items of slice t: [*first, *end). */
static inline void ibr_slice(unsigned t, uint32_t per, uint32_t n,
			     uint32_t *first, uint32_t *end)
{
	*first = t * per;
	*end = *first + per < n ? *first + per : n;
}

/* The CPUs this process may run on (sched_getaffinity), at least 1 and at
 * most IBR_MAX_THREADS: the default thread count. */
unsigned ibr_threads_available(void);

/* A configured count, 0 meaning the default: the CPUs we may run on. */
static inline unsigned ibr_threads_or_available(unsigned threads)
{
	return threads ? threads : ibr_threads_available();
}

/* Runs task(arg, t, worker) for every t in [0, tasks) on at most
 * `threads` workers (worker < the count used).  Returns 0, or the value of
 * the failing task with the lowest number (later tasks may have run).
 * A worker that cannot be started leaves its share to the others. */
int ibr_parallel(unsigned threads, unsigned tasks,
		 int (*task)(void *arg, unsigned t, unsigned worker),
		 void *arg);

/* The workers ibr_parallel(threads, tasks, ...) uses at most: what a
 * caller sizes its per-worker slots by. */
static inline unsigned ibr_parallel_workers(unsigned threads, unsigned tasks)
{
	unsigned n = threads ? threads : 1;

	if (n > IBR_MAX_THREADS)
		n = IBR_MAX_THREADS;
	return n < tasks ? n : (tasks ? tasks : 1);
}

/* Batches prepared ahead of the one worked on, at most, counting it: the
 * slots a caller of ibr_pipeline keeps, batch b's in slot
 * ibr_pipeline_slot(b).  Two let a worker prepare the next batch beside
 * the work; more let a short batch of work go on into the next without
 * waiting for the slowest of its preparations (the work is what bounds
 * fera's and dr's time from two threads). */
#define IBR_PIPELINE_DEPTH 4u

/* The slot of batch b's items, 0 .. IBR_PIPELINE_DEPTH - 1. */
static inline unsigned ibr_pipeline_slot(unsigned batch)
{
	return batch % IBR_PIPELINE_DEPTH;
}

/* For b = 0 .. batches-1: list(arg, b, i, worker) for every item i <
 * per_batch, then work_on(arg, b), in this order as far as any of them
 * can tell.  The calling thread (worker 0) works on the batches in turn,
 * listing the items of the one it waits for that nobody took yet; the
 * other workers list items in order, each a task of its own, up to
 * IBR_PIPELINE_DEPTH - 1 batches ahead of the work.  So work_on must
 * share nothing with list but what list writes for its own item in its
 * batch's slot and work_on only reads, and a list task's scratch is its
 * worker's (worker < ibr_parallel_workers(threads, per_batch + 1)).
 * Stops at the first step that fails, in that order, and returns its
 * value; 0 when all succeed. */
int ibr_pipeline(unsigned threads, unsigned batches, unsigned per_batch,
		 int (*list)(void *arg, unsigned batch, unsigned item,
			     unsigned worker),
		 int (*work_on)(void *arg, unsigned batch), void *arg);

#endif
