/*
 * verify.h - an independent check of any set of forwarding tables.
 *
 * The verifier trusts nothing the engine says: it walks the tables.
 *  - loop-freedom and delivery: every (switch, LID) entry that is not
 *    IBR_NO_PATH leads, port by port, to the LID's owner; no walk revisits
 *    a switch, no entry names an unconnected port, port 0 only at the owner;
 *  - connectivity: every assigned LID has a route from every switch;
 *  - deadlock-freedom: the channel dependency graph of the walks from every
 *    switch with CAs (or every switch) to every CA LID (and switch LIDs when
 *    asked) is acyclic.
 * Findings are counted per kind; the first few are kept as sentences that
 * name the switch GUID, the LID and, for a cycle, its channels.
 */
#ifndef IBROUTING_VERIFY_H
#define IBROUTING_VERIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "ibrouting/fabric.h"
#include "ibrouting/result.h"

#define IBR_VERIFY_MAX_MESSAGES 8

struct ibr_verify_options {
	bool all_sources;    /* CDG from every switch, not only switches with CAs */
	bool switch_lids;    /* CDG includes walks to switch LIDs */
};

struct ibr_verify_report {
	uint64_t bad_port;       /* entry names a port with no link (or 0 off-owner) */
	uint64_t loops;          /* walk revisits a switch */
	uint64_t unreachable;    /* owned LID with IBR_NO_PATH somewhere on the walk */
	uint64_t cycles;         /* 1 if the CDG has a cycle (first one reported) */
	uint64_t walks;          /* (switch, LID) walks checked */
	uint64_t dependencies;   /* distinct channel dependencies */
	unsigned num_messages;
	char messages[IBR_VERIFY_MAX_MESSAGES][256];
};

int ibr_verify(const struct ibr_fabric *f, const struct ibr_result *r,
	       const struct ibr_verify_options *opts,
	       struct ibr_verify_report *rep, struct ibr_error *err);

static inline uint64_t ibr_verify_findings(const struct ibr_verify_report *rep)
{
	return rep->bad_port + rep->loops + rep->unreachable + rep->cycles;
}

#endif
