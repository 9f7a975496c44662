/**
 * The span of a sentence that answers a question, found by the question's type: a date for
 * "when" or "what year", a quantity for "how many/much/long" or a price, a name for "who",
 * a place for "where", the other cells of a table row or the value after a `key:`. The span is
 * the sentence's own text. `undefined` when the sentence holds nothing of the asked-for type
 * (the caller then answers with the whole sentence).
 */
import { terms } from "./Sentences.ts"

type AnswerType = "date" | "year" | "quantity" | "money" | "percent" | "person" | "place" | "other"

export const questionType = (question: string): AnswerType => {
  const q = question.toLowerCase()
  if (/\b(what|which|in what|in which)\s+year\b|\byear\s+(was|did|were)\b/.test(q)) return "year"
  if (/^\s*when\b|\bwhat (date|day|time)\b|\bon what date\b/.test(q)) return "date"
  if (/\bhow much\b.*\b(cost|price|pay|charge|worth|fee|spend|raise|earn)|\bwhat (is|was) the (price|cost|fee)\b|\bprice\b/.test(q)) return "money"
  if (/\bwhat percent(age)?\b|\bwhat share\b|\bwhat proportion\b/.test(q)) return "percent"
  if (/\bhow (many|much|long|old|far|tall|big|large|high|fast|heavy|often|deep|wide)\b|\bwhat (is|was) the (number|population|size|length|height|weight|speed|capacity|score|rate|count)\b/.test(q)) return "quantity"
  if (/^\s*(who|whom)\b|\bwhich (person|company|team|author|organi[sz]ation|player|man|woman)\b|\bwhat (company|organi[sz]ation|team)\b|\bname of the (person|author|founder|company|ceo)\b/.test(q)) return "person"
  if (/^\s*where\b|\bwhich (city|country|state|town|place|region|continent)\b|\bwhat (city|country|state|town|place|region)\b/.test(q)) return "place"
  return "other"
}

const MONTH = "(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|Jun(?:e)?|Jul(?:y)?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\\.?"
const YEAR = "(?:1[0-9]{3}|20[0-9]{2})"
const DATE_PATTERNS = [
  new RegExp(`\\b${MONTH}\\s+\\d{1,2}(?:st|nd|rd|th)?,?\\s+${YEAR}\\b`, "g"),
  new RegExp(`\\b\\d{1,2}(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH}\\s+${YEAR}\\b`, "g"),
  /\b\d{4}-\d{2}-\d{2}\b/g,
  new RegExp(`\\b${MONTH}\\s+${YEAR}\\b`, "g"),
  new RegExp(`\\b(?:early|mid|late)[- ]${YEAR}s?\\b`, "g"),
  new RegExp(`\\b${YEAR}s?\\b`, "g")
]
const YEAR_PATTERN = [new RegExp(`\\b${YEAR}\\b`, "g")]
const MONEY = [
  /(?:[$€£¥₹]|\b(?:USD|EUR|GBP|US\$|CHF|CAD|AUD)\s?)\s?\d[\d,]*(?:\.\d+)?(?:\s?(?:million|billion|trillion|thousand|[kmb]n?)\b)?/gi,
  /\b\d[\d,]*(?:\.\d+)?\s?(?:dollars|euros|pounds|yen|USD|EUR|GBP|cents)\b/gi
]
const PERCENT = [/\b\d+(?:[.,]\d+)?\s?(?:%|percent\b|per cent\b)/gi]
const NUMBER_WORDS = "(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|hundred|dozen)"
const QUANTITY = [
  ...MONEY,
  ...PERCENT,
  new RegExp(`\\b(?:about |around |approximately |over |more than |nearly |almost |some |up to )?(?:\\d[\\d,]*(?:\\.\\d+)?|${NUMBER_WORDS})(?:[- ](?:million|billion|trillion|thousand|hundred))?(?:[- ](?:[a-z]+(?:-[a-z]+)?))?\\b`, "gi")
]
const PROPER = /\b(?:[\p{Lu}][\p{L}'’.-]+|[\p{Lu}]\.)(?:\s+(?:(?:de|da|van|von|der|del|la|le|of|the|and|&)\s+)?(?:[\p{Lu}][\p{L}'’.-]+|[\p{Lu}]\.))*/gu

