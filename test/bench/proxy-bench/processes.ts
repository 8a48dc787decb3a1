/**
 * The processes of the proxy benchmark, each a child of the benchmark on
 * 127.0.0.1, stopped by its PID: the upstream fleets, our proxy, nginx.
 */
import { spawn, spawnSync, type Subprocess } from 'bun'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { ShadowVariant } from './fleet.ts'
import { freePort } from '../../support/ports.ts'

const MAIN = resolve(import.meta.dir, '../../../src/main.ts')
const FLEET = resolve(import.meta.dir, 'fleet.ts')
const CPU_ROLES = resolve(import.meta.dir, 'cpu.ts')

// Below the kernel's ephemeral range, so a port handed out is never given to a listener on port 0 meanwhile.
export { freePort }

export async function waitForHttp(url: string, timeoutMs = 15_000): Promise<void> {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    try {
      const response = await fetch(url)
      await response.arrayBuffer()
      if (response.status < 500) return
    } catch {
      // not up yet
    }
    if (performance.now() > deadline) throw new Error(`${url} did not come up within ${timeoutMs} ms`)
    await Bun.sleep(50)
  }
}

/** Starts `fleet.ts <sleepMs> <variant> <ports...>`: upstreams on every port. */
export function startFleet(sleepMs: number, ports: number[], variant: ShadowVariant = 'same'): Subprocess {
  return spawn(['bun', 'run', FLEET, String(sleepMs), variant, ...ports.map(String)], { stdout: 'ignore', stderr: 'inherit' })
}

/**
 * One of cpu.ts's child roles (`raw-shadow <port> <live> <shadow>`,
 * `group <copies> serve-fetch ...`): the reference proxies that cpu.ts and
 * the proxy benchmark run beside ours.
 */
export function startCpuRole(args: readonly string[]): Subprocess {
  return spawn(['bun', 'run', CPU_ROLES, ...args], { stdout: 'ignore', stderr: 'inherit' })
}

export interface OurProxy {
  readonly child: Subprocess
  readonly url: string
  readonly adminUrl: string
}

/** Our proxy settings for the runs; see docs/proxy.md "Benchmark" for why. */
export const OUR_PROXY_ENV = {
  SVC_APP_LOG_LEVEL: 'warn',
  SVC_APP_LOG_FORMAT: 'json',
  SVC_APP_APP_ENV: 'production',
  // One connection per client connection (wrk's 64). Live's fit Bun's 64
  // shared idle sockets (more would churn); the shadow's are our own
  // client's (docs/proxy.md "The shadow's client").
  SVC_APP_HTTP_CLIENT_MAX_CONNS_PER_HOST: '64',
  SVC_APP_HTTP_CLIENT_MAX_IDLE_CONNS_PER_HOST: '64',
  // Both upstreams' 64 idle connections: below it (the default is 100 across
  // hosts) the raw server, whose live connections are our client's too,
  // closes and opens connections all the time.
  SVC_APP_HTTP_CLIENT_MAX_IDLE_CONNS: '128',
} as const

/** @param main the proxy's entry point; another checkout's for an A/B comparison. */
export async function startOurProxy(
  live: string,
  shadow: string,
  env: Record<string, string>,
  main: string = MAIN,
): Promise<OurProxy> {
  const port = freePort()
  const adminPort = freePort()
  const child = spawn(['bun', 'run', main, 'proxy'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...OUR_PROXY_ENV,
      SVC_APP_PORT: String(port),
      SVC_APP_ADMIN_PORT: String(adminPort),
      SVC_APP_LIVE_URL: live,
      SVC_APP_SHADOW_URL: shadow,
      ...env,
    },
    stdout: 'ignore',
    stderr: 'inherit',
  })
  const proxy = { child, url: `http://127.0.0.1:${port}`, adminUrl: `http://127.0.0.1:${adminPort}` }
  try {
    await waitForHttp(`${proxy.adminUrl}/health/ready`)
  } catch (error) {
    // Not handed to the caller, so not stopped by it: stopped here.
    await stop(child)
    throw error
  }
  return proxy
}

export async function stop(child: Subprocess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return
  child.kill('SIGTERM')
  // Killed, it takes its descendants along (a proxy's workers, cpu.ts's copies of a reference):
  // those it still has then, so that no process id is reused meanwhile.
  const timer = setTimeout(() => {
    for (const pid of processTree(child.pid).reverse()) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // gone already
      }
    }
  }, 15_000)
  await child.exited
  clearTimeout(timer)
}

