/**
 * The text-derived formats: `summary`, `question` (-> `answer`), `highlights`, `json` (and the
 * deprecated `query`). With a `LanguageModel` they are asked of the model; without one, or when
 * the model fails, they take their offline path. Either way the result says which path made each
 * field (`metadata.<format>By`: `model`, `extractive` or `structured-data`), problems go to the
 * contract's `warning`, and model token usage to `metadata.llm*`. Model failures never fail the
 * scrape: the page is still an answer.
 */
import { Duration, Effect } from "effect"
import type { Format } from "../contract/index.ts"
import {
  type Completion,
  type CompletionRequest,
  estimateTokens,
  LanguageModelError,
  type LanguageModelShape,
  ModelTimedOut,
  type Usage
} from "../LanguageModel.ts"
import { extractiveAnswer, extractiveHighlights, extractiveSummary } from "./Extractive.ts"
import { factsObject, fillSchema } from "./JsonFill.ts"
import { checkSchema, type JsonSchema } from "./JsonSchemaCheck.ts"
import { jsonFacts, pageFacts, type PageFacts, textFacts } from "./PageFacts.ts"
import { normalizeForMatch, pageSentences } from "./Sentences.ts"

export type DerivedBy = "model" | "extractive" | "structured-data"

export interface DerivedInput {
  /** The page's markdown (after redaction), or undefined when the path has none (a raw PDF). */
  readonly markdown: string | undefined
  /** The page's HTML when it is a web page: the structured data the offline `json` reads. */
  readonly html?: string | undefined
  readonly url?: string | undefined
}

export interface DerivedFields {
  summary?: string | null
  answer?: string | null
  highlights?: string | null
  json?: unknown
}

export interface Derived {
  readonly fields: DerivedFields
  readonly warnings: ReadonlyArray<string>
  readonly metadata: Record<string, string | number>
}

type Wanted =
  | { readonly kind: "summary" }
  | { readonly kind: "answer"; readonly question: string }
  | { readonly kind: "highlights"; readonly query: string }
  | {
    readonly kind: "json"
    readonly schema?: JsonSchema | undefined
    readonly prompt?: string | undefined
    readonly checkPromptInjection?: boolean | undefined
  }

/** The derived formats a request asks for, the deprecated `query` mapped onto answer or highlights. */
export const derivedWanted = (formats: ReadonlyArray<Format>): Array<Wanted> => {
  const out: Array<Wanted> = []
  for (const format of formats) {
    switch (format.type) {
      case "summary":
        out.push({ kind: "summary" })
        break
      case "question":
        out.push({ kind: "answer", question: format.question })
        break
      case "highlights":
        out.push({ kind: "highlights", query: format.query })
        break
      case "query":
        out.push(format.mode === "directQuote" ? { kind: "highlights", query: format.prompt } : { kind: "answer", question: format.prompt })
        break
      case "json":
        out.push({ kind: "json", schema: format.schema, prompt: format.prompt, checkPromptInjection: format.checkPromptInjection })
        break
    }
  }
  return out
}

interface One {
  readonly field: keyof DerivedFields
  readonly value: unknown
  readonly by: DerivedBy
  readonly warnings: ReadonlyArray<string>
  readonly usage?: ReadonlyArray<Usage>
}

const noText = (field: keyof DerivedFields): One => ({
  field,
  value: null,
  by: "extractive",
  warnings: [`${field}: the content has no text to work from`]
})

/** The page's facts for the offline `json`: its HTML's structured data, else its `Key: value` lines. */
const factsOf = (input: DerivedInput): PageFacts => {
  const fromHtml = input.html !== undefined ? pageFacts(input.html) : { facts: [], tables: [], jsonLd: [] }
  const markdown = input.markdown ?? ""
  // A JSON body is shown as one fenced block: its own keys are the facts.
  const fenced = /^```json\n([\s\S]*)\n```$/.exec(markdown.trim())
  if (fenced !== null) {
    try {
      return { ...fromHtml, facts: [...fromHtml.facts, ...jsonFacts(JSON.parse(fenced[1]!))] }
    } catch {
      // Not valid JSON after all: read it as text.
    }
  }
  const lines = pageSentences(markdown).map((s) => s.text)
  return { ...fromHtml, facts: [...fromHtml.facts, ...textFacts(lines)] }
}

