import { gateViewPath } from './router.ts'
import { fieldPathError } from './validation.ts'

/**
 * The diff settings' URL: `?ignore=<field path>` (repeated) opens the
 * editor with those `ignored_fields` entries added and their preview shown,
 * not yet saved. What the Differences view's "Ignore" actions link to.
 */

/** More is a hand-made URL: the settings take what a person can review. */
export const MAX_PREFILL = 50

/** The entries of a settings URL: valid field paths, duplicates and blanks dropped, at most MAX_PREFILL. */
export function parseIgnoreParam(search: string | URLSearchParams): string[] {
  const params = typeof search === 'string' ? new URLSearchParams(search) : search
  const out: string[] = []
  for (const raw of params.getAll('ignore')) {
    const path = raw.trim()
    if (path && fieldPathError(path) === undefined && !out.includes(path)) out.push(path)
  }
  return out.slice(0, MAX_PREFILL)
}

/** The settings of a gate with `fields` to add to its ignored_fields. */
export function ignoreSettingsPath(gateId: string, fields: readonly string[]): string {
  const params = new URLSearchParams()
  for (const field of fields.slice(0, MAX_PREFILL)) params.append('ignore', field)
  return gateViewPath(gateId, 'settings', params.toString())
}
