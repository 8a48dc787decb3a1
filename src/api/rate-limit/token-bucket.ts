export interface TokenBucketOptions {
  /** Tokens per minute, which is also the burst size (SVC_APP_RATE_LIMIT). */
  readonly perMinute: number
  /** @default Date.now */
  readonly now?: () => number
  /** Buckets kept before idle ones are swept, bounding memory under many clients. @default 10000 */
  readonly sweepAbove?: number
}

export type TakeResult = { allowed: true } | { allowed: false; retryAfterSeconds: number }

interface Bucket {
  tokens: number
  updatedAt: number
}

/**
 * One token bucket per key, refilled evenly over a minute (README "Decisions",
 * rate limiting). A bucket that has refilled to full is the same as no bucket,
 * so sweeping those loses nothing.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>()
  private readonly perMs: number
  private readonly now: () => number
  private readonly sweepAbove: number

  constructor(private readonly options: TokenBucketOptions) {
    this.perMs = options.perMinute / 60_000
    this.now = options.now ?? Date.now
    this.sweepAbove = options.sweepAbove ?? 10_000
  }

  take(key: string): TakeResult {
    const now = this.now()
    let bucket = this.buckets.get(key)
    if (!bucket) {
      if (this.buckets.size >= this.sweepAbove) this.sweep(now)
      bucket = { tokens: this.options.perMinute, updatedAt: now }
      this.buckets.set(key, bucket)
    } else {
      bucket.tokens = Math.min(this.options.perMinute, bucket.tokens + (now - bucket.updatedAt) * this.perMs)
      bucket.updatedAt = now
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1
      return { allowed: true }
    }
    const waitMs = (1 - bucket.tokens) / this.perMs
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) }
  }

  get size(): number {
    return this.buckets.size
  }

  private sweep(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + (now - bucket.updatedAt) * this.perMs >= this.options.perMinute) this.buckets.delete(key)
    }
  }
}
