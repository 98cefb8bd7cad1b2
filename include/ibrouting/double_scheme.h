/*
 * double_scheme.h - the Double Scheme (papers/double-scheme-
 * reconfiguration.md, Pinkston, Zafar, Duato): two routing functions in
 * the switches at once, each on its own half of every CA port's LIDs and
 * its own set of SLs (so of VLs), the new one pushed on the half nobody
 * uses while the prior one keeps carrying traffic on the other.
 *
 * LID halves.  With LMC L >= 1 a CA port owns base .. base + 2^L - 1; the
 * top bit of the offset names the half:
 *   half 0 = base .. base + 2^(L-1) - 1,
 *   half 1 = base + 2^(L-1) .. base + 2^L - 1.
 * A function lives on one half and has L - 1 bits of offset of its own:
 * an engine that uses several LIDs per destination (dr, colorl) gets
 * 2^(L-1) of them per half, not 2^L (dr at LMC 2: 2 LIDs per port per
 * half instead of 4; at LMC 1 one, i.e. no renaming at all).  This is the
 * paper's cost (§3: "only half of the total possible number of LIDs and
 * routing table entries are useable during normal operation").
 *
 * Switch LIDs (port 0, one LID: LMC applies to CA ports) cannot be split:
 * they carry the function in force.  They carry no CA data traffic (a
 * host addresses CA ports); their traffic is the SM's and agents' (LID-
 * routed SMPs on VL15, which has no credits and so cannot deadlock).
 *
 * A half is routed on a view: a copy of the fabric with LMC L - 1 whose
 * CA ports' base LIDs are base + half * 2^(L-1) (still aligned), switch
 * LIDs as they are.  In the view every LID has its real number, so an
 * engine routed on it needs no translation of its columns; its
 * designated offsets are relative to the half's base and become
 * offset + half * 2^(L-1) in the full tables.  Same node ids, switch
 * indexes and end-port indexes as the fabric (built in the same order).
 *
 * Invariants:
 *  - ibr_ds_place() writes exactly the columns of the half's CA LIDs
 *    (and the switch LIDs when asked); every other column of `out` stays
 *    as the caller gave it (the function in force on the other half);
 *  - ibr_ds_extract(ibr_ds_place(x)) == x on the half's LIDs, designated
 *    map included;
 *  - ibr_ds_check() verifies each function on its own half's view, with
 *    the verifier of every engine: delivery of every LID of the half and
 *    of every designated DLID, and the channel dependency graph of that
 *    function alone.  The two graphs are checked apart because no packet
 *    crosses from one to the other (see double_scheme.c for why, and for
 *    the dependencies the paper allows between the sets).
 */
#ifndef IBROUTING_DOUBLE_SCHEME_H
#define IBROUTING_DOUBLE_SCHEME_H

#include <stdbool.h>
#include <stdint.h>

#include "ibrouting/error.h"
#include "ibrouting/fabric.h"
#include "ibrouting/result.h"
#include "ibrouting/verify.h"

/* OpenSM's packet_life_time default (osm_base.h,
 * OSM_DEFAULT_SWITCH_PACKET_LIFE): a switch drops a packet it has held
 * longer than 4.096 us * 2^value; above 19 the limit is off. */
#define IBR_DS_PACKET_LIFE_DEFAULT 18
#define IBR_DS_PACKET_LIFE_MAX 19

/* The first LID of `half` of a port whose base is `base` at LMC lmc. */
static inline ibr_lid_t ibr_ds_half_base(ibr_lid_t base, unsigned lmc,
					 unsigned half)
{
	return (ibr_lid_t)(base + (half ? 1u << (lmc - 1) : 0));
}

/* *view becomes the view of `half` of f (see above).  Errors: LMC 0 (no
 * halves), switches with 2^LMC LIDs (lmc_esp0: not split here), half > 1,
 * allocation. */
int ibr_ds_view(const struct ibr_fabric *f, unsigned half,
		struct ibr_fabric **view, struct ibr_error *err);

/* hr, tables routed on `view` (the view of some half of f), goes into
 * out, tables of f: the columns of the half's CA LIDs, the switch LIDs'
 * when switch_lids, the designated map (offsets shifted onto the half),
 * roots and figures; the rest of out is left as it is. */
int ibr_ds_place(const struct ibr_fabric *f, const struct ibr_fabric *view,
		 const struct ibr_result *hr, bool switch_lids,
		 struct ibr_result *out, struct ibr_error *err);

