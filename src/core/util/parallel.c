/*
 * parallel.c - independent tasks over worker threads (parallel.h).
 * A shared counter hands out task numbers; each worker keeps the lowest
 * failing task it ran, and the lowest over all workers is returned, so
 * the error reported is the same whatever the scheduling.
 */
#include <pthread.h>
#include <stdbool.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

#include "parallel.h"

unsigned ibr_threads_available(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 1;
	n = CPU_COUNT(&set);
	if (n < 1)
		return 1;
	return (unsigned)n < IBR_MAX_THREADS ? (unsigned)n : IBR_MAX_THREADS;
}

struct team {
	int (*task)(void *arg, unsigned t, unsigned worker);
	void *arg;
	unsigned tasks;
	atomic_uint next;
};

struct worker {
	struct team *team;
	unsigned id;
	unsigned failed;        /* lowest failing task, or team->tasks */
	int rc;
	pthread_t thread;
};

static void *work(void *p)
{
	struct worker *w = p;
	struct team *team = w->team;

	for (;;) {
		unsigned t = atomic_fetch_add(&team->next, 1);
		int rc;
		if (t >= team->tasks)
			break;
		rc = team->task(team->arg, t, w->id);
		if (rc && t < w->failed) {
			w->failed = t;
			w->rc = rc;
		}
	}
	return NULL;
}

int ibr_parallel(unsigned threads, unsigned tasks,
		 int (*task)(void *arg, unsigned t, unsigned worker),
		 void *arg)
{
	unsigned n = ibr_parallel_workers(threads, tasks), started = 1;
	struct worker w[IBR_MAX_THREADS];   /* no allocation to fail */
	struct team team = { .task = task, .arg = arg, .tasks = tasks };
	int rc = 0;
	unsigned failed = tasks;

	atomic_init(&team.next, 0);
	for (unsigned i = 0; i < n; i++)
		w[i] = (struct worker){ .team = &team, .id = i,
					.failed = tasks };
	/* worker ids stay dense: one that cannot start ends the team */
	while (started < n &&
	       pthread_create(&w[started].thread, NULL, work, &w[started]) == 0)
		started++;
	work(&w[0]);
	for (unsigned i = 1; i < started; i++)
		pthread_join(w[i].thread, NULL);
	for (unsigned i = 0; i < started; i++)
		if (w[i].failed < failed) {
			failed = w[i].failed;
			rc = w[i].rc;
		}
	return rc;
}

struct pipeline_step {
	int (*list)(void *arg, unsigned batch, unsigned item, unsigned worker);
	int (*step_on)(void *arg, unsigned batch);
	void *arg;
	unsigned batch;         /* worked on; batch + 1 listed */
	bool work;              /* task 0 works on batch */
};

/* Task 0 works on the batch (when there is one), the others list the
 * next batch's items in order: ibr_parallel reports the failure of the
 * lowest task, as the sequence would meet it. */
static int pipeline_task(void *p, unsigned t, unsigned worker)
{
	struct pipeline_step *step = p;

	if (step->work && t == 0)
		return step->step_on(step->arg, step->batch);
	return step->list(step->arg, step->batch + 1, t - step->work, worker);
}

int ibr_pipeline(unsigned threads, unsigned batches, unsigned per_batch,
		 int (*list)(void *arg, unsigned batch, unsigned item,
			     unsigned worker),
		 int (*work_on)(void *arg, unsigned batch), void *arg)
{
	/* batch -1: only the first batch's items are listed */
	struct pipeline_step step = { list, work_on, arg, (unsigned)-1, false };
	int rc;

	if (batches == 0)
		return 0;
	rc = ibr_parallel(threads, per_batch, pipeline_task, &step);
	for (unsigned b = 0; rc == 0 && b < batches; b++) {
		step = (struct pipeline_step){ list, work_on, arg, b, true };
		rc = ibr_parallel(threads, 1 + (b + 1 < batches ? per_batch : 0),
				  pipeline_task, &step);
	}
	return rc;
}
