/* The adapter registry, opening and closing sources, and the wording of
 * the errors an operator reads (docs/design.md §12). */
#include "adapters/adapter.h"

#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "model/alloc.h"
#include "model/buf.h"

static const char *const state_names[] = {
#define SOURCE_STATE_NAME(id, text) [SOURCE_##id] = text,
	SOURCE_STATE_LIST(SOURCE_STATE_NAME)
#undef SOURCE_STATE_NAME
};

const char *source_state_str(enum source_state st)
{
	if ((unsigned)st >= SOURCE_STATE_COUNT)
		return "unknown";
	return state_names[st];
}

uint64_t backoff_ns(uint64_t base_ns, uint64_t max_ns, unsigned n)
{
	uint64_t d = base_ns;

	if (base_ns == 0 || max_ns < base_ns)
		return base_ns;
	/* doubling stops at the cap, so it can neither overflow nor loop
	 * long: at most 64 doublings for any n */
	while (n-- > 0 && d < max_ns)
		d = d > max_ns / 2 ? max_ns : d * 2;
	return d < max_ns ? d : max_ns;
}

const struct adapter_ops *adapter_find(const struct adapter_registry *r,
                                       const char *name)
{
	size_t i;

	if (!r || !name)
		return NULL;
	for (i = 0; i < r->n; i++) {
		const struct adapter_ops *o = r->ops[i];
		const char *const *al;

		if (!strcmp(o->name, name))
			return o;
		for (al = o->aliases; al && *al; al++)
			if (!strcmp(*al, name))
				return o;
	}
	return NULL;
}

/* snprintf at dst + *used, never past size; *used stops at size - 1. */
static void put(char *dst, size_t size, size_t *used, const char *fmt, ...)
    PRINTF(4, 5);
static void put(char *dst, size_t size, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*used + 1 >= size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(dst + *used, size - *used, fmt, ap);
	va_end(ap);
	if (n < 0)
		dst[*used] = '\0';
	else
		*used = size_min(*used + (size_t)n, size - 1);
}

void adapter_list_names(const struct adapter_registry *r, char *dst,
                        size_t size)
{
	size_t i, used = 0;

	if (!size)
		return;
	dst[0] = '\0';
	for (i = 0; r && i < r->n; i++) {
		const char *const *al = r->ops[i]->aliases;

		put(dst, size, &used, "%s%s", i ? ", " : "", r->ops[i]->name);
		if (al && *al) {
			put(dst, size, &used, " (alias%s", al[1] ? "es" : "");
			for (; *al; al++)
				put(dst, size, &used, "%s%s",
				    al == r->ops[i]->aliases ? " " : ", ", *al);
			put(dst, size, &used, ")");
		}
	}
}

void adapter_config_default(struct adapter_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->connect_timeout_ns = 2000000000u;
	cfg->reply_timeout_ns = 2000000000u;
	cfg->load_limits.max_bytes = LOAD_MAX_BYTES_DEFAULT;
	cfg->load_limits.max_samples = LOAD_MAX_SAMPLES_DEFAULT;
}

/* name as Rust's {:?} shows a string: quoted, \" \\ \n \r \t escaped, other
 * control characters as \u{XX}. */
static void put_quoted(char *dst, size_t size, size_t *used, const char *s)
{
	put(dst, size, used, "\"");
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			put(dst, size, used, "\\%c", c);
		else if (c == '\n')
			put(dst, size, used, "\\n");
		else if (c == '\r')
			put(dst, size, used, "\\r");
		else if (c == '\t')
			put(dst, size, used, "\\t");
		else if (c < 0x20 || c == 0x7f)
			put(dst, size, used, "\\u{%x}", c);
		else
			put(dst, size, used, "%c", c);
	}
	put(dst, size, used, "\"");
}

void adapter_format_unknown(const struct adapter_registry *r, const char *name,
                            char *dst, size_t size)
{
	char names[1024];
	size_t used = 0;

	if (!size)
		return;
	dst[0] = '\0';
	adapter_list_names(r, names, sizeof(names));
	put(dst, size, &used, "no async profiling adapter named ");
	put_quoted(dst, size, &used, name);
	put(dst, size, &used, "; available: %s", names[0] ? names : "none");
}

static void format_error(const struct adapter_error *e, const char *adapter,
                         const char *endpoint, double seconds, char *dst,
                         size_t size)
{
	const char *ep =
	    endpoint && *endpoint ? endpoint : "its default endpoint";
	const char *detail = e->detail[0] ? e->detail : status_str(e->st);
	size_t used = 0;

	if (!size)
		return;
	dst[0] = '\0';
	if (!adapter || !*adapter)
		adapter = "unnamed";
	switch (e->st) {
	case STATUS_UNREACHABLE:
		put(dst, size, &used,
		    "the %s source is not reachable at %s: %s", adapter, ep,
		    detail);
		break;
	case STATUS_EMPTY_WINDOW:
		put(dst, size, &used,
		    "the %s source produced no task data over %gs. Either nothing ran, or the application is not instrumented \xe2\x80\x94 an empty profile and an idle program look identical, so this is reported rather than drawn.",
		    adapter, seconds);
		break;
	case STATUS_TIMEOUT:
		put(dst, size, &used, "the %s source at %s timed out: %s",
		    adapter, ep, detail);
		break;
	case STATUS_MALFORMED:
		put(dst, size, &used,
		    "the %s source at %s sent malformed data: %s", adapter, ep,
		    detail);
		break;
	default:
		put(dst, size, &used, "the %s source at %s failed: %s", adapter,
		    ep, detail);
		break;
	}
	if (e->st != STATUS_EMPTY_WINDOW && e->remediation[0])
		put(dst, size, &used, "\n%s", e->remediation);
}

