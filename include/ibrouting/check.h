/*
 * check.h - the check policy applied to tables before they are used: the
 * certificate first, the full verifier when it fails (or always), written
 * once for the plugin (before OpenSM's push) and the tool (its `check`
 * line), so both judge tables alike.
 *
 * certificate  certify.h: one pass per LID proves every walk a legal
 *              up*-down* route under the tables' root set, which implies
 *              delivery, no loop and an acyclic channel dependency graph;
 *              tables it rejects go to the full check, which decides:
 *              sound tables that are not legal under that orientation
 *              pass (IBR_FULL_AFTER_CERT, with the certificate's report
 *              saying why it failed), broken ones fail;
 * full         verify.h always: every walk, the dependency graph, a cycle
 *              search.
 * Engines that designate DLIDs (engine.h, designates_dlids) also get the
 * load along their designated DLIDs measured (report.designated), which
 * says what their DLIDs buy; the others skip that measure.
 */
#ifndef IBROUTING_CHECK_H
#define IBROUTING_CHECK_H

#include <stdbool.h>

#include "ibrouting/certify.h"
#include "ibrouting/engine.h"
#include "ibrouting/verify.h"

enum ibr_check_method {
	IBR_CHECK_CERTIFICATE,  /* the full check if the certificate fails */
	IBR_CHECK_FULL,
};

enum ibr_check_verdict {
	IBR_NOT_CHECKED,        /* nothing ran (the caller's choice) */
	IBR_CERTIFIED,          /* the certificate passed */
	IBR_FULL_CHECK,         /* the full check ran, asked for */
	IBR_FULL_AFTER_CERT,    /* the full check ran, the certificate failed */
};

struct ibr_check {
	enum ibr_check_verdict verdict;
	struct ibr_certify_report cert;   /* when the certificate ran */
	struct ibr_verify_report rep;     /* the full check's findings, and
					   * the designated load when measured */
};

/* Checks r (routed by e on f) with `method`, on at most `threads` worker
 * threads (the same verdict for any count).  0 with the verdict and the
 * findings (ibr_verify_findings(&out->rep) == 0: the tables may be used);
 * -1 when a check could not run (no memory). */
int ibr_check_tables(const struct ibr_fabric *f, const struct ibr_result *r,
		     const struct ibr_engine *e, enum ibr_check_method method,
		     unsigned threads, struct ibr_check *out,
		     struct ibr_error *err);

/* What was checked, in words for a log line. */
const char *ibr_check_verdict_text(enum ibr_check_verdict v);

#endif
