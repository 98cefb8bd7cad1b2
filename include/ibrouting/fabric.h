/*
 * fabric.h - the fabric model every engine routes over.
 *
 * A fabric is a set of nodes (switches and channel adapters) whose ports are
 * joined by links.  It knows nothing of OpenSM: readers of topology files, the
 * generator and the OpenSM adapter all build it through the same small API:
 *
 *   f = ibr_fabric_new();
 *   sw = ibr_fabric_add_node(f, IBR_NODE_SWITCH, guid, nports, "desc");
 *   ...
 *   ibr_fabric_connect(f, sw, 3, ca, 1, &err);
 *   ibr_fabric_set_lid(f, ca, 1, lid, lmc);     (optional)
 *   ibr_fabric_finalize(f, lmc, &err);
 *
 * Finalizing is two steps, also callable on their own:
 *   ibr_lids_assign(f, lmc, &err)   (lids.h) validates the LIDs set and
 *                                   gives the missing ones as OpenSM would;
 *   ibr_fabric_index(f, &err)       indexes the fabric, LIDs as they are:
 *                                   every LID holder must have one (the
 *                                   OpenSM adapter, whose LIDs are OpenSM's,
 *                                   calls only this).
 *
 * Invariants after a successful ibr_fabric_index() (or _finalize()):
 *   - node ids are dense 0..num_nodes-1 in insertion order; switches also
 *     have a dense switch index 0..num_switches-1 (sw_node[] / node.sw_index)
 *     in ascending node GUID order, and every connected CA port an end-port
 *     index 0..num_end_ports-1 in the order of its switch's index, then
 *     the switch's port: both indexes are the same whatever order a
 *     reader or the OpenSM adapter added the nodes in, so routing, which
 *     reads only them, never depends on that order.
 *   - links are symmetric: port(a,p).remote = (b,q) iff port(b,q).remote = (a,p).
 *   - every switch owns exactly one LID (port 0, or 2^lmc with lmc_esp0);
 *     every connected CA port owns 2^lmc LIDs starting at an aligned base;
 *     LID ranges never overlap; lid_owner[] maps each LID to its end-point.
 *   - sw_adj is a CSR list of each switch's inter-switch links ordered by
 *     local port number; sw_cas lists the CA ports attached to each switch.
 *   - the switch graph is connected and every CA port hangs off a switch.
 *
 * A loopback cable, from a switch port to another port of the same switch,
 * is no link: no route can use it (a packet sent into it comes back to the
 * switch it left), so neither port is linked and every table leaves it
 * alone.  The fabric lists it (loopbacks[]) for the loaders to warn about,
 * as it lists what its reader let through (notes[]); a CA cabled to itself
 * is still an error.
 */
#ifndef IBROUTING_FABRIC_H
#define IBROUTING_FABRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ibrouting/error.h"
#include "ibrouting/guid_map.h"

#define IBR_NONE           UINT32_MAX /* no node / no index */
#define IBR_NO_PATH        0xFF       /* LFT entry: no route */
#define IBR_MAX_PORTS      254        /* highest physical port number */
#define IBR_MAX_UCAST_LID  0xBFFF     /* top of the unicast LID space */
#define IBR_MAX_LMC        7

typedef uint16_t ibr_lid_t;

enum ibr_node_type { IBR_NODE_CA = 1, IBR_NODE_SWITCH = 2 };

/* A link's active lane speed, as ibnetdiscover names it (OpenSM's dumps
 * give the Gb/s of a lane: 2.5, 5, 10, FDR10, 14, 25, 50, 100). */
enum ibr_link_speed {
	IBR_SPEED_UNKNOWN,     /* the source did not say */
	IBR_SPEED_SDR, IBR_SPEED_DDR, IBR_SPEED_QDR, IBR_SPEED_FDR10,
	IBR_SPEED_FDR, IBR_SPEED_EDR, IBR_SPEED_HDR, IBR_SPEED_NDR,
	IBR_SPEED_COUNT
};