const offlineOne = (wanted: Wanted, input: DerivedInput, facts: () => PageFacts): One => {
  const markdown = input.markdown
  switch (wanted.kind) {
    case "summary": {
      if (markdown === undefined || markdown.trim() === "") return noText("summary")
      const summary = extractiveSummary(markdown)
      return summary === undefined
        ? { field: "summary", value: null, by: "extractive", warnings: ["summary: the page has no prose to summarise"] }
        : { field: "summary", value: summary, by: "extractive", warnings: [] }
    }
    case "answer": {
      if (markdown === undefined || markdown.trim() === "") return noText("answer")
      const found = extractiveAnswer(markdown, wanted.question)
      return found === undefined
        ? { field: "answer", value: null, by: "extractive", warnings: ["answer: nothing on the page answers the question"] }
        : { field: "answer", value: found.answer, by: "extractive", warnings: [] }
    }
    case "highlights": {
      if (markdown === undefined || markdown.trim() === "") return noText("highlights")
      const found = extractiveHighlights(markdown, wanted.query)
      return found === undefined
        ? { field: "highlights", value: null, by: "extractive", warnings: ["highlights: nothing on the page matches the query"] }
        : { field: "highlights", value: found, by: "extractive", warnings: [] }
    }
    case "json": {
      if (wanted.schema === undefined) {
        return {
          field: "json",
          value: factsObject(facts()),
          by: "structured-data",
          warnings: ["json: without a schema and without a language model, the page's structured data is returned as found"]
        }
      }
      const filled = fillSchema(wanted.schema, facts())
      const warnings: Array<string> = []
      if (filled.empty.length > 0) warnings.push(`json: no value found on the page for ${filled.empty.join(", ")}`)
      if (filled.invalid.length > 0) warnings.push(`json: does not fit the schema: ${filled.invalid.join("; ")}`)
      return { field: "json", value: filled.value, by: "structured-data", warnings }
    }
  }
}

const lazily = <A>(make: () => A): (() => A) => {
  let value: { a: A } | undefined
  return () => (value ??= { a: make() }).a
}

const assemble = (results: ReadonlyArray<One>, model?: string): Derived => {
  const fields: DerivedFields = {}
  const warnings: Array<string> = []
  const metadata: Record<string, string | number> = {}
  const usage = results.flatMap((r) => r.usage ?? [])
  for (const result of results) {
    // Two question formats: the first one's answer is the one `data.answer` has room for.
    if (result.field in fields) {
      warnings.push(`${result.field}: only the first ${result.field} format is answered`)
      continue
    }
    ;(fields as Record<string, unknown>)[result.field] = result.value
    warnings.push(...result.warnings)
    metadata[`${result.field}By`] = result.by
  }
  if (usage.length > 0 && model !== undefined) {
    metadata.llmModel = model
    metadata.llmCalls = usage.length
    metadata.llmPromptTokens = usage.reduce((sum, u) => sum + u.promptTokens, 0)
    metadata.llmCompletionTokens = usage.reduce((sum, u) => sum + u.completionTokens, 0)
  }
  return { fields, warnings, metadata }
}

/** The offline paths only: deterministic, no model. */
export const deriveOffline = (formats: ReadonlyArray<Format>, input: DerivedInput): Derived => {
  const facts = lazily(() => factsOf(input))
  return assemble(derivedWanted(formats).map((wanted) => offlineOne(wanted, input, facts)))
}

