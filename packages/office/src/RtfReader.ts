/**
 * The RTF reader: a tokenizer and group-state machine over the control words that matter for
 * text. Destinations that are not text (font and colour tables, pictures, objects, headers and
 * footers, field instructions, `\*` extensions) are skipped; `\'hh` bytes are decoded with the
 * document code page and `\uN` with its `\ucN` fallback skipped. Paragraph styles named
 * "heading N" and `\outlinelevel` give headings, `\ls`/`\ilvl` lists, `\intbl`/`\cell`/`\row`
 * tables, `{\footnote}` notes, HYPERLINK fields links; `\info` gives the metadata.
 */
import { gridOfRows, structuredBlock, type Block } from "@strata/core"
import { corrupt } from "./Failure.ts"
import { finishParagraph, renderRuns, type Run } from "./MarkdownText.ts"

interface State {
  bold: boolean
  italic: boolean
  strike: boolean
  skip: boolean
  uc: number
  /** Where text goes: body, a footnote, a style name, an info field, a field instruction or list text. */
  target: "body" | "footnote" | "style" | "info" | "fldinst" | "listtext"
  infoKey: string | undefined
  href: string | undefined
}

const skipped = new Set([
  "fonttbl", "colortbl", "pict", "object", "header", "headerl", "headerr", "headerf", "footer", "footerl", "footerr", "footerf",
  "themedata", "colorschememapping", "latentstyles", "datastore", "xmlnstbl", "listtable", "listoverridetable", "generator",
  "rsidtbl", "mmathPr", "pgdsctbl", "filetbl", "revtbl", "protusertbl", "bkmkstart", "bkmkend", "xe", "tc", "template",
  "userprops", "docvar", "nonshppict", "shppict", "shpinst", "picprop", "blipuid", "wgrffmtfilter", "fchars", "lchars", "pnseclvl"
])

const infoKeys: Record<string, string> = { title: "title", author: "author", subject: "subject", keywords: "keywords", doccomm: "description", company: "company" }

export interface RtfDocument {
  readonly blocks: Array<Block>
  readonly metadata: Record<string, string>
}

const source = "rtf"

