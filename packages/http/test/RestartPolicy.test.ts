/** The supervisor's restart rule without processes: backoff, its reset, and when it gives up. */
import { describe, expect, it } from "vitest"
import { type CrashHistory, decideRestart, defaultRestartPolicy, noCrashes, type ServerEnd } from "../src/RestartPolicy.ts"
import { supervisionFrom } from "../src/Supervisor.ts"

const crash = (uptimeMs: number): ServerEnd => ({ uptimeMs, listened: true, firstStart: false })

/** Feeds a run of crashes through the policy; returns each decision. */
const run = (uptimes: ReadonlyArray<number>, history: CrashHistory = noCrashes) =>
  uptimes.map((uptimeMs) => {
    const decision = decideRestart(defaultRestartPolicy, history, crash(uptimeMs))
    history = decision.history
    return decision
  })

describe("decideRestart", () => {
  it("doubles the wait from 0.5 s to at most 30 s while the server keeps crashing", () => {
    const delays = run(Array.from({ length: 9 }, () => 20_000)).map((d) => d._tag === "Restart" ? d.delayMs : d._tag)
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000])
  })

  it("starts over after a server that stayed up 60 s", () => {
    const decisions = run([20_000, 20_000, 20_000, 60_000, 20_000])
    expect(decisions.map((d) => d._tag === "Restart" && d.delayMs)).toEqual([500, 1000, 2000, 500, 1000])
  })

  it("gives up after 10 crashes in a row within 10 s of their start, and only then", () => {
    const decisions = run(Array.from({ length: 10 }, () => 3_000))
    expect(decisions.slice(0, 9).every((d) => d._tag === "Restart")).toBe(true)
    const last = decisions[9]
    expect(last._tag).toBe("GiveUp")
    expect(last._tag === "GiveUp" && last.reason).toMatch(/crashed 10 times in a row, each within 10 s/)
    // One longer run in between breaks the streak.
    const broken = run([...Array.from({ length: 9 }, () => 3_000), 15_000, 3_000])
    expect(broken.every((d) => d._tag === "Restart")).toBe(true)
  })

  it("always restarts a server that crashes after running a while (a document that kills it)", () => {
    expect(run(Array.from({ length: 50 }, () => 45_000)).every((d) => d._tag === "Restart")).toBe(true)
  })

  it("gives up at once when the first start fails before listening, not a later one", () => {
    expect(decideRestart(defaultRestartPolicy, noCrashes, { uptimeMs: 1500, listened: false, firstStart: true })._tag)
      .toBe("GiveUp")
    expect(decideRestart(defaultRestartPolicy, noCrashes, { uptimeMs: 1500, listened: false, firstStart: false })._tag)
      .toBe("Restart")
  })
})

describe("supervisionFrom", () => {
  it("supervises by default; STRATA_SUPERVISE=0 or --no-supervise serve directly; the marker makes the child", () => {
    expect(supervisionFrom({}, [])).toBe("supervise")
    expect(supervisionFrom({ STRATA_SUPERVISE: "1" }, [])).toBe("supervise")
    for (const off of ["0", "false", "No", "off"]) expect(supervisionFrom({ STRATA_SUPERVISE: off }, [])).toBe("direct")
    expect(supervisionFrom({}, ["--no-supervise"])).toBe("direct")
    expect(supervisionFrom({ STRATA_SUPERVISED_CHILD: "1" }, [])).toBe("child")
    expect(() => supervisionFrom({ STRATA_SUPERVISE: "maybe" }, [])).toThrow(/STRATA_SUPERVISE/)
    expect(() => supervisionFrom({}, ["--bogus"])).toThrow()
  })
})
