/**
 * docs/reference/metrics.md "Log records" against the code: every record
 * written with a fixed message (`logger.info('api listening', …)`, a
 * rate-limited warning, a message held in a `*_MESSAGE` constant) has a
 * row, and the document lists no message the code never writes. Messages
 * built at run time (template literals with `${…}`) are documented by hand
 * and not checked here.
 */
import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { codeSpans, readReference, sectionOf, tableRows } from '../../support/reference-doc.ts'

const SRC = join(import.meta.dir, '..', '..', '..', 'src')

/** Receivers whose `.error('…')` is not a log record: arktype's context, the console. */
const NOT_LOGGERS = new Set(['ctx', 'console'])

/** One string literal: '…', "…" or `…` without interpolation. */
const LITERAL = String.raw`'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|\x60((?:[^\x60\\$]|\\.)*)\x60`

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  )
}

/** The fixed messages of log records in the code, each with the first file that writes it. */
function loggedMessages(): Map<string, string> {
  const messages = new Map<string, string>()
  const call = new RegExp(String.raw`([\w$]+)\??\.(?:debug|info|warn|error)\(\s*(?:${LITERAL})`, 'g')
  // Either branch of a conditional message: warn(cond ? 'a' : 'b', …).
  const conditional = new RegExp(String.raw`\.(?:debug|info|warn|error)\(\s*[^(),\n]+?\?\s*(?:${LITERAL})\s*:\s*(?:${LITERAL})`, 'g')
  const constant = new RegExp(String.raw`_MESSAGE\s*=\s*(?:${LITERAL})`, 'g')
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8')
    const relative = file.slice(SRC.length - 3)
    const add = (message: string | undefined) => {
      if (message !== undefined && !messages.has(message)) messages.set(message, relative)
    }
    for (const match of text.matchAll(call)) if (!NOT_LOGGERS.has(match[1]!)) add(match[2] ?? match[3] ?? match[4])
    for (const match of text.matchAll(conditional)) {
      add(match[1] ?? match[2] ?? match[3])
      add(match[4] ?? match[5] ?? match[6])
    }
    for (const match of text.matchAll(constant)) add(match[1] ?? match[2] ?? match[3])
  }
  return messages
}

describe('docs/reference/metrics.md, log records', () => {
  const records = sectionOf(readReference('metrics'), (heading) => heading.startsWith('Log records'))
  const documented = new Set(tableRows(records ?? '').flatMap((row) => [...codeSpans(row[0] ?? '')]))
  const written = loggedMessages()

  test('has a "Log records" section', () => {
    expect(records).toBeDefined()
  })

  test('has a row for every fixed message the code logs', () => {
    const missing = [...written].filter(([message]) => !documented.has(message)).map(([message, file]) => `${message} (${file})`)
    expect(missing).toEqual([])
  })

  test('lists no fixed message the code never logs', () => {
    // A documented message with a placeholder (`database not ready (…)`) is built at run time.
    const stale = [...documented].filter((message) => !message.includes('…') && !written.has(message))
    expect(stale).toEqual([])
  })
})
