/**
 * One entry, one flag (docs/architecture.md): `bun run src/main.ts
 * <component>`. Configuration errors print one line and exit 1; nothing else is
 * printed before the component's own logger takes over.
 */
import { ConfigError } from './config/config-error.ts'
import { loadEnvironment } from './config/environment.ts'
import { DataDirLockedError } from './store/errors.ts'

const COMPONENTS = {
  api: () => import('./api/start-api.ts').then((m) => m.startApi),
  proxy: () => import('./proxy/start-proxy.ts').then((m) => m.startProxy),
  hub: () => import('./hub-server/start-hub.ts').then((m) => m.startHub),
  migrate: () => import('./store/run-migrate.ts').then((m) => m.runMigrate),
  demo: () => import('./demo/start-demo.ts').then((m) => m.startDemo),
  // Command-line tools for pipelines (docs/ci.md): they print their own errors and exit 2.
  verdict: () => import('./cli/run-verdict.ts').then((m) => m.runVerdict),
  replay: () => import('./replay/run-replay.ts').then((m) => m.runReplay),
} as const
type Component = keyof typeof COMPONENTS

async function main(argv: string[]): Promise<void> {
  const name = argv[0]
  if (!name || !(name in COMPONENTS)) {
    console.error(`usage: bun run src/main.ts <${Object.keys(COMPONENTS).join('|')}> (got ${JSON.stringify(name ?? '')})`)
    process.exit(1)
  }
  try {
    const start = await COMPONENTS[name as Component]()
    await start(loadEnvironment(), argv.slice(1))
  } catch (error) {
    // Refusals to start that the operator fixes outside the code: one line, exit 1.
    if (error instanceof ConfigError || error instanceof DataDirLockedError) {
      console.error(error.message)
      process.exit(1)
    }
    throw error
  }
}

await main(process.argv.slice(2))
