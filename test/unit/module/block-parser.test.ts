import { describe, expect, test } from 'bun:test'
import { lexBlock } from '../../../src/module/block-lexer.ts'
import { parseBlock, type Directive } from '../../../src/module/block-parser.ts'
import { BlockSyntaxError } from '../../../src/module/block-syntax-error.ts'

/** Names and values only, to compare trees without positions. */
function shape(directives: readonly Directive[]): unknown[] {
  return directives.map((d) =>
    d.block ? [d.name, ...d.args, shape(d.block)] : [d.name, ...d.args],
  )
}

function syntaxError(text: string): BlockSyntaxError {
  try {
    parseBlock(text)
  } catch (error) {
    if (error instanceof BlockSyntaxError) return error
    throw error
  }
  throw new Error(`parsed without error: ${text}`)
}

const EXAMPLE_BLOCK = `svc_gate {
    live http://127.0.0.1:3000
    shadow http://127.0.0.1:3001
    sampling_rate 0.5
    shadow_rules "allow POST:/api/search,deny GET:/admin/*"
    http_client {
        max_idle_conns 100
        idle_conn_timeout 90s
    }
    diff_ignored_fields body.**.updated_at headers.X-Trace
}`

describe('parseBlock', () => {
  test('parses a block with URLs, a quoted list, a nested block and a multi-valued directive', () => {
    expect(shape(parseBlock(EXAMPLE_BLOCK))).toEqual([
      [
        'svc_gate',
        [
          ['live', 'http://127.0.0.1:3000'],
          ['shadow', 'http://127.0.0.1:3001'],
          ['sampling_rate', '0.5'],
          ['shadow_rules', 'allow POST:/api/search,deny GET:/admin/*'],
          [
            'http_client',
            [
              ['max_idle_conns', '100'],
              ['idle_conn_timeout', '90s'],
            ],
          ],
          ['diff_ignored_fields', 'body.**.updated_at', 'headers.X-Trace'],
        ],
      ],
    ])
  })

  test('records the line and column of every name and value', () => {
    const [gate] = parseBlock(EXAMPLE_BLOCK)
    expect(gate).toMatchObject({ name: 'svc_gate', line: 1, column: 1 })
    const shadowRules = gate?.block?.[3]
    expect(shadowRules).toMatchObject({
      line: 5,
      column: 5,
      argPositions: [{ line: 5, column: 18 }],
    })
    const httpClient = gate?.block?.[4]
    expect(httpClient?.block?.[1]).toMatchObject({
      name: 'idle_conn_timeout',
      line: 8,
      column: 9,
      argPositions: [{ line: 8, column: 27 }],
    })
    expect(gate?.block?.[5]?.argPositions).toEqual([
      { line: 10, column: 25 },
      { line: 10, column: 44 },
    ])
  })

  test('skips comments, whole-line and after values', () => {
    const text =
      '# leading\nsvc_gate { # after a brace\n  # alone\n  live http://a # trailing\n}\n# end'
    expect(shape(parseBlock(text))).toEqual([['svc_gate', [['live', 'http://a']]]])
  })

  test('keeps "#" inside a bare word and inside quotes', () => {
    const text = 'x body.items.#.id http://h/#frag "# not a comment"'
    expect(parseBlock(text)[0]?.args).toEqual([
      'body.items.#.id',
      'http://h/#frag',
      '# not a comment',
    ])
  })

  test('reads double- and single-quoted strings with escapes', () => {
    const text = String.raw`x "a b" 'c d' "q\"q" 'q\'q' "back\\slash" "n\nt\tr\r" "it's" 'say "hi"' ""`
    expect(parseBlock(text)[0]?.args).toEqual([
      'a b',
      'c d',
      'q"q',
      "q'q",
      'back\\slash',
      'n\nt\tr\r',
      "it's",
      'say "hi"',
      '',
    ])
  })

  test('keeps a backslash before any other character, in quotes and in bare words', () => {
    const text = String.raw`x "body.a\.b" body.a\.b "\x"`
    expect(parseBlock(text)[0]?.args).toEqual(['body.a\\.b', 'body.a\\.b', '\\x'])
  })

  test('lets a quoted string span lines and keeps counting lines after it', () => {
    const [first, second] = parseBlock('a "one\ntwo" three\nb c')
    expect(first?.args).toEqual(['one\ntwo', 'three'])
    expect(first?.argPositions).toEqual([
      { line: 1, column: 3 },
      { line: 2, column: 6 },
    ])
    expect(second).toMatchObject({ name: 'b', line: 3, column: 1 })
  })

  test('ends a directive at the end of its line, ";" optional', () => {
    expect(shape(parseBlock('a 1 2\nb 3;\nc;d 4'))).toEqual([
      ['a', '1', '2'],
      ['b', '3'],
      ['c'],
      ['d', '4'],
    ])
  })

  test('reads a whole block on one line', () => {
    expect(
      shape(parseBlock('svc_gate { live a; shadow b; http_client { max_idle_conns 5 } }')),
    ).toEqual([
      [
        'svc_gate',
        [
          ['live', 'a'],
          ['shadow', 'b'],
          ['http_client', [['max_idle_conns', '5']]],
        ],
      ],
    ])
  })

  test('accepts the opening brace on the next line', () => {
    expect(shape(parseBlock('svc_gate\n{\n  live a\n}'))).toEqual([['svc_gate', [['live', 'a']]]])
  })

  test('accepts directives after a closing brace on the same line', () => {
    expect(shape(parseBlock('a { } b 1'))).toEqual([
      ['a', []],
      ['b', '1'],
    ])
  })

  test('reads CRLF line ends and skips a byte-order mark', () => {
    const [gate] = parseBlock('\uFEFFsvc_gate {\r\n  live a\r\n  shadow b\r\n}\r\n')
    expect(shape(gate ? [gate] : [])).toEqual([
      [
        'svc_gate',
        [
          ['live', 'a'],
          ['shadow', 'b'],
        ],
      ],
    ])
    expect(gate?.block?.[1]).toMatchObject({ line: 3, column: 3 })
  })

  test('gives no directives for empty text or only comments', () => {
    expect(parseBlock('')).toEqual([])
    expect(parseBlock('  \n# nothing\n')).toEqual([])
  })
})