/* One physical port (or a switch's management port 0). */
struct ibr_port {
	uint64_t guid;         /* port GUID (switch ports share the node's) */
	uint32_t remote_node;  /* IBR_NONE when not connected */
	uint8_t remote_port;
	uint8_t lmc;           /* valid on switch port 0 and on CA ports */
	ibr_lid_t base_lid;    /* 0 = not assigned yet */
	/* The link's active width and lane speed as the source gave them
	 * (ibr_fabric_set_rate), carried to what is written of the fabric;
	 * no bearing on routing.  0: unknown (a generated fabric's). */
	uint8_t width;         /* lanes: 1, 2, 4, 8 or 12 */
	uint8_t speed;         /* enum ibr_link_speed */
};

struct ibr_node {
	enum ibr_node_type type;
	uint8_t num_ports;     /* physical ports, numbered 1..num_ports */
	uint64_t guid;
	char *desc;            /* node description, never NULL */
	uint32_t first_port;   /* index of port 0 in fabric.ports */
	uint32_t sw_index;     /* dense switch index, IBR_NONE for CAs */
	const char *origin;    /* where the node was declared ("file:line") */
};

/* A LID's owner: a switch (port 0) or a CA port. */
struct ibr_lid_owner {
	uint32_t node;         /* IBR_NONE: LID not assigned */
	uint8_t port;
};

/* One inter-switch link seen from one side. */
struct ibr_sw_link {
	uint32_t peer;         /* switch index of the far end */
	uint8_t port;          /* local port */
	uint8_t peer_port;
};

/* A CA port as a routing end-point. */
struct ibr_end_port {
	uint32_t node;         /* the CA node */
	uint8_t port;          /* its port number */
	uint32_t sw;           /* switch index it hangs off */
	uint8_t sw_port;       /* port of that switch */
};

/* A switch port cabled to another port of the same switch (or to itself):
 * left out of routing (see the top of this file). */
struct ibr_loopback {
	uint32_t node;         /* the switch's node id */
	uint8_t port;          /* the lower port number of the two */
	uint8_t peer_port;
	const char *origin;    /* where the cable was declared, NULL if unknown */
};

struct ibr_fabric {
	struct ibr_node *nodes;
	uint32_t num_nodes, nodes_cap;
	struct ibr_port *ports;      /* every node's ports 0..num_ports */
	uint32_t num_ports, ports_cap;

	/* Set by ibr_fabric_index(). */
	bool finalized;
	uint32_t num_switches;
	uint32_t *sw_node;           /* switch index -> node id */
	uint32_t *sw_adj_start;      /* CSR: links of switch s are */
	struct ibr_sw_link *sw_adj;  /*   sw_adj[sw_adj_start[s] .. [s+1]) */
	uint32_t *sw_ca_start;       /* CSR: end ports of switch s are */
	uint32_t *sw_cas;            /*   sw_cas[sw_ca_start[s] .. [s+1]) */
	uint32_t num_end_ports;
	struct ibr_end_port *end_ports;
	ibr_lid_t max_lid;           /* highest LID in use */
	struct ibr_lid_owner *lid_owner; /* [0 .. max_lid] */

	/* Optional: the node the SM runs on (IBR_NONE if unknown). */
	uint32_t sm_node;
	uint8_t sm_port;
	bool lmc_esp0;               /* switches get 2^lmc LIDs as well */
	uint8_t lmc;                 /* subnet LMC (set by ibr_lids_assign) */

	/* Interned strings (descriptions, origins), copied into blocks
	 * strings[0 .. num_strings); freed with the fabric. */
	char **strings;
	uint32_t num_strings, strings_cap;
	char *string_next;           /* free space of the last block */
	size_t string_room;

	/* Node GUID -> node id of the first node added with that GUID,
	 * maintained by ibr_fabric_add_node(). */
	struct ibr_guid_map guid_index;

	/* Loopback cables left out of routing, each listed once. */
	struct ibr_loopback *loopbacks;
	uint32_t num_loopbacks, loopbacks_cap;

