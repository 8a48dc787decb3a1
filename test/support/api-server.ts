import { createApi, type RunningApi } from '../../src/api/start-api.ts'
import { loadApiConfig } from '../../src/config/api-config.ts'
import { createLogger } from '../../src/log/index.ts'
import { createTestDatabase, type Backend, type TestDatabase } from './database.ts'

export const TEST_API_KEY = 'test-key-0123456789abcdef'

export interface TestApi {
  readonly url: string
  readonly api: RunningApi
  /** The test database under the API; drop() it to see the API lose its database. */
  readonly database: TestDatabase
  /** Log lines the API wrote, for assertions on what is (not) logged. */
  readonly logs: string[]
  /** fetch with the bearer key and JSON handling. */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>
  stop(): Promise<void>
}

/** A real API on 127.0.0.1 over a fresh database of the given backend. */
export async function startTestApi(backend: Backend, env: Record<string, string> = {}): Promise<TestApi> {
  const database = await createTestDatabase(backend)
  const loaded = loadApiConfig({
    SVC_APP_DATABASE_URL: database.url,
    SVC_APP_API_KEY: TEST_API_KEY,
    SVC_APP_RATE_LIMIT: '100000',
    SVC_APP_LOG_FORMAT: 'json',
    ...env,
  })
  // A free port, chosen by the kernel: SVC_APP_PORT itself refuses 0.
  const config = 'SVC_APP_PORT' in env ? loaded : { ...loaded, port: 0 }
  const logs: string[] = []
  const logger = createLogger({ level: 'debug', format: 'json', write: (line) => void logs.push(line) })
  const api = await createApi(config, { logger, database: database.db, hostname: '127.0.0.1' })
  const url = api.url
  return {
    url,
    api,
    database,
    logs,
    call(method, path, body, headers = {}) {
      return fetch(url + path, {
        method,
        headers: {
          authorization: `Bearer ${TEST_API_KEY}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      })
    },
    async stop() {
      await api.stop()
      await database.drop()
    },
  }
}
