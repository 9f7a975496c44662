/**
 * The audit sinks (Audit.ts): which settings name a sink, stdout events as one line each, file
 * events appended in order, and sinks that cannot be written logged, never thrown.
 */
import { Effect } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { type AuditEvent, makeAuditWriter, parseAuditSink } from "../src/Audit.ts"
import { tempDir } from "./support.ts"

const event = (n: number): AuditEvent => ({
  type: "request",
  time: new Date(0).toISOString(),
  requestId: `r${n}`,
  team: "acme",
  keyId: "key_1",
  endpoint: "/v2/scrape",
  status: 200,
  success: true,
  creditsUsed: 1,
  durationMs: n
})

describe("parseAuditSink", () => {
  it("knows stdout, .jsonl files, https webhooks and http only on loopback", () => {
    expect(parseAuditSink("stdout")).toEqual({ _tag: "Stdout" })
    expect(parseAuditSink("logs/audit.jsonl")).toEqual({ _tag: "File", path: resolve("logs/audit.jsonl") })
    expect(parseAuditSink("https://siem.example.com/hook?t=1")).toEqual({ _tag: "Webhook", url: "https://siem.example.com/hook?t=1" })
    expect(parseAuditSink("http://127.0.0.1:9000/hook")).toEqual({ _tag: "Webhook", url: "http://127.0.0.1:9000/hook" })
    expect(parseAuditSink("http://siem.example.com/hook")).toBeUndefined()
    expect(parseAuditSink("audit.txt")).toBeUndefined()
    expect(parseAuditSink("https://")).toBeUndefined()
  })
})

describe("makeAuditWriter", () => {
  it("writes one JSON line per event to stdout and appends to a file in order", async () => {
    const stdout: Array<string> = []
    const logs: Array<string> = []
    const writer = makeAuditWriter({ writeStdout: (line) => stdout.push(line), log: (line) => logs.push(line) })
    Effect.runSync(writer.emit("stdout", event(1)))
    expect(stdout).toEqual([JSON.stringify(event(1)) + "\n"])
    const file = join(tempDir("strata-audit-unit-"), "nested", "audit.jsonl")
    for (let n = 0; n < 50; n++) writer.send(file, event(n))
    for (let n = 0; n < 100; n++) {
      await new Promise((done) => setTimeout(done, 20))
      try {
        if (readFileSync(file, "utf8").split("\n").length > 50) break
      } catch {
        // not written yet
      }
    }
    const lines = readFileSync(file, "utf8").trim().split("\n").map((line) => JSON.parse(line) as AuditEvent)
    expect(lines.map((line) => line.durationMs)).toEqual(Array.from({ length: 50 }, (_, n) => n))
    expect(logs).toEqual([])
  })

  it("logs, never throws, when a sink cannot be written or is not a sink", async () => {
    const logs: Array<string> = []
    const writer = makeAuditWriter({ writeStdout: () => {}, log: (line) => logs.push(line) })
    // A file where a folder must be: the append fails.
    const blocker = join(tempDir("strata-audit-unit-"), "file")
    writeFileSync(blocker, "")
    writer.send(join(blocker, "audit.jsonl"), event(1))
    writer.send("ftp://example.com/audit", event(2))
    for (let n = 0; n < 100 && logs.length < 2; n++) await new Promise((done) => setTimeout(done, 20))
    expect(logs).toHaveLength(2)
    expect(logs.map((line) => JSON.parse(line).msg)).toEqual(["audit event dropped", "audit event dropped"])
  })
})
