import { LitElement, css, html } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { PageChangeEvent } from '../lib/events.ts'
import { formatCount } from '../lib/format.ts'
import { PAGE_SIZES, lastPageOffset } from '../lib/query-string.ts'
import type { PaginationMeta } from '../lib/types.ts'
import { sharedStyles } from '../styles/shared.ts'

/**
 * Offset pagination (docs/reference/api.md "Conventions", Pages): first,
 * previous, next, last and the page size. Jumping to the last page of 100,000
 * captures is one request, not a walk.
 */
@customElement('page-nav')
export class PageNav extends LitElement {
  static override styles = [
    sharedStyles,
    css`
      :host {
        display: flex;
        align-items: center;
        justify-content: space-between;
        flex-wrap: wrap;
        gap: 8px 16px;
        padding: 10px 16px;
        border-top: 1px solid var(--border);
      }
      .range {
        color: var(--muted);
        font-variant-numeric: tabular-nums;
      }
      .controls {
        display: flex;
        align-items: center;
        gap: 6px;
        flex-wrap: wrap;
      }
      label {
        font-weight: 400;
        color: var(--muted);
        margin-right: 4px;
      }
      select {
        margin-right: 8px;
      }
    `,
  ]

  @property({ attribute: false }) pagination: PaginationMeta | undefined
  /** What is being paged, for the accessible name: "gates", "requests". */
  @property() noun = 'items'

  override render() {
    const p = this.pagination
    if (!p) return html``
    const first = p.total === 0 ? 0 : p.offset + 1
    const last = Math.min(p.offset + p.limit, p.total)
    const lastOffset = lastPageOffset(p.total, p.limit)
    const atStart = p.offset === 0
    const atEnd = !p.has_more
    return html`<span class="range" aria-live="polite">
        ${formatCount(first)}–${formatCount(last)} of ${formatCount(p.total)} ${this.noun}
      </span>
      <nav class="controls" aria-label="Pages of ${this.noun}">
        <label for="size">Per page</label>
        <select id="size" @change=${this._onSize} .value=${String(p.limit)}>
          ${sizesWith(p.limit).map((n) => html`<option value=${n} ?selected=${n === p.limit}>${n}</option>`)}
        </select>
        <button class="small" ?disabled=${atStart} @click=${() => this._go(0)} aria-label="First page">«</button>
        <button class="small" ?disabled=${atStart} @click=${() => this._go(Math.max(0, p.offset - p.limit))}>
          ‹ Previous
        </button>
        <button class="small" ?disabled=${atEnd} @click=${() => this._go(p.offset + p.limit)}>Next ›</button>
        <button class="small" ?disabled=${atEnd} @click=${() => this._go(lastOffset)} aria-label="Last page">»</button>
      </nav>`
  }

  private _go(offset: number) {
    if (this.pagination) this.dispatchEvent(new PageChangeEvent(offset, this.pagination.limit))
  }

  private _onSize(event: Event) {
    const limit = Number((event.target as HTMLSelectElement).value)
    this.dispatchEvent(new PageChangeEvent(0, limit))
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'page-nav': PageNav
  }
}

/**
 * The sizes offered, with the page's own when a link set another
 * (`?limit=10`): otherwise the select would show 25 while 10 rows are
 * listed, and choosing 25 would change nothing it could notice.
 */
function sizesWith(limit: number): number[] {
  const sizes: readonly number[] = PAGE_SIZES
  return sizes.includes(limit) ? [...sizes] : [...sizes, limit].sort((a, b) => a - b)
}
