/*
 * result.h - what a routing run produces: forwarding tables stored by
 * destination, the designated DLID of every end-port pair, and figures.
 *
 * Tables (doc/design.md, "Tables"): one column per LID of the LID space
 * 0..max_lid, every LID of every port's range included:
 *
 *   col[lid * num_switches + s] = output port of switch index s for `lid`
 *                                 (0 = the switch itself, IBR_NO_PATH = none)
 *
 * Engines build by destination and every consumer (verifier, metrics, hop
 * tables, dumps) walks one destination at a time, so the column is the
 * unit; a switch's row exists only where OpenSM or an LFT dump needs it
 * (ibr_result_rows()).
 *
 * Designated DLIDs: a host sending from end port `src` to end port `dst`
 * uses DLID base_lid(dst) + offset(src, dst).  With no map every offset is
 * 0 (single-LID engines).  A map holds one offset per (source, destination
 * end port); sources are end ports, or the source's switch when every CA
 * on a switch shares its paths (by_switch).
 *
 * Engine figures (explicit entries, default ports, LIDs needed, pairs
 * moved, ...) are named counters in `stats`, printed as "VALUE NAME" in
 * the order the engine set them; no engine adds fields here.  Its phases
 * (the path search, the selection, ...) are named wall-clock times in
 * the order they began, for the summary and OpenSM's log: where the
 * time went, without a profiler.  They never change a table.
 */
#ifndef IBROUTING_RESULT_H
#define IBROUTING_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ibrouting/fabric.h"
#include "ibrouting/updown.h"

#define IBR_MAX_STATS 12
#define IBR_MAX_PHASES 8

struct ibr_stat {
	const char *name;          /* plural noun phrase: "explicit entries" */
	const char *one;           /* its singular ("explicit entry"), or NULL */
	uint64_t value;
};

/* A phase of an engine's run: name a string literal that says what ran
 * ("path search", "FERa's base tree and its load, beside the paths"). */
struct ibr_phase {
	const char *name;
	double ms;
};

struct ibr_stats {
	double compute_ms;         /* orientation (when built) and engine */
	unsigned count;
	struct ibr_stat item[IBR_MAX_STATS];
	unsigned phases;
	struct ibr_phase phase[IBR_MAX_PHASES];
};

/* What the routing layer did to the LIDs above the bases of a multi-LID
 * engine's ranges (ranges.h, ibr_ranges_complete): filled after the
 * engine, zero for single-LID engines and tables read from a file. */
struct ibr_range_figures {
	bool completed;            /* the ranges were completed */
	unsigned lids;             /* LIDs of the largest range (2^LMC) */
	uint64_t entries;          /* (switch, LID above a base) entries */
	uint64_t set;              /* of them set or changed by the completion */
	uint64_t owed_none;        /* left IBR_NO_PATH: no legal route exists */
	/* entries whose walk held (a designated path) changed by the
	 * mending's last resort, the base's walks (repair.h): 0 expected */
	uint64_t held_changed;
	/* (switch, CA port) pairs, the switch not the port's own and routed
	 * on the base LID; the distinct routes their range's LIDs take,
	 * summed; the pairs on more than one */
	uint64_t pairs, routes, pairs_diverse;
};

/* Management routes (management.h, ibr_management_routes): entries set
 * where the switch owes the LID no legal route, and those left unset
 * because they would carry a CA port's data. */
struct ibr_management_figures {
	uint64_t set;
	uint64_t owed_none;
};

struct ibr_designated {
	uint8_t *offset;           /* NULL: every pair uses the base LID */
	bool by_switch;            /* rows are source switches, not end ports */
	uint32_t rows, cols;       /* rows x cols offsets; cols = end ports */
};

struct ibr_result {
	uint32_t num_switches;     /* entries per column */
	uint32_t num_lids;         /* columns: max_lid + 1 */
	uint8_t *col;              /* num_lids * num_switches, see above */
	struct ibr_designated designated;
	uint32_t root;             /* switch index of the up/down root: roots[0] */
	uint32_t *roots;           /* the orientation's root set (owned), */
	uint32_t num_roots;        /*   0 when unknown (tables read from a file) */
	struct ibr_stats stats;
	struct ibr_range_figures ranges;
	struct ibr_management_figures management;
};

/* Allocates the columns for fabric f, every entry IBR_NO_PATH. */
int ibr_result_init(struct ibr_result *r, const struct ibr_fabric *f,
		    struct ibr_error *err);
void ibr_result_free(struct ibr_result *r);

/* Records the root set the tables were routed under (copied); root
 * becomes roots[0]. */
int ibr_result_set_roots(struct ibr_result *r, const uint32_t *roots,
			 uint32_t n, struct ibr_error *err);

/* The orientation the tables of r were routed under (updown.h): from r's
 * root set, or from r->root alone when r records none. */
