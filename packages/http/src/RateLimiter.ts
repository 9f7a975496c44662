/**
 * A per-key token bucket: each key may burst up to `perMinute` requests and then earns tokens
 * back continuously at `perMinute / 60` per second. A limit of 0 disables it. State lives in
 * memory; buckets that have refilled completely are forgotten so idle keys cost nothing.
 */

export interface RateDecision {
  readonly allowed: boolean
  /** Seconds until one more request would be allowed (only when refused). */
  readonly retryAfterSeconds: number
}

export interface RateLimiter {
  readonly take: (key: string) => RateDecision
}

interface Bucket {
  tokens: number
  updatedAt: number
}

export const makeRateLimiter = (perMinute: number, now: () => number = Date.now): RateLimiter => {
  if (perMinute <= 0) return { take: () => ({ allowed: true, retryAfterSeconds: 0 }) }
  const capacity = perMinute
  const perMs = perMinute / 60_000
  const buckets = new Map<string, Bucket>()
  let lastSweep = now()

  const sweep = (at: number) => {
    // Any bucket untouched for a full minute is full again, which is the same as absent.
    if (at - lastSweep < 60_000) return
    lastSweep = at
    for (const [key, bucket] of buckets) if (at - bucket.updatedAt >= 60_000) buckets.delete(key)
  }

  return {
    take: (key) => {
      const at = now()
      sweep(at)
      const bucket = buckets.get(key) ?? { tokens: capacity, updatedAt: at }
      bucket.tokens = Math.min(capacity, bucket.tokens + (at - bucket.updatedAt) * perMs)
      bucket.updatedAt = at
      buckets.set(key, bucket)
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1
        return { allowed: true, retryAfterSeconds: 0 }
      }
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000)) }
    }
  }
}
