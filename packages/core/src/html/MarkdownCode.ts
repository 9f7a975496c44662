/**
 * Code for the markdown writer: fenced blocks from `<pre>` (language from `language-x`,
 * `lang-x`, `highlight-x`, `highlight-source-x`, `brush: x` or `data-lang` on the block, its
 * `<code>` or a near ancestor) and the text of code elements, without line-number gutters.
 */
import type { Element } from "hast"
import { classList, stringProp, textOf } from "./HtmlNodes.ts"
import { codeFence } from "./MarkdownEscape.ts"

/** Elements whose text is never code (scripts, styles, form widgets). */
const NOT_TEXT = new Set(["script", "style", "noscript", "template", "textarea", "select", "svg"])

/** Line-number gutters of syntax highlighters: not part of the code. */
const GUTTER = new Set(["lnt", "gutter", "rouge-gutter", "line-numbers-rows", "linenos", "lineno", "line-number", "hljs-ln-numbers"])

export const languageOf = (element: Element): string | undefined => {
  const data = stringProp(element, "dataLang") ?? stringProp(element, "dataLanguage")
  if (data !== undefined && /^[\w#+.-]+$/.test(data.trim())) return data.trim()
  const classes = classList(element)
  for (let i = 0; i < classes.length; i++) {
    const token = classes[i]!
    const match = /^(?:language|lang|highlight(?:-source)?|brush)[-:]([\w#+.-]+)$/i.exec(token)
    if (match !== null && match[1]!.toLowerCase() !== "none") return match[1]!
    if (token === "brush:" && classes[i + 1] !== undefined) return classes[i + 1]!.replace(/;$/, "")
  }
  return undefined
}

/** A table cell holding only a highlighter's line numbers (by class, or a `<pre>` of digits). */
export const isGutterCell = (cell: Element): boolean =>
  classList(cell).some((c) => GUTTER.has(c) || c === "gl" || c === "code-gutter") ||
  (cell.children.some((c) => c.type === "element" && c.tagName === "pre") && /^[\d\s]+$/.test(textOf(cell)))

/**
 * Text of a code element. In `pre`, whitespace is kept, `<br>` is a newline and block children
 * (one `<div>` per line in some highlighters) end their line; gutters are skipped.
 */
export const collectText = (element: Element, preformatted: boolean): string => {
  let out = ""
  const visit = (node: Element) => {
    for (const child of node.children) {
      if (child.type === "text") out += child.value
      else if (child.type === "element") {
        if (child.tagName === "br") {
          out += "\n"
          continue
        }
        if (NOT_TEXT.has(child.tagName)) continue
        if (preformatted && classList(child).some((c) => GUTTER.has(c))) continue
        visit(child)
        if (preformatted && (child.tagName === "div" || child.tagName === "p" || child.tagName === "li") && !out.endsWith("\n")) out += "\n"
      }
    }
  }
  visit(element)
  return out
}

/** A `<pre>`'s code and language (its own, its `<code>`'s, or an ancestor's), or undefined when it holds no code. */
export const codeOf = (pre: Element, ancestors: ReadonlyArray<Element>): { readonly code: string; readonly language: string | undefined } | undefined => {
  const code = collectText(pre, true).replace(/^\n/, "").replace(/\s+$/, "")
  if (code.trim() === "") return undefined
  let language = languageOf(pre)
  if (language === undefined) {
    for (const child of pre.children) {
      if (child.type === "element" && child.tagName === "code") language = languageOf(child)
      if (language !== undefined) break
    }
  }
  for (let i = ancestors.length - 1; language === undefined && i >= Math.max(0, ancestors.length - 4); i--) {
    language = languageOf(ancestors[i]!)
  }
  return { code, language }
}

/** Code as a fenced block. */
export const fencedCode = (found: { readonly code: string; readonly language: string | undefined }): string => {
  const fence = codeFence(found.code)
  return `${fence}${found.language ?? ""}\n${found.code}\n${fence}`
}
