/**
 * Person names, from a gazetteer of our own (models/pii-names: first names from ~60 languages,
 * less those that running text mostly writes in lower case) and the shape of a name: a known
 * first name, then one to three capitalised words that are not common words ("Anna Keller",
 * "Hlín Eyjólfsdóttir", "Rory O'Sullivan", "Matt De La O"). A title ("Dr.", "Mrs") or a label
 * ("Name:", "By") before capitalised words makes them a name without the gazetteer. Single first
 * names alone are left: "Jordan" may be a country, a river or a brand.
 */
import { COMMON_WORDS, FIRST_NAMES, WORD_FIRST_NAMES } from "./Gazetteer.ts"
import type { PiiMode, PiiSpan } from "./Spans.ts"

const firstNames = new Set(FIRST_NAMES.split("|"))
const wordFirstNames = new Set(WORD_FIRST_NAMES.split("|"))
const commonWords = new Set(COMMON_WORDS.split("|"))

/** Whether running text mostly writes `word` in lower case (an ordinary word, not a name or a secret). */
export const isCommonWord = (word: string): boolean => commonWords.has(word.toLowerCase())
/** Capitalised words that are never a surname after a first name. */
const NOT_SURNAMES = new Set([
  "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december",
  "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "i", "ii", "iii", "inc", "llc", "ltd", "gmbh",
  "the", "and", "of", "in", "on", "at", "for", "to", "with", "from",
  // Head nouns of organisations and places ("Grace Church", "Jordan River", "Austin College").
  "church", "cathedral", "chapel", "temple", "mosque", "university", "college", "school", "academy", "institute", "hospital",
  "clinic", "hotel", "restaurant", "cafe", "bar", "park", "museum", "gallery", "library", "theatre", "theater", "hall", "house",
  "center", "centre", "bank", "group", "company", "corporation", "foundation", "trust", "society", "association", "club", "team",
  "street", "road", "avenue", "river", "lake", "mountain", "mount", "valley", "county", "city", "state", "island", "bay", "beach",
  "airport", "station", "bridge", "tower", "square", "records", "press", "media", "news", "times", "post", "journal", "magazine",
  "studios", "labs", "partners", "capital", "ventures", "holdings", "systems", "solutions", "technologies", "foods", "farms"
])
const PARTICLES = new Set(["de", "da", "del", "della", "di", "du", "van", "von", "der", "den", "la", "le", "ter", "ten", "bin", "ibn", "al", "el", "y", "dos", "das"])

/** A capitalised word (Mc/Mac/O'/D' prefixes, hyphenated parts), an initial, or a particle. */
const TOKEN = /(?<![\p{L}\p{N}])(?:(?:Mc|Mac|O['’]|D['’])?\p{Lu}\p{Ll}+(?:[-'’](?![sS](?!\p{L}))\p{Lu}?\p{Ll}+)*|\p{Lu}\.|(?:de|da|del|della|di|du|van|von|der|den|la|le|ter|ten|bin|ibn|al|el|y|dos|das)(?=\s\p{Lu}))/gu
const TITLE = /\b(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Professor|Sir|Dame|Lord|Lady|Rev|Herr|Frau|Mme|Mlle|Monsieur|Madame|Sr|Sra|Srta|Dott|Dottssa)\.?\s+$/
const LABEL = /\b(?:name|full name|contact|contact person|author|written by|by|patient|applicant|employee|customer|signed|attn|attention|dear|from|to|cc|nom|vorname|nachname|nombre)\s*[:,]?\s*$/i

interface Token {
  readonly text: string
  readonly start: number
  readonly end: number
}

const isCapitalised = (t: Token) => /^\p{Lu}/u.test(t.text)
const isInitial = (t: Token) => /^\p{Lu}\.$/u.test(t.text)
const surnameLike = (t: Token) => isCapitalised(t) && !isInitial(t) && !commonWords.has(t.text.toLowerCase()) && !NOT_SURNAMES.has(t.text.toLowerCase())

export const names = (text: string, mode: PiiMode, out: Array<PiiSpan>): void => {
  if (mode === "fast") return
  // Runs of name tokens separated by single spaces (or a space after an initial's dot).
  const tokens: Array<Token> = []
  TOKEN.lastIndex = 0
  for (let m = TOKEN.exec(text); m !== null; m = TOKEN.exec(text)) tokens.push({ text: m[0], start: m.index, end: m.index + m[0].length })
  let i = 0
  while (i < tokens.length) {
    // Gather a run: tokens joined by one space (a line break ends a name).
    const run: Array<Token> = [tokens[i]]
    let j = i + 1
    while (j < tokens.length && /^ ?$/.test(text.slice(run[run.length - 1].end, tokens[j].start)) && tokens[j].start > run[run.length - 1].end) {
      run.push(tokens[j])
      j++
    }
    i = j
    if (!isCapitalised(run[0]) && run.length === 1) continue
    for (let k = 0; k < run.length; k++) {
      const first = run[k]
      if (!isCapitalised(first) || isInitial(first)) continue
      const before = text.slice(Math.max(0, first.start - 24), first.start)
      const titled = TITLE.test(before)
      const labelled = LABEL.test(before)
      const key = first.text.toLowerCase()
      const known = firstNames.has(key) || (wordFirstNames.has(key) && (mode === "aggressive" || titled || labelled))
      // Extend over middle initials, particles and surnames.
      let end = k
      let surnames = 0
      for (let n = k + 1; n < run.length && n <= k + 4; n++) {
        const t = run[n]
        if (isInitial(t) || PARTICLES.has(t.text) || (firstNames.has(t.text.toLowerCase()) && !commonWords.has(t.text.toLowerCase()) && !NOT_SURNAMES.has(t.text.toLowerCase()))) {
          if (PARTICLES.has(t.text) && n === run.length - 1) break
          end = n
          if (!isInitial(t) && !PARTICLES.has(t.text)) surnames++
          continue
        }
        // After a first name that is only a name ("Tim", not "Will"), a capitalised word is a
        // surname even when it is also a common word ("Tim Green", "Joe Root").
        const strongFirst = n === k + 1 && firstNames.has(key) && !commonWords.has(key)
        if (surnameLike(t) || ((mode === "aggressive" || strongFirst) && isCapitalised(t) && !isInitial(t) && !NOT_SURNAMES.has(t.text.toLowerCase()))) {
          end = n
          surnames++
          continue
        }
        break
      }
      const whole = (known || titled || labelled) && surnames >= 1
      // A title makes one capitalised word a name ("Dr. Keller").
      const titledSingle = titled && end === k && surnameLike(first)
      if (whole || titledSingle) {
        out.push({ start: first.start, end: run[end].end, kind: "PERSON" })
        k = end
      }
    }
  }
}