int ibr_updown_of_result(const struct ibr_fabric *f, const struct ibr_result *r,
			 struct ibr_updown *ud, struct ibr_error *err);

/* dst (uninitialised, or freed) becomes a deep copy of src: tables,
 * designated map, root, figures. */
int ibr_result_copy(struct ibr_result *dst, const struct ibr_result *src,
		    struct ibr_error *err);

/* out (uninitialised) becomes r, tables made for another fabric whose
 * switch i has GUID guid[i], as tables of f: each switch of f that was
 * there keeps its row (by GUID), LID by LID, as the switch holds it (an
 * entry to a port whose link is gone leads nowhere); a new switch has no
 * entry; the root set is mapped by GUID (roots gone are left out); no
 * designated map. */
int ibr_result_onto(const struct ibr_result *r, const uint64_t *guid,
		    const struct ibr_fabric *f, struct ibr_result *out,
		    struct ibr_error *err);

/* LIDs per LinearForwardingTable block, the unit a switch's LFT is sent
 * in. */
#define IBR_LFT_BLOCK 64

/* The entries in which a and b (tables of one fabric) differ, and the LFT
 * blocks holding one of them (blocks may be NULL). */
void ibr_result_difference(const struct ibr_result *a,
			   const struct ibr_result *b, uint64_t *entries,
			   uint64_t *blocks);

static inline uint8_t *ibr_column(const struct ibr_result *r, ibr_lid_t lid)
{
	return r->col + (size_t)lid * r->num_switches;
}

static inline uint8_t ibr_entry(const struct ibr_result *r, uint32_t s,
				ibr_lid_t lid)
{
	return r->col[(size_t)lid * r->num_switches + s];
}

static inline void ibr_set_entry(struct ibr_result *r, uint32_t s,
				 ibr_lid_t lid, uint8_t port)
{
	r->col[(size_t)lid * r->num_switches + s] = port;
}

/* Every switch's row, written into rows[s][0 .. row_len[s]) (entries past
 * num_lids are left alone, LIDs past row_len[s] are not written): the
 * linear forwarding tables OpenSM pushes and the LFT dump prints.
 * Blocked, so both sides stay in cache. */
void ibr_result_rows(const struct ibr_result *r, uint8_t *const *rows,
		     const uint32_t *row_len);

/* ---- designated DLIDs ---------------------------------------------- */

/* Creates the map, every offset 0. */
int ibr_designated_init(struct ibr_result *r, const struct ibr_fabric *f,
			bool by_switch, struct ibr_error *err);

/* The map's row for source end port src. */
static inline uint32_t ibr_designated_row(const struct ibr_result *r,
					  const struct ibr_fabric *f,
					  uint32_t src)
{
	return r->designated.by_switch ? f->end_ports[src].sw : src;
}

static inline uint8_t ibr_designated_offset(const struct ibr_result *r,
					    const struct ibr_fabric *f,
					    uint32_t src, uint32_t dst)
{
	if (!r->designated.offset)
		return 0;
	return r->designated.offset[(size_t)ibr_designated_row(r, f, src) *
				    r->designated.cols + dst];
}

/* The DLID end port src uses to reach end port dst. */
static inline ibr_lid_t ibr_designated_dlid(const struct ibr_result *r,
					    const struct ibr_fabric *f,
					    uint32_t src, uint32_t dst)
{
	return ibr_end_port_lid(f, dst) + ibr_designated_offset(r, f, src, dst);
}

/* ---- engine figures ------------------------------------------------ */

/* Sets (or replaces) the counter `name`; name must outlive the result
 * (a string literal).  Ignored beyond IBR_MAX_STATS counters. */
void ibr_stat_set(struct ibr_result *r, const char *name, uint64_t value);
/* The same for a count of things, printed "1 ONE" when value is 1 and
 * "N NAME" otherwise ("1 renamed LID", "2 renamed LIDs"); looked up by
 * NAME. */
void ibr_stat_count(struct ibr_result *r, const char *one, const char *name,
		    uint64_t value);

/* Adds ms to the phase `name` (a string literal), a new one after the
 * others.  Ignored beyond IBR_MAX_PHASES phases. */
void ibr_phase_add(struct ibr_result *r, const char *name, double ms);

/* "path search 1984.2 ms; path selection 4373.0 ms" (empty when the
 * engine names none; a name may hold commas); returns buf. */
const char *ibr_phases_format(const struct ibr_result *r, char *buf,
			      size_t len);

/* The counter's value, or `missing` when the engine did not set it. */
uint64_t ibr_stat_get(const struct ibr_result *r, const char *name,
		      uint64_t missing);

/* "50 explicit entries, 7 default ports" (empty when none); returns buf. */
const char *ibr_stats_format(const struct ibr_result *r, char *buf,
			     size_t len);

#endif
