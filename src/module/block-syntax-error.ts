/** A line and a column, both 1-based; the column counts UTF-16 code units from the line start. */
export interface Position {
  readonly line: number
  readonly column: number
}

/**
 * The text of an `svc_gate { ... }` block cannot be read: it names where,
 * what the parser expected there, and what it found instead.
 */
export class BlockSyntaxError extends Error {
  override readonly name = 'BlockSyntaxError'
  readonly code = 'block-syntax'
  readonly line: number
  readonly column: number
  constructor(
    at: Position,
    /** What would have been valid here, e.g. `"}" to close "http_client"`. */
    readonly expected: string,
    /** What was there instead, e.g. `end of input`. */
    readonly found: string,
  ) {
    super(`line ${at.line}, column ${at.column}: expected ${expected}, found ${found}`)
    this.line = at.line
    this.column = at.column
  }
}
