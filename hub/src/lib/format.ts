/** Display formatting shared by the pages; pure and locale-aware. */

const integer = new Intl.NumberFormat('en-US')

export function formatCount(n: number): string {
  return integer.format(n)
}

/** 0.0734 → `7.3%`; 0 → `0%`; 1 → `100%`. */
export function formatRate(rate: number): string {
  if (!Number.isFinite(rate)) return '–'
  const pct = rate * 100
  if (pct === 0 || pct === 100) return `${pct}%`
  return `${pct < 0.1 ? pct.toFixed(2) : pct.toFixed(1)}%`
}

/**
 * Width of a diff-rate bar, in percent of the track: a square-root scale,
 * so the rates gates actually show (mostly under 20%) are told apart
 * (0.2% → 4.5, 5% → 22, 11% → 33, 100% → 100). A non-zero rate is at
 * least a sliver (3).
 */
export function rateBarPercent(rate: number): number {
  if (!(rate > 0)) return 0
  return Math.max(3, Math.min(100, Math.sqrt(rate) * 100))
}

/** Severity band of a diff rate, for colour: none, low (< 1%), medium (< 10%), high. */
export function rateBand(rate: number): 'none' | 'low' | 'medium' | 'high' {
  if (!(rate > 0)) return 'none'
  if (rate < 0.01) return 'low'
  if (rate < 0.1) return 'medium'
  return 'high'
}

export function formatLatency(ms: number): string {
  return ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${integer.format(ms)} ms`
}

/**
 * Made once: `Date#toLocaleString(locale, options)` builds a new formatter on
 * every call, which cost ~0.4 ms a call here, ~40 ms for each page turn of
 * the requests table (measured in Chromium on the real-API perf test).
 */
const dateTime = new Intl.DateTimeFormat('en-GB', {
  year: 'numeric',
  month: 'short',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
})

/** Absolute local time, precise to the second. */
export function formatTime(rfc3339: string): string {
  const t = new Date(rfc3339)
  if (Number.isNaN(t.getTime())) return rfc3339
  return dateTime.format(t)
}

/** `3 min ago`, `2 h ago`, `5 d ago`; `now` within a minute. */
export function formatRelative(rfc3339: string | null, now = Date.now()): string {
  if (!rfc3339) return 'never'
  const t = Date.parse(rfc3339)
  if (Number.isNaN(t)) return rfc3339
  const s = Math.round((now - t) / 1000)
  if (s < 60) return s < -60 ? formatTime(rfc3339) : 'just now'
  if (s < 3600) return `${Math.floor(s / 60)} min ago`
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`
  return `${Math.floor(s / 86_400)} d ago`
}

/** Class suffix of an HTTP status: `2xx`..`5xx`, or `err` for 0 (shadow failed). */
export function statusClass(status: number): string {
  if (status <= 0) return 'err'
  return `${Math.min(5, Math.floor(status / 100))}xx`
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`
  return `${(n / 1024 / 1024).toFixed(1)} MB`
}

/**
 * Characters that reorder the text around them (bidirectional controls:
 * LRM, RLM, ALM, the embeddings, overrides and isolates). JSON leaves them
 * as they are, so a captured value holding U+202E flipped the row it was
 * shown in ("gnp.exe" read as "exe.png") and the badge after it.
 */
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g

/** JSON text of `value` with bidirectional controls written as \u escapes, which JSON reads back the same. */
export function visibleJson(value: unknown): string {
  return (JSON.stringify(value) ?? 'undefined').replace(BIDI_CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}
