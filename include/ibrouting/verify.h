/*
 * verify.h - an independent check of any set of forwarding tables and
 * designated DLIDs (doc/design.md, "Contracts").
 *
 * The verifier trusts nothing the engine says: it walks the tables.
 *  - delivery and loop-freedom: from every switch, for every LID of every
 *    range (the base and those above it, multi-LID engines' renamed LIDs
 *    alike) and every switch LID, the walk reaches the LID's owner (but
 *    at a CA port's switch towards a CA port's LID where the root set
 *    leaves no legal route: no_legal_path); no walk revisits a switch, no
 *    entry names an unconnected port, port 0 only at the owner; a LID
 *    nobody owns has IBR_NO_PATH everywhere;
 *  - management routes (management.h): where a root set leaves a switch
 *    no legal route to a LID, its entry is a management route (counted);
 *    one at a CA port's switch towards a CA port's LID would carry data
 *    off up*-down* and is a finding (illegal_data);
 *  - deadlock-freedom on one VL: the channel dependency graph of the
 *    walks from every switch with a legal route to the LID (every switch
 *    without a root set) is acyclic: every walk data can take, and more;
 *  - designated DLIDs: every (source end port, destination end port) pair
 *    has a DLID inside the destination's range whose walk from the
 *    source's switch delivers (checked walk by walk for DLIDs above the
 *    base); the designated paths' lengths and link load
 *    under uniform all-to-all traffic are reported.
 * It fails closed: ibr_verify() returns 0 only when the whole check ran;
 * any allocation failure is an error, never a clean report.
 * Findings are counted per kind; the first few are kept as sentences that
 * name the switch GUID, the LID and, for a cycle, its channels.
 */
#ifndef IBROUTING_VERIFY_H
#define IBROUTING_VERIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "ibrouting/fabric.h"
#include "ibrouting/metrics.h"
#include "ibrouting/result.h"

#define IBR_VERIFY_MAX_MESSAGES 8

struct ibr_verify_report {
	uint64_t bad_port;       /* entry names a port with no link (or 0 off-owner) */
	uint64_t loops;          /* walk revisits a switch */
	uint64_t unreachable;    /* owned LID with IBR_NO_PATH somewhere on the walk */
	uint64_t cycles;         /* 1 if the CDG has a cycle (first one reported) */
	uint64_t bad_designated; /* designated DLID outside the range, or undelivered */
	/* What was checked, counted as the engine's entries are (fabric.h,
	 * ibr_lid_count): the LIDs walked (owned: every LID of every range;
	 * with ca_lids_only the CA ports'), of them those above a range's
	 * base, and walks = lids x switches; the LIDs owned by none, checked
	 * empty at every switch. */
	uint64_t lids, lids_above, unowned_lids;
	uint64_t walks;          /* (switch, LID) walks checked */
	uint64_t dependencies;   /* distinct channel dependencies */
	uint64_t changed;        /* ibr_verify_union: entries a and b differ in */
	/* channels on the longest chain of the channel dependency graph
	 * (a DAG when acyclic): the most inter-switch channels one packet
	 * can hold or wait for in a row; 0 with a cycle or a finding that
	 * stopped the graph */
	uint64_t longest_chain;
	/* IBR_NO_PATH at a CA port's switch towards a CA port's LID where
	 * r's root set leaves no legal route (no root above both switches):
	 * owed none, not a finding; see ibr_certify_report.no_legal_path */
	uint64_t no_legal_path;
	/* entries set where r's root set leaves no legal route: management
	 * routes (management.h), walked, outside the dependency graph */
	uint64_t management;
	/* such an entry at a CA port's switch towards a CA port's LID: the
	 * CA ports' data would leave up*-down* (a finding) */
	uint64_t illegal_data;
	/* end-port pairs with no root above both their switches (a CA on a
	 * root, an aggregation node on a spine): owed no route, not
	 * delivered, not a finding; only measured, with a root set */
	uint64_t pairs_owed_none;
	struct ibr_metrics designated;  /* the designated paths: length, load */
	unsigned num_messages;
	char messages[IBR_VERIFY_MAX_MESSAGES][256];
};

struct ibr_verify_options {
	/* Skip measuring the designated paths' lengths and load (rep->
	 * designated stays zero).  The checks are the same: delivery of every
	 * designated DLID is checked from the walks either way, so the
	 * measurement adds no finding; the plugin, which logs no load, saves
	 * its cost. */
	bool check_only;
	/* Walk only the LIDs of CA ports: a switch LID's column is neither
	 * walked nor in the dependency graph.  For one LID half of tables
	 * the Double Scheme holds (double_scheme.h): the switch LIDs carry
	 * the function in force, which the half asked for may not be. */
	bool ca_lids_only;
};

/* opts may be NULL: check and measure. */
int ibr_verify(const struct ibr_fabric *f, const struct ibr_result *r,
	       const struct ibr_verify_options *opts,
	       struct ibr_verify_report *rep, struct ibr_error *err);

/* The union of two sets of tables for the same fabric, as switches hold
 * it while OpenSM replaces a by b block by block: a packet may take either
 * version's entry at every switch.  Counts in rep->loops the owned LIDs
 * whose union graph has a cycle, in rep->cycles a cycle of the channel
 * dependency graph of every mixed walk (searched only without loops), in
 * rep->changed the entries of owned LIDs that differ.  Delivery is not
 * checked: a and b are verified on their own.  Same failure rules as
 * ibr_verify(). */
int ibr_verify_union(const struct ibr_fabric *f, const struct ibr_result *a,
		     const struct ibr_result *b, struct ibr_verify_report *rep,
		     struct ibr_error *err);

/* As ibr_verify_union, and looping (a bit per LID, num_lids / 64 + 1
 * words, zeroed by the caller) gets the LIDs whose union graph loops. */
int ibr_verify_union_lids(const struct ibr_fabric *f,
			  const struct ibr_result *a,
			  const struct ibr_result *b,
			  struct ibr_verify_report *rep, uint64_t *looping,
			  struct ibr_error *err);

/* Every walk delivers (whatever the dependency graph says). */
static inline bool ibr_verify_delivers(const struct ibr_verify_report *rep)
{
	return rep->bad_port + rep->loops + rep->unreachable == 0;
}

static inline uint64_t ibr_verify_findings(const struct ibr_verify_report *rep)
{
	return rep->bad_port + rep->loops + rep->unreachable + rep->cycles +
	       rep->bad_designated + rep->illegal_data;
}

#endif
