/**
 * Tokens of the `svc_gate` directive block (docs/module.md "The `svc_gate`
 * block"). The syntax follows nginx's configuration files, which users of a
 * web-server module know:
 *
 * - `#` starts a comment to the end of the line, where a token could start.
 *   Inside a bare word it is an ordinary character, so diff paths such as
 *   `body.items.#.id` need no quotes.
 * - A bare word runs until whitespace, `{`, `}` or `;`. It has no escapes:
 *   a backslash is kept as written (`body.a\.b` is a diff path with an
 *   escaped dot). A quote inside a bare word is an error.
 * - Quoted strings use `"` or `'` and may span lines. `\"`, `\'`, `\\`,
 *   `\n`, `\t` and `\r` are escapes; any other backslash is kept with the
 *   character after it, so `"body.a\.b"` means the same as the bare word.
 *   A quoted string must be followed by whitespace, `;`, `{`, `}` or the end.
 * - Lines end at `\n` (`\r` is whitespace, so CRLF files work); a leading
 *   byte-order mark is skipped.
 */
import { BlockSyntaxError, type Position } from './block-syntax-error.ts'

export const TOKEN_KINDS = ['word', 'string', '{', '}', ';', 'end'] as const
export type TokenKind = (typeof TOKEN_KINDS)[number]

export interface Token extends Position {
  readonly kind: TokenKind
  /** The word, or the string after escapes; the punctuation itself otherwise; `''` at the end. */
  readonly value: string
  /** True when a line ended between the previous token and this one (ends a directive). */
  readonly newlineBefore: boolean
}

const SPACE = new Set([' ', '\t', '\r', '\f', '\v'])
const PUNCTUATION = new Set(['{', '}', ';'])
const QUOTES = new Set(['"', "'"])
const ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  '\\': '\\',
  '"': '"',
  "'": "'",
}

/** Splits block text into tokens, ending with one `end` token. Throws `BlockSyntaxError`. */
export function lexBlock(text: string): Token[] {
  const tokens: Token[] = []
  let i = text.startsWith('\uFEFF') ? 1 : 0
  let line = 1
  let lineStart = i
  let newlineBefore = false
  const here = (index: number): Position => ({ line, column: index - lineStart + 1 })
  const push = (kind: TokenKind, value: string, at: Position) => {
    tokens.push({ kind, value, line: at.line, column: at.column, newlineBefore })
    newlineBefore = false
  }

  while (i < text.length) {
    const ch = text[i] as string
    if (ch === '\n') {
      line++
      lineStart = ++i
      newlineBefore = true
    } else if (SPACE.has(ch)) {
      i++
    } else if (ch === '#') {
      const end = text.indexOf('\n', i)
      i = end === -1 ? text.length : end
    } else if (PUNCTUATION.has(ch)) {
      push(ch as TokenKind, ch, here(i))
      i++
    } else if (QUOTES.has(ch)) {
      const at = here(i)
      let value = ''
      i++
      for (;;) {
        const c = text[i]
        if (c === undefined) throw new BlockSyntaxError(at, `a closing ${ch}`, 'end of input')
        if (c === ch) break
        if (c === '\\' && text[i + 1] !== undefined) {
          const next = text[i + 1] as string
          value += ESCAPES[next] ?? c + next
          i += 2
          if (next === '\n') {
            line++
            lineStart = i
          }
          continue
        }
        value += c
        i++
        if (c === '\n') {
          line++
          lineStart = i
        }
      }
      i++
      const after = text[i]
      if (after !== undefined && after !== '\n' && !SPACE.has(after) && !PUNCTUATION.has(after)) {
        throw new BlockSyntaxError(
          here(i),
          'whitespace, ";", "{" or "}" after a quoted string',
          JSON.stringify(after),
        )
      }
      push('string', value, at)
    } else {
      const at = here(i)
      const start = i
      while (i < text.length) {
        const c = text[i] as string
        if (c === '\n' || SPACE.has(c) || PUNCTUATION.has(c)) break
        if (QUOTES.has(c)) {
          throw new BlockSyntaxError(
            here(i),
            'a quote only at the start of a value',
            JSON.stringify(c),
          )
        }
        i++
      }
      push('word', text.slice(start, i), at)
    }
  }
  push('end', '', here(i))
  return tokens
}