/** Words that start a sentence or a name-like run without being part of an answer. */
const NOT_NAMES = new Set(["The", "A", "An", "In", "On", "At", "It", "This", "That", "These", "Those", "He", "She", "They", "We", "I", "His", "Her", "Their", "Its", "But", "And", "Or", "As", "For", "By", "When", "While", "After", "Before", "Since", "During", "According", "However", "Also", "If", "With", "From", "To", "Of"])

const HONORIFICS = /^(Dr|Mr|Mrs|Ms|Prof|Sir|Dame|Lord|Lady|Rev|Capt|Gen|Col|Sgt|Lt)\.?$/

interface Found {
  readonly text: string
  readonly start: number
}

const findAll = (patterns: ReadonlyArray<RegExp>, sentence: string): Array<Found> => {
  const out: Array<Found> = []
  for (const pattern of patterns) {
    for (const match of sentence.matchAll(pattern)) {
      const text = match[0].trim()
      if (text === "" || out.some((f) => match.index >= f.start && match.index < f.start + f.text.length)) continue
      out.push({ text, start: match.index })
    }
  }
  return out
}

/** Drops the candidates that only repeat the question, and picks the one nearest its terms. */
const pick = (found: ReadonlyArray<Found>, sentence: string, question: string): string | undefined => {
  const questionTerms = new Set(terms(question))
  const fresh = found.filter((f) => {
    const own = terms(f.text)
    return own.length === 0 ? !question.includes(f.text) : own.some((t) => !questionTerms.has(t))
  })
  if (fresh.length === 0) return undefined
  const anchors: Array<number> = []
  const lower = sentence.toLowerCase()
  for (const term of questionTerms) {
    const at = lower.indexOf(term)
    if (at >= 0) anchors.push(at)
  }
  if (anchors.length === 0) return fresh[0]!.text
  const distance = (f: Found) => Math.min(...anchors.map((a) => Math.abs(a - f.start)))
  return [...fresh].sort((a, b) => distance(a) - distance(b) || a.start - b.start)[0]!.text
}

/** A table row (`a | b | c`) or `key: value` line: the parts the question does not name. */
const keyedValue = (question: string, sentence: string): string | undefined => {
  const questionTerms = new Set(terms(question))
  const parts = sentence.includes(" | ") ? sentence.split(" | ") : /^[^:]{1,60}:\s+\S/.test(sentence) ? [sentence.slice(0, sentence.indexOf(":")), sentence.slice(sentence.indexOf(":") + 1)] : []
  if (parts.length < 2) return undefined
  const named = parts.map((part) => terms(part).some((t) => questionTerms.has(t)))
  if (!named.some(Boolean)) return undefined
  const rest = parts.filter((_, i) => !named[i]).map((part) => part.trim()).filter((part) => part !== "")
  return rest.length > 0 ? rest.join(", ") : undefined
}

export const answerSpan = (question: string, sentence: string): string | undefined => {
  const type = questionType(question)
  const keyed = keyedValue(question, sentence)
  switch (type) {
    case "year":
      return pick(findAll(YEAR_PATTERN, sentence), sentence, question) ?? keyed
    case "date":
      return pick(findAll(DATE_PATTERNS, sentence), sentence, question) ?? keyed
    case "money":
      return pick(findAll(MONEY, sentence), sentence, question) ?? keyed
    case "percent":
      return pick(findAll(PERCENT, sentence), sentence, question) ?? keyed
    case "quantity":
      return keyed ?? pick(findAll(QUANTITY, sentence).filter((f) => /\d|[a-z]/i.test(f.text)).filter((f) => !/^[a-z]+$/i.test(f.text) || new RegExp(`^${NUMBER_WORDS}`, "i").test(f.text)), sentence, question)
    case "person":
    case "place": {
      if (keyed !== undefined) return keyed
      const names = findAll([PROPER], sentence)
        .map((f) => {
          // A capitalised first word of the sentence is not a name by itself.
          const words = f.text.split(/\s+/)
          while (words.length > 0 && (NOT_NAMES.has(words[0]!) || HONORIFICS.test(words[0]!))) words.shift()
          const text = words.join(" ")
          return { text, start: f.start + f.text.length - text.length }
        })
        .filter((f) => f.text !== "" && !(f.start === 0 && !f.text.includes(" ") && type === "person"))
      return pick(names, sentence, question)
    }
    case "other":
      return keyed
  }
}
