/*
 * guid_map.c - the GUID hash map (see guid_map.h).
 *
 * Invariant: cap is 0 or a power of two with 2 * count <= cap, so every
 * probe sequence reaches a free slot.
 */
#include <stdlib.h>
#include <string.h>

#include "ibrouting/guid_map.h"

#define FREE UINT32_MAX

static uint32_t slot_of(const struct ibr_guid_map *m, uint64_t guid)
{
	uint32_t i = (uint32_t)((guid * 0x9E3779B97F4A7C15ull) >> 32) &
		     (m->cap - 1);

	while (m->val[i] != FREE && m->key[i] != guid)
		i = (i + 1) & (m->cap - 1);
	return i;
}

uint32_t ibr_guid_map_get(const struct ibr_guid_map *m, uint64_t guid)
{
	return m->cap ? m->val[slot_of(m, guid)] : FREE;
}

/* Rehashes into a table of cap slots (a power of two, > 2 * count). */
static int rehash(struct ibr_guid_map *m, uint32_t cap)
{
	struct ibr_guid_map n = { .cap = cap };

	n.key = malloc(n.cap * sizeof(*n.key));
	n.val = malloc(n.cap * sizeof(*n.val));
	if (!n.key || !n.val) {
		free(n.key);
		free(n.val);
		return -1;
	}
	memset(n.val, 0xFF, n.cap * sizeof(*n.val));
	for (uint32_t i = 0; i < m->cap; i++)
		if (m->val[i] != FREE) {
			uint32_t j = slot_of(&n, m->key[i]);
			n.key[j] = m->key[i];
			n.val[j] = m->val[i];
		}
	n.count = m->count;
	free(m->key);
	free(m->val);
	*m = n;
	return 0;
}

static int grow(struct ibr_guid_map *m)
{
	return rehash(m, m->cap ? 2 * m->cap : 256);
}

int ibr_guid_map_reserve(struct ibr_guid_map *m, uint32_t count)
{
	uint32_t cap = m->cap ? m->cap : 256;

	while (2 * (uint64_t)count > cap)
		cap *= 2;
	return cap == m->cap ? 0 : rehash(m, cap);
}

int ibr_guid_map_put(struct ibr_guid_map *m, uint64_t guid, uint32_t val)
{
	uint32_t i;

	if (2 * (m->count + 1) > m->cap && grow(m))
		return -1;
	i = slot_of(m, guid);
	if (m->val[i] == FREE)
		m->count++;
	m->key[i] = guid;
	m->val[i] = val;
	return 0;
}

void ibr_guid_map_free(struct ibr_guid_map *m)
{
	free(m->key);
	free(m->val);
	memset(m, 0, sizeof(*m));
}
