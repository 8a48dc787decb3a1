import type { Environment } from '../config/environment.ts'
import { loadMigrateConfig } from '../config/migrate-config.ts'
import { createLogger } from '../log/index.ts'
import { runMigrations } from './migrator.ts'
import { DataDirLockedError } from './errors.ts'
import { ConfigError } from '../config/config-error.ts'
import { warnUnknownVariables } from '../config/known-variables.ts'

/**
 * `bun run migrate`: applies the pending sql/ migrations and exits 0; any
 * failure prints one line and exits 1, leaving applied migrations applied
 * (each runs in its own transaction).
 */
export async function runMigrate(env: Environment): Promise<void> {
  const config = loadMigrateConfig(env)
  const logger = createLogger({ level: config.logLevel, format: config.logFormat })
  warnUnknownVariables(env, logger)
  try {
    const applied = await runMigrations(config.databaseUrl, logger)
    logger.info('migrations done', { applied: applied.length })
    process.exit(0)
  } catch (error) {
    // Refusals the operator fixes outside the code are main.ts's one line.
    if (error instanceof DataDirLockedError || error instanceof ConfigError) throw error
    logger.error('migration failed', { error })
    process.exit(1)
  }
}
