import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startHubServer } from '../../../src/hub-server/index.ts'
import type { HubServer } from '../../../src/hub-server/index.ts'
import { startFakeApi } from './fake-api.ts'
import type { FakeApi } from './fake-api.ts'

export interface HubStack {
  readonly api: FakeApi
  readonly hub: HubServer
  stop(): Promise<void>
}

/**
 * The fake API and a hub server pointed at it, on 127.0.0.1 with free
 * ports, the hub built into a temporary directory. `apiKey: ''` leaves the
 * key out of /config.js so the page asks for it.
 */
export async function startHubStack(options: { apiKey?: string } = {}): Promise<HubStack> {
  const api = startFakeApi()
  const distDir = join(await mkdtemp(join(tmpdir(), 'svc-hub-e2e-')), 'dist')
  const hub = await startHubServer({
    port: 0,
    hostname: '127.0.0.1',
    apiBaseUrl: api.url,
    apiKey: options.apiKey ?? api.key,
    distDir,
  })
  return {
    api,
    hub,
    async stop() {
      await hub.stop()
      await api.stop()
      await rm(join(distDir, '..'), { recursive: true, force: true })
    },
  }
}
