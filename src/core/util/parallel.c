/*
 * parallel.c - independent tasks over worker threads (parallel.h).
 * A shared counter hands out task numbers; each worker keeps the lowest
 * failing task it ran, and the lowest over all workers is returned, so
 * the error reported is the same whatever the scheduling.
 * ibr_pipeline streams: one mutex and condition variable guard its
 * counters (items handed out, listed per slot, batches worked on), and an
 * item is coarse (a destination switch's preparation), so the lock is
 * never what the workers wait on;
 * the calling thread waits only for the items of the batch it is about
 * to work on, and a lister only for a slot to come free.
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

/* ibr_pipeline's state, shared under `lock`.  Items are numbered over all
 * batches (batch * per_batch + item) and handed out in that order; item j
 * may be listed once the batch that had its slot before it,
 * j / per_batch - IBR_PIPELINE_DEPTH, has been worked on. */
struct stream {
	pthread_mutex_t lock;
	pthread_cond_t changed;         /* an item listed, a batch done, the end */
	int (*list)(void *arg, unsigned batch, unsigned item, unsigned worker);
	int (*work_on)(void *arg, unsigned batch);
	void *arg;
	unsigned batches, per_batch;
	unsigned next;                  /* the next item to hand out */
	unsigned worked;                /* batches worked on */
	unsigned listed[IBR_PIPELINE_DEPTH]; /* per slot: its batch's items done */
	unsigned failed;                /* lowest failing item, or every item */
	int failed_rc;
	bool stop;                      /* the sequence failed: list no more */
};

struct stream_worker {
	struct stream *s;
	unsigned id;
	pthread_t thread;
};

static unsigned stream_items(const struct stream *s)
{
	return s->batches * s->per_batch;
}

/* Item j's slot is free: the batch before it in that slot was worked on. */
static bool may_list(const struct stream *s, unsigned j)
{
	return j / s->per_batch < s->worked + IBR_PIPELINE_DEPTH;
}

/* Lists item j (taken under the lock, which is held again on return). */
static void list_item(struct stream *s, unsigned j, unsigned worker)
{
	int rc;

	pthread_mutex_unlock(&s->lock);
	rc = s->list(s->arg, j / s->per_batch, j % s->per_batch, worker);
	pthread_mutex_lock(&s->lock);
	if (rc && j < s->failed) {
		s->failed = j;
		s->failed_rc = rc;
	}
	s->listed[ibr_pipeline_slot(j / s->per_batch)]++;
	pthread_cond_broadcast(&s->changed);
}

/* A worker beside the sequence: lists items in order as their slots free
 * up, until none is left or the sequence stopped. */
static void *stream_lister(void *p)
{
	struct stream_worker *w = p;
	struct stream *s = w->s;

	pthread_mutex_lock(&s->lock);
	while (!s->stop && s->next < stream_items(s)) {
		if (!may_list(s, s->next)) {
			pthread_cond_wait(&s->changed, &s->lock);
			continue;
		}
		list_item(s, s->next++, w->id);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* The calling thread's part: batch after batch, waits for its items
 * (listing those of this batch nobody took yet), then works on it. */
static int stream_sequence(struct stream *s)
{
	int rc = 0;

	for (unsigned b = 0; b < s->batches; b++) {
		unsigned slot = ibr_pipeline_slot(b);

		pthread_mutex_lock(&s->lock);
		while (s->listed[slot] < s->per_batch) {
			/* only this batch's items: the work waits on them */
			if (s->next < (b + 1) * s->per_batch)
				list_item(s, s->next++, 0);
			else
				pthread_cond_wait(&s->changed, &s->lock);
		}
		/* batches before b had no failure: theirs is the lowest */
		if (s->failed < (b + 1) * s->per_batch)
			rc = s->failed_rc;
		pthread_mutex_unlock(&s->lock);
		if (rc == 0)
			rc = s->work_on(s->arg, b);
		pthread_mutex_lock(&s->lock);
		s->listed[slot] = 0;
		s->worked = b + 1;
		s->stop = rc != 0;
		pthread_cond_broadcast(&s->changed);
		pthread_mutex_unlock(&s->lock);
		if (rc)
			break;
	}
	return rc;
}

/* One thread: the sequence itself, no lock needed. */
static int sequence_alone(const struct stream *s)
{
	for (unsigned b = 0; b < s->batches; b++) {
		for (unsigned i = 0; i < s->per_batch; i++) {
			int rc = s->list(s->arg, b, i, 0);
			if (rc)
				return rc;
		}
		int rc = s->work_on(s->arg, b);
		if (rc)
			return rc;
	}
	return 0;
}

int ibr_pipeline(unsigned threads, unsigned batches, unsigned per_batch,
		 int (*list)(void *arg, unsigned batch, unsigned item,
			     unsigned worker),
		 int (*work_on)(void *arg, unsigned batch), void *arg)
{
	unsigned n = ibr_parallel_workers(threads, per_batch + 1), started = 1;
	struct stream_worker w[IBR_MAX_THREADS];    /* no allocation to fail */
	struct stream s = {
		.list = list, .work_on = work_on, .arg = arg,
		.batches = batches, .per_batch = per_batch,
		.failed = batches * per_batch,
	};
	int rc;

	if (batches == 0)
		return 0;
	if (n == 1 || pthread_mutex_init(&s.lock, NULL) != 0)
		return sequence_alone(&s);
	if (pthread_cond_init(&s.changed, NULL) != 0) {
		pthread_mutex_destroy(&s.lock);
		return sequence_alone(&s);
	}
	/* worker ids stay dense: one that cannot start ends the team */
	for (; started < n; started++) {
		w[started] = (struct stream_worker){ .s = &s, .id = started };
		if (pthread_create(&w[started].thread, NULL, stream_lister,
				   &w[started]) != 0)
			break;
	}
	rc = stream_sequence(&s);
	for (unsigned i = 1; i < started; i++)
		pthread_join(w[i].thread, NULL);
	pthread_cond_destroy(&s.changed);
	pthread_mutex_destroy(&s.lock);
	return rc;
}
