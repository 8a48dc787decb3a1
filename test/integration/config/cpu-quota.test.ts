/**
 * SVC_APP_WORKERS=auto under a real CPU quota: a cgroup of its own with a
 * quota of 1.5 cores, and a process started in it that loads the proxy's
 * configuration. `auto` comes from `os.availableParallelism()`, which Bun
 * bounds by the quota (docs/proxy.md "Workers"); this holds the proxy to
 * it, should a Bun release change it. Needs a cgroup hierarchy with the
 * cpu controller that this user may write (root, on Linux); where there is
 * none, the test is reported as skipped under a name that says so.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'

const ROOT = resolve(import.meta.dir, '../../..')

/** A writable place for a child cgroup whose quota we set: v1's cpu hierarchy, or v2 with the cpu controller. */
function quotaCgroupParent(): { version: 1 | 2; directory: string } | undefined {
  if (process.platform !== 'linux') return undefined
  const v1 = '/sys/fs/cgroup/cpu'
  if (existsSync(`${v1}/cpu.cfs_quota_us`) && writable(v1)) return { version: 1, directory: v1 }
  const v2 = '/sys/fs/cgroup'
  try {
    if (readFileSync(`${v2}/cgroup.subtree_control`, 'utf8').split(/\s+/).includes('cpu') && writable(v2)) return { version: 2, directory: v2 }
  } catch {
    // no v2 hierarchy here
  }
  return undefined
}

function writable(directory: string): boolean {
  const probe = `${directory}/svc-shadow-probe-${process.pid}`
  try {
    mkdirSync(probe)
    rmdirSync(probe)
    return true
  } catch {
    return false
  }
}

const parent = quotaCgroupParent()
const created: string[] = []

afterAll(async () => {
  // Empty once its process has exited; a cgroup is removed with rmdir,
  // which can fail with EBUSY for a moment after its last process is gone.
  for (const directory of created) {
    for (let attempt = 1; existsSync(directory); attempt++) {
      try {
        rmdirSync(directory)
      } catch (error) {
        if (attempt === 20) throw new Error(`the test's cgroup ${directory} could not be removed: ${String(error)}`)
        await Bun.sleep(50)
      }
    }
  }
})

/** Loads the proxy's configuration with SVC_APP_WORKERS=auto in a new process inside `cgroup`. */
async function workersIn(cgroup: string): Promise<number> {
  const script = `
    import { loadProxyConfig } from '${ROOT}/src/config/proxy-config.ts'
    const config = loadProxyConfig({ SVC_APP_LIVE_URL: 'http://127.0.0.1:9001', SVC_APP_SHADOW_URL: 'http://127.0.0.1:9002', SVC_APP_WORKERS: 'auto' })
    console.log(config.workers)`
  // The same Bun as the test's, started in the cgroup: the shell joins it, then becomes Bun.
  const child = Bun.spawn(['sh', '-c', `echo $$ > '${cgroup}/cgroup.procs' && exec "$1" -e "$0"`, script, process.execPath], {
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const timer = setTimeout(() => child.kill(), 20_000)
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  clearTimeout(timer)
  if (code !== 0) throw new Error(`the process in the cgroup failed (${code}): ${err}`)
  return Number(out.trim())
}

describe('SVC_APP_WORKERS=auto in a cgroup with a CPU quota', () => {
  const name = parent === undefined ? ' (skipped: no cgroup hierarchy with the cpu controller writable here; needs root on Linux)' : ''
  test.skipIf(parent === undefined)(`is the quota's whole cores, not the machine's${name}`, async () => {
    const { version, directory } = parent!
    const cgroup = `${directory}/svc-shadow-quota-${process.pid}`
    mkdirSync(cgroup)
    created.push(cgroup)
    if (version === 1) {
      writeFileSync(`${cgroup}/cpu.cfs_period_us`, '100000')
      writeFileSync(`${cgroup}/cpu.cfs_quota_us`, '150000')
    } else {
      writeFileSync(`${cgroup}/cpu.max`, '150000 100000')
    }
    // 1.5 cores: one worker, whatever the machine has.
    expect(await workersIn(cgroup)).toBe(1)
    // Without a quota, the affinity decides (`nproc` reads the affinity
    // alone: this test's own process may itself be under a quota).
    if (version === 1) writeFileSync(`${cgroup}/cpu.cfs_quota_us`, '-1')
    else writeFileSync(`${cgroup}/cpu.max`, 'max 100000')
    expect(await workersIn(cgroup)).toBe(Number(Bun.spawnSync(['nproc']).stdout.toString().trim()))
  }, 60_000)
})
