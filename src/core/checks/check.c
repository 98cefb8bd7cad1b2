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

int ibr_check_tables(const struct ibr_fabric *f, const struct ibr_result *r,
		     const struct ibr_engine *e, enum ibr_check_method method,
		     struct ibr_check *out, struct ibr_error *err)
{
	const struct ibr_verify_options opts = { .check_only = e->min_lmc == 0 };

	memset(out, 0, sizeof(*out));
	out->verdict = IBR_FULL_CHECK;
	if (method == IBR_CHECK_CERTIFICATE) {
		if (ibr_certify(f, r, &out->cert, err))
			return -1;
		if (ibr_certify_findings(&out->cert) == 0) {
			out->verdict = IBR_CERTIFIED;
			return opts.check_only ? 0 :
			       ibr_metrics_compute(f, r, &out->rep.designated,
						   err);
		}
		out->verdict = IBR_FULL_AFTER_CERT;
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
