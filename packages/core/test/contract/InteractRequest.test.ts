/** The interact body decoder, and its place in the OpenAPI document. */
import { Effect, Exit } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { decodeInteractRequest, InteractRequestBody, openApiDocument } from "../../src/contract/index.ts"

const decode = (body: unknown) => Effect.runSyncExit(decodeInteractRequest(body))

const refusal = (body: unknown) => {
  const exit = decode(body)
  if (Exit.isSuccess(exit)) throw new Error(`accepted ${JSON.stringify(body)}`)
  const reason = exit.cause.reasons[0]
  if (reason?._tag !== "Fail") throw new Error("not a failure")
  return reason.error.reason
}

describe("decodeInteractRequest", () => {
  it("defaults language to node and timeout to 30 s, and lets code win over prompt", () => {
    expect(decode({ code: "return 1" })).toMatchObject({ value: { kind: "code", code: "return 1", timeoutMs: 30_000 } })
    expect(decode({ code: "return 1", prompt: "click", timeout: 300, language: "node", origin: "js-sdk", integration: "x" })).toMatchObject({ value: { kind: "code", timeoutMs: 300_000 } })
    expect(decode({ prompt: "click the button", timeout: 5 })).toMatchObject({ value: { kind: "prompt", prompt: "click the button", timeoutMs: 5_000 } })
  })

  it("refuses bodies outside the rules, naming the key", () => {
    const cases: Array<[unknown, string]> = [
      [{}, "code"],
      [null, "Expected a JSON object"],
      ["return 1", "Expected a JSON object"],
      [{ code: "return 1", existingSessionId: "s" }, "existingSessionId"],
      [{ code: "" }, "code"],
      [{ code: "x".repeat(100_001) }, "code"],
      [{ prompt: "" }, "prompt"],
      [{ prompt: "y".repeat(10_001) }, "prompt"],
      [{ code: "return 1", timeout: 0 }, "timeout"],
      [{ code: "return 1", timeout: 301 }, "timeout"],
      [{ code: "return 1", timeout: "30" }, "timeout"],
      [{ code: "return 1", language: "ruby" }, "language"],
      [{ code: "return 1", origin: 7 }, "origin"]
    ]
    for (const [body, key] of cases) {
      const reason = refusal(body)
      expect(reason._tag, JSON.stringify(body).slice(0, 60)).toBe("InvalidRequest")
      expect(reason.message).toContain(key)
    }
    expect(decode({ code: "x".repeat(100_000) })._tag).toBe("Success")
  })

  it("refuses python and bash code by name: code runs as JavaScript in the page", () => {
    for (const language of ["python", "bash"]) {
      const reason = refusal({ code: "print(1)", language })
      expect(reason._tag).toBe("NotSupported")
      expect(reason.message).toContain(`language: ${language}`)
    }
    // A prompt does not run code, so its language does not matter.
    expect(decode({ prompt: "click", language: "python" })._tag).toBe("Success")
  })

  it("never throws: any JSON value is decoded or refused", () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => {
      const exit = decode(value)
      if (Exit.isFailure(exit)) expect(exit.cause.reasons[0]?._tag).toBe("Fail")
    }))
  })
})

describe("the interact path in the OpenAPI document", () => {
  it("describes POST and DELETE with the decoder's own body", () => {
    const doc = openApiDocument() as Record<string, any>
    const path = doc.paths["/v2/scrape/{scrapeId}/interact"]
    expect(path.parameters[0]).toMatchObject({ name: "scrapeId", in: "path", required: true })
    expect(path.post.requestBody.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/InteractRequest" })
    expect(Object.keys(doc.components.schemas.InteractRequest.properties).sort()).toEqual(Object.keys(InteractRequestBody.fields).sort())
    expect(Object.keys(path.post.responses).sort()).toEqual(["200", "400", "404", "409", "429", "500", "501"])
    expect(Object.keys(path.delete.responses).sort()).toEqual(["200", "404", "500", "501"])
  })
})
