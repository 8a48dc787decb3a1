import type postgres from 'postgres'
import { signatureSummary } from '../insights/index.ts'
import { catalogSignatureColumns, type CatalogSignatureRow } from './insights-store.ts'

/**
 * The one-line summaries (docs/insights.md "Summaries") of a gate's
 * signatures among `ids`, from its catalog; an id the catalog does not
 * hold is left out.
 */
export async function signatureSummaries(sql: postgres.Sql | postgres.ReservedSql, gateId: string, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map()
  const rows = await sql<CatalogSignatureRow[]>`
    SELECT ${catalogSignatureColumns(sql, 's')}
    FROM insight_signatures s WHERE s.gate_id = ${gateId} AND s.id = ANY(${[...ids]}::text[])`
  return new Map(
    rows.map((row) => [
      row.id,
      signatureSummary({
        kind: row.kind,
        method: row.method,
        template: row.template,
        overflow: row.overflow,
        ops: row.ops,
        truncated: row.truncated,
        liveError: row.live_error,
        shadowError: row.shadow_error,
      }),
    ]),
  )
}