/** Fenced or bare JSON from a model's text. */
export const parseModelJson = (text: string): { readonly ok: true; readonly value: unknown } | { readonly ok: false } => {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text)
  const body = (fenced?.[1] ?? text).trim()
  try {
    return { ok: true, value: JSON.parse(body) }
  } catch {
    const start = body.search(/[{[]/)
    const end = Math.max(body.lastIndexOf("}"), body.lastIndexOf("]"))
    if (start >= 0 && end > start) {
      try {
        return { ok: true, value: JSON.parse(body.slice(start, end + 1)) }
      } catch {
        // Not JSON at all.
      }
    }
    return { ok: false }
  }
}

const normaliseSchema = (schema: JsonSchema): JsonSchema =>
  schema.type === undefined && schema.properties === undefined && schema.$ref === undefined && schema.items === undefined
    ? { type: "object", properties: schema }
    : schema

const failedWarning = (field: string, error: LanguageModelError) =>
  `${field}: the language model failed (${error.message}); the offline ${field} is given instead`

/** An endpoint that refuses a request (400/422) may not support the structured output asked for. */
const refusedOutput = (error: LanguageModelError) =>
  error.reason._tag === "EndpointFailed" && (error.reason.status === 400 || error.reason.status === 422)

/**
 * One completion, asked again with a plainer output format when the endpoint refuses the one
 * asked for: `json_schema` -> `json_object` -> text (the instructions carry the schema anyway).
 * Not every OpenAI-compatible server implements structured output.
 */
export const completeAdapting = (model: LanguageModelShape, request: CompletionRequest): Effect.Effect<Completion, LanguageModelError> => {
  const type = request.output?.type ?? "text"
  if (type === "text") return model.complete(request)
  const plainer: CompletionRequest = { ...request, output: type === "schema" ? { type: "json" } : { type: "text" } }
  return model.complete(request).pipe(Effect.catch((error) => (refusedOutput(error) ? completeAdapting(model, plainer) : Effect.fail(error))))
}

/** Time kept back from the request's deadline for the offline fallback and the response. */
const DEADLINE_RESERVE_MS = 1000

/**
 * The model paths, each falling back to its offline path when the model fails or when the
 * request's `deadline` (epoch ms) leaves it no more time.
 */
export const deriveWithModel = (
  model: LanguageModelShape,
  formats: ReadonlyArray<Format>,
  input: DerivedInput,
  deadline?: number | undefined
): Effect.Effect<Derived> => {
  const wanted = derivedWanted(formats)
  if (wanted.length === 0) return Effect.succeed(assemble([]))
  const facts = lazily(() => factsOf(input))
  const markdown = input.markdown ?? ""
  const budgetChars = model.maxInputTokens * 4
  const trimmed = markdown.length > budgetChars
  const page = `<page${input.url === undefined ? "" : ` url="${input.url}"`}>\n${trimmed ? markdown.slice(0, budgetChars) : markdown}\n</page>`
  const trimWarning = (field: string) =>
    trimmed ? [`${field}: the page (about ${estimateTokens(markdown)} tokens) was trimmed to ${model.maxInputTokens} tokens for the language model`] : []

  const withFallback = (w: Wanted, field: keyof DerivedFields, run: Effect.Effect<One, LanguageModelError>): Effect.Effect<One> =>
    Effect.suspend(() => {
      if (deadline === undefined) return run
      const left = deadline - Date.now() - DEADLINE_RESERVE_MS
      const ran = (timeoutMs: number) => new LanguageModelError({ reason: new ModelTimedOut({ message: `the request's timeout left it ${timeoutMs} ms`, timeoutMs }) })
      if (left <= 0) return Effect.fail(ran(0))
      return Effect.timeoutOrElse(run, { duration: Duration.millis(left), orElse: () => Effect.fail(ran(Math.round(left))) })
    }).pipe(Effect.catch((error) =>
      Effect.sync((): One => {
        const offline = offlineOne(w, input, facts)
        return { ...offline, warnings: [failedWarning(field, error), ...offline.warnings] }
      })
    ))

  const one = (w: Wanted): Effect.Effect<One> => {
    if (markdown.trim() === "" && w.kind !== "json") return Effect.succeed(offlineOne(w, input, facts))
    switch (w.kind) {
      case "summary":
        return withFallback(w, "summary", Effect.map(model.complete({
          system: "You summarise web pages. Write a concise summary of the page's main content in at most five sentences, in the page's language. Reply with the summary only.",
          user: page
        }), (c): One => ({ field: "summary", value: c.text.trim(), by: "model", warnings: trimWarning("summary"), usage: [c.usage] })))
      case "answer":
        return withFallback(w, "answer", Effect.map(model.complete({
          system: "Answer the question using only the page's content. Be brief: the answer alone, not a restatement of the question. If the page does not answer it, reply exactly NO_ANSWER.",
          user: `<question>${w.question}</question>\n${page}`
        }), (c): One => {
          const text = c.text.trim()
          const none = text === "" || /^NO_ANSWER\.?$/i.test(text)
          return {
            field: "answer",
            value: none ? null : text,
            by: "model",
            warnings: [...trimWarning("answer"), ...(none ? ["answer: the page does not answer the question"] : [])],
            usage: [c.usage]
          }
        }))
      case "highlights":
        return withFallback(w, "highlights", Effect.map(completeAdapting(model, {
          system: "Find the sentences of the page most relevant to the query. Copy each one exactly as it appears in the page, word for word; do not paraphrase or join sentences. Reply with JSON: {\"highlights\": [\"sentence\", ...]}, at most 5, most relevant first, or an empty list when nothing is relevant.",
          user: `<query>${w.query}</query>\n${page}`,
          output: { type: "json" }
        }), (c): One => {
          const parsed = parseModelJson(c.text)
          const quoted = parsed.ok && parsed.value !== null && typeof parsed.value === "object" && Array.isArray((parsed.value as { highlights?: unknown }).highlights)
            ? ((parsed.value as { highlights: Array<unknown> }).highlights).filter((h): h is string => typeof h === "string" && h.trim() !== "")
            : []
          const pageText = normalizeForMatch(pageSentences(markdown).map((s) => s.text).join(" "))
          const rawText = normalizeForMatch(markdown)
          const kept = quoted.filter((h) => pageText.includes(normalizeForMatch(h)) || rawText.includes(normalizeForMatch(h)))
          const warnings = [...trimWarning("highlights")]
          if (!parsed.ok) warnings.push("highlights: the language model's answer was not JSON")
          if (kept.length < quoted.length) warnings.push(`highlights: ${quoted.length - kept.length} quoted sentence(s) not found on the page were dropped`)
          if (kept.length === 0) warnings.push("highlights: nothing on the page matches the query")
          return { field: "highlights", value: kept.length > 0 ? kept.join("\n\n") : null, by: "model", warnings, usage: [c.usage] }
        }))
      case "json":
        return withFallback(w, "json", modelJson(model, w, page, trimWarning("json"), () => offlineOne(w, input, facts)))
    }
  }
  return Effect.map(Effect.all(wanted.map(one), { concurrency: "unbounded" }), (results) => assemble(results, model.model))
}

/**
 * `json` from the model: structured output with the user's schema (an array schema wrapped in an
 * object, as endpoints want an object at the root), checked against the schema, and repaired once
 * by asking again with the problems listed. What is still wrong goes into the warnings.
 */
const modelJson = (
  model: LanguageModelShape,
  w: Extract<Wanted, { kind: "json" }>,
  page: string,
  trimWarning: ReadonlyArray<string>,
  fallback: () => One
) =>
  Effect.gen(function*() {
    const schema = w.schema === undefined ? undefined : normaliseSchema(w.schema)
    const wrapped = schema !== undefined && schema.type === "array"
    const sent = wrapped ? { type: "object", properties: { items: schema }, required: ["items"] } : schema
    const unwrap = (value: unknown) => (wrapped && value !== null && typeof value === "object" && "items" in value ? (value as { items: unknown }).items : value)
    const instructions = "Extract structured data from the page. Use only what the page states; leave out what it does not." +
      (w.prompt === undefined ? "" : `\nWhat to extract: ${w.prompt}`) +
      (sent === undefined ? "\nReply with a JSON object only." : `\nReply with JSON that fits this JSON Schema only:\n${JSON.stringify(sent)}`)
    const output = sent === undefined ? { type: "json" as const } : { type: "schema" as const, name: "extraction", schema: sent }
    const first = yield* completeAdapting(model, { system: instructions, user: page, output })
    const usage = [first.usage]
    const problems = (text: string): { value?: unknown; errors: Array<string> } => {
      const parsed = parseModelJson(text)
      if (!parsed.ok) return { errors: ["the answer is not valid JSON"] }
      if (sent === undefined) {
        return parsed.value !== null && typeof parsed.value === "object" ? { value: parsed.value, errors: [] } : { value: parsed.value, errors: ["the answer is not a JSON object"] }
      }
      return { value: parsed.value, errors: checkSchema(parsed.value, sent) }
    }
    let result = problems(first.text)
    const warnings = [...trimWarning]
    // Firecrawl screens the page for prompt injection first (403 when found); this server has no such screen yet.
    if (w.checkPromptInjection === true) warnings.push("json: checkPromptInjection is not implemented by this server; the page went to the language model unscreened")
    if (result.errors.length > 0) {
      const repair = yield* completeAdapting(model, {
        system: "You repair JSON. Reply with the corrected JSON only, fitting the schema if one is given; keep every value the original has unless it is the problem.",
        user: `<json>${first.text}</json>\n<problems>${result.errors.join("; ")}</problems>` + (sent === undefined ? "" : `\n<schema>${JSON.stringify(sent)}</schema>`),
        output
      })
      usage.push(repair.usage)
      const repaired = problems(repair.text)
      // Keep the better of the two: a parsed answer over an unparsed one, fewer problems over more.
      if (repaired.value !== undefined && (result.value === undefined || repaired.errors.length <= result.errors.length)) result = repaired
      else if (result.value === undefined) result = repaired
    }
    if (result.value === undefined) {
      const offline = fallback()
      const why = "json: the language model's answer was not JSON, also after one repair; the offline json is given instead"
      return { ...offline, warnings: [...warnings, why, ...offline.warnings], usage } satisfies One
    }
    if (result.errors.length > 0) warnings.push(`json: does not fit the schema after one repair: ${result.errors.join("; ")}`)
    return { field: "json", value: unwrap(result.value), by: "model", warnings, usage } satisfies One
  })
