/**
 * Reading the reference documents (`docs/reference/*.md`) for the tests
 * that keep them in step with the code: sections by heading, table rows by
 * their first cell, and the code spans a text holds.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

const REFERENCE_DIR = join(import.meta.dir, '..', '..', 'docs', 'reference')

/** The text of `docs/reference/<name>.md`. */
export function readReference(name: string): string {
  return readFileSync(join(REFERENCE_DIR, `${name}.md`), 'utf8')
}

/** The text of every `` `code span` `` in `text`. */
export function codeSpans(text: string): Set<string> {
  const spans = new Set<string>()
  for (const match of text.matchAll(/`([^`\n]+)`/g)) spans.add(match[1]!)
  return spans
}

/**
 * The section under the first heading that `matches` (its own line
 * included) up to the next heading of the same or a higher level, or
 * undefined when no heading matches. Lines inside fenced code blocks are
 * never headings.
 */
export function sectionOf(text: string, matches: (heading: string) => boolean): string | undefined {
  const lines = text.split('\n')
  let fenced = false
  let start = -1
  let level = 0
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (line.startsWith('```')) fenced = !fenced
    if (fenced) continue
    const heading = /^(#{1,6}) (.*)$/.exec(line)
    if (!heading) continue
    if (start === -1) {
      if (matches(heading[2]!)) {
        start = i
        level = heading[1]!.length
      }
    } else if (heading[1]!.length <= level) {
      return lines.slice(start, i).join('\n')
    }
  }
  return start === -1 ? undefined : lines.slice(start).join('\n')
}

/** One row of a Markdown table: its cells, trimmed. */
export type TableRow = readonly string[]

/** The body rows of every table in `text`: each run of `|` lines but its header and separator. */
export function tableRows(text: string): TableRow[] {
  const rows: TableRow[] = []
  let run: string[] = []
  const flush = () => {
    if (run.length > 2 && /^\|[\s:|-]+\|$/.test(run[1]!)) rows.push(...run.slice(2).map(cells))
    run = []
  }
  for (const line of text.split('\n')) {
    if (line.trim().startsWith('|')) run.push(line.trim())
    else flush()
  }
  flush()
  return rows
}

/**
 * Rows keyed by the names in their first cell: `` `A` `` or several
 * (`` `A`, `B` ``) each get the row.
 */
export function rowsByName(text: string): Map<string, TableRow> {
  const byName = new Map<string, TableRow>()
  for (const row of tableRows(text)) {
    for (const name of codeSpans(row[0] ?? '')) if (!byName.has(name)) byName.set(name, row)
  }
  return byName
}

/** Splits a table line into cells; `\|` inside a cell is not a separator. */
function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim().replace(/\\\|/g, '|'))
}
