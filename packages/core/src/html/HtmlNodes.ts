/** Small read helpers over hast elements shared by the HTML stages (property access, class lists, text). */
import type { Element, ElementContent, Root, RootContent } from "hast"

export type AnyNode = Root | RootContent

/** A property as a string (token lists joined with spaces), or undefined when absent. */
export const stringProp = (element: Element, name: string): string | undefined => {
  const value = element.properties[name]
  if (value === undefined || value === null || value === false) return undefined
  if (Array.isArray(value)) return value.join(" ")
  if (value === true) return ""
  return String(value)
}

/** The element's class tokens (never undefined). */
export const classList = (element: Element): ReadonlyArray<string> => {
  const value = element.properties.className
  return Array.isArray(value) ? (value as Array<string>) : []
}

/** The concatenated text of a subtree, as written in the source (no whitespace rules). */
export const textOf = (node: AnyNode | ElementContent): string => {
  if (node.type === "text") return node.value
  if (node.type !== "element" && node.type !== "root") return ""
  let out = ""
  for (const child of node.children) out += textOf(child)
  return out
}