	/* What a reader let through that the file did not say plainly (text
	 * around a capture's records, ports captured without a LID), one
	 * message each naming the file, for the loaders to warn about as
	 * they warn about loopbacks; interned. */
	const char **notes;
	uint32_t num_notes, notes_cap;
};

struct ibr_fabric *ibr_fabric_new(void);
void ibr_fabric_free(struct ibr_fabric *f);

/* Returns the new node id, or IBR_NONE on allocation failure / bad input
 * (err says which).  desc may be NULL; origin may be NULL. */
uint32_t ibr_fabric_add_node(struct ibr_fabric *f, enum ibr_node_type type,
			     uint64_t guid, unsigned num_ports,
			     const char *desc, const char *origin,
			     struct ibr_error *err);

/* Room for `nodes` more nodes with `ports` ports in all (a node of N
 * ports takes N + 1: port 0 too), so that adding them moves nothing: for
 * loaders that know the size up front (the OpenSM adapter). */
int ibr_fabric_reserve(struct ibr_fabric *f, uint32_t nodes, uint32_t ports,
		       struct ibr_error *err);

/* Joins (a,pa) and (b,pb).  Joining the same pair twice is accepted (files
 * list every link from both ends); anything else already connected is an
 * error, as are port numbers out of range and switch port 0.  A switch
 * joined to itself is a loopback: ibr_fabric_add_loopback(), no origin. */
int ibr_fabric_connect(struct ibr_fabric *f, uint32_t a, unsigned pa,
		       uint32_t b, unsigned pb, struct ibr_error *err);

/* Lists the cable between ports pa and pb of switch `node` as a loopback
 * (origin, "file:line", may be NULL) and links neither port.  The same
 * cable again, from either end, is accepted.  Errors: a CA, a port out of
 * range, a port linked elsewhere or in another loopback. */
int ibr_fabric_add_loopback(struct ibr_fabric *f, uint32_t node, unsigned pa,
			    unsigned pb, const char *origin,
			    struct ibr_error *err);

/* Keeps a copy of msg among the fabric's notes (see struct ibr_fabric). */
int ibr_fabric_add_note(struct ibr_fabric *f, const char *msg,
			struct ibr_error *err);

/* Fixes the LID of a port (port 0 of a switch, or a CA port). */
void ibr_fabric_set_lid(struct ibr_fabric *f, uint32_t node, unsigned port,
			ibr_lid_t base_lid, unsigned lmc);

/* Sets the active width (lanes: 1, 2, 4, 8, 12; 0 unknown) and lane
 * speed (enum ibr_link_speed) of a port's link as that port sees it
 * (OpenSM's dump and port info give each end its own). */
void ibr_fabric_set_rate(struct ibr_fabric *f, uint32_t node, unsigned port,
			 unsigned width, enum ibr_link_speed speed);
/* The same on both ends of the port's link (a file's link as ibsim
 * brings it up); the port alone when it is not linked. */
void ibr_fabric_set_link_rate(struct ibr_fabric *f, uint32_t node,
			      unsigned port, unsigned width,
			      enum ibr_link_speed speed);

/* "SDR" ... "NDR" (ibnetdiscover's names); NULL for IBR_SPEED_UNKNOWN or
 * out of range. */
const char *ibr_speed_name(unsigned speed);
/* The speed named by the len characters at s (exactly, case as above);
 * IBR_SPEED_UNKNOWN if none. */
enum ibr_link_speed ibr_speed_parse(const char *s, size_t len);

/* "switch 0x... \"desc\" at file:line" or "CA 0x... \"desc\" port N at
 * file:line" into buf, for messages about a LID holder; returns buf. */
const char *ibr_lid_holder_name(const struct ibr_fabric *f, uint32_t node,
				unsigned port, char *buf, size_t len);

/* A 64-bit digest of what routing depends on in an indexed fabric: the
 * nodes (type, GUID, ports), every port's link (the peer's GUID and port)
 * and LIDs, the SM's port and the LMC, whatever order the nodes were
 * added in.  Equal digests mean, but for a hash collision, the same
 * switch indexes (GUID order), links and LIDs: tables made for one fit
 * the other (a hybrid engine's two passes rely on it).  O(ports). */
