/*
 * certify.c - the certificate of legal up/down tables (see certify.h).
 *
 * One pass per LID over its column: each entry is read with the walker's
 * step (walk.h, the one reading of an entry), which settles C1 and C2;
 * an entry to a switch is an up or a down hop by the orientation's link
 * flags, and stamps its switch as "leaves up" or its head as "entered
 * down".  A second pass over the stamps finds the switches that are both
 * (C4).  Stamps are the LID itself, so nothing is cleared between LIDs.
 * Findings are counted per kind, the first few kept as sentences naming
 * the switch GUIDs, the LID and the port.
 *
 * Every allocation is checked and a failure makes ibr_certify() fail: a
 * check that cannot run never looks like one that found nothing.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibrouting/certify.h"
#include "ibrouting/management.h"
#include "ibrouting/updown.h"
#include "ibrouting/walk.h"

struct certifier {
	const struct ibr_fabric *f;
	const struct ibr_result *r;
	struct ibr_certify_report *rep;
	struct ibr_walker w;
	uint8_t *link_up;          /* per sw_adj entry */
	ibr_lid_t *leaves_up;      /* per switch: LID whose entry goes up */
	ibr_lid_t *entered_down;   /* per switch: LID entered by a down hop */
	uint32_t *down_from;       /* per switch: a switch it was entered from */
	struct ibr_climb climb;    /* with several roots: who may reach whom */
	bool sets;                 /* climb is built */
	bool any_management;       /* this LID has a management route */
	ibr_lid_t *walked;         /* C7, per switch: LID walked from it */
	ibr_lid_t *on_walk;        /* C7, per switch: LID of the walk on it */
	uint32_t *path;            /* C7: the switches of one walk */
};

/* Switch s owes no route to lid: under a root set no legal route exists
 * (updown.h, ibr_climb_meet). */
static bool no_legal_path(const struct certifier *c, uint32_t s, ibr_lid_t lid)
{
	return c->sets && !ibr_climb_meet(&c->climb, s, ibr_lid_switch(c->f, lid));
}

