import type postgres from 'postgres'
import {
  MAX_SIGNATURES_PER_GATE,
  MAX_TEMPLATES_PER_GATE,
  OTHER_TEMPLATE,
  signatureWithinCap,
  templateWithinCap,
  type Signature,
} from '../insights/index.ts'
import { storableJson } from './rows.ts'

/**
 * What the catalog reports when a gate reaches a cap (docs/insights.md "At
 * most 2,000 templates per gate", "At most 10,000 signatures per gate").
 */
export interface CapReached {
  readonly gateId: string
  readonly what: 'template' | 'signature'
}

export interface InsightCatalogOptions {
  /** Template and signature decisions remembered by this process. @default 50000 */
  readonly maxEntries?: number
  /** @default MAX_TEMPLATES_PER_GATE */
  readonly maxTemplates?: number
  /** @default MAX_SIGNATURES_PER_GATE */
  readonly maxSignatures?: number
  /** Called the first time this process counts something of a gate under `(other)`. */
  readonly onCapReached?: (event: CapReached) => void
}

/**
 * The templates and signatures each gate counts captures under, within its
 * caps (insight_templates, insight_signatures). A new one is admitted in a
 * transaction that holds the gate's row (FOR NO KEY UPDATE: ingest's key
 * share locks pass, other admissions wait), so replicas together never
 * admit more than the cap. Admissions are never undone (until the gate is
 * deleted), so what this process remembers stays true: after the first
 * capture, a known template or signature costs a map lookup.
 */
export interface InsightCatalog {
  /** `template` if the gate has or admits it, else `(other)`. */
  template(gateId: string, template: string): Promise<string>
  /** `signature` if the gate has or admits it, else its endpoint's overflow signature (whose definition is stored too). */
  signature(gateId: string, signature: Signature): Promise<Signature>
}

export function createInsightCatalog(sql: postgres.Sql, options: InsightCatalogOptions = {}): InsightCatalog {
  const maxEntries = options.maxEntries ?? 50_000
  const maxTemplates = options.maxTemplates ?? MAX_TEMPLATES_PER_GATE
  const maxSignatures = options.maxSignatures ?? MAX_SIGNATURES_PER_GATE
  const templates = new Map<string, string>()
  const signatures = new Map<string, Signature>()
  const reported = new Set<string>()
  // Admissions under way, so that a burst of captures with one new template or signature costs one transaction.
  const admitting = new Map<string, Promise<unknown>>()

  function once<T>(key: string, admit: () => Promise<T>): Promise<T> {
    let pending = admitting.get(key) as Promise<T> | undefined
    if (pending === undefined) {
      pending = admit().finally(() => admitting.delete(key))
      admitting.set(key, pending)
    }
    return pending
  }

  function remember<T>(map: Map<string, T>, key: string, value: T): T {
    if (map.size >= maxEntries) map.delete(map.keys().next().value!)
    map.set(key, value)
    return value
  }

  function capReached(gateId: string, what: CapReached['what']): void {
    const key = `${what} ${gateId}`
    if (reported.has(key)) return
    if (reported.size >= maxEntries) reported.clear()
    reported.add(key)
    options.onCapReached?.({ gateId, what })
  }

  async function admitTemplate(gateId: string, template: string): Promise<string | undefined> {
    return sql.begin(async (tx) => {
      const gate = await tx`SELECT 1 FROM gates WHERE id = ${gateId} FOR NO KEY UPDATE`
      if (gate.length === 0) return undefined
      const [row] = await tx<{ known: boolean; n: string }[]>`
        SELECT EXISTS (SELECT 1 FROM insight_templates
                       WHERE gate_id = ${gateId} AND md5(template) = md5(${template}::text) AND template = ${template}) AS known,
               (SELECT count(*) FROM insight_templates WHERE gate_id = ${gateId}) AS n`
      const known = row!.known
      const resolved = templateWithinCap(template, { has: () => known, size: Number(row!.n) }, maxTemplates)
      if (resolved === template && !known) {
        await tx`INSERT INTO insight_templates (gate_id, template) VALUES (${gateId}, ${template}) ON CONFLICT DO NOTHING`
      }
      return resolved
    })
  }

  async function admitSignature(gateId: string, signature: Signature): Promise<Signature | undefined> {
    return sql.begin(async (tx) => {
      const gate = await tx`SELECT 1 FROM gates WHERE id = ${gateId} FOR NO KEY UPDATE`
      if (gate.length === 0) return undefined
      const [row] = await tx<{ known: boolean; n: string }[]>`
        SELECT EXISTS (SELECT 1 FROM insight_signatures WHERE gate_id = ${gateId} AND id = ${signature.id}) AS known,
               (SELECT count(*) FROM insight_signatures WHERE gate_id = ${gateId} AND NOT overflow) AS n`
      const known = row!.known
      const resolved = signatureWithinCap(signature, { has: () => known, size: Number(row!.n) }, maxSignatures)
      if (!(known && resolved === signature)) await storeDefinition(tx, gateId, resolved)
      return resolved
    })
  }

  return {
    async template(gateId, template) {
      if (template === OTHER_TEMPLATE) return template
      const key = `${gateId} ${template}`
      const hit = templates.get(key)
      if (hit !== undefined) return hit
      return once(`t ${key}`, async () => {
        const resolved = await admitTemplate(gateId, template)
        if (resolved === undefined) return template
        if (resolved !== template) capReached(gateId, 'template')
        return remember(templates, key, resolved)
      })
    },

    async signature(gateId, signature) {
      const key = `${gateId} ${signature.id}`
      const hit = signatures.get(key)
      if (hit !== undefined) return hit
      return once(`s ${key}`, async () => {
        const resolved = await admitSignature(gateId, signature)
        if (resolved === undefined) return signature
        if (resolved !== signature) capReached(gateId, 'signature')
        return remember(signatures, key, resolved)
      })
    },
  }
}

async function storeDefinition(tx: postgres.TransactionSql, gateId: string, signature: Signature): Promise<void> {
  const diff = signature.kind === 'diff'
  // Paths come from bodies: jsonb cannot hold a NUL or a lone surrogate (storableJson), the id is computed before.
  const ops = diff ? signature.ops.map(({ op, path }) => ({ op, path })) : []
  await tx`
    INSERT INTO insight_signatures (gate_id, id, kind, method, template, overflow, ops, truncated, live_error, shadow_error)
    VALUES (${gateId}, ${signature.id}, ${signature.kind}, ${signature.method}, ${signature.template}, ${signature.overflow},
      ${tx.json(storableJson(ops))}, ${diff ? signature.truncated : false},
      ${diff ? null : signature.liveError}, ${diff ? null : signature.shadowError})
    ON CONFLICT (gate_id, id) DO NOTHING`
}
