/**
 * A small reader of the Prometheus text exposition format (0.0.4), strict enough to fail a test
 * on text a scraper would reject: every sample belongs to a family declared by `# TYPE` before
 * it, names and label names have the allowed characters, label values are quoted with the
 * format's escapes, values are numbers (or NaN, +Inf, -Inf), and a family is declared once.
 */

export interface ParsedSample {
  readonly name: string
  readonly labels: Record<string, string>
  readonly value: number
}

export interface Exposition {
  readonly types: Map<string, string>
  readonly help: Map<string, string>
  readonly samples: Array<ParsedSample>
  /** The value of the one sample of `name` whose labels include `labels`; undefined when none. */
  readonly value: (name: string, labels?: Record<string, string>) => number | undefined
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/

const parseLabels = (text: string, line: string): Record<string, string> => {
  const labels: Record<string, string> = {}
  let i = 0
  while (i < text.length) {
    const eq = text.indexOf("=", i)
    if (eq === -1) throw new Error(`bad labels in: ${line}`)
    const name = text.slice(i, eq).trim()
    if (!LABEL_NAME.test(name) || text[eq + 1] !== "\"") throw new Error(`bad label name or quote in: ${line}`)
    let value = ""
    let j = eq + 2
    for (; j < text.length && text[j] !== "\""; j++) {
      if (text[j] === "\\") {
        const next = text[++j]
        if (next === "n") value += "\n"
        else if (next === "\\" || next === "\"") value += next
        else throw new Error(`bad escape in: ${line}`)
      } else value += text[j]
    }
    if (j >= text.length) throw new Error(`unterminated label value in: ${line}`)
    if (name in labels) throw new Error(`label ${name} twice in: ${line}`)
    labels[name] = value
    i = j + 1
    if (text[i] === ",") i++
    else if (i < text.length) throw new Error(`expected , between labels in: ${line}`)
  }
  return labels
}

const parseValue = (text: string, line: string): number => {
  if (text === "NaN") return NaN
  if (text === "+Inf") return Infinity
  if (text === "-Inf") return -Infinity
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`bad value in: ${line}`)
  return Number(text)
}

export const parseExposition = (text: string): Exposition => {
  if (!text.endsWith("\n")) throw new Error("the exposition must end with a newline")
  const types = new Map<string, string>()
  const help = new Map<string, string>()
  const samples: Array<ParsedSample> = []
  for (const line of text.slice(0, -1).split("\n")) {
    if (line.trim() === "") continue
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line)
    if (meta !== null) {
      const [, kind, name, rest] = meta
      if (!NAME.test(name!)) throw new Error(`bad metric name in: ${line}`)
      if (kind === "TYPE") {
        if (types.has(name!)) throw new Error(`${name} declared twice`)
        if (!["counter", "gauge", "histogram", "summary", "untyped"].includes(rest!)) throw new Error(`bad type in: ${line}`)
        types.set(name!, rest!)
      } else help.set(name!, rest!)
      continue
    }
    if (line.startsWith("#")) continue
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: (-?\d+))?$/.exec(line)
    if (sample === null) throw new Error(`not a sample line: ${line}`)
    const [, name, labelText, valueText] = sample
    if (!types.has(name!)) throw new Error(`${name} has no # TYPE before its sample`)
    samples.push({ name: name!, labels: parseLabels(labelText ?? "", line), value: parseValue(valueText!, line) })
  }
  const value = (name: string, labels: Record<string, string> = {}) => {
    const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`)
    return found[0]?.value
  }
  return { types, help, samples, value }
}
