import type { Environment } from '../config/environment.ts'
import { loadHubConfig } from '../config/hub-config.ts'
import { createLogger } from '../log/index.ts'
import { buildHub, DEFAULT_DIST_DIR, viteDefine } from './build-hub.ts'
import { startHubServer } from './hub-server.ts'
import { withoutPassword } from '../net/base-url.ts'
import { boundAddress } from '../net/listen.ts'
import { warnUnknownVariables } from '../config/known-variables.ts'

/**
 * `bun run hub [--rebuild]`: serves the built hub (building it first when
 * there is no build, or when asked), until SIGTERM or SIGINT.
 */
export async function startHub(env: Environment, argv: readonly string[] = []): Promise<void> {
  const config = loadHubConfig(env)
  const logger = createLogger({ level: config.logLevel, format: config.logFormat })
  warnUnknownVariables(env, logger)
  const define = viteDefine(config.buildTime)
  if (argv.includes('--rebuild')) await buildHub({ outDir: DEFAULT_DIST_DIR, define })
  const hub = await startHubServer(
    { port: config.port, apiBaseUrl: config.apiBaseUrl, apiKey: config.apiKey, distDir: DEFAULT_DIST_DIR, define, allowedHosts: config.allowedHosts },
    logger,
  )
  logger.info('hub listening', { url: hub.url, address: boundAddress(hub.server), 'api.base_url': withoutPassword(config.apiBaseUrl), 'api.key': config.apiKey ? 'configured' : 'asked in the page' })
  const shutdown = async () => {
    await hub.stop()
    logger.info('hub stopped')
    process.exit(0)
  }
  process.on('SIGTERM', () => void shutdown())
  process.on('SIGINT', () => void shutdown())
}