export const readRtf = (bytes: Uint8Array, format: string): RtfDocument => {
  const text = new TextDecoder("latin1").decode(bytes)
  if (!/^\s*\{\\rtf/.test(text.slice(0, 64).replace(/^\ufeff|^\xef\xbb\xbf/, ""))) throw corrupt(format, "not an RTF document")
  let decoder = new TextDecoder("windows-1252")
  const blocks: Array<Block> = []
  const metadata: Record<string, string> = {}
  const styles = new Map<number, string>()
  const notes: Array<{ readonly label: string; readonly text: string }> = []
  let state: State = { bold: false, italic: false, strike: false, skip: false, uc: 1, target: "body", infoKey: undefined, href: undefined }
  const stack: Array<State> = []
  // Paragraph state.
  let runs: Array<Run> = []
  let style = 0
  let outline: number | undefined
  let inTable = false
  let list: { ls: number; level: number } | undefined
  let listMarker = ""
  const listCounters = new Map<string, number>()
  let row: Array<string> = []
  let rows: Array<Array<string>> = []
  let cellParts: Array<string> = []
  let footnoteRuns: Array<Run> = []
  let styleName = ""
  let styleIndex = -1
  let fieldInstr = ""
  let pendingBytes: Array<number> = []
  let skipChars = 0

  const emit = (t: string) => {
    if (t.length === 0) return
    if (state.skip) return
    switch (state.target) {
      case "body":
        runs.push({ text: t, bold: state.bold, italic: state.italic, strike: state.strike, href: state.href })
        break
      case "footnote":
        footnoteRuns.push({ text: t, bold: state.bold, italic: state.italic })
        break
      case "style":
        styleName += t
        break
      case "info":
        if (state.infoKey !== undefined) metadata[state.infoKey] = (metadata[state.infoKey] ?? "") + t
        break
      case "fldinst":
        fieldInstr += t
        break
      case "listtext":
        listMarker += t
        break
    }
  }
  const flushBytes = () => {
    if (pendingBytes.length > 0) {
      emit(decoder.decode(new Uint8Array(pendingBytes)))
      pendingBytes = []
    }
  }
  const flushTable = () => {
    if (rows.length > 0) {
      const table = structuredBlock("table", { table: { ...gridOfRows(rows), headerRows: 1 } }, { source })
      if (table.content.length > 0) blocks.push(table)
    }
    rows = []
    row = []
  }
  const endParagraph = () => {
    flushBytes()
    const inline = finishParagraph(renderRuns(runs)).replace(/\u0002([^\u0003]*)\u0003/g, "[^$1]")
    runs = []
    if (inTable) {
      cellParts.push(inline)
      return
    }
    flushTable()
    const marker = listMarker.trim()
    listMarker = ""
    if (inline.length === 0) return
    const name = styles.get(style) ?? ""
    const named = /^heading\s*([1-9])$/i.exec(name)
    const level = named !== null ? Number(named[1]) : outline !== undefined ? outline + 1 : /^title$/i.test(name) ? 0 : undefined
    if (level !== undefined) {
      blocks.push(structuredBlock(level === 0 ? "title" : "section_header", { heading: { level: Math.max(1, level) }, text: inline.replace(/^\*\*(.*)\*\*$/, "$1") }, { source }))
    } else if (list !== undefined || marker.length > 0) {
      const depth = list?.level ?? 0
      const ordered = /^\(?[0-9ivxlcIVXLC]+[.)]/.test(marker) || /^[a-zA-Z][.)]$/.test(marker)
      const key = `${list?.ls ?? 0}:${depth}`
      const n = (listCounters.get(key) ?? 0) + 1
      listCounters.set(key, n)
      for (const k of listCounters.keys()) if (k.startsWith(`${list?.ls ?? 0}:`) && Number(k.split(":")[1]) > depth) listCounters.delete(k)
      // Three columns per level nest under both "- " and "1. " parents.
      blocks.push(structuredBlock("list_item", { list: { depth, ordinal: ordered ? n : null, indent: 3 * depth }, text: inline }, { source }))
    } else blocks.push(structuredBlock("text", { text: inline.replace(/\n/g, "  \n") }, { source }))
  }

  let i = 0
  const n = text.length
  let depth = 0
  while (i < n) {
    const ch = text[i]
    if (ch === "{") {
      flushBytes()
      stack.push({ ...state })
      depth++
      i++
      // Groups nested absurdly deep are skipped rather than tracked.
      if (depth > 2000) state.skip = true
      continue
    }
    if (ch === "}") {
      flushBytes()
      const closing = state
      if (closing.target === "style" && styleIndex >= 0) {
        styles.set(styleIndex, styleName.replace(/;\s*$/, "").trim())
        styleName = ""
        styleIndex = -1
      }
      if (closing.target === "footnote" && stack[stack.length - 1]?.target !== "footnote") {
        const label = String(notes.length + 1)
        notes.push({ label, text: finishParagraph(renderRuns(footnoteRuns)) })
        footnoteRuns = []
        runs.push({ text: `\u0002${label}\u0003` })
      }
      state = stack.pop() ?? state
      depth = Math.max(0, depth - 1)
      i++
      continue
    }
    if (ch === "\\") {
      const next = text[i + 1]
      if (next === undefined) break
      if (next === "'") {
        const hex = parseInt(text.slice(i + 2, i + 4), 16)
        i += 4
        if (skipChars > 0) {
          skipChars--
          continue
        }
        if (Number.isFinite(hex)) pendingBytes.push(hex)
        continue
      }
      if (!/[a-zA-Z]/.test(next)) {
        flushBytes()
        i += 2
        if (next === "*") {
          state.skip = true
          continue
        }
        if (skipChars > 0) {
          skipChars--
          continue
        }
        if (next === "\\" || next === "{" || next === "}") emit(next)
        else if (next === "~") emit("\u00a0")
        else if (next === "_") emit("-")
        else if (next === "\n" || next === "\r") endParagraph()
        continue
      }
      const m = /^([a-zA-Z]{1,32})(-?\d{1,10})? ?/.exec(text.slice(i + 1, i + 48))
      if (m === null) {
        i++
        continue
      }
      i += 1 + m[0].length
      const word = m[1]
      const param = m[2] === undefined ? undefined : Number(m[2])
      if (word !== "u") flushBytes()
      if (word === "bin") {
        i += Math.max(0, param ?? 0)
        continue
      }
      if (skipChars > 0 && word !== "u") {
        skipChars--
        continue
      }
      if (skipped.has(word)) {
        state.skip = true
        continue
      }
      switch (word) {
        case "ansicpg":
          try {
            decoder = new TextDecoder(param === 65001 ? "utf-8" : `windows-${param}`)
          } catch {
            decoder = new TextDecoder("windows-1252")
          }
          break
        case "stylesheet":
          state.target = "style"
          break
        case "s":
          if (state.target === "style") styleIndex = param ?? 0
          else style = param ?? 0
          break
        case "info":
          state.target = "info"
          break
        case "footnote":
          state.target = "footnote"
          break
        case "fldinst":
          // Usually written as {\*\fldinst ...}: a known destination, so the \* skip is lifted.
          state.skip = false
          state.target = "fldinst"
          fieldInstr = ""
          break
        case "fldrslt": {
          const url = /HYPERLINK\s+"([^"]+)"/.exec(fieldInstr)?.[1]
          state.target = stack.some((s) => s.target === "footnote") ? "footnote" : "body"
          if (url !== undefined) state.href = url
          break
        }
        case "listtext":
        case "pntext":
          state.target = "listtext"
          break
        case "u": {
          const code = (param ?? 0) < 0 ? (param ?? 0) + 65536 : (param ?? 0)
          flushBytes()
          emit(String.fromCharCode(code))
          skipChars = state.uc
          break
        }
        case "uc":
          state.uc = Math.max(0, Math.min(10, param ?? 1))
          break
        case "par":
          if (state.target === "body") endParagraph()
          else if (state.target === "footnote") footnoteRuns.push({ text: " " })
          break
        case "sect":
        case "page":
          if (state.target === "body" && runs.length > 0) endParagraph()
          break
        case "line":
          emit("\n")
          break
        case "tab":
          emit(" ")
          break
        case "emdash":
          emit("\u2014")
          break
        case "endash":
          emit("\u2013")
          break
        case "bullet":
          emit("\u2022")
          break
        case "lquote":
          emit("\u2018")
          break
        case "rquote":
          emit("\u2019")
          break
        case "ldblquote":
          emit("\u201c")
          break
        case "rdblquote":
          emit("\u201d")
          break
        case "pard":
          style = 0
          outline = undefined
          inTable = false
          list = undefined
          break
        case "outlinelevel":
          if (state.target === "style") break
          outline = param !== undefined && param < 9 ? param : undefined
          break
        case "intbl":
          inTable = true
          break
        case "ls":
          list = { ls: param ?? 0, level: list?.level ?? 0 }
          break
        case "ilvl":
          list = { ls: list?.ls ?? 0, level: Math.min(8, Math.max(0, param ?? 0)) }
          break
        case "cell":
        case "nestcell":
          if (runs.length > 0 || cellParts.length === 0) endParagraph()
          row.push(cellParts.filter((p) => p.length > 0).join("\n"))
          cellParts = []
          break
        case "row":
        case "nestrow":
          rows.push(row)
          row = []
          break
        case "b":
          state.bold = param !== 0
          break
        case "i":
          state.italic = param !== 0
          break
        case "strike":
          state.strike = param !== 0
          break
        case "plain":
          state.bold = false
          state.italic = false
          state.strike = false
          break
        default:
          if (state.target === "info" && infoKeys[word] !== undefined) state.infoKey = infoKeys[word]
          else if (state.target === "info" && word !== "info") state.skip = state.skip || ["creatim", "revtim", "printim", "buptim", "operator", "version", "edmins", "nofpages", "nofwords", "nofchars", "vern", "id"].includes(word)
          break
      }
      continue
    }
    if (ch === "\r" || ch === "\n") {
      i++
      continue
    }
    // Plain text up to the next special character.
    let j = i
    while (j < n && text[j] !== "\\" && text[j] !== "{" && text[j] !== "}" && text[j] !== "\r" && text[j] !== "\n") j++
    let chunk = text.slice(i, j)
    i = j
    if (skipChars > 0) {
      const drop = Math.min(skipChars, chunk.length)
      chunk = chunk.slice(drop)
      skipChars -= drop
    }
    if (chunk.length > 0) {
      // Raw bytes above 0x7f in the text use the code page too.
      if (/[\x80-\xff]/.test(chunk)) for (const c of chunk) pendingBytes.push(c.charCodeAt(0) & 0xff)
      else {
        flushBytes()
        emit(chunk)
      }
    }
  }
  if (runs.length > 0) endParagraph()
  flushTable()
  for (const { label, text } of notes) blocks.push(structuredBlock("footnote", { note: { label }, text }, { source }))
  for (const key of Object.keys(metadata)) metadata[key] = metadata[key].trim()
  return { blocks, metadata }
}
