/*
 * check.c - the check policy (see check.h): certificate, then the full
 * check when it fails; or the full check alone.
 *
 * Invariant: a verdict other than IBR_NOT_CHECKED means the tables were
 * judged whole; out->rep holds the findings of the check that decided
 * (none when the certificate passed: it implies what the full check
 * would show).
 */
#include <string.h>

#include "ibrouting/check.h"
#include "ibrouting/metrics.h"
#include "util/parallel.h"

/* The certificate and the designated-DLID load do not depend on each
 * other: with several threads they run at once (task 0 writes out->cert,
 * task 1 out->rep.designated, each with its own error). */
struct cert_and_load {
	const struct ibr_fabric *f;
	const struct ibr_result *r;
	struct ibr_check *out;
	struct ibr_error err[2];
};

static int cert_or_load(void *arg, unsigned t, unsigned worker)
{
	struct cert_and_load *c = arg;

	(void)worker;
	if (t == 0)
		return ibr_certify(c->f, c->r, &c->out->cert, &c->err[0]);
	return ibr_metrics_compute(c->f, c->r, &c->out->rep.designated,
				   &c->err[1]);
}

int ibr_check_tables(const struct ibr_fabric *f, const struct ibr_result *r,
		     const struct ibr_engine *e, enum ibr_check_method method,
		     unsigned threads, struct ibr_check *out,
		     struct ibr_error *err)
{
	const struct ibr_verify_options opts = {
		.check_only = !e->designates_dlids };
	struct cert_and_load c = { .f = f, .r = r, .out = out };

	memset(out, 0, sizeof(*out));
	out->verdict = IBR_FULL_CHECK;
	if (method == IBR_CHECK_CERTIFICATE) {
		/* the load only where it is reported: multi-LID engines */
		if (ibr_parallel(threads, opts.check_only ? 1 : 2,
				 cert_or_load, &c))
			return ibr_error_set(err, "%s", c.err[0].msg[0] ?
					     c.err[0].msg : c.err[1].msg);
		if (ibr_certify_findings(&out->cert) == 0) {
			out->verdict = IBR_CERTIFIED;
			return 0;
		}
		out->verdict = IBR_FULL_AFTER_CERT;
		memset(&out->rep, 0, sizeof(out->rep));
	}
	return ibr_verify(f, r, &opts, &out->rep, err);
}

const char *ibr_check_verdict_text(enum ibr_check_verdict v)
{
	switch (v) {
	case IBR_CERTIFIED:
		return "verified: legal up*/down* (certificate): no loop, all "
		       "delivered, acyclic";
	case IBR_FULL_CHECK:
		return "verified: no loop, all delivered, acyclic (full check)";
	case IBR_FULL_AFTER_CERT:
		return "verified: no loop, all delivered, acyclic (full check; "
		       "not legal up*/down* under the run's orientation)";
	case IBR_NOT_CHECKED:
		break;
	}
	return "not verified (verify_before_push no)";
}
