/* The custom adapter: an embedder's producer (adapters/asynctop.h) behind
 * struct adapter_ops, and the registry asynctop_main offers (the stock
 * adapters plus the embedder's own, under the embedder's names). */
#ifndef ASYNCTOP_ADAPTERS_CUSTOM_H
#define ASYNCTOP_ADAPTERS_CUSTOM_H

#include <stddef.h>

#include "adapters/adapter.h"
#include "adapters/asynctop.h"
#include "model/base.h"
#include "model/status.h"

/* A registry that owns the ops it made for the embedder's adapters. */
struct custom_registry;

/* Builds base's adapters followed by one adapter per a[i] (n may be 0),
 * with base's defaults and hints, except that an embedder's only adapter
 * (n == 1) is the one to attach to when none is named.
 * base and a (names, summaries, endpoints, user pointers) are borrowed and
 * must outlive the registry.  STATUS_INVAL with a one-line reason in err
 * (always NUL-terminated) when an adapter was built for another
 * ASYNCTOP_ABI_VERSION, has no producer, has an empty or unprintable name,
 * or takes a name (or alias) already offered; STATUS_NOMEM.  Does not
 * block. */
enum status custom_registry_new(const struct adapter_registry *base,
                                const struct asynctop_adapter *a, size_t n,
                                struct custom_registry **out, char *err,
                                size_t errsz) MUST_CHECK;

/* The registry to look names up in; valid until custom_registry_free. */
const struct adapter_registry *
custom_registry_get(const struct custom_registry *cr);

/* NULL is a no-op. */
void custom_registry_free(struct custom_registry *cr);

/* Fills *ops (caller-owned, e.g. static) so that it runs the producer of a
 * (borrowed, must outlive ops).  No validation: custom_registry_new does
 * it.  Its collect calls a->produce on the worker thread, maps the result
 * to a status (ASYNCTOP_UNREACHABLE: STATUS_UNREACHABLE with a default
 * remediation when none was explained; ASYNCTOP_TIMEOUT: STATUS_TIMEOUT;
 * ASYNCTOP_MALFORMED: STATUS_MALFORMED; ASYNCTOP_FAILED and unknown
 * values: STATUS_IO). */
void custom_ops_init(struct adapter_ops *ops, const struct asynctop_adapter *a);

#endif
