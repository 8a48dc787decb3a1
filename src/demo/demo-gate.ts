import type { DiffConfig } from '../diff/index.ts'
import type { GateStore } from '../store/gate-store.ts'
import type { Gate } from '../store/rows.ts'

/**
 * The demo's gate: the sample services' noise (a timestamp and a request id
 * in every body) is ignored, prices within a cent and a half are equal, and
 * everything else, the renamed field, the reordered arrays, the 500s, shows.
 */
export const DEMO_GATE = {
  name: 'catalog (demo)',
  diff_config: {
    ignored_fields: ['body.generated_at', 'body.request_id'],
    included_fields: [],
    float_tolerance: 0.015,
    sort_arrays: false,
  } satisfies DiffConfig,
  redacted_fields: ['body.customer.email'],
} as const

/** Finds the demo gate from an earlier run, or creates it. */
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
