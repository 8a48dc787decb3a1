/**
 * The warnings of the two skips that come in floods: no background slot
 * left (`callbacks_full`) and the bytes-in-flight budget full
 * (`memory_budget`). A shadow that sleeps turns away nearly every request,
 * so such a skip should cost as little as a sampled-out one: the warning
 * is rate-limited, and its attributes are made only for a record that is
 * written, from the last request of its kind skipped (what the logger's
 * `flush` writes at shutdown), so that a suppressed skip makes no object
 * (what is left is the throttle's clock read and map lookup).
 */
import type { LogAttrs, RateLimitedLogger } from '../../log/index.ts'
import { splitTarget } from '../../net/request-target.ts'
import type { ByteBudget } from '../policy/byte-budget.ts'

/** The last request of one kind skipped, overwritten by the next. */
class LastSkipped {
  method = ''
  target = ''
  bytesInFlight = 0

  /** Log records name the path only: a query string may carry a token. */
  attrs(): LogAttrs {
    return { 'request.method': this.method, 'request.path': splitTarget(this.target).path }
  }
}

export class SkipWarnings {
  private readonly callbacksFullLast = new LastSkipped()
  private readonly budgetFullLast = new LastSkipped()
  private readonly callbacksFullAttrs = (): LogAttrs => ({
    ...this.callbacksFullLast.attrs(),
    max_concurrent_callbacks: this.maxConcurrentCallbacks,
  })
  private readonly budgetFullAttrs = (): LogAttrs => ({
    ...this.budgetFullLast.attrs(),
    max_bytes_in_flight: this.budget.limit,
    bytes_in_flight: this.budgetFullLast.bytesInFlight,
  })

  constructor(
    private readonly warnings: RateLimitedLogger,
    private readonly maxConcurrentCallbacks: number,
    private readonly budget: ByteBudget,
  ) {}

  callbacksFull(method: string, target: string): void {
    this.callbacksFullLast.method = method
    this.callbacksFullLast.target = target
    this.warnings.warn('comparison dropped: too many background comparisons', this.callbacksFullAttrs)
  }

  budgetFull(method: string, target: string): void {
    this.budgetFullLast.method = method
    this.budgetFullLast.target = target
    this.budgetFullLast.bytesInFlight = this.budget.used
    this.warnings.warn('comparison dropped: the bytes-in-flight budget is full', this.budgetFullAttrs)
  }
}