/** A process and its descendants (the workers of a proxy with SVC_APP_WORKERS), from /proc. */
export function processTree(pid: number): number[] {
  const out = [pid]
  for (let i = 0; i < out.length; i++) {
    try {
      for (const tid of readdirSync(`/proc/${out[i]}/task`)) {
        const children = readFileSync(`/proc/${out[i]}/task/${tid}/children`, 'utf8').trim()
        if (children !== '') out.push(...children.split(/\s+/).map(Number))
      }
    } catch {
      // ended meanwhile
    }
  }
  return out
}

/** The largest RSS among a process and its descendants, and how many there are. */
export function rssPerProcessMb(pid: number): { maxMb: number; processes: number } {
  const tree = processTree(pid).map(rssMb).filter((mb) => !Number.isNaN(mb))
  return { maxMb: Math.max(...tree), processes: tree.length }
}

export function rssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024
  } catch {
    return NaN
  }
}

/** TIME_WAIT sockets to or from the given ports (the proxy's outbound connections). */
export function timeWait(ports: number[]): number {
  const filter = ports.map((p) => `dport = :${p} or sport = :${p}`).join(' or ')
  const result = spawnSync(['ss', '-tan', 'state', 'time-wait', `( ${filter} )`])
  if (result.exitCode !== 0) return NaN
  return Math.max(0, result.stdout.toString().trim().split('\n').length - 1)
}

export function sumSamples(text: string, name: string, labels: Record<string, string> = {}): number {
  const pairs = Object.entries(labels).map(([k, v]) => `${k}="${v}"`)
  let sum = 0
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue
    const end = line.search(/[{ ]/)
    if (end === -1 || line.slice(0, end) !== name || !pairs.every((p) => line.includes(p))) continue
    sum += Number(line.slice(line.lastIndexOf(' ') + 1))
  }
  return sum
}

// nginx: the reference a user would otherwise pick.

export const hasNginx = spawnSync(['sh', '-c', 'command -v nginx']).exitCode === 0

export interface Nginx {
  readonly child: Subprocess
  readonly proxyUrl: string
  readonly mirrorUrl: string
  readonly dir: string
}

export async function startNginx(proxyLive: number, mirrorLive: number, mirrorShadow: number): Promise<Nginx | undefined> {
  if (!hasNginx) return undefined
  const dir = mkdtempSync(join(tmpdir(), 'proxy-bench-nginx-'))
  const proxyPort = freePort()
  const mirrorPort = freePort()
  const upstreamOptions = 'proxy_http_version 1.1; proxy_set_header Connection "";'
  const config = `
daemon off;
worker_processes auto;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream live { server 127.0.0.1:${proxyLive}; keepalive 64; }
  upstream mirror_live { server 127.0.0.1:${mirrorLive}; keepalive 64; }
  upstream shadow { server 127.0.0.1:${mirrorShadow}; keepalive 64; }
  server {
    listen 127.0.0.1:${proxyPort};
    location / { proxy_pass http://live; ${upstreamOptions} }
  }
  server {
    listen 127.0.0.1:${mirrorPort};
    location / { mirror /mirror; proxy_pass http://mirror_live; ${upstreamOptions} }
    location = /mirror { internal; proxy_pass http://shadow$request_uri; ${upstreamOptions} }
  }
}
`
  writeFileSync(join(dir, 'nginx.conf'), config)
  const child = spawn(['nginx', '-p', dir, '-c', join(dir, 'nginx.conf')], { stdout: 'ignore', stderr: 'inherit' })
  const nginx = { child, proxyUrl: `http://127.0.0.1:${proxyPort}/`, mirrorUrl: `http://127.0.0.1:${mirrorPort}/`, dir }
  try {
    await waitForHttp(nginx.proxyUrl)
  } catch (error) {
    child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
    console.error(`nginx did not start (${String(error)}); its rows are skipped`)
    return undefined
  }
  return nginx
}

export async function stopNginx(nginx: Nginx | undefined): Promise<void> {
  if (!nginx) return
  // SIGQUIT: graceful shutdown of the master (our own child) and its workers.
  nginx.child.kill('SIGQUIT')
  const timer = setTimeout(() => nginx.child.kill('SIGKILL'), 10_000)
  await nginx.child.exited
  clearTimeout(timer)
  rmSync(nginx.dir, { recursive: true, force: true })
}
