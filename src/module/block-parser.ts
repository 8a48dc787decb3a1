/**
 * Parser for directive blocks such as `svc_gate { ... }` (docs/module.md "The
 * `svc_gate` block"). It knows nothing about which directives exist; it gives a
 * generic tree that `module-config.ts` validates.
 *
 * A directive is a name, then values on the same line, then one of:
 * - `;`, which ends it (nginx style; lets several directives share a line);
 * - `{ ... }`, a nested block; the `{` may also start the next line;
 * - the end of the line, a `}` closing the enclosing block, or the end of
 *   the text. So `;` is optional, and values cannot continue on the next
 *   line (quote a value to put line breaks in it).
 * An empty statement (a `;` on its own) is an error, as in nginx.
 */
import { lexBlock, type Token } from './block-lexer.ts'
import { BlockSyntaxError, type Position } from './block-syntax-error.ts'

export interface Directive extends Position {
  readonly name: string
  /** The values, quoted ones after escapes. */
  readonly args: readonly string[]
  /** Where each value starts (its opening quote, when quoted). */
  readonly argPositions: readonly Position[]
  readonly block?: readonly Directive[]
}

/** Parses block text into its top-level directives. Throws `BlockSyntaxError`. */
export function parseBlock(text: string): Directive[] {
  const tokens = lexBlock(text)
  let index = 0
  const peek = () => tokens[index] as Token
  const next = () => tokens[index++] as Token

  function parseList(opener: Directive | undefined): Directive[] {
    const list: Directive[] = []
    for (;;) {
      const token = peek()
      if (token.kind === 'end' && opener) {
        const where = `line ${opener.line}, column ${opener.column}`
        throw new BlockSyntaxError(
          token,
          `"}" to close "${opener.name}" opened at ${where}`,
          'end of input',
        )
      }
      if (token.kind === 'end') return list
      if (token.kind === '}' && opener) {
        next()
        return list
      }
      if (token.kind !== 'word')
        throw new BlockSyntaxError(token, 'a directive name', describe(token))
      list.push(parseDirective())
    }
  }

  function parseDirective(): Directive {
    const name = next()
    const args: string[] = []
    const argPositions: Position[] = []
    for (let token = peek(); isValue(token) && !token.newlineBefore; token = peek()) {
      args.push(token.value)
      argPositions.push({ line: token.line, column: token.column })
      next()
    }
    const directive = { name: name.value, args, argPositions, line: name.line, column: name.column }
    const token = peek()
    if (token.kind === ';' && !token.newlineBefore) next()
    else if (token.kind === '{') {
      next()
      return { ...directive, block: parseList(directive) }
    }
    return directive
  }

  return parseList(undefined)
}

function isValue(token: Token): boolean {
  return token.kind === 'word' || token.kind === 'string'
}

function describe(token: Token): string {
  switch (token.kind) {
    case 'word':
      return JSON.stringify(token.value)
    case 'string':
      return 'a quoted string'
    case 'end':
      return 'end of input'
    default:
      return `"${token.value}"`
  }
}
