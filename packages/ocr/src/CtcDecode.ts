/**
 * Greedy CTC decoding of a recogniser's per-timestep class probabilities with its dictionary:
 * take the best class per step, collapse repeats, drop blanks. Each kept character remembers
 * its timestep so word boxes can be placed along the line.
 */

export interface CtcChar {
  readonly char: string
  readonly step: number
  readonly prob: number
}

export interface CtcLine {
  readonly text: string
  readonly chars: ReadonlyArray<CtcChar>
  /** Mean probability of the kept characters, 0 when none. */
  readonly confidence: number
}

/**
 * PaddleOCR's class layout: 0 is the CTC blank, 1..N are the dictionary's lines in order, and
 * N+1 is the space when the model was trained with spaces.
 */
export const paddleCharset = (dictionary: string, classes: number): Array<string> => {
  const keys = dictionary.split(/\r?\n/)
  if (keys.length > 0 && keys[keys.length - 1] === "") keys.pop()
  const charset = ["", ...keys]
  while (charset.length < classes) charset.push(" ")
  return charset
}

/**
 * Decodes one sequence of `steps` x `classes` probabilities starting at `offset` in `data`.
 *
 * Recognisers trained mostly on Chinese often leave the space as a runner-up between English
 * words: when no space is emitted between two characters but a step between them gives the
 * space class at least `spaceRecovery` probability, a space is inserted there (only steps not
 * next to an emitted character count, where stray space mass is common).
 */
export const ctcDecode = (
  data: Float32Array,
  offset: number,
  steps: number,
  classes: number,
  charset: ReadonlyArray<string>,
  spaceRecovery = 0.15
): CtcLine => {
  const chars: Array<CtcChar> = []
  const spaceClass = charset.lastIndexOf(" ")
  let previous = -1
  // Best space probability since the last emitted character, and where.
  let gapSpace = 0
  let gapStep = -1
  for (let t = 0; t < steps; t++) {
    const base = offset + t * classes
    let best = 0
    let bestProb = data[base]
    for (let c = 1; c < classes; c++) {
      const v = data[base + c]
      if (v > bestProb) {
        bestProb = v
        best = c
      }
    }
    if (best !== 0 && best !== previous) {
      const last = chars[chars.length - 1]
      const char = charset[best] ?? ""
      if (spaceClass > 0 && gapStep >= 0 && last !== undefined && last.char !== " " && char !== " " && gapSpace >= spaceRecovery) {
        chars.push({ char: " ", step: gapStep, prob: gapSpace })
      }
      chars.push({ char, step: t, prob: bestProb })
      gapSpace = 0
      gapStep = -1
    } else if (spaceClass > 0 && best === 0 && previous === 0) {
      const p = data[base + spaceClass]
      // Only blank steps with a blank before them: the step right after a character often carries stray space mass.
      if (p > gapSpace && t + 1 < steps) {
        gapSpace = p
        gapStep = t
      }
    }
    previous = best
  }
  // Spaces at either end carry no information and would skew the confidence.
  while (chars.length > 0 && chars[0].char === " ") chars.shift()
  while (chars.length > 0 && chars[chars.length - 1].char === " ") chars.pop()
  let sum = 0
  for (const c of chars) sum += c.prob
  return { text: chars.map((c) => c.char).join(""), chars, confidence: chars.length === 0 ? 0 : sum / chars.length }
}
