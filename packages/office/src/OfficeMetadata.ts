/**
 * Document properties shared by OOXML (docProps/core.xml) and ODF (meta.xml), mapped onto the
 * metadata keys the service returns: title, author, subject, description, keywords, language,
 * created, modified.
 */
import { parseXml, textOf, elements, type XmlElement } from "./Xml.ts"

export type Metadata = Record<string, string | Array<string>>

const keyOf: Record<string, string> = {
  title: "title",
  creator: "author",
  "initial-creator": "author",
  subject: "subject",
  description: "description",
  keywords: "keywords",
  keyword: "keywords",
  language: "language",
  created: "created",
  "creation-date": "created",
  modified: "modified",
  date: "modified",
  lastModifiedBy: "lastModifiedBy",
  category: "category"
}

/** Reads the Dublin Core style properties of a core.xml or meta.xml part. */
export const readProperties = (xml: string | undefined): Metadata => {
  const out: Metadata = {}
  if (xml === undefined) return out
  let root: XmlElement
  try {
    root = parseXml(xml)
  } catch {
    return out
  }
  // ODF nests the properties inside office:meta; OOXML keeps them at the root.
  const holder = elements(root).find((e) => e.name === "meta") ?? root
  for (const el of elements(holder)) {
    const key = keyOf[el.name]
    const value = textOf(el).trim()
    if (key === undefined || value.length === 0) continue
    if (key === "keywords") {
      const list = value.split(/\s*[,;]\s*/).filter((k) => k.length > 0)
      const prev = out.keywords
      out.keywords = Array.isArray(prev) ? [...prev, ...list] : list
    } else if (out[key] === undefined) out[key] = value
  }
  if (Array.isArray(out.keywords)) out.keywords = out.keywords.join(", ")
  return out
}
