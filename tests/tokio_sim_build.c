/* Packs console-api Updates from plain descriptions (tokio_sim_build.h). */
#include "tests/tokio_sim_build.h"

#include <stdlib.h>
#include <string.h>

#include "adapters/tokio/instrument.pb-c.h"

#define NS 1000000000LL

struct tb_ts {
	Google__Protobuf__Timestamp created, dropped, wake, started, ended;
	Google__Protobuf__Duration busy, sched;
	Rs__Tokio__Console__Common__PollStats ps;
	Rs__Tokio__Console__Tasks__Stats st;
	Rs__Tokio__Console__Tasks__TaskUpdate__StatsUpdateEntry e;
};

struct tb_tk {
	Rs__Tokio__Console__Common__Id id;
	Rs__Tokio__Console__Common__Location loc;
	Rs__Tokio__Console__Common__Field f[4];
	Rs__Tokio__Console__Common__Field *fp[4];
	Rs__Tokio__Console__Tasks__Task t;
};

struct tb_stats tb_stats_none(uint64_t span, int64_t created)
{
	struct tb_stats s = {
		.span = span,
		.created = created,
		.dropped = TB_NONE,
		.last_wake = TB_NONE,
		.started = TB_NONE,
		.ended = TB_NONE,
	};
	return s;
}

static Google__Protobuf__Timestamp *ts(Google__Protobuf__Timestamp *t,
                                       int64_t ns)
{
	if (ns == TB_NONE)
		return NULL;
	google__protobuf__timestamp__init(t);
	t->seconds = ns / NS;
	t->nanos = (int32_t)(ns % NS);
	return t;
}

static Google__Protobuf__Duration *dur(Google__Protobuf__Duration *d,
                                       uint64_t ns)
{
	google__protobuf__duration__init(d);
	d->seconds = (int64_t)(ns / NS);
	d->nanos = (int32_t)(ns % NS);
	return d;
}

static void field_str(Rs__Tokio__Console__Common__Field *f, const char *name,
                      const char *val)
{
	rs__tokio__console__common__field__init(f);
	f->name_case = RS__TOKIO__CONSOLE__COMMON__FIELD__NAME_STR_NAME;
	f->str_name = (char *)name;
	f->value_case = RS__TOKIO__CONSOLE__COMMON__FIELD__VALUE_DEBUG_VAL;
	f->debug_val = (char *)val;
}

static void task_fill(struct tb_tk *k, const struct tb_task *d)
{
	size_t n = 0;

	rs__tokio__console__tasks__task__init(&k->t);
	rs__tokio__console__common__id__init(&k->id);
	k->id.id = d->span;
	k->t.id = &k->id;
	if (d->kind)
		field_str(&k->f[n++], "kind", d->kind);
	if (d->name)
		field_str(&k->f[n++], "task.name", d->name);
	if (d->spawn_location)
		field_str(&k->f[n++], "spawn.location", d->spawn_location);
	if (d->task_id) {
		rs__tokio__console__common__field__init(&k->f[n]);
		k->f[n].name_case =
		    RS__TOKIO__CONSOLE__COMMON__FIELD__NAME_STR_NAME;
		k->f[n].str_name = (char *)"task.id";
		k->f[n].value_case =
		    RS__TOKIO__CONSOLE__COMMON__FIELD__VALUE_U64_VAL;
		k->f[n].u64_val = d->task_id;
		n++;
	}
	for (size_t i = 0; i < n; i++)
		k->fp[i] = &k->f[i];
	k->t.n_fields = n;
	k->t.fields = k->fp;
	if (d->file) {
		rs__tokio__console__common__location__init(&k->loc);
		k->loc._file_case =
		    RS__TOKIO__CONSOLE__COMMON__LOCATION___FILE_FILE;
		k->loc.file = (char *)d->file;
		if (d->line) {
			k->loc._line_case =
			    RS__TOKIO__CONSOLE__COMMON__LOCATION___LINE_LINE;
			k->loc.line = d->line;
		}
		if (d->col) {
			k->loc._column_case =
			    RS__TOKIO__CONSOLE__COMMON__LOCATION___COLUMN_COLUMN;
			k->loc.column = d->col;
		}
		k->t.location = &k->loc;
	}
}

static void stats_fill(struct tb_ts *k, const struct tb_stats *d)
{
	rs__tokio__console__common__poll_stats__init(&k->ps);
	k->ps.polls = d->polls;
	k->ps.last_poll_started = ts(&k->started, d->started);
	k->ps.last_poll_ended = ts(&k->ended, d->ended);
	k->ps.busy_time = dur(&k->busy, d->busy);
	rs__tokio__console__tasks__stats__init(&k->st);
	k->st.created_at = ts(&k->created, d->created);
	k->st.dropped_at = ts(&k->dropped, d->dropped);
	k->st.last_wake = ts(&k->wake, d->last_wake);
	k->st.wakes = d->wakes;
	k->st.self_wakes = d->self_wakes;
	k->st.waker_clones = d->clones;
	k->st.waker_drops = d->drops;
	k->st.poll_stats = &k->ps;
	k->st.scheduled_time = d->no_sched ? NULL : dur(&k->sched, d->sched);
	rs__tokio__console__tasks__task_update__stats_update_entry__init(&k->e);
	k->e.key = d->span;
	k->e.value = &k->st;
}

uint8_t *tb_update(int64_t now, const struct tb_task *tasks, size_t ntasks,
                   const struct tb_stats *stats, size_t nstats,
                   uint64_t dropped, size_t *len)
{
	Rs__Tokio__Console__Instrument__Update u;
	Rs__Tokio__Console__Tasks__TaskUpdate tu;
	Google__Protobuf__Timestamp n;
	struct tb_tk *tk = calloc(ntasks ? ntasks : 1, sizeof(*tk));
	struct tb_ts *sk = calloc(nstats ? nstats : 1, sizeof(*sk));
	Rs__Tokio__Console__Tasks__Task **tp =
	    calloc(ntasks ? ntasks : 1, sizeof(*tp));
	Rs__Tokio__Console__Tasks__TaskUpdate__StatsUpdateEntry **sp =
	    calloc(nstats ? nstats : 1, sizeof(*sp));
	uint8_t *out = NULL;
	size_t i;

	if (!tk || !sk || !tp || !sp)
		goto done;
	for (i = 0; i < ntasks; i++) {
		task_fill(&tk[i], &tasks[i]);
		tp[i] = &tk[i].t;
	}
	for (i = 0; i < nstats; i++) {
		stats_fill(&sk[i], &stats[i]);
		sp[i] = &sk[i].e;
	}
	rs__tokio__console__tasks__task_update__init(&tu);
	tu.n_new_tasks = ntasks;
	tu.new_tasks = tp;
	tu.n_stats_update = nstats;
	tu.stats_update = sp;
	tu.dropped_events = dropped;
	rs__tokio__console__instrument__update__init(&u);
	u.now = ts(&n, now);
	u.task_update = &tu;
	*len = rs__tokio__console__instrument__update__get_packed_size(&u);
	out = malloc(*len ? *len : 1);
	if (out)
		rs__tokio__console__instrument__update__pack(&u, out);
done:
	free(tk);
	free(sk);
	free(tp);
	free(sp);
	return out;
}
