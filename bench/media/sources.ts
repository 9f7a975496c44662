/**
 * What `audio` and `video` would find on real pages: `findMedia` over the WCXB dev pages (679
 * saved pages, `../shared/corpus/wcxb-dev`), offline: how many pages offer media, where it was
 * found, how it is packaged, how many `<video>` elements are decorative (muted and autoplaying or
 * looping without controls, which the formats try last), and the ms a page the search costs.
 * Nothing is downloaded.
 *
 *   node_modules/.bin/node -C @strata/source bench/media/sources.ts [--write]
 *
 * `--write` stores bench/results/media-sources.json and .md.
 */
import { findMedia } from "../../packages/core/src/media/MediaSources.ts"
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { cpus, loadavg } from "node:os"
import { performance } from "node:perf_hooks"
import { gunzipSync } from "node:zlib"

const corpus = new URL("../../../shared/corpus/wcxb-dev/html/", import.meta.url).pathname
const files = readdirSync(corpus).filter((f) => f.endsWith(".html.gz")).sort()
const loadBefore = loadavg()

const counts: Record<string, number> = {}
const times: Array<number> = []
let withMedia = 0
let withAudio = 0
let withVideo = 0
let videoElements = 0
let decorative = 0
let firstIsDecorative = 0
const examples: Array<string> = []
for (const file of files) {
  const html = gunzipSync(readFileSync(corpus + file)).toString("utf8")
  const t = performance.now()
  const found = findMedia(html, "https://page.example/")
  times.push(performance.now() - t)
  if (found.length === 0) continue
  withMedia++
  if (found.some((m) => m.kind === "audio")) withAudio++
  if (found.some((m) => m.kind === "video")) withVideo++
  for (const m of found) {
    const key = `${m.kind} · ${m.via} · ${m.packaging}`
    counts[key] = (counts[key] ?? 0) + 1
    if (m.kind === "video" && m.via === "element") {
      videoElements++
      if (m.decorative) decorative++
    }
  }
  // Pages where the choice matters: a decoration and another video on the same page.
  if (found.some((m) => m.kind === "video" && m.decorative) && found.some((m) => m.kind === "video" && !m.decorative)) firstIsDecorative++
  if (examples.length < 12) examples.push(`${file}: ${found[0].kind} ${found[0].via} ${found[0].packaging}${found[0].decorative ? " (decorative)" : ""}`)
}
times.sort((a, b) => a - b)
const pct = (p: number) => Math.round(times[Math.min(times.length - 1, Math.floor(times.length * p))]! * 100) / 100
const result = {
  date: new Date().toISOString(),
  pages: files.length,
  withMedia,
  withAudio,
  withVideo,
  videoElements,
  decorative,
  pagesWithDecorativeAndOtherVideo: firstIsDecorative,
  sources: Object.fromEntries(Object.entries(counts).sort((a, b) => b[1] - a[1])),
  msPerPage: { p50: pct(0.5), p95: pct(0.95) },
  cpus: cpus().length,
  loadAverage: { before: loadBefore.map((n) => Math.round(n * 100) / 100), after: loadavg().map((n) => Math.round(n * 100) / 100) }
}
const md = `# audio and video: the media WCXB dev pages offer

${result.date} · \`bench/media/sources.ts\` · ${result.pages} saved pages, searched offline (nothing downloaded) · ${result.cpus} cores, load average ${result.loadAverage.before.join(" / ")} before, ${result.loadAverage.after.join(" / ")} after.

- Pages with media: ${withMedia} (${withAudio} with audio, ${withVideo} with video); the others would get \`null\` and a warning.
- \`<video>\` sources: ${videoElements}, of which ${decorative} decorative (muted, autoplaying or looping, no controls), tried last; ${firstIsDecorative} pages have a decoration and another video, where that order matters.
- Search time a page: p50 ${result.msPerPage.p50} ms, p95 ${result.msPerPage.p95} ms (one htmlparser2 parse).

| kind · where · packaging | sources |
| --- | ---: |
${Object.entries(result.sources).map(([key, n]) => `| ${key} | ${n} |`).join("\n")}
`
console.log(md)
if (process.argv.includes("--write")) {
  mkdirSync("bench/results", { recursive: true })
  writeFileSync("bench/results/media-sources.json", JSON.stringify(result, null, 2) + "\n")
  writeFileSync("bench/results/media-sources.md", md)
}
