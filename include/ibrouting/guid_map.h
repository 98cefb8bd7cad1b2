/*
 * guid_map.h - GUID -> 32-bit value, the one hash map of GUIDs in the core.
 *
 * Open addressing with linear probing; the capacity is a power of two kept
 * at least twice the count, so a lookup is O(1) on average.  IBR_NONE is
 * the "absent" value and cannot be stored.  The fabric owns one (node GUID
 * -> node id, fabric.h); readers that need another key (a dump's port
 * GUIDs) make their own.
 */
#ifndef IBROUTING_GUID_MAP_H
#define IBROUTING_GUID_MAP_H

#include <stdint.h>

struct ibr_guid_map {
	uint64_t *key;
	uint32_t *val;             /* IBR_NONE: free slot */
	uint32_t cap, count;
};

/* The value stored for guid, or IBR_NONE (UINT32_MAX). */
uint32_t ibr_guid_map_get(const struct ibr_guid_map *m, uint64_t guid);

/* Stores (or replaces) guid -> val; -1 when out of memory (m unchanged). */
int ibr_guid_map_put(struct ibr_guid_map *m, uint64_t guid, uint32_t val);

/* Room for count GUIDs in all without growing; -1 when out of memory. */
int ibr_guid_map_reserve(struct ibr_guid_map *m, uint32_t count);

void ibr_guid_map_free(struct ibr_guid_map *m);

#endif
