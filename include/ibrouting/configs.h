/*
 * configs.h - configurations of paths to one destination, the unit of LID
 * assignment (lid-assignment-color-l §II, Definitions 1-3).
 *
 * Two paths to one destination split when they leave a common switch by
 * different ports; a configuration is a set of paths no two of which
 * split, so one LID of the destination realises all of them.  A
 * configuration is kept as the column it makes of that LID: per switch the
 * port its paths take there, or IBR_NO_PATH where none passes.  Testing a
 * path against a configuration and adding it cost O(path length), however
 * many paths the configuration holds.
 *
 * Invariant: every configuration's column is the union of the paths added
 * to it (or of the column it was seeded with), so each entry that is not
 * IBR_NO_PATH lies on a path and leads along it to the destination.
 */
#ifndef IBROUTING_CONFIGS_H
#define IBROUTING_CONFIGS_H

#include <stdbool.h>
#include <stdint.h>

#include "ibrouting/error.h"

struct ibr_configs {
	uint32_t num_switches;
	uint32_t count, cap;     /* configurations in use, allocated */
	uint8_t *port;           /* count x num_switches entries */
};

void ibr_configs_init(struct ibr_configs *c, uint32_t num_switches);
void ibr_configs_free(struct ibr_configs *c);

/* Forgets every configuration (the memory is kept for the next
 * destination). */
static inline void ibr_configs_clear(struct ibr_configs *c)
{
	c->count = 0;
}

static inline uint8_t *ibr_configs_column(const struct ibr_configs *c,
					  uint32_t k)
{
	return c->port + (size_t)k * c->num_switches;
}

/* Opens an empty configuration; returns its index, or IBR_NONE after a
 * message (allocation failure). */
uint32_t ibr_configs_open(struct ibr_configs *c, struct ibr_error *err);

/* A path of len hops: switch sw[i] leaves by port[i]. */
bool ibr_configs_fits(const struct ibr_configs *c, uint32_t k,
		      const uint32_t *sw, const uint8_t *port, uint32_t len);
void ibr_configs_add(struct ibr_configs *c, uint32_t k, const uint32_t *sw,
		     const uint8_t *port, uint32_t len);

/* Destination renaming's rule (PIRa paper §2.4): the path joins the first
 * configuration it splits from no path of, opening a new one when none
 * fits.  Returns that configuration's index, or IBR_NONE after a message. */
uint32_t ibr_configs_first_fit(struct ibr_configs *c, const uint32_t *sw,
			       const uint8_t *port, uint32_t len,
			       struct ibr_error *err);

/* LIDs a destination needs for k configurations: IBA gives a port 2^LMC
 * LIDs, so 2^ceil(lg k) (lid-assignment-color-l §II); 1 for k <= 1. */
static inline unsigned ibr_lids_for_configs(uint32_t k)
{
	unsigned n = 1;

	while (n < k)
		n *= 2;
	return n;
}

#endif
