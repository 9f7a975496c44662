/**
 * Street addresses by their shape: a house number and a street name ending in a street word
 * ("221B Baker Street", "1600 Pennsylvania Ave NW, Washington, DC 20500"), the continental order
 * ("Hauptstraße 5, 10115 Berlin", "12 rue de la Paix, 75002 Paris", "Via Roma 10"), and a P.O.
 * box. A postcode alone is not an address, but one right after an address joins it.
 */
import type { PiiMode, PiiSpan } from "./Spans.ts"

const STREET_WORDS = "Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Place|Pl|Square|Sq|Terrace|Terr|Way|Parkway|Pkwy|Highway|Hwy|Circle|Cir|Trail|Trl|Row|Close|Crescent|Cres|Grove|Gardens|Mews|Hill|Walk|Alley|Plaza|Expressway|Freeway|Pike|Loop"
/** Street types that are ordinary words too ("Park", "View", "Green"): an address only with a town or postcode after it. */
const MORE_STREET_WORDS = "Brae|Wynd|Croft|Drove|Copse|Grange|Gate|Rise|End|Park|View|Views|Heights|Sidings|Ridge|Ridges|Junction|Crossing|Meadow|Meadows|Orchard|Green|Fields|Hollow|Glen|Vale|Wharf|Quay|Yard|Passage|Parade|Broadway|Esplanade|Promenade|Causeway|Point|Harbor|Harbour|Haven|Landing|Manor|Mill|Mills|Estate|Estates|Falls|Ford|Fort|Knoll|Lodge|Mount|Oval|Pass|Path|Pines|Plains|Run|Shore|Shores|Spring|Springs|Summit|Trace|Turnpike|Valley|Village|Vista|Bend|Bluff|Brook|Creek|Crest|Cove|Dale|Garden|Island|Lake|Lakes|Rapids|Spur|Bypass|Common|Corner|Corners|Courts|Flats|Forge|Knolls|Neck|Ranch|Station|Stream|Track|Underpass|Walks|Ways"
const NAME_WORD = "(?:\\p{Lu}[\\p{L}'’.-]*|\\d{1,3}(?:st|nd|rd|th))"
const UNIT = "(?:,?\\s+(?:Apt|Apartment|Suite|Ste|Unit|Floor|Fl|Room|Rm|#)\\.?\\s*#?[\\w-]{1,6})?"
const UK_POSTCODE = "[A-Z]{1,2}\\d[A-Z\\d]?\\s?\\d[A-Z]{2}\\b"
const CITY_TAIL = `(?:,\\s*\\p{Lu}\\p{Ll}[\\p{L}'’.-]*(?:\\s\\p{Lu}\\p{Ll}[\\p{L}'’.-]*){0,3})?(?:,?\\s+(?:${UK_POSTCODE}|[A-Z]{2}|\\p{Lu}\\p{Ll}+))?(?:,?\\s+(?:\\d{5}(?:-\\d{4})?|${UK_POSTCODE}|[A-Z]\\d[A-Z]\\s?\\d[A-Z]\\d))?`

