import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseDotenv } from './dotenv.ts'

export type Environment = Readonly<Record<string, string | undefined>>

/**
 * The variables a component is configured from: `./.env` when present,
 * overridden by the process environment (SPEC.md "Configuration variables").
 * This is the only place that reads `process.env` (STYLE.md rule 4).
 */
export function loadEnvironment(cwd = process.cwd(), env: Environment = process.env): Environment {
  const file = join(cwd, '.env')
  const fromFile = existsSync(file) ? parseDotenv(readFileSync(file, 'utf8')) : {}
  return Object.freeze({ ...fromFile, ...env })
}
