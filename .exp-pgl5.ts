import { openDatabase } from './src/store/database.ts'
const db = await openDatabase('pglite://memory', { max: 4, min: 0, idleTimeoutMs: 0, maxLifetimeMs: 3600_000 })
const sql = db.sql
await sql`create table t (id int primary key, v text)`
async function worker(w: number, simpleTx: boolean) {
  const conn = await sql.reserve()
  try {
    for (let i = 0; i < 30; i++) {
      if (simpleTx) await conn.unsafe('BEGIN'); else await conn`BEGIN`
      const r = await conn`select ${w * 1000 + i}::int as x`
      if (r[0]!.x !== w * 1000 + i) throw new Error(`wrong result ${r[0]!.x} for ${w * 1000 + i}`)
      await conn`insert into t values (${w * 1000 + i}, ${'w' + w})`
      if (i % 3 === 0) { if (simpleTx) await conn.unsafe('ROLLBACK'); else await conn`ROLLBACK` }
      else { if (simpleTx) await conn.unsafe('COMMIT'); else await conn`COMMIT` }
    }
  } finally { conn.release() }
}
for (const simpleTx of [false, true]) {
  await sql`delete from t`
  const res = await Promise.allSettled([1, 2, 3, 4].map((w) => worker(w, simpleTx)))
  console.log('simpleTx', simpleTx, res.map((r) => r.status === 'fulfilled' ? 'ok' : (r as any).reason.message))
  console.log((await sql`select count(*)::int n from t`)[0])
}
// plain extended queries from many connections with distinct results
let bad = 0
await Promise.all(Array.from({ length: 2000 }, async (_, i) => {
  const r = await sql`select ${i}::int as i, ${'s' + i}::text as s`
  if (r[0]!.i !== i || r[0]!.s !== 's' + i) bad++
}))
console.log('bad plain', bad)
await db.close()