/* Every CA port's LIDs of the other half than `half` in full (tables of
 * f) get the columns of its LIDs of `half`, LID for LID: the same walks,
 * so the same dependency graph.  For the provisional pass of the Double
 * Scheme: the free half would otherwise be empty, and it holds every
 * port's base LID, which hosts use without asking the SA (SA answers go
 * to the requester's base LID): after a change made while half 1 is in
 * force, nothing would reach a base LID until the next transition pushes
 * its new function there.  A later PUSH_NEW overwrites these columns. */
void ibr_ds_mirror(const struct ibr_fabric *f, unsigned half,
		   struct ibr_result *full);

/* The inverse: hr (uninitialised) becomes the tables of view held in
 * full (tables of f): the columns of every LID the view owns (the half's
 * CA LIDs, the switch LIDs), the designated map shifted back (an offset
 * outside the half stays outside, for the verifier to name), roots. */
int ibr_ds_extract(const struct ibr_fabric *f, const struct ibr_fabric *view,
		   const struct ibr_result *full, struct ibr_result *hr,
		   struct ibr_error *err);

/* The check before the new half is pushed: the prior function (tables
 * prior_r of prior_f, on half prior_half) on VL set A, the new one (new_r of
 * new_f, on the other half) on VL set B.  prior_f and new_f are the same
 * fabric, or, after a topology change, the fabric each function was made
 * for: the prior function's packets in flight use channels of its graph on
 * prior_f that survive, a subgraph of an acyclic graph being acyclic. */
struct ibr_ds_check {
	unsigned prior_half;
	struct ibr_verify_report prior_rep, new_rep;  /* on their views */
};

int ibr_ds_check(const struct ibr_fabric *prior_f, const struct ibr_result *prior_r,
		 unsigned prior_half, const struct ibr_fabric *new_f,
		 const struct ibr_result *new_r, struct ibr_ds_check *c,
		 struct ibr_error *err);

static inline bool ibr_ds_check_clean(const struct ibr_ds_check *c)
{
	return ibr_verify_findings(&c->prior_rep) == 0 &&
	       ibr_verify_findings(&c->new_rep) == 0;
}

/* "the new function (half 1, VL set B): credit loop: ..." for the first
 * finding into buf; "" when clean.  Returns buf. */
const char *ibr_ds_check_finding(const struct ibr_ds_check *c, char *buf,
				 size_t len);

/* The drain bound of §3.2 as a time: a packet of the prior function holds
 * at most `chain` inter-switch channels in a row (the longest chain of its
 * dependency graph), so it is in at most chain + 1 switches, each of
 * which drops it after 4.096 us * 2^packet_life.  Seconds; a negative
 * value when packet_life > IBR_DS_PACKET_LIFE_MAX (no limit, no bound). */
double ibr_ds_drain_bound(uint64_t chain, unsigned packet_life);

/* SL sets: SL bit 3 names the LID half (set h = SLs c + 8h, c = 0..7 the
 * class).  The SL of a path whose DLID lies in `half`, from OpenSM's
 * hint (its class kept). */
static inline uint8_t ibr_ds_path_sl(uint8_t hint, unsigned half)
{
	return (uint8_t)((hint & 7u) | ((half & 1u) << 3));
}

/* The half of CA LID `lid` at LMC lmc >= 1 (base LIDs aligned). */
static inline unsigned ibr_ds_lid_half(ibr_lid_t lid, unsigned lmc)
{
	return lmc ? (lid >> (lmc - 1)) & 1u : 0;
}

/* A port's SL-to-VL table (doc/double-scheme-plugin.md 5.2).  t: the
 * configured table (VL per SL); data_vls: the port's data VLs (1, 2, 4,
 * 8 or 15, from OperVLs).  Not restricted: out = t.  Restricted (during
 * the Double Scheme): with H = data_vls / 2, the SLs of prior_half's set go
 * to VL set A = [0, H), the others to set B = [H, 2H): VL t[c] mod H, plus
 * H for set B (c = sl & 7); a VL 15 (drop) stays 15; fewer than 2 data VLs
 * leave t as it is (the plugin refuses the Double Scheme then). */
void ibr_ds_sl2vl(const uint8_t t[16], unsigned data_vls, bool restricted,
		  unsigned prior_half, uint8_t out[16]);

/* Whether table t (VL per SL) keeps the two SL sets apart as a restricted
 * table of a port with data_vls data VLs does: every SL of prior_half's set
 * on VL set A = [0, H) or 15, every other SL on set B = [H, 2H) or 15.
 * What the drain bound needs of every port before its clock may start
 * (doc/double-scheme-plugin.md R6): OpenSM zeroes its copy of a table
 * when it sends a Set and refills it from the answer only, so a Set that
 * failed leaves all SLs on VL 0, which is not restricted. */
bool ibr_ds_sl2vl_restricted(const uint8_t t[16], unsigned data_vls,
			     unsigned prior_half);

#endif
