import { loadVerdictCliConfig } from '../config/verdict-cli-config.ts'
import type { Environment } from '../config/environment.ts'
import { ERROR_EXIT_CODE, EXIT_CODES } from '../verdict/index.ts'
import { ApiClient } from './api-client.ts'
import { errorLine, processIo, type CommandIo } from './command-io.ts'
import { fetchVerdict } from './fetch-verdict.ts'
import { junitReport } from './junit-report.ts'
import { verdictTable } from './verdict-table.ts'
import { writeReport } from './write-report.ts'

export const VERDICT_USAGE = `usage: bun run verdict -- --gate <id> [--from <RFC 3339> --to <RFC 3339> | --window <duration>]
  [--max-diff-rate <0-1>] [--max-error-rate <0-1>] [--max-latency-ratio <n>] [--min-requests <n>]
  [--ignore-noise | --no-ignore-noise] [--junit <file>] [--api-url <url>] [--api-key <key>]

Asks the API for the gate's verdict over the window (default: the last hour),
prints its checks and exits 0 on pass, 1 on fail, 2 when inconclusive or on
any error. Thresholds not given come from the gate's verdict settings, then
the built-in defaults. Differences only in fields classified noise are
not counted unless --no-ignore-noise is given. The API is SVC_APP_API_URL / SVC_APP_API_KEY unless
--api-url / --api-key say otherwise. See docs/ci.md.
`

/** `bun run verdict` (docs/ci.md): its exit code is the verdict's. */
export async function runVerdict(env: Environment, argv: readonly string[]): Promise<void> {
  process.exitCode = await verdictCommand(env, argv, processIo)
}

export async function verdictCommand(env: Environment, argv: readonly string[], io: CommandIo): Promise<number> {
  try {
    const config = loadVerdictCliConfig(env, argv, io.now())
    if (config === 'help') {
      io.out(VERDICT_USAGE)
      return 0
    }
    const client = new ApiClient(config.api)
    const report = await fetchVerdict(client, config.gateId, config.window, config.thresholds, config.ignoreNoise)
    io.out(verdictTable(report, config.gateId))
    if (config.junitFile !== undefined) await writeReport(config.junitFile, junitReport(report, config.gateId, io.now()))
    return EXIT_CODES[report.verdict]
  } catch (error) {
    io.err(errorLine('verdict', error))
    return ERROR_EXIT_CODE
  }
}
