/*
 * parallel.h - independent tasks spread over worker threads (issue 20,
 * "threads"): the engines' per-destination work.
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
 * (candidates, distances): the preparation of the next batch runs on a
 * worker beside the work on this one, so the sequence itself, and its
 * result, stay what one thread gives.
 */
#ifndef IBR_PARALLEL_H
#define IBR_PARALLEL_H

#define IBR_MAX_THREADS 256u

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

/* For b = 0 .. batches-1: list(arg, b, i, worker) for every item i <
 * per_batch, then work_on(arg, b), in this order as far as any of them
 * can tell: the items of batch b + 1 are listed beside work_on(arg, b),
 * each a task of its own, so the workers that finish first list more
 * (from 2 threads).  So work_on must share nothing with list but what
 * list writes for its own item and work_on only reads (two sets of
 * slots, by b's parity, are the usual way), and a list task's scratch is
 * its worker's (worker < ibr_parallel_workers(threads, per_batch + 1)).
 * Stops at the first step that fails, in that order, and returns its
 * value; 0 when all succeed. */
int ibr_pipeline(unsigned threads, unsigned batches, unsigned per_batch,
		 int (*list)(void *arg, unsigned batch, unsigned item,
			     unsigned worker),
		 int (*work_on)(void *arg, unsigned batch), void *arg);

#endif
