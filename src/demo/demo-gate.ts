import type { DiffConfig } from '../diff/index.ts'
import type { GateStore } from '../store/gate-store.ts'
import type { Gate } from '../store/rows.ts'

/**
 * The demo's gate: prices within a cent and a half are equal, and everything
 * else shows: the renamed field, the reordered arrays, the 500s, and the sample
 * services' noise (a timestamp and a request id in every body). The noise is
 * left for the newcomer to find: the demo's proxy runs noise checks, the hub
 * suggests ignoring `body.generated_at` and `body.request_id`, and two clicks
 * (Ignore all, Save) quiet them (README "What the demo shows").
 */
export const DEMO_GATE = {
  name: 'catalog (demo)',
  diff_config: {
    ignored_fields: [],
    included_fields: [],
    float_tolerance: 0.015,
    sort_arrays: false,
  } satisfies DiffConfig,
  redacted_fields: ['body.customer.email'],
} as const

/**
 * Finds the demo gate from an earlier run, or creates it. A gate found is
 * left as it is: its settings are the user's (an older demo's gate, made
 * when the noise was ignored from the start, keeps ignoring it; `bun run
 * demo -- --reset` starts over).
 */
export async function ensureDemoGate(gates: GateStore, liveUrl: string, shadowUrl: string): Promise<Gate> {
  const found = await gates.list({ limit: 100, offset: 0, name: DEMO_GATE.name, sort: 'created_at', order: 'asc' })
  const existing = found.items.find((gate) => gate.name === DEMO_GATE.name)
  if (existing) return existing
  const gate = await gates.create({ name: DEMO_GATE.name, live_url: liveUrl, shadow_url: shadowUrl })
  return (
    (await gates.update(gate.id, {
      diff_config: { ...DEMO_GATE.diff_config, ignored_fields: [...DEMO_GATE.diff_config.ignored_fields] },
      redacted_fields: [...DEMO_GATE.redacted_fields],
    })) ?? gate
  )
}
