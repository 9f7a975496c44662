/**
 * Repairs text that was UTF-8 once and got decoded as windows-1252 or ISO-8859-1 somewhere
 * upstream, then stored and served as UTF-8 again: "let’s" arrives as "letâ€™s" (or "letâ\u0080\u0099s"),
 * "café" as "cafÃ©". Browsers show such pages garbled too; readers of the markdown want the words.
 *
 * Each suspicious run (a UTF-8 lead character followed by continuation characters, all read as
 * windows-1252 / Latin-1) is turned back into bytes and decoded as UTF-8; it is replaced only when
 * that yields exactly one valid character. A page is repaired only when the evidence is strong: a
 * run holding a C1 control or a windows-1252 punctuation mark (never found in real text after an
 * "Ã" or "â"), or several runs. Legitimate Latin text ("São Paulo", "crème brûlée") has no such runs.
 */
import type { Element, Root } from "hast"

/** windows-1252's characters for the bytes 0x80-0x9f. */
const CP1252: ReadonlyMap<number, number> = new Map([
  [0x20ac, 0x80], [0x201a, 0x82], [0x0192, 0x83], [0x201e, 0x84], [0x2026, 0x85], [0x2020, 0x86], [0x2021, 0x87], [0x02c6, 0x88],
  [0x2030, 0x89], [0x0160, 0x8a], [0x2039, 0x8b], [0x0152, 0x8c], [0x017d, 0x8e], [0x2018, 0x91], [0x2019, 0x92], [0x201c, 0x93],
  [0x201d, 0x94], [0x2022, 0x95], [0x2013, 0x96], [0x2014, 0x97], [0x02dc, 0x98], [0x2122, 0x99], [0x0161, 0x9a], [0x203a, 0x9b],
  [0x0153, 0x9c], [0x017e, 0x9e], [0x0178, 0x9f]
])

const CONTINUATION = "\\u0080-\\u00bf\\u20ac\\u201a\\u0192\\u201e\\u2026\\u2020\\u2021\\u02c6\\u2030\\u0160\\u2039\\u0152\\u017d\\u2018\\u2019\\u201c\\u201d\\u2022\\u2013\\u2014\\u02dc\\u2122\\u0161\\u203a\\u0153\\u017e\\u0178"

/** A UTF-8 lead byte read as a character, then one to three continuation bytes read as characters. */
const RUN = new RegExp(`[\\u00c2-\\u00f4][${CONTINUATION}]{1,3}`, "g")
const RUN_TEST = new RegExp(`[\\u00c2-\\u00f4][${CONTINUATION}]`)

const utf8 = new TextDecoder("utf-8", { fatal: true })

const byteOf = (ch: number): number | undefined => (ch <= 0xff ? ch : CP1252.get(ch))

/** Bytes a UTF-8 sequence starting with `lead` has in all. */
const lengthOf = (lead: number): number => (lead < 0xe0 ? 2 : lead < 0xf0 ? 3 : 4)

interface Fix {
  readonly length: number
  readonly text: string
  /** a byte in 0x80-0x9f: a C1 control or a windows-1252 punctuation mark stood in the text */
  readonly strong: boolean
}

/** The repair of the run starting at `run[0]`, if its first sequence decodes to one character. */
const fixRun = (run: string): Fix | undefined => {
  const lead = run.charCodeAt(0)
  const length = lengthOf(lead)
  if (run.length < length) return undefined
  const bytes = new Uint8Array(length)
  bytes[0] = lead
  let strong = false
  for (let i = 1; i < length; i++) {
    const b = byteOf(run.charCodeAt(i))
    if (b === undefined || b < 0x80 || b > 0xbf) return undefined
    if (b < 0xa0) strong = true
    bytes[i] = b
  }
  let text: string
  try {
    text = utf8.decode(bytes)
  } catch {
    return undefined
  }
  const cp = text.codePointAt(0) ?? 0
  return [...text].length === 1 && cp >= 0x80 ? { length, text, strong } : undefined
}

/** Whether `text` shows enough double-encoded runs to be repaired (see the module comment). */
export const hasMojibake = (text: string): boolean => {
  if (!RUN_TEST.test(text)) return false
  let runs = 0
  for (const m of text.matchAll(RUN)) {
    const fix = fixRun(m[0])
    if (fix === undefined) continue
    if (fix.strong || ++runs >= 3) return true
  }
  return false
}

/** `text` with every double-encoded run decoded (call it on pages `hasMojibake` accepted). */
export const repairMojibake = (text: string): string => {
  if (!RUN_TEST.test(text)) return text
  return text.replace(RUN, (run) => {
    const fix = fixRun(run)
    return fix === undefined ? run : fix.text + run.slice(fix.length)
  })
}

/** Attributes whose values readers see (alt text, tooltips, meta descriptions). */
const TEXT_ATTRIBUTES = ["alt", "title", "content"] as const

/** Repairs, in place, the text and the readable attributes of a freshly parsed tree. */
export const repairTreeText = (node: Root | Element): void => {
  for (const child of node.children) {
    if (child.type === "text") child.value = repairMojibake(child.value)
    else if (child.type === "element") {
      for (const name of TEXT_ATTRIBUTES) {
        const value = child.properties[name]
        if (typeof value === "string") child.properties[name] = repairMojibake(value)
      }
      repairTreeText(child)
    }
  }
}