describe('parseBlock errors', () => {
  const cases: { text: string; line: number; column: number; expected: string; found: string }[] = [
    {
      text: 'svc_gate {',
      line: 1,
      column: 11,
      expected: '"}" to close "svc_gate" opened at line 1, column 1',
      found: 'end of input',
    },
    {
      text: 'a {\n  b {\n  }\n',
      line: 4,
      column: 1,
      expected: '"}" to close "a" opened at line 1, column 1',
      found: 'end of input',
    },
    { text: '}', line: 1, column: 1, expected: 'a directive name', found: '"}"' },
    { text: 'a {\n}\n}', line: 3, column: 1, expected: 'a directive name', found: '"}"' },
    { text: '{', line: 1, column: 1, expected: 'a directive name', found: '"{"' },
    { text: 'svc_gate {\n  ;\n}', line: 2, column: 3, expected: 'a directive name', found: '";"' },
    { text: 'live x\n;', line: 2, column: 1, expected: 'a directive name', found: '";"' },
    { text: 'a;;', line: 1, column: 3, expected: 'a directive name', found: '";"' },
    {
      text: '"live" x',
      line: 1,
      column: 1,
      expected: 'a directive name',
      found: 'a quoted string',
    },
    { text: 'live "abc', line: 1, column: 6, expected: 'a closing "', found: 'end of input' },
    {
      text: "x\n  live 'abc\n",
      line: 2,
      column: 8,
      expected: "a closing '",
      found: 'end of input',
    },
    { text: 'live "abc\\', line: 1, column: 6, expected: 'a closing "', found: 'end of input' },
    {
      text: 'live "a"b',
      line: 1,
      column: 9,
      expected: 'whitespace, ";", "{" or "}" after a quoted string',
      found: '"b"',
    },
    {
      text: 'live \'a\'"b"',
      line: 1,
      column: 9,
      expected: 'whitespace, ";", "{" or "}" after a quoted string',
      found: '"\\""',
    },
    {
      text: 'svc_gate {\n  live ab"c"\n}',
      line: 2,
      column: 10,
      expected: 'a quote only at the start of a value',
      found: '"\\""',
    },
  ]
  for (const c of cases) {
    test(`${JSON.stringify(c.text)} fails at line ${c.line}, column ${c.column}`, () => {
      const error = syntaxError(c.text)
      expect(error).toMatchObject({
        code: 'block-syntax',
        line: c.line,
        column: c.column,
        expected: c.expected,
        found: c.found,
      })
      expect(error.message).toBe(
        `line ${c.line}, column ${c.column}: expected ${c.expected}, found ${c.found}`,
      )
    })
  }
})

describe('lexBlock', () => {
  test('marks tokens that start a new line', () => {
    const tokens = lexBlock('a b\n  c # x\nd')
    expect(tokens.map((t) => [t.kind, t.value, t.newlineBefore])).toEqual([
      ['word', 'a', false],
      ['word', 'b', false],
      ['word', 'c', true],
      ['word', 'd', true],
      ['end', '', false],
    ])
  })

  test('places the end token after the last character', () => {
    expect(lexBlock('ab\ncd').at(-1)).toMatchObject({ kind: 'end', line: 2, column: 3 })
  })
})
