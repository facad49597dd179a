/**
 * The Prometheus text exposition format (version 0.0.4, what `promtool check metrics` reads): a
 * `# HELP` and a `# TYPE` line per family, then its samples, one per line. Families come from
 * Effect's `Metric` registry (`fromSnapshot`: counters, gauges and histograms, kept as the
 * service runs) and from what the scrape reads at the moment (Scrape.ts).
 */
import * as Option from "effect/Option"
import type * as MetricPair from "effect/MetricPair"
import * as MetricState from "effect/MetricState"

export type Labels = ReadonlyArray<readonly [name: string, value: string]>

export interface Sample {
  /** `_bucket`, `_sum` or `_count` for a histogram's series; none for the family's own name. */
  readonly suffix?: "_bucket" | "_sum" | "_count"
  readonly labels: Labels
  readonly value: number
}

export interface Family {
  readonly name: string
  readonly help: string
  readonly type: "counter" | "gauge" | "histogram"
  readonly samples: ReadonlyArray<Sample>
}

/** A family of one gauge sample per entry of `values`, each with its labels (none: one sample, no labels). */
export const gauge = (name: string, help: string, values: ReadonlyArray<readonly [Labels, number]> | number): Family => ({
  name,
  help,
  type: "gauge",
  samples: typeof values === "number" ? [{ labels: [], value: values }] : values.map(([labels, value]) => ({ labels, value }))
})

const escapeHelp = (text: string) => text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")
const escapeValue = (text: string) => text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, "\\\"")

const number = (value: number) =>
  Number.isNaN(value) ? "NaN" : value === Infinity ? "+Inf" : value === -Infinity ? "-Inf" : String(value)

const labelsText = (labels: Labels) =>
  labels.length === 0 ? "" : `{${labels.map(([name, value]) => `${name}="${escapeValue(value)}"`).join(",")}}`

/** The families as the text format, families sorted by name (each name once: samples of a name given twice are joined). */
export const render = (families: ReadonlyArray<Family>): string => {
  const byName = new Map<string, Family>()
  for (const family of families) {
    const known = byName.get(family.name)
    byName.set(family.name, known === undefined ? family : { ...known, samples: [...known.samples, ...family.samples] })
  }
  const lines: Array<string> = []
  for (const name of [...byName.keys()].sort()) {
    const family = byName.get(name)!
    lines.push(`# HELP ${name} ${escapeHelp(family.help)}`, `# TYPE ${name} ${family.type}`)
    for (const sample of family.samples) lines.push(`${name}${sample.suffix ?? ""}${labelsText(sample.labels)} ${number(sample.value)}`)
  }
  return lines.join("\n") + "\n"
}

/** The families of a `Metric.snapshot` whose names `accept` takes; other kinds of metric (frequencies, summaries) are left out. */
export const fromSnapshot = (
  pairs: ReadonlyArray<MetricPair.MetricPair.Untyped>,
  accept: (name: string) => boolean
): ReadonlyArray<Family> => {
  const families: Array<Family> = []
  for (const { metricKey, metricState } of pairs) {
    if (!accept(metricKey.name)) continue
    const help = Option.getOrElse(metricKey.description, () => metricKey.name)
    const labels: Labels = metricKey.tags.map((tag) => [tag.key, tag.value] as const)
    if (MetricState.isCounterState(metricState)) {
      families.push({ name: metricKey.name, help, type: "counter", samples: [{ labels, value: Number(metricState.count) }] })
    } else if (MetricState.isGaugeState(metricState)) {
      families.push({ name: metricKey.name, help, type: "gauge", samples: [{ labels, value: Number(metricState.value) }] })
    } else if (MetricState.isHistogramState(metricState)) {
      const buckets = metricState.buckets.map(([le, count]): Sample => ({
        suffix: "_bucket",
        labels: [...labels, ["le", number(le)]],
        value: count
      }))
      // the +Inf bucket holds every observation (Effect's boundaries end with it; added if not)
      if (metricState.buckets.at(-1)?.[0] !== Infinity) {
        buckets.push({ suffix: "_bucket", labels: [...labels, ["le", "+Inf"]], value: metricState.count })
      }
      families.push({
        name: metricKey.name,
        help,
        type: "histogram",
        samples: [
          ...buckets,
          { suffix: "_sum", labels, value: metricState.count === 0 ? 0 : metricState.sum },
          { suffix: "_count", labels, value: metricState.count }
        ]
      })
    }
  }
  return families
}
