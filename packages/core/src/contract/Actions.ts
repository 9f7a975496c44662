/**
 * Browser actions of a scrape request (`actions`): the wire Schema of each action type with
 * the contract's limits, and the decoded form with defaults applied (what a browser engine
 * consumes).
 */
import { Schema } from "effect"
import { IntAtLeast, IntBetween } from "./Primitives.ts"

export const Viewport = Schema.Struct({
  width: IntBetween(1, 10_000),
  height: IntBetween(1, 10_000)
}).annotate({ identifier: "Viewport", description: "Viewport size in pixels." })
export type Viewport = typeof Viewport.Type

/** `wait` takes exactly one of `milliseconds` (>= 1) or `selector`; one Schema gives one clear message. */
export const WaitAction = Schema.Struct({
  type: Schema.Literal("wait"),
  milliseconds: Schema.optionalKey(IntAtLeast(1)),
  selector: Schema.optionalKey(Schema.String)
}).annotate({
  description: "Waits `milliseconds` (>= 1), or until an element matching `selector` appears; exactly one of the two."
}).check(
  Schema.makeFilter((a: { readonly milliseconds?: number; readonly selector?: string }) =>
    (a.milliseconds === undefined) === (a.selector === undefined)
      ? "wait takes exactly one of `milliseconds` (integer >= 1) or `selector` (CSS selector)"
      : undefined,
    { toJsonSchema: () => ({ oneOf: [{ required: ["milliseconds"] }, { required: ["selector"] }] }) }
  )
).annotate({ identifier: "WaitAction" })

export const ScreenshotAction = Schema.Struct({
  type: Schema.Literal("screenshot"),
  fullPage: Schema.optionalKey(Schema.Boolean.annotate({ default: false })),
  quality: Schema.optionalKey(IntBetween(1, 100)),
  viewport: Schema.optionalKey(Viewport)
}).annotate({ identifier: "ScreenshotAction" })

export const ClickAction = Schema.Struct({
  type: Schema.Literal("click"),
  selector: Schema.String,
  all: Schema.optionalKey(Schema.Boolean.annotate({ default: false, description: "Click every match." }))
}).annotate({ identifier: "ClickAction" })

export const WriteAction = Schema.Struct({
  type: Schema.Literal("write"),
  text: Schema.String
}).annotate({ identifier: "WriteAction" })

export const PressAction = Schema.Struct({
  type: Schema.Literal("press"),
  key: Schema.String
}).annotate({ identifier: "PressAction" })

export const ScrollAction = Schema.Struct({
  type: Schema.Literal("scroll"),
  direction: Schema.optionalKey(Schema.Literals(["up", "down"]).annotate({ default: "down" })),
  selector: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "ScrollAction" })

export const ScrapeAction = Schema.Struct({
  type: Schema.Literal("scrape")
}).annotate({ identifier: "ScrapeAction" })

export const ExecuteJavascriptAction = Schema.Struct({
  type: Schema.Literal("executeJavascript"),
  script: Schema.String
}).annotate({ identifier: "ExecuteJavascriptAction" })

export const PdfPaperFormats = ["A0", "A1", "A2", "A3", "A4", "A5", "A6", "Letter", "Legal", "Tabloid", "Ledger"] as const

export const PdfAction = Schema.Struct({
  type: Schema.Literal("pdf"),
  format: Schema.optionalKey(Schema.Literals(PdfPaperFormats).annotate({ default: "Letter" })),
  landscape: Schema.optionalKey(Schema.Boolean.annotate({ default: false })),
  // Browsers print at scales 0.1..2; anything else would fail later, so say so now.
  scale: Schema.optionalKey(Schema.Finite.check(Schema.isBetween({ minimum: 0.1, maximum: 2 })).annotate({ default: 1 }))
}).annotate({ identifier: "PdfAction" })

export const ActionTypes = ["wait", "screenshot", "click", "write", "press", "scroll", "scrape", "executeJavascript", "pdf"] as const

export const Action = Schema.Union([
  WaitAction,
  ScreenshotAction,
  ClickAction,
  WriteAction,
  PressAction,
  ScrollAction,
  ScrapeAction,
  ExecuteJavascriptAction,
  PdfAction
]).annotate({
  identifier: "Action",
  message: `Expected an action object whose \`type\` is one of ${ActionTypes.join(", ")}`
})
export type ActionInput = typeof Action.Type

/** An action with every default of the contract applied. */
export type ResolvedAction =
  | { readonly type: "wait"; readonly milliseconds: number; readonly selector?: undefined }
  | { readonly type: "wait"; readonly selector: string; readonly milliseconds?: undefined }
  | { readonly type: "screenshot"; readonly fullPage: boolean; readonly quality?: number; readonly viewport?: Viewport }
  | { readonly type: "click"; readonly selector: string; readonly all: boolean }
  | { readonly type: "write"; readonly text: string }
  | { readonly type: "press"; readonly key: string }
  | { readonly type: "scroll"; readonly direction: "up" | "down"; readonly selector?: string }
  | { readonly type: "scrape" }
  | { readonly type: "executeJavascript"; readonly script: string }
  | { readonly type: "pdf"; readonly format: (typeof PdfPaperFormats)[number]; readonly landscape: boolean; readonly scale: number }

export const resolveAction = (action: ActionInput): ResolvedAction => {
  switch (action.type) {
    case "wait":
      return action.milliseconds !== undefined
        ? { type: "wait", milliseconds: action.milliseconds }
        : { type: "wait", selector: action.selector ?? "" }
    case "screenshot":
      return { ...action, fullPage: action.fullPage ?? false }
    case "click":
      return { ...action, all: action.all ?? false }
    case "scroll":
      return { ...action, direction: action.direction ?? "down" }
    case "pdf":
      return { type: "pdf", format: action.format ?? "Letter", landscape: action.landscape ?? false, scale: action.scale ?? 1 }
    default:
      return action
  }
}
