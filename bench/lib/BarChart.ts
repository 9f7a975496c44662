/**
 * A dependency-free SVG writer for grouped horizontal bar charts: one figure of stacked
 * panels, each panel a few groups (a metric, a file type) with one bar per series (Strata
 * first, then its peers), labelled with its value. Bench results are drawn with it next to
 * their markdown tables (bench/charts.ts).
 */

export interface Group {
  readonly label: string
  /** One value per series, in the panel's series order; `null` where the series has no value. */
  readonly values: ReadonlyArray<number | null>
}

export interface Panel {
  readonly title: string
  readonly series: ReadonlyArray<string>
  readonly groups: ReadonlyArray<Group>
  readonly format?: (value: number) => string
  /** `log` for values spanning orders of magnitude (milliseconds from 0.1 to 900). */
  readonly scale?: "linear" | "log"
  /** The axis maximum; the largest value by default (1 suits scores). */
  readonly max?: number
}

export interface Figure {
  readonly title: string
  readonly subtitle?: string
  readonly panels: ReadonlyArray<Panel>
}

/** Strata is always the first series, in the strong colour; peers in quieter ones. */
const PALETTE = ["#2563eb", "#f59e0b", "#9ca3af", "#10b981", "#a855f7", "#ef4444"]
const WIDTH = 760
const PAD = 16
const BAR = 14
const BAR_GAP = 2
const GROUP_GAP = 10
const VALUE_ROOM = 64
/** Rough width of a character at 12 px in a sans-serif font: enough to size the label column. */
const CHAR = 6.6
const FONT = "system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif"

export const escapeXml = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

const defaultFormat = (value: number): string =>
  Math.abs(value) >= 100 ? value.toFixed(0) : Math.abs(value) >= 10 ? value.toFixed(1) : value.toFixed(3).replace(/\.?0+$/, "")

/** Axis labels without a value's fixed decimals: 0, 0.5, 1, 50, 100. */
const tickLabel = (value: number): string => String(Number(value.toPrecision(6)))

/** A step of 1, 2 or 5 times a power of ten giving about `count` ticks up to `max`. */
export const niceStep = (max: number, count = 4): number => {
  const raw = max / count
  const power = 10 ** Math.floor(Math.log10(raw))
  const step = [1, 2, 5, 10].find((m) => m * power >= raw) ?? 10
  return step * power
}

interface Axis {
  readonly position: (value: number) => number
  readonly ticks: ReadonlyArray<number>
}

const values = (panel: Panel): Array<number> =>
  panel.groups.flatMap((g) => g.values.filter((v): v is number => v !== null && Number.isFinite(v)))

const linearAxis = (panel: Panel, width: number): Axis => {
  const top = panel.max ?? Math.max(...values(panel), 0)
  const step = top > 0 ? niceStep(top) : 1
  const max = panel.max ?? Math.max(step, Math.ceil(top / step) * step)
  const ticks: Array<number> = []
  for (let t = 0; t <= max + step / 1e6; t += step) ticks.push(Number(t.toPrecision(12)))
  return { position: (v) => (Math.max(0, Math.min(v, max)) / max) * width, ticks }
}

const logAxis = (panel: Panel, width: number): Axis => {
  const positive = values(panel).filter((v) => v > 0)
  // One decade below the smallest value, so that a value on a power of ten still shows a bar.
  const low = Math.ceil(Math.log10(Math.min(...positive, 1))) - 1
  const high = Math.max(low + 1, Math.ceil(Math.log10(panel.max ?? Math.max(...positive, 1))))
  const ticks = Array.from({ length: high - low + 1 }, (_, i) => 10 ** (low + i))
  const position = (v: number) => ((Math.log10(Math.max(v, 10 ** low)) - low) / (high - low)) * width
  return { position, ticks }
}

const text = (x: number, y: number, content: string, attrs = ""): string =>
  `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}"${attrs ? " " + attrs : ""}>${escapeXml(content)}</text>`

