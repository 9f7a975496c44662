/**
 * `onlyCleanContent` through a language model, when one is configured: the model is asked to
 * delete the boilerplate of a page's markdown and keep the rest as it is (headings, lists,
 * tables, code, images and links). What it answers is checked before it is used: every line of
 * the rewrite, normalised, must occur in the source (alone, or as consecutive source lines run
 * together), so a model that invents, paraphrases or summarises is caught and the offline
 * classifier (`CleanContent.ts`) cleans the page instead. The offline path also runs when the
 * markdown is over the model's input or output limit, when the model fails, and under zero data
 * retention (nothing goes to the model then). `by` says which path ran.
 */
import { Duration, Effect } from "effect"
import {
  type Completion,
  estimateTokens,
  LanguageModelError,
  type LanguageModelShape,
  ModelTimedOut
} from "../LanguageModel.ts"
import { cleanMarkdown } from "./CleanContent.ts"

export interface CleanOutcome {
  readonly markdown: string
  readonly by: "model" | "classifier"
  readonly warnings: ReadonlyArray<string>
  readonly metadata: Record<string, string | number>
}

export interface CleanContext {
  readonly url?: string | undefined
  /** When the request must be answered by (epoch ms): the model gets only the time left. */
  readonly deadline?: number | undefined
  readonly zeroDataRetention?: boolean | undefined
}

/** The model's output limit when the engine does not say (OpenAiCompatible's default). */
const DEFAULT_OUTPUT_TOKENS = 2048
/** Time kept back from the deadline for the offline fallback and the response. */
const DEADLINE_RESERVE_MS = 1000

export const CLEAN_INSTRUCTIONS = [
  "You clean the markdown of a web page. Delete the boilerplate: navigation, menus, share and social buttons, related or recommended links, sign-up and subscription prompts, cookie and consent text, advertisements, comments, author bios of other stories, and footers.",
  "Keep the main content exactly as it is, in the same order: every heading, paragraph, list, table, code block, image and link, with the same markdown syntax and the same URLs.",
  "Do not rewrite, summarise, translate, reorder or add anything: every line you output must be copied from the page.",
  "Reply with the cleaned markdown only, with no preamble and no code fence around it."
].join("\n")

/** The offline classifier's result as an outcome. */
export const cleanOffline = (markdown: string, warnings: ReadonlyArray<string> = []): CleanOutcome => {
  const cleaned = cleanMarkdown(markdown)
  return {
    markdown: cleaned.markdown,
    by: "classifier",
    warnings,
    metadata: { cleanContentBy: "classifier", cleanContentBlocksDropped: cleaned.dropped }
  }
}

/**
 * A line as compared: link targets and markdown markers (heading, list, quote, emphasis, table
 * pipes) out, quotes unified, case folded, whitespace collapsed. A model may re-mark a list
 * (`*` for `-`) or re-pad a table without inventing anything.
 */
