/**
 * Errors of the storage layer that are not HTTP outcomes. (Outcomes the API
 * answers, such as a conflict, use the AppError classes of
 * src/errors/app-error.ts.) Each has a stable `code`.
 */

/** SVC_APP_DATABASE_URL has a scheme or form the service cannot open. */
export class DatabaseUrlError extends Error {
  readonly code = 'invalid-database-url'
  constructor(readonly detail: string) {
    super(detail)
    this.name = 'DatabaseUrlError'
  }
}

/** The migration files or the recorded migrations are inconsistent. */
export class MigrationError extends Error {
  readonly code = 'migration-failed'
  constructor(
    readonly detail: string,
    /** The migration file concerned, when there is one. */
    readonly file?: string,
    options?: ErrorOptions,
  ) {
    super(detail, options)
    this.name = 'MigrationError'
  }
}

/** A PGlite data directory that another process has open (src/store/data-dir-lock.ts). */
export class DataDirLockedError extends Error {
  readonly code = 'data-dir-locked'
  constructor(
    readonly dataDir: string,
    /** The holder's process id, as it wrote it; undefined when unreadable. */
    readonly pid: number | undefined,
  ) {
    const holder = pid === undefined ? 'another process' : `another process (pid ${pid})`
    super(`the PGlite directory ${dataDir} is in use by ${holder}; one process at a time may open it`)
    this.name = 'DataDirLockedError'
  }
}
