/**
 * A small, strict-enough XML parser for the machine-written XML inside office containers.
 *
 * It builds a light element tree (local names, attributes by local name, text children) in one
 * linear pass. DTDs are skipped and never expanded, and only the five predefined entities and
 * character references are decoded, so there are no external entities and no entity bombs.
 * Unbalanced markup is tolerated (closed at the next matching end tag) rather than fatal: a
 * slightly broken document still yields its text.
 */

export interface XmlElement {
  /** Local name, namespace prefix removed (`w:p` -> `p`). */
  readonly name: string
  /** The qualified name as written (`w:p`). */
  readonly qname: string
  /** Attributes by local name (and by qualified name too, when prefixed). */
  readonly attrs: Record<string, string>
  readonly children: Array<XmlNode>
}
export type XmlNode = XmlElement | string

export class XmlError extends Error {
  /** True when the markup nests deeper than `maxXmlDepth`: a limit, not damage. */
  readonly tooDeep: boolean
  constructor(message: string, tooDeep = false) {
    super(message)
    this.tooDeep = tooDeep
  }
}

/**
 * Deepest element nesting parsed. Real documents stay under about 60 levels (tables in tables,
 * content controls, lists); the readers walk the tree recursively, and 1,990 levels of nested
 * w:smartTag, w:sdt, w:tbl, text:section, text:list and text:span were measured to read on
 * Node's default stack, so deeper input is refused as a limit before any reader recurses.
 */
export const maxXmlDepth = 2_000

const entityMap: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: "\"", apos: "'" }

export const decodeEntities = (text: string): string =>
  text.indexOf("&") < 0
    ? text
    : text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (whole, body: string) => {
      if (body[0] === "#") {
        const code = body[1] === "x" || body[1] === "X" ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10)
        return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : ""
      }
      return entityMap[body] ?? whole
    })

const localName = (qname: string): string => {
  const colon = qname.indexOf(":")
  return colon < 0 ? qname : qname.slice(colon + 1)
}

