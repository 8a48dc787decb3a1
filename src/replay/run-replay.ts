import { ApiClient } from '../cli/api-client.ts'
import { withoutPassword } from '../net/base-url.ts'
import { errorLine, processIo, type CommandIo } from '../cli/command-io.ts'
import { fetchVerdict } from '../cli/fetch-verdict.ts'
import { junitReport } from '../cli/junit-report.ts'
import { ndjsonLines } from '../cli/ndjson-lines.ts'
import { verdictTable } from '../cli/verdict-table.ts'
import { writeReport } from '../cli/write-report.ts'
import type { Environment } from '../config/environment.ts'
import { loadReplayCliConfig, type ReplayCliConfig } from '../config/replay-cli-config.ts'
import { ERROR_EXIT_CODE, EXIT_CODES } from '../verdict/index.ts'
import { Pacer } from './pacer.ts'
import { startProgress } from './progress-reporter.ts'
import { replayCaptures } from './replay-captures.ts'
import { ensureReplayGate, type GateResource } from './replay-gate.ts'
import { ReplayTally } from './replay-tally.ts'

export const REPLAY_USAGE = `usage: bun run replay -- --gate <id> --target <candidate base URL>
  [--from <RFC 3339> --to <RFC 3339> | --window <duration>] [--limit <n>]
  [--rate <req/s>] [--concurrency <n>] [--timeout <duration>]
  [--method GET,HEAD,...] [--header 'Name: value' ...] [--allow-redacted]
  [--max-diff-rate <0-1>] [--max-error-rate <0-1>] [--max-latency-ratio <n>] [--min-requests <n>]
  [--ignore-noise | --no-ignore-noise]
  [--junit <file>] [--progress-interval <duration>] [--api-url <url>] [--api-key <key>]

Sends the gate's stored requests (every one stored up to now unless
--from/--to or --window narrow it) to the candidate, stores each answer
against the stored live response on the replay gate
"replay: <gate name> -> <target>", prints the account of every capture and
the replay gate's verdict, and exits with the verdict's code: 0 pass,
1 fail, 2 inconclusive or any error. Only GET, HEAD and OPTIONS are sent
unless --method says otherwise. See docs/ci.md.
`

/**
 * The largest candidate body read: the API's default SVC_APP_MAX_BODY_SIZE.
 * A larger one is stored as a candidate failure, `response too large`.
 */
const MAX_CANDIDATE_BODY_BYTES = 10 * 1024 * 1024

/** `bun run replay` (docs/ci.md "Replay"): its exit code is the replay gate's verdict's. */
export async function runReplay(env: Environment, argv: readonly string[]): Promise<void> {
  process.exitCode = await replayCommand(env, argv, processIo)
}

export async function replayCommand(env: Environment, argv: readonly string[], io: CommandIo): Promise<number> {
  try {
    const config = loadReplayCliConfig(env, argv, io.now())
    if (config === 'help') {
      io.out(REPLAY_USAGE)
      return 0
    }
    return await replay(config, io)
  } catch (error) {
    io.err(errorLine('replay', error))
    return ERROR_EXIT_CODE
  }
}

async function replay(config: ReplayCliConfig, io: CommandIo): Promise<number> {
  const client = new ApiClient(config.api)
  const source = await client.json<GateResource>('GET', `/gates/${config.gateId}`)
  const gate = await ensureReplayGate(client, source, config.target)
  io.out(`replay: gate ${source.id} (${source.name}) -> ${withoutPassword(config.target)}, results on gate ${gate.id} (${gate.name})\n`)

  await awaitFreshMinute(gate, io)

  // Captures that arrive while the replay runs are not part of it.
  const window = { from: config.window.from, to: config.window.to ?? io.now() }
  const filter = new URLSearchParams({ ...(window.from ? { from: window.from.toISOString() } : {}), to: window.to.toISOString() })
  const total = await countCaptures(client, config.gateId, filter)
  const planned = config.limit === undefined ? total : Math.min(total, config.limit)

  const tally = new ReplayTally()
  const started = io.now()
  const startedMs = performance.now()
  const progress = startProgress(io, config.progressIntervalMs, () => ({
    done: tally.done,
    total: planned,
    diffs: tally.diffs,
    elapsedMs: performance.now() - startedMs,
  }))
  try {
    const exportQuery = new URLSearchParams(filter)
    exportQuery.set('order', 'asc')
    if (config.limit !== undefined) exportQuery.set('limit', String(config.limit))
    const stream = await client.open(`/gates/${config.gateId}/requests/export?${exportQuery}`)
    if (!stream.body) throw new Error('the export answered without a body')
    await replayCaptures(ndjsonLines(stream.body), {
      client,
      gateId: gate.id,
      policy: { methods: config.methods, headers: config.headers, allowRedacted: config.allowRedacted },
      candidate: { baseUrl: config.target, timeoutMs: config.timeoutMs, maxBodyBytes: MAX_CANDIDATE_BODY_BYTES, now: io.now },
      pacer: new Pacer(config.rate),
      concurrency: config.concurrency,
      tally,
    })
  } catch (error) {
    progress.stop()
    io.out(tally.summary())
    throw new Error(`the export of gate ${config.gateId} broke off after ${tally.done} captures: ${(error as Error).message}`)
  }
  progress.stop()
  io.out(tally.summary())

  const report = await fetchVerdict(client, gate.id, { from: started, to: io.now() }, config.thresholds, config.ignoreNoise)
  const label = `${gate.id} (${gate.name})`
  io.out(verdictTable(report, label))
  if (config.junitFile !== undefined) await writeReport(config.junitFile, junitReport(report, label, io.now()))
  // Captures the replay could not store are missing from the verdict: it cannot pass.
  if (tally.failedTotal > 0 && report.verdict === 'pass') {
    io.err(`replay: ${tally.failedTotal} captures could not be replayed and stored; the verdict would be incomplete\n`)
    return ERROR_EXIT_CODE
  }
  return EXIT_CODES[report.verdict]
}

/**
 * A verdict counts whole minutes (docs/ci.md "Checks"): when the replay
 * gate's last capture, from an earlier run, is in the current minute, this
 * run waits for the next one, so that its verdict counts none of them.
 */
async function awaitFreshMinute(gate: GateResource, io: CommandIo): Promise<void> {
  const last = Date.parse(String((gate.stats as { last_active?: unknown } | undefined)?.last_active ?? ''))
  const now = io.now().getTime()
  const minute = now - (now % 60_000)
  if (!(last >= minute)) return
  const wait = minute + 60_000 - now
  io.out(`replay: the replay gate has captures of this minute from an earlier run; waiting ${Math.ceil(wait / 1000)} s for the next one, so that this run's verdict counts none of them\n`)
  await Bun.sleep(wait)
}

/** The captures of the gate in the window, from listRequests' total. */
async function countCaptures(client: ApiClient, gateId: string, filter: URLSearchParams): Promise<number> {
  const query = new URLSearchParams(filter)
  query.set('limit', '1')
  const response = await client.open(`/gates/${gateId}/requests?${query}`)
  const page = (await response.json()) as { pagination?: { total?: number } }
  return page.pagination?.total ?? 0
}
