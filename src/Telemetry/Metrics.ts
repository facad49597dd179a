/**
 * The service's own metrics, kept as it runs in Effect's `Metric` registry (the process's), and
 * exported by `GET /metrics` (Scrape.ts, Prometheus.ts; CONTRACT §19). Labels name routes,
 * methods, statuses, channels, outcomes and policies: never an organization, a person, a token or
 * a raw path. A metric with labels is one `Metric` per set of labels; each set is made once and
 * kept here, so recording one is a map lookup and an addition (the request lifecycle records one
 * per request).
 */
import * as Metric from "effect/Metric"
import * as MetricBoundaries from "effect/MetricBoundaries"
import * as MetricKey from "effect/MetricKey"
import type * as MetricKeyType from "effect/MetricKeyType"
import * as MetricLabel from "effect/MetricLabel"

/** What the scrape exports from the registry: these metrics (and PostgreSQL's client's, Db/PostgresMetrics.ts). */
export const OWN_PREFIX = "convene_"

/** Seconds, from 5 ms to 10 s. */
const LATENCIES = MetricBoundaries.fromIterable([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10])

/** Seconds, from 10 ms to a minute: an attempt ends at `WEBHOOK_TIMEOUT` (10 s by default). */
const ATTEMPTS = MetricBoundaries.fromIterable([0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60])

/**
 * One metric per set of label values, made on first use: its own key (name and labels), so that
 * an update finds its state at once (a metric tagged with `Metric.taggedWithLabels` looks its key
 * up in the registry on every update).
 */
const labelled = <Type extends MetricKeyType.MetricKeyType<number, unknown>>(
  key: MetricKey.MetricKey<Type>,
  names: ReadonlyArray<string>
) => {
  const made = new Map<string, Metric.Metric<Type, number, unknown>>()
  return (...values: ReadonlyArray<string>): Metric.Metric<Type, number, unknown> => {
    const id = values.join("\u0000")
    let metric = made.get(id)
    if (metric === undefined) {
      const labels = names.map((name, i) => MetricLabel.make(name, values[i]!))
      metric = Metric.fromMetricKey(MetricKey.taggedWithLabels(key, labels)) as unknown as Metric.Metric<Type, number, unknown>
      made.set(id, metric)
    }
    return metric
  }
}

const requests = labelled(
  MetricKey.counter("convene_http_requests_total", { description: "HTTP requests answered, by route pattern, method and status" }),
  ["route", "method", "status"]
)

const durations = labelled(
  MetricKey.histogram(
    "convene_http_request_duration_seconds",
    LATENCIES,
    "Time from a request's arrival to its answer, by route pattern and method"
  ),
  ["route", "method"]
)

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])

/** One request answered (`route`: the matched pattern, `unmatched` when none matched). */
export const countRequest = (route: string, method: string, status: number, seconds: number): void => {
  const known = METHODS.has(method) ? method : "other"
  requests(route, known, String(status)).unsafeUpdate(1, [])
  durations(route, known).unsafeUpdate(seconds, [])
}

const outcomes = labelled(
  MetricKey.counter("convene_outbox_deliveries_total", {
    description: "Outbox delivery attempts recorded, by channel and outcome (delivered, retry: attempted again later, failed: given up)"
  }),
  ["channel", "outcome"]
)

const attempts = labelled(
  MetricKey.histogram("convene_outbox_attempt_duration_seconds", ATTEMPTS, "Time one delivery attempt took, by channel"),
  ["channel"]
)

/** An attempt's outcome, once recorded (`status` as the outbox records it: pending means retried later). */
export const countDelivery = (channel: string, status: "pending" | "delivered" | "failed"): void =>
  outcomes(channel, status === "pending" ? "retry" : status).unsafeUpdate(1, [])

export const timeAttempt = (channel: string, seconds: number): void => attempts(channel).unsafeUpdate(seconds, [])

const rejections = labelled(
  MetricKey.counter("convene_rate_limit_rejections_total", { description: "Requests refused by the rate limit (429), by the policy that ran out" }),
  ["policy"]
)

/** A request refused by the rate limit. */
export const countRejection = (policy: string): void => rejections(policy).unsafeUpdate(1, [])

const emails = Metric.counter("convene_emails_sent_total", { description: "Emails the SMTP server accepted" })

/** One email accepted by the SMTP server. */
export const countEmailSent = (): void => emails.unsafeUpdate(1, [])

/** The series with no observation yet that a dashboard expects from the start, at 0. */
export const registerDefaults = (): void => {
  for (const channel of ["webhook", "email"]) {
    for (const outcome of ["delivered", "retry", "failed"]) outcomes(channel, outcome).register()
    attempts(channel).register()
  }
  for (const policy of ["general", "bulk"]) rejections(policy).register()
  emails.register()
}
