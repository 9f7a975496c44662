/**
 * Labelled blocks for the main-content model: every WCXB dev page (../shared/corpus/wcxb-dev)
 * runs through parse, clean and main-content extraction as `processHtml` would, with the
 * article path and the multi-block path each forced where the page has that choice (and the
 * default pick where it has not). Each leaf block of each pick (`pickBlocks`) gets its features
 * and a label from the page's human-checked main content: content when its text occurs there
 * or 80% of its words do, boilerplate when at most 30% do (a block under 5 words: content only
 * when its text occurs there), left out in between. The picks' scored words are kept so that
 * the trainer can estimate a page's word F1 after pruning or choosing without re-rendering.
 */
import { readFileSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { gunzipSync } from "node:zlib"
import { decodeBody } from "../../packages/core/src/fetch/Charset.ts"
import { parseHtml } from "../../packages/core/src/html/HtmlParser.ts"
import { cleanHtml } from "../../packages/core/src/html/HtmlClean.ts"
import { hastToMarkdown } from "../../packages/core/src/html/HastToMarkdown.ts"
import { extractMainContent, readMainContentHints } from "../../packages/core/src/html/MainContent.ts"
import { type PickPath, pageTitle, pickBlocks } from "../../packages/core/src/html/MainContentBlocks.ts"
import { findBody } from "../../packages/core/src/html/MainContentNodes.ts"
import { markdownToPlain, tokenize } from "../../bench/html/Score.ts"

export interface PickRows {
  readonly path: PickPath
  /** words of the pick's markdown as the bench scores them */
  readonly words: Array<string>
  readonly rows: Array<Array<number>>
  readonly labels: Array<number | undefined>
  readonly blockWords: Array<Array<string>>
}

export interface PageData {
  readonly id: string
  readonly odd: boolean
  readonly reference: Array<string>
  /** the pick the rules make (the article or blocks pick where the page has a choice) */
  readonly chosen: PickPath
  readonly picks: Array<PickRows>
}

const normal = (words: ReadonlyArray<string>) => ` ${words.join(" ")} `

export const labelBlock = (words: ReadonlyArray<string>, reference: string, referenceWords: ReadonlySet<string>): number | undefined => {
  if (words.length === 0) return undefined
  if (reference.includes(normal(words))) return 1
  if (words.length < 5) return 0
  const share = words.filter((w) => referenceWords.has(w)).length / words.length
  return share >= 0.8 ? 1 : share <= 0.3 ? 0 : undefined
}

export const loadPage = (corpusDir: string, id: string): PageData => {
  const json = JSON.parse(readFileSync(join(corpusDir, "ground-truth", `${id}.json`), "utf8"))
  const referenceWords = tokenize(json.ground_truth?.main_content ?? "")
  const reference = normal(referenceWords)
  const referenceSet = new Set(referenceWords)
  const url: string = json.url ?? ""
  const html = decodeBody(gunzipSync(readFileSync(join(corpusDir, "html", `${id}.html.gz`))), undefined).text
  const parsed = parseHtml(html)
  const hints = readMainContentHints(parsed, url)
  const { root } = cleanHtml(parsed, url)
  const title = pageTitle(findBody(root))
  let choice = false
  let rulePath: "article" | "blocks" | undefined
  const auto = extractMainContent(root, { url, hints, learned: false, onChoice: () => (choice = true) })
  const pick = (path: PickPath, content: typeof auto): PickRows => {
    const blocks = pickBlocks(content, { title, path, kind: hints.kind })
    return {
      path,
      words: tokenize(markdownToPlain(hastToMarkdown(content, { removeBase64Images: true }))),
      rows: blocks.map((b) => b.row),
      labels: blocks.map((b) => labelBlock(b.words, reference, referenceSet)),
      blockWords: blocks.map((b) => [...b.words])
    }
  }
  const picks: Array<PickRows> = []
  if (choice) {
    const article = pick("article", extractMainContent(root, { url, hints, learned: false, path: "article" }))
    const blocks = pick("blocks", extractMainContent(root, { url, hints, learned: false, path: "blocks" }))
    const autoWords = tokenize(markdownToPlain(hastToMarkdown(auto, { removeBase64Images: true })))
    rulePath = autoWords.join(" ") === blocks.words.join(" ") ? "blocks" : "article"
    picks.push(article, blocks)
  } else picks.push(pick("other", auto))
  return { id, odd: Number(id.replace(/\D/g, "")) % 2 === 1, reference: referenceWords, chosen: rulePath ?? "other", picks }
}


/** A block weighs 1 + log(1 + words): a long paragraph counts more than a button, not 100 times more. */
const weightOf = (words: number): number => 1 + Math.log1p(words)

export const trainingRows = (pages: ReadonlyArray<PageData>) => {
  const X: Array<Array<number>> = []
  const y: Array<number> = []
  const w: Array<number> = []
  for (const page of pages)
    for (const pick of page.picks)
      pick.rows.forEach((row, i) => {
        const label = pick.labels[i]
        if (label === undefined || label === null) return // null: through JSON
        X.push(row)
        y.push(label)
        w.push(weightOf(pick.blockWords[i].length))
      })
  return { X, y, w }
}

export const pageIds = (corpusDir: string): Array<string> =>
  readdirSync(join(corpusDir, "html"))
    .filter((f) => f.endsWith(".html.gz"))
    .map((f) => f.slice(0, -".html.gz".length))
    .sort()
