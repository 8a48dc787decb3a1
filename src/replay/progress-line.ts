/** Where a replay stands, for its progress display. */
export interface ProgressSnapshot {
  readonly done: number
  /** Captures to go through in all; undefined when unknown. */
  readonly total: number | undefined
  readonly diffs: number
  readonly elapsedMs: number
}

const BAR_WIDTH = 24

/** Requests per second so far. */
function rateOf(snapshot: ProgressSnapshot): number {
  return snapshot.elapsedMs > 0 ? (snapshot.done * 1000) / snapshot.elapsedMs : 0
}

/** Time left at the rate so far, as `1m05s`; `?` without a total or a rate yet. */
export function eta(snapshot: ProgressSnapshot): string {
  const rate = rateOf(snapshot)
  if (snapshot.total === undefined || rate === 0) return '?'
  const seconds = Math.max(0, Math.ceil((snapshot.total - snapshot.done) / rate))
  const minutes = Math.floor(seconds / 60)
  return minutes > 0 ? `${minutes}m${String(seconds % 60).padStart(2, '0')}s` : `${seconds}s`
}

function counts(snapshot: ProgressSnapshot): string {
  return `${snapshot.done}/${snapshot.total ?? '?'}`
}

/** The terminal's progress bar, one line redrawn in place: `[#####-----] 512/1000  830 req/s  diffs 3  ETA 1s`. */
export function progressBar(snapshot: ProgressSnapshot): string {
  const share = snapshot.total ? Math.min(1, snapshot.done / snapshot.total) : 0
  const filled = Math.round(share * BAR_WIDTH)
  const bar = '#'.repeat(filled) + '-'.repeat(BAR_WIDTH - filled)
  return `[${bar}] ${counts(snapshot)}  ${Math.round(rateOf(snapshot))} req/s  diffs ${snapshot.diffs}  ETA ${eta(snapshot)}`
}

/** The same facts as a plain line, for a log that is not a terminal. */
export function progressLine(snapshot: ProgressSnapshot): string {
  return `replay: ${counts(snapshot)} done, ${Math.round(rateOf(snapshot))} req/s, ${snapshot.diffs} diffs, ETA ${eta(snapshot)}`
}
