/**
 * List filters ⇄ query string. The hub's URL uses the API's own parameter names
 * (docs/reference/api.md "listGates" and "listRequests"), so a deep link such
 * as `/gates/<id>?has_diff=true&method=GET,POST` is also the API query. Parsing
 * is forgiving: a value the API would reject with 400 is dropped and its
 * default used, so a hand-edited URL never breaks the page. Serialising omits
 * defaults, which keeps links short and canonical.
 */

import { parseDateTime } from '../../../src/text/date-time.ts'

export const ORDERS = ['asc', 'desc'] as const
export type SortOrder = (typeof ORDERS)[number]

export const GATE_SORTS = ['id', 'name', 'live_url', 'shadow_url', 'created_at'] as const
export type GateSort = (typeof GATE_SORTS)[number]

export const GATE_SEARCH_FIELDS = ['name', 'live_url', 'shadow_url'] as const
export type GateSearchField = (typeof GATE_SEARCH_FIELDS)[number]

export const REQUEST_SORTS = ['created_at', 'method', 'path'] as const
export type RequestSort = (typeof REQUEST_SORTS)[number]

export const HAS_DIFF_CHOICES = ['any', 'true', 'false'] as const
export type HasDiffChoice = (typeof HAS_DIFF_CHOICES)[number]

/** Offered as checkboxes; the URL may carry any other method token too. */
export const COMMON_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const

/** Page size 1 to 100, default 50 (docs/reference/api.md "Conventions"). */
export const PAGE_SIZES = [25, 50, 100] as const
export const DEFAULT_LIMIT = 50
export const MAX_LIMIT = 100

export interface GateListQuery {
  readonly name: string
  readonly live_url: string
  readonly shadow_url: string
  readonly sort: GateSort
  readonly order: SortOrder
  readonly offset: number
  readonly limit: number
}

export interface RequestListQuery {
  readonly method: readonly string[]
  readonly path: string
  /** RFC 3339, or empty. */
  readonly from: string
  readonly to: string
  readonly has_diff: HasDiffChoice
  /** A diff signature id (docs/insights.md "Signature ids"), or empty. */
  readonly signature: string
  /** A route template, matched exactly, or empty. */
  readonly template: string
  readonly sort: RequestSort
  readonly order: SortOrder
  readonly offset: number
  readonly limit: number
}

export const DEFAULT_GATE_QUERY: GateListQuery = Object.freeze({
  name: '',
  live_url: '',
  shadow_url: '',
  sort: 'created_at',
  order: 'desc',
  offset: 0,
  limit: DEFAULT_LIMIT,
})

export const DEFAULT_REQUEST_QUERY: RequestListQuery = Object.freeze({
  method: Object.freeze([]) as readonly string[],
  path: '',
  from: '',
  to: '',
  has_diff: 'any',
  signature: '',
  template: '',
  sort: 'created_at',
  order: 'desc',
  offset: 0,
  limit: DEFAULT_LIMIT,
})

/** The parameters of a request list URL, so that an older gate link can be told apart. */
export const REQUEST_QUERY_KEYS = Object.keys(DEFAULT_REQUEST_QUERY) as readonly (keyof RequestListQuery)[]

type Search = string | URLSearchParams

export function parseGateQuery(search: Search): GateListQuery {
  const p = params(search)
  const d = DEFAULT_GATE_QUERY
  return {
    name: p.get('name') ?? d.name,
    live_url: p.get('live_url') ?? d.live_url,
    shadow_url: p.get('shadow_url') ?? d.shadow_url,
    sort: oneOf(GATE_SORTS, p.get('sort'), d.sort),
    order: oneOf(ORDERS, p.get('order'), d.order),
    offset: offsetOf(p.get('offset')),
    limit: limitOf(p.get('limit')),
  }
}

export function gateQueryToString(q: GateListQuery): string {
  const d = DEFAULT_GATE_QUERY
  const out = new URLSearchParams()
  for (const field of GATE_SEARCH_FIELDS) if (q[field]) out.set(field, q[field])
  if (q.sort !== d.sort) out.set('sort', q.sort)
  if (q.order !== d.order) out.set('order', q.order)
  if (q.offset > 0) out.set('offset', String(q.offset))
  if (q.limit !== d.limit) out.set('limit', String(q.limit))
  return out.toString()
}

export function parseRequestQuery(search: Search): RequestListQuery {
  const p = params(search)
  const d = DEFAULT_REQUEST_QUERY
  return {
    method: methodsOf(p.get('method')),
    path: p.get('path') ?? d.path,
    from: timeOf(p.get('from')),
    to: timeOf(p.get('to')),
    has_diff: oneOf(HAS_DIFF_CHOICES, p.get('has_diff'), d.has_diff),
    signature: signatureOf(p.get('signature')),
    template: templateOf(p.get('template')),
    sort: oneOf(REQUEST_SORTS, p.get('sort'), d.sort),
    order: oneOf(ORDERS, p.get('order'), d.order),
    offset: offsetOf(p.get('offset')),
    limit: limitOf(p.get('limit')),
  }
}