export const normaliseLine = (line: string): string =>
  line
    .normalize("NFKC")
    .replace(/!?\[([^\]]*)\]\((?:[^()]|\([^)]*\))*\)/g, "$1")
    .replace(/^\s{0,3}#{1,6}\s+/, "")
    .replace(/^\s*(?:>\s*)+/, "")
    .replace(/^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?/, "")
    .replace(/[‘’]/g, "'")
    .replace(/[“”]/g, "\"")
    .replace(/[*_`~|\\]/g, " ")
    .replace(/^:?-{3,}:?(?:\s+:?-{3,}:?)*$/, "")
    .replace(/\s+/g, " ")
    .trim()
    .toLowerCase()

/** Opening and closing code fence lines the model may wrap its answer in. */
const unfence = (text: string): string => {
  const trimmed = text.trim()
  const fenced = /^```(?:markdown|md)?\s*\n([\s\S]*?)\n```$/i.exec(trimmed)
  return fenced === null ? trimmed : fenced[1]!.trim()
}

/**
 * The lines of `rewrite` that are not in `source`. A line is in the source when, normalised, it
 * is a substring of the source's normalised lines run together (so a paragraph the model joined
 * back into one line passes, and so does a list item the model kept without its link).
 */
export const inventedLines = (source: string, rewrite: string): Array<string> => {
  const haystack = source.split("\n").map(normaliseLine).filter((l) => l !== "").join(" ")
  const bad: Array<string> = []
  for (const line of rewrite.split("\n")) {
    const normal = normaliseLine(line)
    if (normal === "") continue
    if (!haystack.includes(normal)) bad.push(line)
  }
  return bad
}

/** Link and image targets of the rewrite that the source does not have (a model that "fixes" URLs). */
export const inventedTargets = (source: string, rewrite: string): Array<string> =>
  [...rewrite.matchAll(/\]\(((?:[^()\s]|\([^)]*\))*)/g)].map((m) => m[1]!).filter((target) => !source.includes(`](${target}`))

const fromModel = (model: LanguageModelShape, markdown: string, context: CleanContext): Effect.Effect<Completion, LanguageModelError> => {
  const page = `<page${context.url === undefined ? "" : ` url="${context.url}"`}>\n${markdown}\n</page>`
  // Room for the whole page back, plus a little for the model's own whitespace.
  const maxOutputTokens = Math.min(model.maxOutputTokens ?? DEFAULT_OUTPUT_TOKENS, estimateTokens(markdown) + 256)
  const run = model.complete({ system: CLEAN_INSTRUCTIONS, user: page, maxOutputTokens })
  const deadline = context.deadline
  if (deadline === undefined) return run
  return Effect.suspend(() => {
    const left = deadline - Date.now() - DEADLINE_RESERVE_MS
    const timedOut = (ms: number) => new LanguageModelError({ reason: new ModelTimedOut({ message: `the request's timeout left it ${ms} ms`, timeoutMs: ms }) })
    if (left <= 0) return Effect.fail(timedOut(0))
    return Effect.timeoutOrElse(run, { duration: Duration.millis(left), orElse: () => Effect.fail(timedOut(Math.round(left))) })
  })
}

/**
 * The page's markdown cleaned by `model` when there is one and the page may and can go to it;
 * otherwise, or when the model fails or invents, by the offline classifier, with a warning.
 */
export const cleanContent = (model: LanguageModelShape | undefined, markdown: string, context: CleanContext = {}): Effect.Effect<CleanOutcome> => {
  if (model === undefined || markdown.trim() === "") return Effect.sync(() => cleanOffline(markdown))
  if (context.zeroDataRetention === true) {
    return Effect.sync(() => cleanOffline(markdown, ["onlyCleanContent: zero data retention: the page was not sent to the language model; the offline classifier cleaned it"]))
  }
  const tokens = estimateTokens(markdown)
  const outputLimit = model.maxOutputTokens ?? DEFAULT_OUTPUT_TOKENS
  const limit = Math.min(model.maxInputTokens, outputLimit)
  if (tokens > limit) {
    const which = outputLimit <= model.maxInputTokens ? "output" : "input"
    return Effect.sync(() =>
      cleanOffline(markdown, [
        `onlyCleanContent: the markdown (about ${tokens} tokens) is over the language model's ${which} limit (${limit} tokens); the offline classifier cleaned it`
      ])
    )
  }
  return fromModel(model, markdown, context).pipe(
    Effect.map((completion): CleanOutcome => {
      const usage = {
        cleanContentLlmPromptTokens: completion.usage.promptTokens,
        cleanContentLlmCompletionTokens: completion.usage.completionTokens
      }
      const rewrite = unfence(completion.text)
      const fallback = (why: string): CleanOutcome => {
        const offline = cleanOffline(markdown, [`onlyCleanContent: ${why}; the offline classifier cleaned it`])
        return { ...offline, metadata: { ...offline.metadata, ...usage } }
      }
      if (rewrite === "") return fallback("the language model's rewrite was empty")
      const invented = inventedLines(markdown, rewrite)
      if (invented.length > 0) return fallback(`the language model's rewrite has ${invented.length} line(s) that are not on the page`)
      const targets = inventedTargets(markdown, rewrite)
      if (targets.length > 0) return fallback(`the language model's rewrite has ${targets.length} link or image target(s) that are not on the page`)
      return { markdown: rewrite, by: "model", warnings: [], metadata: { cleanContentBy: "model", ...usage } }
    }),
    Effect.catch((error) =>
      Effect.sync(() => cleanOffline(markdown, [`onlyCleanContent: the language model failed (${error.message}); the offline classifier cleaned it`]))
    )
  )
}