const ENGLISH = new RegExp(
  `(?<![\\w-])\\d{1,6}[A-Za-z]?(?:-\\d{1,4})?\\s+(?:[NSEW]\\.?\\s+)?(?:${NAME_WORD}\\s+){1,4}(?:${STREET_WORDS})\\b\\.?(?:\\s+(?:NW|NE|SW|SE|N|S|E|W)\\b)?${UNIT}${CITY_TAIL}`,
  "gu"
)
const ENGLISH_MORE = new RegExp(
  `(?<![\\w-])\\d{1,6}[A-Za-z]?(?:-\\d{1,4})?\\s+(?:${NAME_WORD}\\s+){1,4}(?:${MORE_STREET_WORDS})\\b${UNIT},\\s*(?:${UK_POSTCODE}\\s+)?\\p{Lu}\\p{Ll}[\\p{L}'’.-]*(?:[\\s-]\\p{Lu}?[\\p{L}'’.-]+){0,4}(?:,?\\s+(?:\\d{5}(?:-\\d{4})?|${UK_POSTCODE}|[A-Z]{2}(?:\\s+\\d{5})?))?`,
  "gu"
)
/** The British order: street, postcode, town ("3 McCullough Brae, SR7 7NG Sunderland"). */
const POSTCODE_TOWN = new RegExp(
  `(?<![\\w-])\\d{1,6}[A-Za-z]?\\s+(?:${NAME_WORD}\\s+){1,4}(?:${STREET_WORDS}|${MORE_STREET_WORDS})\\b,\\s*${UK_POSTCODE}(?:\\s+\\p{Lu}[\\p{L}'’.-]*(?:[\\s-]\\p{L}[\\p{L}'’.-]*){0,4})?`,
  "gu"
)
const GERMANIC = /(?<![\p{L}\d])\p{Lu}[\p{L}-]*(?:straße|strasse|str\.|weg|gasse|platz|allee|ring|damm|ufer|chaussee|steig|pfad|markt|laan|straat|gracht|plein|kade|vej|gade|gatan|vägen|veien)\s+\d{1,4}\s?[a-z]?(?:,?\s+\d{4,5}\s+\p{Lu}[\p{L}-]+(?:\s\p{Lu}[\p{L}-]+)?)?/gu
const ROMANCE = /(?<![\p{L}\d])\d{1,4}(?:\s?(?:bis|ter))?,?\s+(?:rue|avenue|av\.|boulevard|bd|place|chemin|allée|impasse|quai|route|cours|passage|voie|sentier|villa|cité|square|faubourg|promenade|esplanade|ruelle|résidence|calle|avenida|plaza|paseo|carrer|via|viale|piazza|corso|rua|travessa|largo)\s+(?:(?:de|du|des|la|le|l'|d'|del|della|di|da|do|dos|das)\s+)*(?:\p{L}[\p{L}'’-]*\s?){1,4}(?:,?\s+\d{5}\s+\p{Lu}[\p{L}-]+(?:[\s-]\p{Lu}[\p{L}-]+)?)?/giu
const ROMANCE_NAME_FIRST = /(?<![\p{L}\d])(?:Calle|Avenida|Plaza|Paseo|Carrer|Via|Viale|Piazza|Corso|Rua|Avenue)\s+(?:\p{Lu}[\p{L}'’-]*\s){1,4}\d{1,4}(?:,?\s+\d{5}\s+\p{Lu}[\p{L}-]+)?/gu
const PO_BOX = /\b(?:P\.?\s?O\.?\s?Box|Post Office Box|Postfach|Apartado|Casella Postale|BP)\s+\d{1,6}\b/gi

/** Each pattern runs only where its street words occur: the patterns are costly to try at every digit. */
const GATES: ReadonlyArray<readonly [RegExp, RegExp]> = [
  [new RegExp(`\\d[^\\n]{1,60}\\b(?:${STREET_WORDS})\\b`), ENGLISH],
  [new RegExp(`\\d[^\\n]{1,60}\\b(?:${MORE_STREET_WORDS}),`), ENGLISH_MORE],
  [new RegExp(`\\d[^\\n]{1,60}\\b(?:${STREET_WORDS}|${MORE_STREET_WORDS}),\\s*[A-Z]{1,2}\\d`), POSTCODE_TOWN],
  [/(?:straße|strasse|str\.|weg|gasse|platz|allee|ring|damm|ufer|chaussee|steig|pfad|markt|laan|straat|gracht|plein|kade|vej|gade|gatan|vägen|veien)\s+\d/i, GERMANIC],
  [/\b(?:rue|avenue|av\.|boulevard|bd|place|chemin|allée|impasse|quai|route|cours|passage|voie|sentier|villa|cité|square|faubourg|promenade|esplanade|ruelle|résidence|calle|avenida|plaza|paseo|carrer|via|viale|piazza|corso|rua|travessa|largo)\s/i, ROMANCE],
  [/\b(?:Calle|Avenida|Plaza|Paseo|Carrer|Via|Viale|Piazza|Corso|Rua|Avenue)\s/, ROMANCE_NAME_FIRST],
  [/\b(?:P\.?\s?O\.?\s?Box|Post Office Box|Postfach|Apartado|Casella Postale|BP)\s+\d/i, PO_BOX]
]

export const addresses = (text: string, mode: PiiMode, out: Array<PiiSpan>): void => {
  if (mode === "fast") return
  for (const [gate, pattern] of GATES) {
    if (!gate.test(text)) continue
    pattern.lastIndex = 0
    for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
      const written = m[0].replace(/[\s,]+$/, "")
      out.push({ start: m.index, end: m.index + written.length, kind: "ADDRESS" })
    }
  }
}
