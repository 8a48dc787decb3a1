import type { GateStore } from '../store/gate-store.ts'
import type { GateSettings } from '../store/rows.ts'

export interface GateSettingsCacheOptions {
  /** How long a gate's settings are reused. @default 1000 */
  readonly ttlMs?: number
  /** Entries kept; the oldest goes first. @default 10000 */
  readonly maxEntries?: number
  readonly now?: () => number
}

/**
 * The settings createRequest needs (diff_config, redacted_fields) for each
 * capture, kept for a second: a proxy reports many captures of one gate, and
 * the lookup was one of the two statements per capture. This replica drops
 * an entry as soon as it updates or deletes the gate; another replica's
 * change is seen within the TTL (README "Decisions").
 */
export class GateSettingsCache {
  private readonly entries = new Map<string, { settings: GateSettings | undefined; at: number }>()
  private readonly ttlMs: number
  private readonly maxEntries: number
  private readonly now: () => number

  constructor(
    private readonly gates: Pick<GateStore, 'settings'>,
    options: GateSettingsCacheOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 1000
    this.maxEntries = options.maxEntries ?? 10_000
    this.now = options.now ?? Date.now
  }

  async get(gateId: string): Promise<GateSettings | undefined> {
    const hit = this.entries.get(gateId)
    const now = this.now()
    if (hit && now - hit.at < this.ttlMs) return hit.settings
    const settings = await this.gates.settings(gateId)
    // An unknown gate is not cached: it may be created the next moment.
    if (settings) {
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!)
      this.entries.set(gateId, { settings, at: now })
    } else {
      this.entries.delete(gateId)
    }
    return settings
  }

  invalidate(gateId: string): void {
    this.entries.delete(gateId)
  }
}
