import postgres from 'postgres'

/** SQLSTATE codes the stores turn into outcomes (PostgreSQL appendix A). */
export const SQLSTATE = {
  uniqueViolation: '23505',
  foreignKeyViolation: '23503',
  invalidDatetimeFormat: '22007',
  datetimeFieldOverflow: '22008',
  lockNotAvailable: '55P03',
  deadlockDetected: '40P01',
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

/**
 * What a data exception (SQLSTATE class 22) says about the value, in words
 * that never repeat it: PostgreSQL's own message quotes the value (`value
 * "…" is out of range for type bigint`), which may be a secret.
 */
const DATA_EXCEPTION_REASONS: Readonly<Record<string, string>> = {
  '22001': 'a string is longer than its column allows',
  '22003': 'a number is out of the range the database can store',
  '22007': 'a date-time is not valid',
  '22008': 'a date-time is out of range',
  '22021': 'a text holds a byte sequence or a NUL character the database cannot store',
  '22P02': 'a value is not valid for its type (such as JSON the database cannot read)',
  '22P05': 'a text holds a character the database cannot store',
}

/**
 * Why the database refused one row's value, when `error` is a data
 * exception (SQLSTATE class 22: invalid JSON text, numeric out of range,
 * invalid byte sequence...): the client's data, a 400, never a 500.
 * Undefined for any other error.
 */
export function dataException(error: unknown): string | undefined {
  const code = sqlState(error)
  if (code === undefined || !code.startsWith('22')) return undefined
  return DATA_EXCEPTION_REASONS[code] ?? 'a value is one the database refuses'
}

/**
 * Whether the database refused `error`'s statement for what one row holds,
 * so that the same data would fail again however often it is sent: a data
 * exception (class 22), an integrity constraint (23) or a program limit
 * such as an index row too large (54). Not a connection failure, a
 * timeout, a cancelled query, a deadlock or an outage (classes 08, 40,
 * 53, 55, 57, 58, XX), nor an error of the driver (not a PostgresError).
 */
export function isRowRefusal(error: unknown): boolean {
  const code = sqlState(error)
  return code !== undefined && (code.startsWith('22') || code.startsWith('23') || code.startsWith('54'))
}

/**
 * Runs `run` again when PostgreSQL chose it as a deadlock's victim (its
 * transaction rolled back whole), at most `attempts` times in all: for
 * the backfill's batches and a re-diff's chunks, which lock old rows that
 * the cleanup may be locking too.
 */
export async function withDeadlockRetry<T>(run: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run()
    } catch (error) {
      if (attempt >= attempts || sqlState(error) !== SQLSTATE.deadlockDetected) throw error
    }
  }
}
