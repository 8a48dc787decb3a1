import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePorts } from '../../support/ports.ts'
import { startHubServer } from '../../../src/hub-server/index.ts'
import type { HubServer } from '../../../src/hub-server/index.ts'
import { TEST_API_KEY, startTestApi } from '../../support/api-server.ts'
import type { TestApi } from '../../support/api-server.ts'

export interface RealHubStack {
  /** The real API on a fresh PostgreSQL database. */
  readonly api: TestApi
  /** The hub served with the API's key in /config.js. */
  readonly hub: HubServer
  /** The API's bearer key. */
  readonly key: string
  /**
   * Another hub server on the same build and API (a wrong key, no key).
   * Its origin is one the API allows; stopped with the stack.
   */
  startHub(apiKey: string): Promise<HubServer>
  stop(): Promise<void>
}

export interface RealHubStackOptions {
  /** Hub servers the test will start, the first one included. @default 3 */
  readonly hubs?: number
  /** Extra API settings (SVC_APP_*). */
  readonly env?: Record<string, string>
}

/**
 * The real API over PostgreSQL and hub servers pointed at it, on 127.0.0.1.
 *
 * The API must list each hub's origin in SVC_APP_CORS_ORIGINS
 * (docs/reference/configuration.md "Hub") before it starts, so the hub ports
 * are chosen first: as many free ports as hubs plus spares, all held at once so
 * they differ, then released and all listed. A hub starts on the first listed
 * port still free, so a port taken in between costs a spare, not a restart.
 */
export async function startRealHubStack(options: RealHubStackOptions = {}): Promise<RealHubStack> {
  const ports = freePorts((options.hubs ?? 3) + 2)
  const origins = ports.map((p) => `http://127.0.0.1:${p}`)
  const api = await startTestApi('postgres', { SVC_APP_CORS_ORIGINS: origins.join(','), ...options.env })
  const distDir = join(await mkdtemp(join(tmpdir(), 'svc-hub-real-')), 'dist')
  const hubs: HubServer[] = []
  const unused = [...ports]

  const startHub = async (apiKey: string): Promise<HubServer> => {
    let lastError: unknown
    while (unused.length > 0) {
      const port = unused.shift()!
      try {
        const hub = await startHubServer({ port, hostname: '127.0.0.1', apiBaseUrl: api.url, apiKey, distDir })
        hubs.push(hub)
        return hub
      } catch (error) {
        lastError = error // taken since it was picked: try the next one
      }
    }
    throw new Error('no allowed hub port left; raise `hubs`', { cause: lastError })
  }

  try {
    const hub = await startHub(TEST_API_KEY)
    return {
      api,
      hub,
      key: TEST_API_KEY,
      startHub,
      async stop() {
        await Promise.all(hubs.map((h) => h.stop()))
        await api.stop()
        await rm(join(distDir, '..'), { recursive: true, force: true })
      },
    }
  } catch (error) {
    await api.stop()
    await rm(join(distDir, '..'), { recursive: true, force: true })
    throw error
  }
}

