/**
 * HTML escaping, in one place: text content (`&`, `<`, `>`) and double-quoted attribute
 * values (`&`, `"`). Used by the HTML serialiser of the web path, the HTML tables the table
 * writer falls back to, and the `<pre>` wrapper of plain-text pages.
 */

const TEXT_SPECIAL = /[&<>]/
const ATTRIBUTE_SPECIAL = /[&"]/

/** Text as HTML character data. Most text has nothing to escape: it is returned as is, without copying. */
export const escapeHtml = (text: string): string =>
  TEXT_SPECIAL.test(text) ? text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;") : text

/** A value for a double-quoted attribute (`name="..."`). */
export const escapeHtmlAttribute = (value: string): string =>
  ATTRIBUTE_SPECIAL.test(value) ? value.replace(/&/g, "&amp;").replace(/"/g, "&quot;") : value