uint64_t ibr_fabric_fingerprint(const struct ibr_fabric *f);

/* Looks a node up by node GUID (the first added with it); IBR_NONE if
 * absent.  O(1): a hash index the fabric keeps as nodes are added. */
uint32_t ibr_fabric_find_guid(const struct ibr_fabric *f, uint64_t guid);

/* Validates and builds the routing indexes, taking every LID as set:
 * lid_owner, max_lid, the switch and end-port indexes, the CSR lists.
 * A switch without lmc_esp0 is taken to own one LID (its lmc is set 0).
 * Errors: no switch, disconnected fabric (names a node of the part cut
 * off), CA-to-CA links, a switch or connected CA port without a LID
 * (named), LIDs beyond 0xBFFF or held twice, LMC > 7.  Does nothing on a
 * fabric already indexed. */
int ibr_fabric_index(struct ibr_fabric *f, struct ibr_error *err);

/* ibr_lids_assign(f, lmc, err) (see lids.h), then ibr_fabric_index().
 * lmc: LMC for CA ports (and switches with lmc_esp0) that have no LID.
 * Errors: those of both.  Does nothing on a fabric already indexed. */
int ibr_fabric_finalize(struct ibr_fabric *f, unsigned lmc,
			struct ibr_error *err);

static inline struct ibr_port *ibr_port(const struct ibr_fabric *f,
					uint32_t node, unsigned port)
{
	return &f->ports[f->nodes[node].first_port + port];
}

/* The node id of switch index s. */
static inline const struct ibr_node *ibr_switch(const struct ibr_fabric *f,
						uint32_t s)
{
	return &f->nodes[f->sw_node[s]];
}

static inline ibr_lid_t ibr_switch_lid(const struct ibr_fabric *f, uint32_t s)
{
	return ibr_port(f, f->sw_node[s], 0)->base_lid;
}

static inline ibr_lid_t ibr_end_port_lid(const struct ibr_fabric *f,
					 uint32_t e)
{
	return ibr_port(f, f->end_ports[e].node, f->end_ports[e].port)->base_lid;
}

/* The switch index of node's port: the node itself if a switch, else the
 * switch the CA port hangs off (IBR_NONE when it hangs off nothing). */
static inline uint32_t ibr_port_switch(const struct ibr_fabric *f,
				       uint32_t node, unsigned port)
{
	const struct ibr_node *n = &f->nodes[node];
	const struct ibr_port *p;

	if (n->type == IBR_NODE_SWITCH)
		return n->sw_index;
	p = ibr_port(f, node, port);
	return p->remote_node == IBR_NONE ? IBR_NONE :
	       f->nodes[p->remote_node].sw_index;
}

/* The switch index a LID's owner is or hangs off; IBR_NONE if unowned. */
static inline uint32_t ibr_lid_switch(const struct ibr_fabric *f, ibr_lid_t lid)
{
	const struct ibr_lid_owner *o = &f->lid_owner[lid];

	return o->node == IBR_NONE ? IBR_NONE :
	       ibr_port_switch(f, o->node, o->port);
}

/* The LIDs of an indexed fabric, counted one way for every summary: the
 * tables' columns are the LIDs some end-point owns, every LID of every
 * switch's and CA port's range; the others up to max_lid (left by
 * alignment) own no entry anywhere. */
struct ibr_lid_count {
	uint32_t owned;           /* = ca + sw = bases + above */
	uint32_t above;           /* above their range's base (an LMC's) */
	uint32_t ca, sw;          /* owned by CA ports, by switches */
	uint32_t unowned;         /* 1..max_lid, owned by none */
	uint8_t lmc_min, lmc_max; /* the CA ports' LMCs (0 and 0: no CA) */
};

void ibr_fabric_count_lids(const struct ibr_fabric *f,
			   struct ibr_lid_count *c);

/* LIDs owned by an end-point: 2^lmc. */
static inline unsigned ibr_port_lid_count(const struct ibr_port *p)
{
	return 1u << p->lmc;
}

#endif