const attrPattern = /([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g

const parseAttrs = (source: string): Record<string, string> => {
  const attrs: Record<string, string> = {}
  if (source.length === 0) return attrs
  attrPattern.lastIndex = 0
  let match: RegExpExecArray | null
  while ((match = attrPattern.exec(source)) !== null) {
    const qname = match[1]
    const value = decodeEntities(match[2] ?? match[3] ?? "")
    attrs[qname] = value
    const local = localName(qname)
    if (local !== qname && !(local in attrs)) attrs[local] = value
  }
  return attrs
}

/** Parses a whole document and returns its root element. Throws `XmlError` when there is none. */
export const parseXml = (text: string): XmlElement => {
  const root: XmlElement = { name: "#document", qname: "#document", attrs: {}, children: [] }
  const stack: Array<XmlElement> = [root]
  let i = 0
  const n = text.length
  while (i < n) {
    const lt = text.indexOf("<", i)
    const top = stack[stack.length - 1]
    if (lt < 0) {
      if (stack.length > 1) top.children.push(decodeEntities(text.slice(i)))
      break
    }
    if (lt > i && stack.length > 1) top.children.push(decodeEntities(text.slice(i, lt)))
    const next = text.charCodeAt(lt + 1)
    if (next === 33 /* ! */) {
      if (text.startsWith("<!--", lt)) {
        const end = text.indexOf("-->", lt + 4)
        i = end < 0 ? n : end + 3
      } else if (text.startsWith("<![CDATA[", lt)) {
        const end = text.indexOf("]]>", lt + 9)
        if (stack.length > 1) top.children.push(text.slice(lt + 9, end < 0 ? n : end))
        i = end < 0 ? n : end + 3
      } else {
        // <!DOCTYPE ...> possibly with an internal subset: skipped, never expanded.
        let depth = 0
        let j = lt + 2
        for (; j < n; j++) {
          const c = text.charCodeAt(j)
          if (c === 91) depth++
          else if (c === 93) depth--
          else if (c === 62 && depth <= 0) break
        }
        i = j + 1
      }
      continue
    }
    if (next === 63 /* ? */) {
      const end = text.indexOf("?>", lt + 2)
      i = end < 0 ? n : end + 2
      continue
    }
    const gt = findTagEnd(text, lt + 1)
    if (gt < 0) break
    if (next === 47 /* / */) {
      const qname = text.slice(lt + 2, gt).trim()
      // Pop to the matching open element; a stray end tag is ignored.
      for (let k = stack.length - 1; k > 0; k--) {
        if (stack[k].qname === qname) {
          stack.length = k
          break
        }
      }
      i = gt + 1
      continue
    }
    const selfClosing = text.charCodeAt(gt - 1) === 47
    const body = text.slice(lt + 1, selfClosing ? gt - 1 : gt)
    let nameEnd = 0
    while (nameEnd < body.length && !isSpace(body.charCodeAt(nameEnd))) nameEnd++
    const qname = body.slice(0, nameEnd)
    if (qname.length === 0) {
      i = gt + 1
      continue
    }
    const element: XmlElement = { name: localName(qname), qname, attrs: parseAttrs(body.slice(nameEnd)), children: [] }
    top.children.push(element)
    if (!selfClosing) {
      if (stack.length > maxXmlDepth) throw new XmlError("XML nested too deeply", true)
      stack.push(element)
    }
    i = gt + 1
  }
  const first = root.children.find((c): c is XmlElement => typeof c !== "string")
  if (first === undefined) throw new XmlError("no XML root element")
  return first
}

const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 13

/** The `>` closing a tag, skipping `>` inside quoted attribute values. */
const findTagEnd = (text: string, from: number): number => {
  let quote = 0
  for (let j = from; j < text.length; j++) {
    const c = text.charCodeAt(j)
    if (quote !== 0) {
      if (c === quote) quote = 0
    } else if (c === 34 || c === 39) quote = c
    else if (c === 62) return j
  }
  return -1
}

// ---- navigation helpers ------------------------------------------------------------------------

export const elements = (node: XmlElement): Array<XmlElement> =>
  node.children.filter((c): c is XmlElement => typeof c !== "string")

export const child = (node: XmlElement | undefined, name: string): XmlElement | undefined => {
  if (node === undefined) return undefined
  for (const c of node.children) if (typeof c !== "string" && c.name === name) return c
  return undefined
}

export const childrenNamed = (node: XmlElement | undefined, name: string): Array<XmlElement> => {
  const out: Array<XmlElement> = []
  if (node === undefined) return out
  for (const c of node.children) if (typeof c !== "string" && c.name === name) out.push(c)
  return out
}

/** Depth-first search for descendants with the given local name (not descending into matches). */
export const descendants = (node: XmlElement, name: string, out: Array<XmlElement> = []): Array<XmlElement> => {
  for (const c of node.children) {
    if (typeof c === "string") continue
    if (c.name === name) out.push(c)
    else descendants(c, name, out)
  }
  return out
}

export const firstDescendant = (node: XmlElement | undefined, name: string): XmlElement | undefined => {
  if (node === undefined) return undefined
  for (const c of node.children) {
    if (typeof c === "string") continue
    if (c.name === name) return c
    const found = firstDescendant(c, name)
    if (found !== undefined) return found
  }
  return undefined
}

/** All text below a node, concatenated. */
export const textOf = (node: XmlNode | undefined): string => {
  if (node === undefined) return ""
  if (typeof node === "string") return node
  let out = ""
  for (const c of node.children) out += typeof c === "string" ? c : textOf(c)
  return out
}

/** Resolves a relative part target against the folder of the part that references it. */
export const resolvePart = (base: string, target: string): string => {
  if (target.startsWith("/")) return target.slice(1)
  const parts = base.split("/").slice(0, -1)
  for (const seg of decodeURIComponentSafe(target).split("/")) {
    if (seg === "..") parts.pop()
    else if (seg !== "." && seg !== "") parts.push(seg)
  }
  return parts.join("/")
}

const decodeURIComponentSafe = (s: string): string => {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

/** Reads a `.rels` part: relationship id -> { target, type, external }. */
export interface Relationship {
  readonly target: string
  readonly type: string
  readonly external: boolean
}
export const parseRelationships = (xml: string | undefined, basePart: string): Map<string, Relationship> => {
  const map = new Map<string, Relationship>()
  if (xml === undefined) return map
  for (const rel of descendants(parseXml(xml), "Relationship")) {
    const external = rel.attrs.TargetMode === "External"
    const target = rel.attrs.Target ?? ""
    map.set(rel.attrs.Id ?? "", { target: external ? target : resolvePart(basePart, target), type: rel.attrs.Type ?? "", external })
  }
  return map
}

/** The `.rels` part name of a part: `word/document.xml` -> `word/_rels/document.xml.rels`. */
export const relsPartOf = (part: string): string => {
  const slash = part.lastIndexOf("/")
  return `${part.slice(0, slash + 1)}_rels/${part.slice(slash + 1)}.rels`
}

/** The relationship id of an element (`r:id`); unprefixed `id`s (slide ids) are not relationships. */
export const relationshipId = (el: XmlElement | undefined): string | undefined => el?.attrs["r:id"] ?? el?.attrs.id
