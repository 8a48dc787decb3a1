import postgres from 'postgres'

/** SQLSTATE codes the stores turn into outcomes (PostgreSQL appendix A). */
export const SQLSTATE = {
  uniqueViolation: '23505',
  foreignKeyViolation: '23503',
  invalidDatetimeFormat: '22007',
  datetimeFieldOverflow: '22008',
} as const


/** The SQLSTATE of a database error, or undefined for any other error. */
export function sqlState(error: unknown): string | undefined {
  return error instanceof postgres.PostgresError ? error.code : undefined
}

/** The violated unique constraint's (or index's) name, when `error` is a unique violation. */
export function uniqueViolation(error: unknown): string | undefined {
  return error instanceof postgres.PostgresError && error.code === SQLSTATE.uniqueViolation
    ? error.constraint_name
    : undefined
}
