/**
 * Which English weights tesseract reads with, found on disk once per engine. Two sources, both
 * local (nothing is ever downloaded):
 * - a tessdata folder holding an uncompressed `eng.traineddata`: the one named by the option
 *   (the server passes `STRATA_TESSDATA_DIR`), else Debian's `tesseract-ocr-eng` package at
 *   `/usr/share/tesseract-ocr/<version>/tessdata`, which ships tessdata_fast (its changelog names
 *   the tessdata_fast repository; the file's network is `...Lfys48Lfx96Lrx96Lfx192O1c1`, int);
 * - the npm package `@tesseract.js-data/eng`: `4.0.0_best_int` (tessdata_best in integer form,
 *   `...Lfys64Lfx96Lrx96Lfx512O1c1`) and `4.0.0` (the same LSTM plus the legacy classifier).
 * The fast network is about a third of best_int's size and, on dense 300-dpi A4, of its CPU
 * (bench/results/ocr-dense.md). The file's own network spec names the model, so a result says
 * which weights read it, whatever folder they came from.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"

/** `auto`: a tessdata folder's file when there is one, else the npm best_int; `fast`: the folder's file, which must be a fast network; `best_int`: always the npm file. */
export type TesseractModelChoice = "auto" | "fast" | "best_int"

export interface TesseractModel {
  /**
   * `fast` or `best` (a folder's file, named by its network: a last LSTM layer narrower than 256
   * cells is tessdata_fast), `best_int` or `standard` (the npm package's `4.0.0_best_int` and `4.0.0`).
   */
  readonly name: "fast" | "best" | "best_int" | "standard"
  /** The folder tesseract.js reads `eng.traineddata` (or `.gz`) from. */
  readonly langPath: string
  readonly gzip: boolean
  /** The LSTM network in tesseract's VGSL notation, as stored in the file; undefined for the gzipped npm files (known: best_int's). */
  readonly network: string | undefined
}

/** Where Debian's tesseract-ocr-<lang> packages put their files (`<root>/<version>/tessdata`). */
export const DEBIAN_TESSDATA_ROOT = "/usr/share/tesseract-ocr"

const require = createRequire(import.meta.url)

/** The npm package's folder for `best_int` or `standard`; throws if the data package is missing. */
export const npmLangPath = (name: "best_int" | "standard"): string =>
  join(dirname(require.resolve("@tesseract.js-data/eng/package.json")), name === "best_int" ? "4.0.0_best_int" : "4.0.0")

/** Debian's tessdata folder holding `eng.traineddata`, newest tesseract version first; undefined when not installed. */
export const debianTessdataDir = (root: string = DEBIAN_TESSDATA_ROOT): string | undefined => {
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root).sort((a, b) => b.localeCompare(a, "en", { numeric: true }))
  return versions.map((v) => join(root, v, "tessdata")).find((dir) => existsSync(join(dir, "eng.traineddata")))
}

/** Index of the LSTM component in a traineddata file's table of contents (tessdatamanager.h: TESSDATA_LSTM). */
const LSTM_COMPONENT = 17

/**
 * The network spec stored in a traineddata file's LSTM component (`[1,36,0,1Ct3,3,...O1c1]`);
 * undefined when the file has no LSTM or is not a traineddata file. The file starts with the
 * number of components (int32) and their offsets (int64, -1 when absent), little-endian.
 */
export const networkSpec = (file: Uint8Array): string | undefined => {
  if (file.length < 4) return undefined
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength)
  const count = view.getInt32(0, true)
  if (count <= LSTM_COMPONENT || count > 64 || file.length < 4 + count * 8) return undefined
  const offsets = Array.from({ length: count }, (_, i) => Number(view.getBigInt64(4 + i * 8, true)))
  const start = offsets[LSTM_COMPONENT]
  if (start < 0 || start >= file.length) return undefined
  const end = Math.min(file.length, ...offsets.filter((o) => o > start))
  const text = Buffer.from(file.buffer, file.byteOffset + start, end - start).toString("latin1")
  return /\[\d+,\d+,\d+,\d+[A-Za-z0-9,]*O1c\d+\]/.exec(text)?.[0]
}

/** `fast` when the last LSTM layer is narrower than 256 cells (tessdata_fast: 192 for English; best: 512). */
export const isFastNetwork = (spec: string): boolean => {
  const widths = Array.from(spec.matchAll(/L[fr][xy]s?(\d+)/g), (m) => Number(m[1]))
  return widths.length > 0 && widths[widths.length - 1] < 256
}

export interface ResolveOptions {
  readonly model?: TesseractModelChoice | undefined
  /** A tessdata folder to read `eng.traineddata` from instead of Debian's. */
  readonly tessdataDir?: string | undefined
  /** The legacy classifier needs the npm `4.0.0` file, the only one that carries it. */
  readonly legacy?: boolean | undefined
}

/**
 * The model an engine with these options reads with. `auto` (the default) is a named folder's
 * file (`tessdataDir`, the server's `STRATA_TESSDATA_DIR`), else the npm best_int; Debian's
 * tessdata_fast is read when `fast` is asked for or its folder is named. Fast is not the default:
 * it costs a quarter less CPU on a dense page but reads worse (bench/results/ocr-dense.md: CER
 * 0.20% against 0.09% on a bad photocopy), and on the outlined-table fixture it read the drawn
 * rules as "|" and "105 kg" as "105kg" (OutlinedOcr.integration), and neither model meets the
 * 1.5 s target.
 *
 * Throws (a message for `OcrEngineUnavailable`) when `fast` is asked for and not there. */
export const resolveModel = (options: ResolveOptions = {}): TesseractModel => {
  if (options.legacy === true) return { name: "standard", langPath: npmLangPath("standard"), gzip: true, network: undefined }
  const choice = options.model ?? "auto"
  const npm = (): TesseractModel => ({ name: "best_int", langPath: npmLangPath("best_int"), gzip: true, network: undefined })
  if (choice === "best_int") return npm()
  // Debian's fast file only when asked for by name: `auto` keeps best_int unless a folder is named (see resolveModel's doc).
  const dir = options.tessdataDir ?? (choice === "fast" ? debianTessdataDir() : undefined)
  const file = dir === undefined ? undefined : join(dir, "eng.traineddata")
  if (dir === undefined || file === undefined || !existsSync(file)) {
    // A folder named by the caller (STRATA_TESSDATA_DIR) that lacks the file is a mistake to report, not to paper over.
    if (choice === "auto" && options.tessdataDir === undefined) return npm()
    throw new Error(
      dir === undefined
        ? `the fast English model is not installed (apt-get install tesseract-ocr-eng puts it in ${DEBIAN_TESSDATA_ROOT}/<version>/tessdata)`
        : `no eng.traineddata in ${dir}`
    )
  }
  const network = networkSpec(readFileSync(file))
  if (network === undefined) throw new Error(`${file} has no LSTM model`)
  const name = isFastNetwork(network) ? "fast" : "best"
  if (choice === "fast" && name !== "fast") throw new Error(`${file} is not a fast model (network ${network})`)
  return { name, langPath: dir, gzip: false, network }
}