export function requestQueryToString(q: RequestListQuery): string {
  const d = DEFAULT_REQUEST_QUERY
  const out = new URLSearchParams()
  const methods = normaliseMethods(q.method)
  if (methods.length) out.set('method', methods.join(','))
  if (q.path) out.set('path', q.path)
  if (q.from) out.set('from', q.from)
  if (q.to) out.set('to', q.to)
  if (q.has_diff !== 'any') out.set('has_diff', q.has_diff)
  if (q.signature) out.set('signature', q.signature)
  if (q.template) out.set('template', q.template)
  if (q.sort !== d.sort) out.set('sort', q.sort)
  if (q.order !== d.order) out.set('order', q.order)
  if (q.offset > 0) out.set('offset', String(q.offset))
  if (q.limit !== d.limit) out.set('limit', String(q.limit))
  return out.toString()
}

/** True when any filter (not sort or paging) narrows the list. */
export function hasRequestFilters(q: RequestListQuery): boolean {
  return (
    q.method.length > 0 ||
    q.path !== '' ||
    q.from !== '' ||
    q.to !== '' ||
    q.has_diff !== 'any' ||
    q.signature !== '' ||
    q.template !== ''
  )
}

export function hasGateFilters(q: GateListQuery): boolean {
  return GATE_SEARCH_FIELDS.some((f) => q[f] !== '')
}

/** Offset of the last page for `total` items; 0 when there are none. */
export function lastPageOffset(total: number, limit: number): number {
  return total > 0 ? Math.floor((total - 1) / limit) * limit : 0
}

/** `2024-05-01T10:00` (an `<input type=datetime-local>` value) → RFC 3339 UTC. */
export function fromDateTimeLocal(local: string): string {
  if (!local) return ''
  const t = new Date(local)
  return Number.isNaN(t.getTime()) ? '' : t.toISOString()
}

/**
 * An upper bound picked as a minute (`Captured to 10:05`) means through the
 * end of that minute: the API's `to` is inclusive and exact to the
 * microsecond, so 10:05:00.000 would leave out the rest of 10:05.
 */
export function endOfDateTimeLocal(local: string): string {
  const start = fromDateTimeLocal(local)
  return start === '' ? '' : new Date(Date.parse(start) + 59_999).toISOString()
}

/** RFC 3339 → `YYYY-MM-DDTHH:mm` in the browser's time zone. */
export function toDateTimeLocal(rfc3339: string): string {
  if (!rfc3339) return ''
  const t = new Date(rfc3339)
  if (Number.isNaN(t.getTime())) return ''
  const pad = (n: number) => String(n).padStart(2, '0')
  return (
    `${t.getFullYear()}-${pad(t.getMonth() + 1)}-${pad(t.getDate())}` +
    `T${pad(t.getHours())}:${pad(t.getMinutes())}`
  )
}

function params(search: Search): URLSearchParams {
  return typeof search === 'string' ? new URLSearchParams(search) : search
}

function oneOf<T extends string>(allowed: readonly T[], value: string | null, fallback: T): T {
  return value !== null && (allowed as readonly string[]).includes(value) ? (value as T) : fallback
}

function offsetOf(value: string | null): number {
  const n = intOf(value)
  return n !== undefined && n >= 0 ? n : 0
}

function limitOf(value: string | null): number {
  const n = intOf(value)
  return n !== undefined && n >= 1 && n <= MAX_LIMIT ? n : DEFAULT_LIMIT
}

function intOf(value: string | null): number | undefined {
  return value !== null && /^\d{1,9}$/.test(value) ? Number(value) : undefined
}

/** A time the API accepts (the API's own check: `2026-02-30` or a year below 1000 is dropped), else ''. */
function timeOf(value: string | null): string {
  return value && parseDateTime(value) !== undefined ? value : ''
}

/** Whether `text` is a signature id: 16 hex digits (docs/insights.md "Signature ids"). */
export function isSignatureId(text: string): boolean {
  return /^[0-9a-f]{16}$/.test(text)
}

/** A signature id, lower-cased; anything else is dropped. */
function signatureOf(value: string | null): string {
  const id = value?.trim().toLowerCase() ?? ''
  return isSignatureId(id) ? id : ''
}

/** Any template but one the API cannot store (a NUL). */
function templateOf(value: string | null): string {
  return value && !value.includes('\0') ? value : ''
}

function methodsOf(value: string | null): string[] {
  return value ? normaliseMethods(value.split(',')) : []
}

/** Upper-cased HTTP method tokens (RFC 9110 §9.1), without duplicates or blanks. */
export function normaliseMethods(methods: readonly string[]): string[] {
  const out: string[] = []
  for (const raw of methods) {
    const m = raw.trim().toUpperCase()
    if (/^[A-Z]+$/.test(m) && !out.includes(m)) out.push(m)
  }
  return out
}
