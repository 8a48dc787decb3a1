/**
 * The bytes held by background comparisons, bounded
 * (SVC_APP_MAX_BYTES_IN_FLIGHT, the module's `max_bytes_in_flight`;
 * docs/proxy.md "Memory"). The callbacks bound alone limits how many
 * comparisons run, not what they hold: 200 of them with bodies of 10 MB
 * each side, and a report's encoded copy, would take gigabytes while the
 * API is slow. Each comparison reserves its bytes as they arrive (the
 * request body, live's copy, the shadow's body, the report's copy) and
 * gives them all back when it ends; a reservation the budget cannot take
 * ends the comparison, skipped as `memory_budget`, and live is untouched.
 * Pure bookkeeping: no I/O, no timers.
 */

/**
 * The default budget, in bytes: two comparisons at the default body bound
 * (three bodies of 10 MiB and their encoded copy in API mode) fit, and the
 * memory of the comparisons stays under it whatever the other settings.
 */
export const DEFAULT_MAX_BYTES_IN_FLIGHT = 256 * 1024 * 1024

/** The reason a comparison is abandoned with when its bytes do not fit the budget. */
export class MemoryBudgetReason extends Error {
  readonly code = 'memory-budget'
  constructor(readonly limit: number) {
    super(`the bytes-in-flight budget of ${limit} bytes is full`)
  }
}

export class ByteBudget {
  private _used = 0

  /** @param limit bytes that may be held at once; at least 1 */
  constructor(readonly limit: number) {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`limit must be an integer >= 1, got ${limit}`)
  }

  /** Bytes reserved now, all reservations together. */
  get used(): number {
    return this._used
  }

  /** A reservation of nothing yet, for one comparison. */
  open(): Reservation {
    return new Reservation(this)
  }

  /** @internal for `Reservation` */
  take(bytes: number): boolean {
    if (this._used + bytes > this.limit) return false
    this._used += bytes
    return true
  }

  /** @internal for `Reservation` */
  give(bytes: number): void {
    this._used = Math.max(0, this._used - bytes)
  }
}

/** The bytes one comparison holds. Once refused or released, it takes nothing more. */
export class Reservation {
  private _held = 0
  private ended = false

  constructor(private readonly budget: ByteBudget) {}

  /** Bytes held by this reservation. */
  get held(): number {
    return this._held
  }

  /** The budget's limit, for the reason a refusal gives. */
  get limit(): number {
    return this.budget.limit
  }

  /**
   * Takes `bytes` more; `false` (and nothing taken) when the budget cannot
   * hold them, and from then on. Bound: pass it around as a function.
   */
  readonly add = (bytes: number): boolean => {
    if (this.ended) return false
    if (bytes <= 0) return true
    if (!this.budget.take(bytes)) {
      this.ended = true
      return false
    }
    this._held += bytes
    return true
  }

  /** Gives back everything held; idempotent. */
  release(): void {
    this.ended = true
    this.budget.give(this._held)
    this._held = 0
  }
}

/**
 * What the API reporter holds of a capture while its report is pending,
 * beyond the bodies themselves: the JSON text with the bodies in base64
 * (4 characters per 3 bytes), and that text encoded as the request's
 * bytes, each the size of the base64.
 */
export function reportCopyBytes(bodyBytes: number): number {
  return 2 * 4 * Math.ceil(bodyBytes / 3)
}
