/*
 * test_parallel.c - ibr_pipeline (util/parallel.h), the sequence whose
 * batches ahead are listed while it works on this one (fera's and dr's
 * routing):
 *   - every batch is worked on after all of its items were listed, and
 *     while it is, the listing of the batches ahead leaves its slot alone
 *     (batch b's is ibr_pipeline_slot(b)): the work reads exactly what
 *     the listing of its own batch wrote, and no item is listed before
 *     the batch that had its slot was worked on;
 *   - the work runs in batch order, one batch at a time, and the result
 *     of a computation that depends on that order is the same for 1, 2,
 *     3 and 7 threads as the plain sequence gives;
 *   - a list task's worker number is below ibr_parallel_workers(threads,
 *     per_batch + 1), the slots a caller sizes its scratch by;
 *   - a failure stops the sequence where the sequence meets it: a list
 *     failure of batch b + 1 is reported after work on b succeeded, a
 *     failure of the work on b before the listing of the batches ahead
 *     of it, and no later batch is worked on;
 *   - no batch, no call.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "util/parallel.h"

#define BATCHES 37u
#define ITEMS 5u

struct seq {
	unsigned threads;
	/* a slot of items per batch in flight, as the engines keep */
	uint64_t slot[IBR_PIPELINE_DEPTH][ITEMS];
	atomic_uint listed[BATCHES];    /* items of each batch listed */
	atomic_uint worked;             /* batches worked on, in order */
	atomic_uint early;              /* items listed into a slot in use */
	uint64_t hash;                  /* depends on the order of the work */
	unsigned fail_list_batch, fail_list_item, fail_work_batch;
	atomic_uint bad_worker;
	unsigned bad_slot;              /* the work read a slot not its own */
};

static uint64_t value_of(unsigned b, unsigned i)
{
	return (uint64_t)b * 1000003u + i * 7919u + 1;
}

static int list(void *arg, unsigned b, unsigned i, unsigned worker)
{
	struct seq *q = arg;

	if (worker >= ibr_parallel_workers(q->threads, ITEMS + 1))
		atomic_fetch_add(&q->bad_worker, 1);
	if (b == q->fail_list_batch && i == q->fail_list_item)
		return -2;
	if (b >= atomic_load(&q->worked) + IBR_PIPELINE_DEPTH)
		atomic_fetch_add(&q->early, 1);
	q->slot[ibr_pipeline_slot(b)][i] = value_of(b, i);
	atomic_fetch_add(&q->listed[b], 1);
	return 0;
}

static int work_on(void *arg, unsigned b)
{
	struct seq *q = arg;

	if (b != atomic_load(&q->worked) || atomic_load(&q->listed[b]) != ITEMS)
		return -9;      /* out of order, or before its listing */
	if (b == q->fail_work_batch)
		return -1;
	for (unsigned i = 0; i < ITEMS; i++) {
		/* the batches ahead are being listed into other slots now */
		if (q->slot[ibr_pipeline_slot(b)][i] != value_of(b, i))
			q->bad_slot++;
		q->hash = q->hash * 31 + q->slot[ibr_pipeline_slot(b)][i];
	}
	atomic_fetch_add(&q->worked, 1);
	return 0;
}

static struct seq run(unsigned threads, unsigned fail_list_batch,
		      unsigned fail_list_item, unsigned fail_work_batch,
		      int *rc)
{
	struct seq q;

	memset(&q, 0, sizeof(q));
	q.threads = threads;
	q.fail_list_batch = fail_list_batch;
	q.fail_list_item = fail_list_item;
	q.fail_work_batch = fail_work_batch;
	*rc = ibr_pipeline(threads, BATCHES, ITEMS, list, work_on, &q);
	return q;
}

static void test_order_and_result(void **state)
{
	const unsigned counts[] = { 1, 2, 3, 7 };
	uint64_t expected = 0;

	(void)state;
	for (unsigned b = 0; b < BATCHES; b++)
		for (unsigned i = 0; i < ITEMS; i++)
			expected = expected * 31 + value_of(b, i);
	for (unsigned k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		/* several runs: the scheduling differs, the result must not */
		for (int again = 0; again < 20; again++) {
			int rc;
			struct seq q = run(counts[k], BATCHES, 0, BATCHES, &rc);
			assert_int_equal(rc, 0);
			assert_int_equal(q.worked, BATCHES);
			assert_int_equal(q.bad_slot, 0);
			assert_int_equal(atomic_load(&q.early), 0);
			assert_int_equal(atomic_load(&q.bad_worker), 0);
			assert_true(q.hash == expected);
		}
	}
}

static void test_failures_where_the_sequence_meets_them(void **state)
{
	(void)state;
	for (unsigned threads = 1; threads <= 3; threads++) {
		int rc;
		struct seq q;

		/* item 2 of batch 3 cannot be listed: batches 0-2 done */
		q = run(threads, 3, 2, BATCHES, &rc);
		assert_int_equal(rc, -2);
		assert_int_equal(q.worked, 3);
		/* the first batch's listing fails: nothing is worked on */
		q = run(threads, 0, 4, BATCHES, &rc);
		assert_int_equal(rc, -2);
		assert_int_equal(q.worked, 0);
		/* work on 2 fails while batch 3's listing fails ahead of
		 * it: the sequence meets the work's failure first */
		q = run(threads, 3, 0, 2, &rc);
		assert_int_equal(rc, -1);
		assert_int_equal(q.worked, 2);
		/* the last batch's work fails: nothing is listed after it */
		q = run(threads, BATCHES, 0, BATCHES - 1, &rc);
		assert_int_equal(rc, -1);
		assert_int_equal(q.worked, BATCHES - 1);
	}
}

static void test_no_batch(void **state)
{
	struct seq q;

	(void)state;
	memset(&q, 0, sizeof(q));
	q.threads = 2;
	q.fail_list_batch = 0;      /* any call would fail */
	q.fail_work_batch = 0;
	assert_int_equal(ibr_pipeline(2, 0, ITEMS, list, work_on, &q), 0);
	assert_int_equal(q.worked, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_and_result),
		cmocka_unit_test(test_failures_where_the_sequence_meets_them),
		cmocka_unit_test(test_no_batch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
