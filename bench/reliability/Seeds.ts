/**
 * Seed files for the fuzz run: small documents of every family generated here, plus up to 30
 * small files from /work/shared/corpus when it is present (picked round-robin over extensions,
 * sorted by path, so the same corpus gives the same seeds).
 */
import { existsSync, readFileSync } from "node:fs"
import { extname, join } from "node:path"
import { articleHtml } from "./Article.ts"
import { docx, odt, plainPdf, xlsx } from "./Hostile.ts"

export interface Seed {
  readonly name: string
  readonly bytes: Uint8Array
}

const corpusRoot = "/work/shared/corpus"
const readable = new Set([".pdf", ".docx", ".xlsx", ".pptx", ".odt", ".ods", ".odp", ".epub", ".rtf", ".html", ".csv", ".xls", ".doc", ".ppt", ".xlsm", ".docm", ".pptm", ".xhtml"])

const corpusSeeds = (limit: number, maxBytes: number): Array<Seed> => {
  const manifest = join(corpusRoot, "MANIFEST.tsv")
  if (!existsSync(manifest)) return []
  const groups = new Map<string, Array<string>>()
  for (const line of readFileSync(manifest, "utf8").split("\n").slice(1)) {
    const [path, bytes] = line.split("\t")
    if (path === undefined || !path.includes("/") || path.includes("expected") || Number(bytes) > maxBytes || Number(bytes) < 64) continue
    const ext = extname(path).toLowerCase()
    if (!readable.has(ext)) continue
    groups.set(ext, [...(groups.get(ext) ?? []), path])
  }
  const lists = [...groups.entries()].toSorted(([a], [b]) => a.localeCompare(b)).map(([, paths]) => paths.toSorted())
  const picked: Array<string> = []
  for (let round = 0; picked.length < limit && lists.some((l) => l.length > round); round++) {
    for (const list of lists) if (list[round] !== undefined && picked.length < limit) picked.push(list[round])
  }
  return picked.filter((path) => existsSync(join(corpusRoot, path))).map((path) => ({ name: `corpus:${path}`, bytes: readFileSync(join(corpusRoot, path)) }))
}

export const seeds = async (options: { readonly corpus: number; readonly maxBytes: number }): Promise<Array<Seed>> => {
  const paragraphs = Array.from({ length: 12 }, (_, i) => `<w:p><w:r><w:t>Paragraph ${i} with some text, a number ${i * 17} and a word.</w:t></w:r></w:p>`).join("")
  const rows = Array.from({ length: 40 }, (_, i) => `<row r="${i + 1}"><c r="A${i + 1}"><v>${i}</v></c><c r="B${i + 1}" t="inlineStr"><is><t>row ${i}</t></is></c></row>`).join("")
  const generated: Array<Seed> = [
    { name: "gen:two-pages.pdf", bytes: plainPdf(2, 12) },
    { name: "gen:small.docx", bytes: (await docx(paragraphs)).bytes },
    { name: "gen:small.xlsx", bytes: (await xlsx(`<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${rows}</sheetData></worksheet>`)).bytes },
    { name: "gen:small.odt", bytes: (await odt(Array.from({ length: 10 }, (_, i) => `<text:p>Paragraph ${i} of the odt seed.</text:p>`).join(""))).bytes },
    { name: "gen:small.csv", bytes: Buffer.from(["id,name,amount", ...Array.from({ length: 50 }, (_, i) => `${i},"name ${i}",${(i * 3.25).toFixed(2)}`)].join("\n")) },
    { name: "gen:article.html", bytes: Buffer.from(articleHtml(8_000)) }
  ]
  return [...generated, ...corpusSeeds(options.corpus, options.maxBytes)]
}

/** The file name a mutated seed is uploaded under: the seed's own. */
export const fileNameOf = (seed: Seed): string => seed.name.slice(seed.name.lastIndexOf("/") + 1).replace(/^(gen|corpus):/, "")
