/*
 * result.h - what an engine produces: one linear forwarding table per switch.
 *
 * lft[s * lft_size + lid] is the output port of switch index s for `lid`
 * (0 = the switch itself, IBR_NO_PATH = no route).  lft_size = max_lid + 1
 * of the fabric.  Engines that think in explicit entries plus a default port
 * (PIRa) also fill default_port[] and the `explicit_bits` bitmap so the
 * paper's own metric can be reported; the linear table is always complete.
 *
 * Designated DLIDs: an application sending from end port a to end port b
 * uses base_lid(b) + dlid_offset(a, b).  Single-LID engines leave
 * dlid_offset NULL (offset 0 everywhere).  Multi-LID engines allocate it
 * with ibr_result_alloc_offsets(): one byte per (source, destination end
 * port), where the source is the source end port's switch when
 * offsets_by_switch is set (all CAs on one switch share their paths).
 */
#ifndef IBROUTING_RESULT_H
#define IBROUTING_RESULT_H

#include <stdbool.h>
#include <stdint.h>

#include "ibrouting/fabric.h"

struct ibr_stats {
	uint64_t explicit_entries; /* table entries the engine computed */
	uint32_t default_ports;    /* switches given a default port */
	uint32_t lids_used;        /* distinct DLIDs the routes use */
	double compute_ms;         /* engine time, orientation included */
};

struct ibr_result {
	uint32_t num_switches;
	uint32_t lft_size;          /* entries per switch: max_lid + 1 */
	uint8_t *lft;               /* num_switches * lft_size */
	uint8_t *default_port;      /* per switch, IBR_NO_PATH = none; may be NULL */
	uint8_t *explicit_bits;     /* bit per lft entry, rows of
				       ibr_explicit_stride() bits; may be NULL */
	uint8_t *dlid_offset;       /* may be NULL, see above */
	bool offsets_by_switch;
	uint32_t root;              /* switch index of the up/down root */
	struct ibr_stats stats;
};

/* Allocates the tables, every entry IBR_NO_PATH. */
int ibr_result_init(struct ibr_result *r, const struct ibr_fabric *f,
		    struct ibr_error *err);
int ibr_result_alloc_defaults(struct ibr_result *r, struct ibr_error *err);
int ibr_result_alloc_offsets(struct ibr_result *r, const struct ibr_fabric *f,
			     bool by_switch, struct ibr_error *err);
void ibr_result_free(struct ibr_result *r);

static inline uint8_t *ibr_lft_row(const struct ibr_result *r, uint32_t s)
{
	return r->lft + (uint64_t)s * r->lft_size;
}

/* Bits per row of explicit_bits: lft_size rounded up to 64, so every row
 * starts on a byte (and word) boundary and can be filled a byte at once. */
static inline uint64_t ibr_explicit_stride(const struct ibr_result *r)
{
	return ((uint64_t)r->lft_size + 63) & ~(uint64_t)63;
}

static inline bool ibr_result_is_explicit(const struct ibr_result *r,
					  uint32_t s, ibr_lid_t lid)
{
	uint64_t bit = (uint64_t)s * ibr_explicit_stride(r) + lid;
	return r->explicit_bits == NULL ||
	       (r->explicit_bits[bit >> 3] >> (bit & 7)) & 1;
}

/* The DLID end port `src` uses to reach end port `dst`. */
ibr_lid_t ibr_result_designated_dlid(const struct ibr_result *r,
				     const struct ibr_fabric *f,
				     uint32_t src, uint32_t dst);

/* One hop of a walk: where a packet for `lid` goes from switch s. */
enum ibr_step {
	IBR_STEP_ARRIVED,   /* delivered to the LID's owner */
	IBR_STEP_NEXT,      /* forwarded to switch *next */
	IBR_STEP_NO_PATH,   /* entry is IBR_NO_PATH */
	IBR_STEP_BAD_PORT,  /* port has no link, or is beyond the switch */
	IBR_STEP_WRONG_END, /* delivered to a CA or switch port 0 not owning lid */
};

enum ibr_step ibr_lft_step(const struct ibr_fabric *f,
			   const struct ibr_result *r, uint32_t s,
			   ibr_lid_t lid, uint32_t *next);

/* The same for a port already read from the table. */
enum ibr_step ibr_port_step(const struct ibr_fabric *f, uint32_t s,
			    ibr_lid_t lid, uint8_t port, uint32_t *next);

/* The tables by destination: col[lid * num_switches + s] = lft[s][lid].
 * Walks to one LID read one column; in the row-major tables they would
 * touch one cache line per switch.  NULL when out of memory. */
uint8_t *ibr_result_columns(const struct ibr_result *r);

/* The other way: lft[s][lid] = col[lid * num_switches + s] for every entry. */
void ibr_result_set_columns(struct ibr_result *r, const uint8_t *col);

/* Hop counts from every switch to `lid` along the tables: hops[s] is the
 * number of links a packet crosses from switch s to the LID's owner
 * (0 at the owning switch itself, 1 from a CA's switch to the CA), or
 * UINT8_MAX when the walk fails.  hops must hold num_switches bytes. */
void ibr_result_hops_to(const struct ibr_result *r, const struct ibr_fabric *f,
			ibr_lid_t lid, uint8_t *hops);

/* The same from the LID's column (column[s] = switch s's port for lid, as
 * ibr_result_columns() lays them out): for callers that walk many LIDs. */
void ibr_hops_along(const struct ibr_fabric *f, const uint8_t *column,
		    ibr_lid_t lid, uint8_t *hops);

#endif
