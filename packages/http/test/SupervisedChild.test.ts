/** The server's reports to its supervisor: batched per turn, short requests never sent, nothing without a channel. */
import { describe, expect, it } from "vitest"
import { type ChildMessage, requestTracker } from "../src/SupervisedChild.ts"

const manualTurns = () => {
  const sent: Array<ChildMessage> = []
  let pending: Array<() => void> = []
  const tracker = requestTracker((message) => sent.push(message), (flush) => pending.push(flush))
  const endTurn = () => {
    const flushes = pending
    pending = []
    for (const flush of flushes) flush()
  }
  return { sent, tracker, endTurn }
}

describe("requestTracker", () => {
  it("sends starts and ends once per turn, and nothing for a request that ends in the turn it started", () => {
    const { sent, tracker, endTurn } = manualTurns()
    const quick = tracker({ requestId: "quick", method: "GET", path: "/health" })
    const slow = tracker({ requestId: "slow", method: "POST", path: "/v2/parse" })
    quick()
    endTurn()
    expect(sent).toEqual([{ strata: "requests", started: [{ seq: 2, requestId: "slow", method: "POST", path: "/v2/parse" }], done: [] }])
    slow()
    slow()
    endTurn()
    expect(sent[1]).toEqual({ strata: "requests", started: [], done: [2] })
    endTurn()
    expect(sent).toHaveLength(2)
  })

  it("does nothing without an IPC channel", () => {
    const done = requestTracker(undefined)({ requestId: "a", method: "GET", path: "/health" })
    expect(() => done()).not.toThrow()
  })
})
