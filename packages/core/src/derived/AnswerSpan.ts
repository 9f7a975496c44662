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
  if (/\bhow much\b.*\b(cost|price|pay|charge|worth|fee|spend|raise|earn)|\b(price|cost|fee|fees|charge|salary|revenue)s?\b/.test(q)) return "money"
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
const NUMBER = "(?:\\d{1,3}(?:,\\d{3})+|\\d+)(?:\\.\\d+)?"
const QUANTITY = [
  ...MONEY,
  ...PERCENT,
  new RegExp(`\\b(?:(?:about|around|approximately|over|more than|less than|fewer than|nearly|almost|some|up to|at least|roughly|just|only)\\s+)?(?:${NUMBER}|${NUMBER_WORDS})(?:[- ](?:million|billion|trillion|thousand|hundred))?(?:[\\s-]?(?:%|["”]|[\\p{L}]+\\b))?`, "giu")
]
/** Words after a number that belong to it: units, and the thing the question counts. */
const UNITS = new Set(("% percent mm cm m km in ft feet foot inch inches mile miles metre metres meter meters kilometre kilometres kilometer kilometers " +
  "centimetres centimeters millimetres millimeters yard yards acre acres hectare hectares litre litres liter liters gallon gallons " +
  "kg g mg lb lbs oz pound pounds ton tons tonnes kilograms grams " +
  "gb mb tb kb ghz mhz hz w kw kwh v mah gbps mbps fps rpm second seconds minute minutes hour hours day days week weeks month months year years " +
  "times people person persons x").split(" "))
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