const legend = (series: ReadonlyArray<string>, x: number, y: number): string => {
  let cursor = x
  return series.map((name, i) => {
    const item = `<rect x="${cursor}" y="${y - 9}" width="10" height="10" rx="2" fill="${PALETTE[i % PALETTE.length]}"/>` +
      text(cursor + 14, y, name, `class="legend"`)
    cursor += 14 + name.length * CHAR + 18
    return item
  }).join("")
}

const groupHeight = (panel: Panel): number => panel.series.length * (BAR + BAR_GAP) - BAR_GAP

/** One panel's SVG, drawn from `y`; returns the markup and the height it took. */
const drawPanel = (panel: Panel, y: number, labelWidth: number): { svg: string; height: number } => {
  const plotX = PAD + labelWidth
  const plotWidth = WIDTH - plotX - PAD - VALUE_ROOM
  const axis = panel.scale === "log" ? logAxis(panel, plotWidth) : linearAxis(panel, plotWidth)
  const format = panel.format ?? defaultFormat
  const parts = [text(PAD, y + 14, panel.title, `class="panel"`), legend(panel.series, PAD, y + 34)]
  const top = y + 46
  let cursor = top
  for (const group of panel.groups) {
    const height = groupHeight(panel)
    parts.push(text(plotX - 8, cursor + height / 2 + 4, group.label, `class="label" text-anchor="end"`))
    group.values.forEach((value, i) => {
      const barY = cursor + i * (BAR + BAR_GAP)
      if (value === null || !Number.isFinite(value)) {
        parts.push(text(plotX + 4, barY + BAR - 3, "n/a", `class="value muted"`))
        return
      }
      const width = Math.max(1, axis.position(value))
      parts.push(
        `<rect x="${plotX}" y="${barY}" width="${width.toFixed(1)}" height="${BAR}" fill="${PALETTE[i % PALETTE.length]}">` +
          `<title>${escapeXml(`${panel.series[i]}, ${group.label}: ${format(value)}`)}</title></rect>`,
        text(plotX + width + 4, barY + BAR - 3, format(value), `class="value"`)
      )
    })
    cursor += height + GROUP_GAP
  }
  const bottom = cursor - GROUP_GAP + 4
  const grid = axis.ticks.map((tick) => {
    const x = plotX + axis.position(tick)
    return `<line x1="${x.toFixed(1)}" y1="${top - 4}" x2="${x.toFixed(1)}" y2="${bottom}" class="grid"/>` +
      text(x, bottom + 13, tickLabel(tick), `class="tick" text-anchor="middle"`)
  })
  // Grid lines go first so the bars are drawn over them.
  return { svg: [...parts.slice(0, 2), ...grid, ...parts.slice(2)].join("\n"), height: bottom + 13 - y }
}

/** The whole figure as a standalone SVG document. */
export const renderFigure = (figure: Figure): string => {
  const labels = figure.panels.flatMap((p) => p.groups.map((g) => g.label))
  const labelWidth = Math.min(260, Math.max(80, Math.max(...labels.map((l) => l.length)) * CHAR + 12))
  const body: Array<string> = [text(PAD, PAD + 16, figure.title, `class="title"`)]
  let y = PAD + 24
  if (figure.subtitle) {
    body.push(text(PAD, y + 12, figure.subtitle, `class="subtitle"`))
    y += 18
  }
  for (const panel of figure.panels) {
    const drawn = drawPanel(panel, y + 10, labelWidth)
    body.push(drawn.svg)
    y += 10 + drawn.height + 8
  }
  const height = Math.ceil(y + PAD)
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="${escapeXml(figure.title)}">`,
    `<style>text{font-family:${FONT};fill:#111827}.title{font-size:16px;font-weight:600}.subtitle{font-size:11px;fill:#6b7280}` +
      `.panel{font-size:13px;font-weight:600}.legend,.label{font-size:12px}.value{font-size:11px}.muted{fill:#9ca3af}` +
      `.tick{font-size:10px;fill:#6b7280}.grid{stroke:#e5e7eb;stroke-width:1}</style>`,
    // An opaque background keeps the chart readable in a dark-themed markdown viewer.
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    ...body,
    `</svg>`,
    ""
  ].join("\n")
}
