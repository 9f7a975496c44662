/**
 * JSON parsing as data: request bodies and the multipart `options` part are client input, so a
 * syntax error is an answer (400), not an exception.
 */

export type JsonParse =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly message: string }

export const parseJsonText = (text: string): JsonParse => {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch (cause) {
    return { ok: false, message: cause instanceof Error ? cause.message : String(cause) }
  }
}