/** Drops the candidates that mostly repeat the question, and picks the one nearest its terms. */
const pick = (found: ReadonlyArray<Found>, sentence: string, question: string, quantity = false): string | undefined => {
  const questionTerms = new Set(terms(question))
  const fresh = found.filter((f) => {
    const own = terms(f.text)
    if (own.length === 0) return !question.includes(f.text)
    // A quantity is new when its number is: the words around it may well repeat the question.
    if (quantity) return own.some((t) => /\d/.test(t) && !questionTerms.has(t)) || new RegExp(`^${NUMBER_WORDS}$`, "i").test(own[0]!)
    return own.filter((t) => questionTerms.has(t)).length * 2 < own.length || (own.length === 1 && !questionTerms.has(own[0]!))
  })
  if (fresh.length === 0) return undefined
  const anchors: Array<number> = []
  const lower = sentence.toLowerCase()
  for (const term of questionTerms) {
    const at = lower.indexOf(term)
    if (at >= 0) anchors.push(at)
  }
  if (anchors.length === 0) return fresh[0]!.text
  const distance = (f: Found) => Math.min(...anchors.map((a) => (a >= f.start && a < f.start + f.text.length ? 0 : Math.min(Math.abs(a - f.start), Math.abs(a - f.start - f.text.length)))))
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
    case "quantity": {
      const questionTerms = new Set(terms(question))
      const quantities = findAll(QUANTITY, sentence).map((f) => {
        // The word after the number stays when it is a unit or what the question counts ("127 steps").
        const words = f.text.split(/\s+|(?<=\d)-(?=\p{L})/u)
        const last = words[words.length - 1]!
        const isNumber = /\d|^(?:million|billion|trillion|thousand|hundred)$/i.test(last) || new RegExp(`^${NUMBER_WORDS}$`, "i").test(last)
        const keep = isNumber || UNITS.has(last.toLowerCase()) || (/^[a-z]/.test(last) && terms(last).some((t) => questionTerms.has(t))) || /%|["”]$/.test(last)
        return keep || words.length === 1 ? f : { text: f.text.slice(0, f.text.length - last.length).replace(/[\s-]+$/, ""), start: f.start }
      }).filter((f) => f.text !== "" && (/\d/.test(f.text) || new RegExp(`\\b${NUMBER_WORDS}\\b`, "i").test(f.text)))
        // "How long", "how far", "how heavy" ask for a measure: a bare count is not one.
        .filter((f) => !/\bhow (long|far|tall|heavy|big|large|high|deep|wide|old)\b/i.test(question) || /[\p{L}%"”]$/u.test(f.text) && UNITS.has(f.text.split(/[\s-]+/).pop()!.toLowerCase()))
      return pick(quantities, sentence, question, true) ?? keyed
    }
    case "person":
    case "place": {
      if (keyed !== undefined) return keyed
      const names = findAll([PROPER], sentence)
        .map((f) => {
          // A capitalised first word of the sentence is not a name by itself.
          const words = f.text.split(/\s+|(?<=\d)-(?=\p{L})/u)
          while (words.length > 0 && (NOT_NAMES.has(words[0]!) || HONORIFICS.test(words[0]!))) words.shift()
          const text = words.join(" ")
          return { text, start: f.start + f.text.length - text.length }
        })
        .filter((f) => f.text !== "" && !(f.start === 0 && !f.text.includes(" ") && type === "person"))
      // A place follows "in", "at", "from" or "near" ("born in Port Arlen").
      const placed = type === "place" ? names.filter((f) => /\b(?:in|at|from|near|on)\s+(?:the\s+)?$/i.test(sentence.slice(0, f.start))) : []
      return pick(placed.length > 0 ? placed : names, sentence, question)
    }
    case "other":
      return keyed ?? subjectSpan(question, sentence) ?? objectSpan(question, sentence)
  }
}

const COPULA = /\s+(?:is|are|was|were|came|comes|has|have|had|remains|remained|became|becomes|leads|led|won|makes|made|topped|tops|ranks|ranked|uses|offers|provides|includes)\b/i
const LEADING_PHRASE = /^(?:(?:of|in|for|among|according to|at|on|by|with|from|after|before|since|during|today|now|however|also)\b[^,]{0,80},\s*)/i

/**
 * "X is the most ...", "X came in second": the subject, when the rest of the sentence says what the
 * question asks and the subject does not repeat it ("Which material is the most durable?").
 */
const subjectSpan = (question: string, sentence: string): string | undefined => {
  if (!/^\s*(what|which|who)\b/i.test(question)) return undefined
  const clause = sentence.replace(LEADING_PHRASE, "")
  const verb = COPULA.exec(clause)
  if (verb === null) return undefined
  const subject = clause.slice(0, verb.index).trim()
  const rest = clause.slice(verb.index)
  const words = subject.split(/\s+/)
  if (words.length === 0 || words.length > 6) return undefined
  const questionTerms = new Set(terms(question))
  const subjectTerms = terms(subject)
  if (subjectTerms.length === 0 || subjectTerms.some((t) => questionTerms.has(t))) return undefined
  const restTerms = new Set(terms(rest))
  const asked = [...questionTerms].filter((t) => !subjectTerms.includes(t))
  return asked.length > 0 && asked.filter((t) => restTerms.has(t)).length * 2 >= asked.length ? subject.replace(/^(?:the|a|an)\s+/i, "") : undefined
}

const EDGE_WORDS = /^(?:a|an|the|in|on|at|of|for|to|by|with|from|is|are|was|were|be|it|its|and|or|but|as|into|than|that|which|who|-|–|—)$/i
const STOP_AT = /^(?:instead|because|which|who|while|when|but|and|than|although|whereas|so|since|if)$/i

/**
 * The words after the last of the question's words in the sentence, up to the clause's end: what
 * the sentence says about what the question names ("it comes in black instead of white" -> black).
 */
const objectSpan = (question: string, sentence: string): string | undefined => {
  const questionTerms = new Set(terms(question))
  const tokens = sentence.split(/\s+/)
  const isQuestionWord = (token: string) => terms(token).some((t) => questionTerms.has(t))
  const marks = tokens.map(isQuestionWord)
  for (let i = tokens.length - 1; i >= 0; i--) {
    if (!marks[i]) continue
    const run: Array<string> = []
    for (let j = i + 1; j < tokens.length && !marks[j] && run.length < 8; j++) {
      const token = tokens[j]!
      if (STOP_AT.test(token) && run.some((w) => !EDGE_WORDS.test(w))) break
      run.push(token)
      if (/[,;:.!?)]$/.test(token)) break
    }
    while (run.length > 0 && EDGE_WORDS.test(run[0]!)) run.shift()
    while (run.length > 0 && EDGE_WORDS.test(run[run.length - 1]!)) run.pop()
    const text = run.join(" ").replace(/[,;:.!?]+$/, "")
    if (text !== "" && run.length <= 6 && terms(text).length > 0) return text
  }
  return undefined
}
