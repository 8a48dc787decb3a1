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
