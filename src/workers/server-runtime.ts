/**
 * JavaScriptCore settings for a long-running server process. The runtime
 * reads them from the environment when a process starts, so they cannot be
 * set from inside it: the primary gives them to every worker it starts, and
 * the container images set them for every process (docs/proxy.md
 * "Workers").
 *
 * `optimizedCodeAgingQuietAllocationMB=0` keeps the JIT's optimised code of
 * the request path for the life of the process. By default an idle
 * collection drops it once the process has allocated next to nothing for
 * 30 s, so the first requests after a quiet spell run unoptimised while the
 * JIT compiles again: after 200 s without traffic, a proxy with two
 * workers answered the first 5 s of an open loop at 6,600 req/s with a p99
 * of 156 ms (p50 5.4 ms), against 7 ms with the code kept (AMD EPYC,
 * 2026-11-28).
 *
 * Bun stops at startup on a `BUN_JSC_` option it does not know, and such
 * options change between its releases: `acceptedServerRuntimeEnv` asks the
 * running Bun first.
 */
export const SERVER_RUNTIME_ENV: Readonly<Record<string, string>> = {
  BUN_JSC_optimizedCodeAgingQuietAllocationMB: '0',
}

/** A worker's environment: its primary's, with the server settings the operator did not set themselves. */
export function serverRuntimeEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  settings: Readonly<Record<string, string>> = SERVER_RUNTIME_ENV,
): Record<string, string | undefined> {
  const merged: Record<string, string | undefined> = { ...env }
  for (const [name, value] of Object.entries(settings)) {
    if (merged[name] === undefined) merged[name] = value
  }
  return merged
}

/** The server settings this Bun starts with (all or none), asked once by starting it with them. */
export function acceptedServerRuntimeEnv(execPath: string = process.execPath): Readonly<Record<string, string>> {
  const probe = Bun.spawnSync([execPath, '-e', ''], {
    env: serverRuntimeEnvironment(process.env),
    stdout: 'ignore',
    stderr: 'ignore',
  })
  return probe.exitCode === 0 ? SERVER_RUNTIME_ENV : {}
}