static void note(struct ibr_certify_report *rep, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(struct ibr_certify_report *rep, const char *fmt, ...)
{
	va_list ap;

	if (rep->num_messages >= IBR_VERIFY_MAX_MESSAGES)
		return;
	va_start(ap, fmt);
	vsnprintf(rep->messages[rep->num_messages++], 256, fmt, ap);
	va_end(ap);
}

static unsigned long long sw_guid(const struct ibr_fabric *f, uint32_t s)
{
	return (unsigned long long)ibr_switch(f, s)->guid;
}

static void bad_step(struct certifier *c, uint32_t s, ibr_lid_t lid,
		     uint8_t port, enum ibr_step st)
{
	const struct ibr_fabric *f = c->f;

	if (st == IBR_STEP_NO_PATH) {
		c->rep->unreachable++;
		note(c->rep, "switch 0x%016llx has no route to LID %u",
		     sw_guid(f, s), lid);
	} else if (st == IBR_STEP_BAD_PORT) {
		c->rep->bad_port++;
		note(c->rep, "switch 0x%016llx routes LID %u to port %u, which "
		     "has no link", sw_guid(f, s), lid, port);
	} else {
		c->rep->bad_port++;
		note(c->rep, "switch 0x%016llx delivers LID %u on port %u, but "
		     "LID %u is not there", sw_guid(f, s), lid, port, lid);
	}
}

/* An entry of switch s where no legal route to lid exists: a management
 * route (management.h), or data off up*-down* at a CA port's switch
 * towards a CA port's LID. */
static void management_entry(struct certifier *c, uint32_t s, ibr_lid_t lid,
			     uint8_t port)
{
	if (!ibr_management_carries_data(c->f, s, lid)) {
		c->rep->management++;
		c->any_management = true;
		return;
	}
	c->rep->illegal_data++;
	note(c->rep, "switch 0x%016llx routes LID %u to port %u, but no legal "
	     "route exists: its CA ports' data would leave up*-down*",
	     sw_guid(c->f, s), lid, port);
}

/* C7: the management routes of lid are loop-free: from each, the walk
 * through switches with no legal route reaches one with a legal route
 * (whose entries C1-C4 certify).  O(S): a switch is walked once. */
static void check_management_walks(struct certifier *c, ibr_lid_t lid)
{
	const uint8_t *col = ibr_column(c->r, lid);
	uint32_t S = c->f->num_switches;

	for (uint32_t s0 = 0; s0 < S; s0++) {
		uint32_t s = s0, next = 0, n = 0;
		if (c->walked[s0] == lid || col[s0] == IBR_NO_PATH ||
		    !no_legal_path(c, s0, lid))
			continue;
		/* walked[] marks switches settled for this LID; path[] the
		 * ones on this walk (a revisit there is a loop) */
		while (c->walked[s] != lid && no_legal_path(c, s, lid) &&
		       ibr_walker_step(&c->w, s, lid, col[s], &next) ==
		       IBR_STEP_NEXT) {
			if (c->on_walk[s] == lid) {
				c->rep->loops++;
				note(c->rep, "LID %u loops through switch "
				     "0x%016llx on management routes", lid,
				     sw_guid(c->f, s));
				break;
			}
			c->on_walk[s] = lid;
			c->path[n++] = s;
			s = next;
		}
		for (uint32_t i = 0; i < n; i++)
			c->walked[c->path[i]] = lid;
	}
}

static void check_unowned_lid(struct certifier *c, ibr_lid_t lid)
{
	const uint8_t *col = ibr_column(c->r, lid);

	for (uint32_t s = 0; s < c->f->num_switches; s++)
		if (col[s] != IBR_NO_PATH) {
			c->rep->bad_port++;
			note(c->rep, "switch 0x%016llx routes LID %u to port %u, "
			     "but no port owns LID %u", sw_guid(c->f, s), lid,
			     col[s], lid);
		}
}

static void check_column(struct certifier *c, ibr_lid_t lid)
{
	const struct ibr_fabric *f = c->f;
	const uint8_t *col = ibr_column(c->r, lid);
	uint32_t S = f->num_switches;
	bool any_down = false;

	c->any_management = false;
	for (uint32_t s = 0; s < S; s++) {
		uint32_t next = 0;
		enum ibr_step st = ibr_walker_step(&c->w, s, lid, col[s], &next);
		if (st == IBR_STEP_ARRIVED)
			continue;
		if (st != IBR_STEP_NEXT) {
			if (st == IBR_STEP_NO_PATH && no_legal_path(c, s, lid) &&
			    ibr_management_carries_data(f, s, lid))
				c->rep->no_legal_path++;
			else
				bad_step(c, s, lid, col[s], st);
			continue;
		}
		if (no_legal_path(c, s, lid)) {
			management_entry(c, s, lid, col[s]);
			continue; /* carries no data: no up or down hop */
		}
		if (no_legal_path(c, next, lid)) {
			c->rep->unreachable++;
			note(c->rep, "switch 0x%016llx routes LID %u to port %u, "
			     "towards switch 0x%016llx, which has no legal route",
			     sw_guid(f, s), lid, col[s], sw_guid(f, next));
		}
		if (c->link_up[ibr_walker_channel(&c->w, s, col[s])]) {
			c->leaves_up[s] = lid;
		} else {
			c->entered_down[next] = lid;
			c->down_from[next] = s;
			any_down = true;
		}
	}
	if (c->any_management)
		check_management_walks(c, lid);
	if (!any_down)
		return;
	for (uint32_t s = 0; s < S; s++) {
		if (c->leaves_up[s] != lid || c->entered_down[s] != lid)
			continue;
		c->rep->down_up++;
		note(c->rep, "switch 0x%016llx, entered going down from switch "
		     "0x%016llx, routes LID %u up on port %u", sw_guid(f, s),
		     sw_guid(f, c->down_from[s]), lid, col[s]);
	}
}

/* C6: every offset inside its range, a DLID above the base set at the
 * source's switch (where, the LID's column certified, it delivers). */
static void check_designated(struct certifier *c)
{
	const struct ibr_fabric *f = c->f;
	const struct ibr_designated *d = &c->r->designated;

	if (!d->offset)
		return;
	for (uint32_t row = 0; row < d->rows; row++) {
		uint32_t sw = d->by_switch ? row : f->end_ports[row].sw;
		for (uint32_t dst = 0; dst < d->cols; dst++) {
			const struct ibr_end_port *e = &f->end_ports[dst];
			const struct ibr_port *p = ibr_port(f, e->node, e->port);
			uint8_t k = d->offset[(size_t)row * d->cols + dst];
			const char *what = d->by_switch ? "switch" : "end port";
			if (k >= ibr_port_lid_count(p)) {
				c->rep->bad_designated++;
				note(c->rep, "designated DLID %u of %s %u to CA "
				     "0x%016llx port %u is outside its LIDs "
				     "%u..%u", p->base_lid + k, what, row,
				     (unsigned long long)f->nodes[e->node].guid,
				     e->port, p->base_lid,
				     p->base_lid + ibr_port_lid_count(p) - 1);
			} else if (k > 0 && (d->by_switch || row != dst) &&
				   ibr_entry(c->r, sw, p->base_lid + k) ==
				   IBR_NO_PATH) {
				c->rep->bad_designated++;
				note(c->rep, "designated DLID %u of %s %u to CA "
				     "0x%016llx port %u has no route at switch "
				     "0x%016llx", p->base_lid + k, what, row,
				     (unsigned long long)f->nodes[e->node].guid,
				     e->port, sw_guid(f, sw));
			}
		}
	}
}

int ibr_certify(const struct ibr_fabric *f, const struct ibr_result *r,
		struct ibr_certify_report *rep, struct ibr_error *err)
{
	struct certifier c = { .f = f, .r = r, .rep = rep };
	uint32_t S = f->num_switches, C = f->sw_adj_start[S];
	struct ibr_updown ud;
	int rc = -1;

	memset(rep, 0, sizeof(*rep));
	if (r->num_switches != S || r->num_lids != f->max_lid + 1u)
		return ibr_error_set(err, "certify: tables are %u switches x %u "
				     "LIDs, the fabric has %u x %u",
				     r->num_switches, r->num_lids, S,
				     f->max_lid + 1u);
	if (r->root >= S)
		return ibr_error_set(err, "certify: root %u is not a switch of "
				     "the fabric (%u switches)", r->root, S);
	if (ibr_updown_of_result(f, r, &ud, err))
		return -1;
	if (ud.num_roots > 1) {
		if (ibr_climb_build(f, &ud, &c.climb, err)) {
			ibr_updown_free(&ud);
			return -1;
		}
		c.sets = true;
	}
	if (ibr_walker_init(&c.w, f, err)) {
		ibr_climb_free(&c.climb);
		ibr_updown_free(&ud);
		return -1;
	}
	c.link_up = malloc(C ? C : 1);
	c.leaves_up = calloc(S, sizeof(*c.leaves_up));
	c.entered_down = calloc(S, sizeof(*c.entered_down));
	c.down_from = malloc(S * sizeof(*c.down_from));
	c.walked = calloc(S, sizeof(*c.walked));
	c.on_walk = calloc(S, sizeof(*c.on_walk));
	c.path = malloc(S * sizeof(*c.path));
	if (!c.link_up || !c.leaves_up || !c.entered_down || !c.down_from ||
	    !c.walked || !c.on_walk || !c.path) {
		ibr_error_set(err, "certify: out of memory for %u switches", S);
		goto out;
	}
	ibr_updown_link_flags(f, &ud, c.link_up);
	for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
		const struct ibr_lid_owner *o = &f->lid_owner[lid];
		if (o->node == IBR_NONE) {
			check_unowned_lid(&c, lid);
			rep->unowned_lids++;
			continue;
		}
		check_column(&c, lid);
		rep->lids++;
		rep->lids_above += lid != ibr_port(f, o->node, o->port)->base_lid;
		rep->entries += S;
	}
	check_designated(&c);
	rc = 0;
out:
	ibr_walker_free(&c.w);
	ibr_climb_free(&c.climb);
	ibr_updown_free(&ud);
	free(c.link_up);
	free(c.leaves_up);
	free(c.entered_down);
	free(c.down_from);
	free(c.walked);
	free(c.on_walk);
	free(c.path);
	return rc;
}
