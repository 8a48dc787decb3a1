import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseDotenv } from './dotenv.ts'

export type Environment = Readonly<Record<string, string | undefined>>

/**
 * The variables a component is configured from: `./.env` when present,
 * overridden by the process environment (docs/reference/configuration.md "How
 * values are read"). This is the only place that reads `process.env`
 * (docs/architecture.md "Configuration").
 */
export function loadEnvironment(cwd = process.cwd(), env: Environment = process.env): Environment {
  const file = join(cwd, '.env')
  const fromFile = existsSync(file) ? parseDotenv(readFileSync(file, 'utf8')) : {}
  return Object.freeze({ ...fromFile, ...env })
}
