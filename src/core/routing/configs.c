/*
 * configs.c - configurations of paths to one destination (see configs.h).
 *
 * Invariant: port holds cap columns of num_switches entries; the first
 * count are configurations, each entry a port every path of that
 * configuration through the switch takes, or IBR_NO_PATH.
 */
#include <stdlib.h>
#include <string.h>

#include "ibrouting/configs.h"
#include "ibrouting/fabric.h"

void ibr_configs_init(struct ibr_configs *c, uint32_t num_switches)
{
	memset(c, 0, sizeof(*c));
	c->num_switches = num_switches;
}

void ibr_configs_free(struct ibr_configs *c)
{
	free(c->port);
	memset(c, 0, sizeof(*c));
}

uint32_t ibr_configs_open(struct ibr_configs *c, struct ibr_error *err)
{
	size_t S = c->num_switches ? c->num_switches : 1;

	if (c->count == c->cap) {
		uint32_t cap = c->cap ? 2 * c->cap : 4;
		uint8_t *port = realloc(c->port, cap * S);
		if (!port) {
			ibr_error_set(err, "out of memory for %u path "
				      "configurations of %u switches", cap,
				      c->num_switches);
			return IBR_NONE;
		}
		c->port = port;
		c->cap = cap;
	}
	memset(ibr_configs_column(c, c->count), IBR_NO_PATH, c->num_switches);
	return c->count++;
}

bool ibr_configs_fits(const struct ibr_configs *c, uint32_t k,
		      const uint32_t *sw, const uint8_t *port, uint32_t len)
{
	const uint8_t *col = ibr_configs_column(c, k);

	for (uint32_t i = 0; i < len; i++)
		if (col[sw[i]] != IBR_NO_PATH && col[sw[i]] != port[i])
			return false;
	return true;
}

void ibr_configs_add(struct ibr_configs *c, uint32_t k, const uint32_t *sw,
		     const uint8_t *port, uint32_t len)
{
	uint8_t *col = ibr_configs_column(c, k);

	for (uint32_t i = 0; i < len; i++)
		col[sw[i]] = port[i];
}

uint32_t ibr_configs_first_fit(struct ibr_configs *c, const uint32_t *sw,
			       const uint8_t *port, uint32_t len,
			       struct ibr_error *err)
{
	uint32_t k = 0;

	while (k < c->count && !ibr_configs_fits(c, k, sw, port, len))
		k++;
	if (k == c->count && ibr_configs_open(c, err) == IBR_NONE)
		return IBR_NONE;
	ibr_configs_add(c, k, sw, port, len);
	return k;
}
