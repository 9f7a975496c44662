/**
 * Metrics in the Prometheus text exposition format (version 0.0.4): what `GET /metrics` on a
 * server and on a `strata worker` answers. A family is a name, a help line, a type and its
 * samples; `render` writes the `# HELP` and `# TYPE` lines and one line per sample. No client
 * library: the format is a few lines of text, and the values are read when scraped, from the
 * counters and gauges their owners already keep.
 */
import type { QueueDepth } from "../queue/JobQueue.ts"

/** The Content-Type of the text format. */
export const contentType = "text/plain; version=0.0.4; charset=utf-8"

export interface Sample {
  readonly labels?: Readonly<Record<string, string>> | undefined
  readonly value: number
}

export interface Family {
  /** `strata_` and snake case; counters end in `_total`. */
  readonly name: string
  readonly help: string
  readonly type: "counter" | "gauge"
  readonly samples: ReadonlyArray<Sample>
}

const escapeHelp = (text: string) => text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")
const escapeLabel = (text: string) => text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, "\\\"")

const formatValue = (value: number): string =>
  Number.isNaN(value) ? "NaN" : value === Infinity ? "+Inf" : value === -Infinity ? "-Inf" : String(value)

const formatLabels = (labels: Sample["labels"]): string => {
  const entries = Object.entries(labels ?? {})
  return entries.length === 0 ? "" : `{${entries.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(",")}}`
}

/** The families as exposition text, ending in a newline. */
export const render = (families: ReadonlyArray<Family>): string => {
  const lines: Array<string> = []
  for (const family of families) {
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`)
    for (const sample of family.samples) lines.push(`${family.name}${formatLabels(sample.labels)} ${formatValue(sample.value)}`)
  }
  return lines.join("\n") + "\n"
}

/**
 * A queue's depth as families: jobs by state, and the age of the oldest waiting job (0 when none
 * waits, so that an alert on it clears). Queues that could not be read are left out.
 */
export const queueFamilies = (depths: ReadonlyArray<readonly [queue: string, depth: QueueDepth]>): Array<Family> => [
  {
    name: "strata_queue_jobs",
    help: "Jobs in the queue by state: queued (waiting for a slot or a retry), active, failed (out of attempts, kept).",
    type: "gauge",
    samples: depths.flatMap(([queue, depth]) => [
      { labels: { queue, state: "queued" }, value: depth.queued },
      { labels: { queue, state: "active" }, value: depth.active },
      { labels: { queue, state: "failed" }, value: depth.failed }
    ])
  },
  {
    name: "strata_queue_oldest_waiting_seconds",
    help: "Age of the oldest job waiting in the queue, in seconds (0 when none waits).",
    type: "gauge",
    samples: depths.map(([queue, depth]) => ({ labels: { queue }, value: (depth.oldestQueuedMs ?? 0) / 1000 }))
  }
]