void adapter_format_error(const struct adapter_error *e, const char *adapter,
                          const char *endpoint, double seconds, char *dst,
                          size_t size)
{
	/* %g in the C locale, whatever locale an embedding program set */
	locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	locale_t old = c ? uselocale(c) : (locale_t)0;

	format_error(e, adapter, endpoint, seconds, dst, size);
	if (c) {
		uselocale(old);
		freelocale(c);
	}
}

static void set_err(struct adapter_error *err, enum status st, const char *fmt,
                    ...) PRINTF(3, 4);
static void set_err(struct adapter_error *err, enum status st, const char *fmt,
                    ...)
{
	va_list ap;

	memset(err, 0, sizeof(*err));
	err->st = st;
	va_start(ap, fmt);
	vsnprintf(err->detail, sizeof(err->detail), fmt, ap);
	va_end(ap);
}

static void free_adapter(struct adapter *a)
{
	size_t i;

	for (i = 0; a->endpoints && i < a->nendpoints; i++)
		mem_free(a->endpoints[i]);
	mem_free(a->endpoints);
	mem_free(a->priv);
	mem_free(a);
}

enum status adapter_open(const struct adapter_ops *ops,
                         const char *const *endpoints, size_t n,
                         const struct adapter_config *cfg,
                         struct adapter_error *err, struct adapter **out)
{
	struct adapter_error spare;
	const char *def = ops->default_endpoint;
	struct adapter *a;
	enum status st;
	size_t i;

	*out = NULL;
	if (!err)
		err = &spare;
	memset(err, 0, sizeof(*err));
	if (n > 1 && !(ops->flags & ADAPTER_MULTI_ENDPOINT)) {
		set_err(err, STATUS_INVAL,
		        "the %s adapter takes one endpoint (-e), not %zu",
		        ops->name, n);
		return STATUS_INVAL;
	}
	if (n == 0 && !def) {
		set_err(err, STATUS_INVAL,
		        "the %s adapter needs an endpoint: give it with -e",
		        ops->name);
		return STATUS_INVAL;
	}
	a = mem_calloc(1, sizeof(*a));
	if (!a)
		return STATUS_NOMEM;
	a->ops = ops;
	adapter_config_default(&a->cfg);
	if (cfg) {
		struct adapter_config d = a->cfg;

		a->cfg = *cfg;
		if (!a->cfg.connect_timeout_ns)
			a->cfg.connect_timeout_ns = d.connect_timeout_ns;
		if (!a->cfg.reply_timeout_ns)
			a->cfg.reply_timeout_ns = d.reply_timeout_ns;
		if (!a->cfg.load_limits.max_bytes)
			a->cfg.load_limits.max_bytes = d.load_limits.max_bytes;
		if (!a->cfg.load_limits.max_samples)
			a->cfg.load_limits.max_samples =
			    d.load_limits.max_samples;
	}
	a->nendpoints = n ? n : 1;
	a->endpoints = mem_calloc(a->nendpoints, sizeof(*a->endpoints));
	a->priv = mem_calloc(1, size_max(ops->private_size, 1));
	if (!a->endpoints || !a->priv)
		goto nomem;
	for (i = 0; i < a->nendpoints; i++) {
		const char *e = n ? endpoints[i] : def;

		a->endpoints[i] = mem_strndup(e ? e : "", e ? strlen(e) : 0);
		if (!a->endpoints[i])
			goto nomem;
	}
	if (ops->open) {
		st = ops->open(a, err);
		if (st != STATUS_OK) {
			if (!err->st)
				err->st = st;
			free_adapter(a);
			return st;
		}
	}
	*out = a;
	return STATUS_OK;
nomem:
	set_err(err, STATUS_NOMEM, "%s", status_str(STATUS_NOMEM));
	free_adapter(a);
	return STATUS_NOMEM;
}

void adapter_close(struct adapter *a)
{
	if (!a)
		return;
	if (a->ops->close)
		a->ops->close(a);
	free_adapter(a);
}

static size_t env_name_len(const char *entry)
{
	const char *eq = strchr(entry, '=');

	return eq ? (size_t)(eq - entry) : strlen(entry);
}

/* The index of name's entry in plan->env, or plan->nenv. */
static size_t env_find(const struct launch_plan *plan, const char *name)
{
	size_t len = strlen(name), i;

	for (i = 0; i < plan->nenv; i++)
		if (env_name_len(plan->env[i]) == len &&
		    !memcmp(plan->env[i], name, len))
			break;
	return i;
}

enum status launch_plan_setenv(struct launch_plan *plan, const char *name,
                               const char *value)
{
	struct buf b;
	size_t i;

	if (!name[0] || strchr(name, '='))
		return STATUS_INVAL;
	i = env_find(plan, name);
	if (i == plan->nenv && plan->nenv >= LAUNCH_PLAN_ENV_MAX)
		return STATUS_LIMIT;
	buf_init(&b);
	if (buf_printf(&b, "%s=%s", name, value) != STATUS_OK) {
		buf_fini(&b);
		return STATUS_NOMEM;
	}
	if (i < plan->nenv)
		mem_free(plan->env[i]);
	else
		plan->nenv++;
	plan->env[i] = buf_detach(&b, NULL);
	return STATUS_OK;
}

const char *launch_plan_getenv(const struct launch_plan *plan, const char *name)
{
	size_t i = env_find(plan, name);

	return i < plan->nenv ? plan->env[i] + strlen(name) + 1 : NULL;
}

void launch_plan_fini(struct launch_plan *plan)
{
	for (size_t i = 0; i < plan->nenv; i++)
		mem_free(plan->env[i]);
	memset(plan, 0, sizeof(*plan));
}
