/*
 * time_report.c - a timed session's per-function time (see
 * time_report.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "say.h"
#include "time_report.h"
#include "tools/session/timing.h"

static const struct sess_tfunc **sorted(const struct sess_time *t)
{
	const struct sess_tfunc **v = calloc(t->n + 1, sizeof(*v));
	unsigned int i, j;

	for (i = 0; v && i < t->n; i++) { /* by exclusive time, descending */
		for (j = i; j && v[j - 1]->excl < t->f[i].excl; j--)
			v[j] = v[j - 1];
		v[j] = &t->f[i];
	}
	return v;
}

static void print_text(const struct session *s, const struct sess_time *t,
		       const struct sess_tfunc **v, FILE *out)
{
	unsigned int i;

	fprintf(out,
		"# kjit report: time per function (TSC %" PRIu64
		" kHz; %u function%s timed, %" PRIu64 " call%s untimed, %" PRIu64
		" left open)\n",
		t->tsc_khz, t->n, t->n == 1 ? "" : "s", t->untimed,
		t->untimed == 1 ? "" : "s", t->lost);
	fprintf(out, "# incl: entry to return; excl: less the timed callees; "
		     "virt: less the time switched out; p50/p99: at most\n");
	fprintf(out, "%-32s %10s %12s %12s %12s %10s %10s %10s\n", "function",
		"calls", "incl ms", "excl ms", "virt ms", "mean us", "p50 us",
		"p99 us");
	for (i = 0; i < t->n; i++) {
		const struct sess_tfunc *x = v[i];

		fprintf(out,
			"%-32s %10" PRIu64 " %12.3f %12.3f %12.3f %10.2f %10.2f "
			"%10.2f\n",
			s->funcs[x->func].name, x->calls,
			timing_ns(t, x->incl) / 1e6, timing_ns(t, x->excl) / 1e6,
			timing_ns(t, x->virt) / 1e6,
			timing_ns(t, x->incl) / 1e3 / (double)x->calls,
			timing_ns(t, timing_quantile(x, 0.5)) / 1e3,
			timing_ns(t, timing_quantile(x, 0.99)) / 1e3);
	}
}

static void print_csv(const struct session *s, const struct sess_time *t,
		      const struct sess_tfunc **v, FILE *out)
{
	unsigned int i;

	fprintf(out, "function,calls,incl_cycles,excl_cycles,virt_cycles,"
		     "incl_ns,excl_ns,virt_ns,p50_ns,p99_ns\n");
	for (i = 0; i < t->n; i++)
		fprintf(out,
			"%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%.0f,%.0f,%.0f,%.0f,%.0f\n",
			s->funcs[v[i]->func].name, v[i]->calls, v[i]->incl,
			v[i]->excl, v[i]->virt, timing_ns(t, v[i]->incl),
			timing_ns(t, v[i]->excl), timing_ns(t, v[i]->virt),
			timing_ns(t, timing_quantile(v[i], 0.5)),
			timing_ns(t, timing_quantile(v[i], 0.99)));
}

static void print_json(const struct session *s, const struct sess_time *t,
		       const struct sess_tfunc **v, FILE *out)
{
	unsigned int i, b;

	fprintf(out,
		"{\n  \"tsc_khz\": %" PRIu64 ", \"untimed\": %" PRIu64
		", \"lost\": %" PRIu64 ",\n  \"functions\": [",
		t->tsc_khz, t->untimed, t->lost);
	for (i = 0; i < t->n; i++) {
		fprintf(out, "%s\n    {\"function\": ", i ? "," : "");
		json_string(out, s->funcs[v[i]->func].name);
		fprintf(out,
			", \"calls\": %" PRIu64 ", \"incl_cycles\": %" PRIu64
			", \"excl_cycles\": %" PRIu64 ", \"virt_cycles\": %" PRIu64
			", \"hist\": [",
			v[i]->calls, v[i]->incl, v[i]->excl, v[i]->virt);
		for (b = 0; b < KJIT_TIME_BUCKETS; b++)
			fprintf(out, "%s%" PRIu64, b ? ", " : "", v[i]->hist[b]);
		fprintf(out, "]}");
	}
	fprintf(out, "\n  ]\n}\n");
}

int time_report_print(const struct session *s, enum report_fmt fmt,
		      FILE *out)
{
	const struct sess_time *t = s->timing;
	const struct sess_tfunc **v;

	if (!t) {
		say("--time needs a timed session: attach or record with "
		    "--time\n");
		return 1;
	}
	v = sorted(t);
	if (!v) {
		say("out of memory\n");
		return 1;
	}
	if (fmt == FMT_JSON)
		print_json(s, t, v, out);
	else if (fmt == FMT_CSV)
		print_csv(s, t, v, out);
	else
		print_text(s, t, v, out);
	free(v);
	return 0;
}
