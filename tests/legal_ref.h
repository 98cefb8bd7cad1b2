/*
 * legal_ref.h - the tests' own reference for legal up/down routes,
 * independent of the core's engines and distances: a plain BFS over
 * (switch, phase) states.  Include after <cmocka.h>.
 */
#ifndef IBROUTING_TESTS_LEGAL_REF_H
#define IBROUTING_TESTS_LEGAL_REF_H

#include <stdint.h>
#include <stdlib.h>

#include "ibrouting/updown.h"

/* Reference: links of the shortest legal up/down route from switch src
 * to every switch, by BFS over (switch, phase) states: a packet still
 * climbing may take any link, one that went down only down links. */
static inline void legal_lengths(const struct ibr_fabric *f,
				 const struct ibr_updown *ud, uint32_t src,
				 uint32_t *len)
{
	uint32_t S = f->num_switches, head = 0, tail = 0;
	uint32_t *dist = malloc(2 * S * sizeof(uint32_t));
	uint32_t *queue = malloc(2 * S * sizeof(uint32_t));

	assert_true(dist && queue);
	for (uint32_t i = 0; i < 2 * S; i++)
		dist[i] = UINT32_MAX;
	dist[src] = 0; /* state s: climbing at s; S + s: descending at s */
	queue[tail++] = src;
	while (head < tail) {
		uint32_t st = queue[head++], x = st % S;
		int descending = st >= S;
		for (uint32_t i = f->sw_adj_start[x]; i < f->sw_adj_start[x + 1]; i++) {
			uint32_t y = f->sw_adj[i].peer;
			int up = ibr_link_is_up(f, ud, x, y);
			uint32_t next = up ? y : S + y;
			if ((up && descending) || dist[next] != UINT32_MAX)
				continue;
			dist[next] = dist[st] + 1;
			queue[tail++] = next;
		}
	}
	for (uint32_t s = 0; s < S; s++)
		len[s] = dist[s] < dist[S + s] ? dist[s] : dist[S + s];
	free(dist);
	free(queue);
}

#endif
