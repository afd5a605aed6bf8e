/* A stack as the model keeps it (internal to model/): its key text,
 * [uint32 depth] then [uint32 len][bytes] per frame, root first, with its
 * frame ids stored before the key as the interned string's extra bytes;
 * the hash of its frames; and the canonical order on keys. */
#ifndef ASYNCTOP_MODEL_STACKKEY_H
#define ASYNCTOP_MODEL_STACKKEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "model/strview.h"

static inline uint32_t stackkey_rd32(const char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The frame ids of a key, root first (stackkey_rd32(key) of them). */
static inline const uint32_t *stackkey_ids(const char *key)
{
	size_t depth = stackkey_rd32(key);

	return (const uint32_t *)(const void *)(key - sizeof(uint32_t) -
	                                        depth * sizeof(uint32_t));
}

/* n frames as a lookup key: the frames, and the length of their key
 * text. */
struct frames_key {
	const struct strview *v;
	size_t n, len;
};

/* Writes the key text of n frames into out (room checked by the caller);
 * returns its length. */
size_t stackkey_text(char *out, const struct strview *v, size_t n);
/* The hash of n frames, computed from the frames as given in one pass,
 * without building their key text. */
uint64_t stackkey_hash(const struct strview *v, size_t n);
/* Whether the key text key holds the frames of ctx (a frames_key): the
 * comparison of the stacks' id index. */
bool stackkey_eq(const void *ctx, uint32_t id, const void *key);
/* The canonical order on two keys: frame by frame, equal frame ids equal
 * without reading their bytes, byte-wise otherwise, a prefix first. */
int stackkey_cmp(const char *a, const char *b);

/* Length of p cut to at most max bytes without splitting a UTF-8 sequence
 * that starts before the cut (invalid bytes are cut where they fall). */
size_t model_utf8_cut(const char *p, size_t len, size_t max);

#endif
