import { LitElement, css, html } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { SortChangeEvent } from '../lib/events.ts'
import type { SortOrder } from '../lib/query-string.ts'
import { sharedStyles } from '../styles/shared.ts'

/**
 * The button inside a sortable column header. The header cell itself
 * carries `aria-sort` (set by the table); this toggles the order, starting
 * with ascending for text columns and descending for times.
 */
@customElement('sort-header')
export class SortHeader extends LitElement {
  static override styles = [
    sharedStyles,
    css`
      :host {
        font: inherit;
        color: inherit;
      }
      button {
        min-height: 0;
        padding: 0;
        border: 0;
        background: none;
        color: inherit;
        font: inherit;
        text-transform: inherit;
        letter-spacing: inherit;
      }
      button:hover:not(:disabled) {
        background: none;
        color: var(--text);
      }
      .arrow {
        display: inline-block;
        width: 1em;
        color: var(--accent);
      }
      .inactive {
        color: var(--border-strong);
      }
    `,
  ]

  /** The API sort key this column sorts by. */
  @property() key = ''
  @property() label = ''
  /** The list's current sort key and order. */
  @property() sort = ''
  @property() order: SortOrder = 'desc'
  /** Order on first activation. */
  @property() initial: SortOrder = 'asc'

  override render() {
    const active = this.sort === this.key
    const arrow = active ? (this.order === 'asc' ? '▲' : '▼') : '↕'
    return html`<button @click=${this._onClick}>
      ${this.label}<span class="arrow ${active ? '' : 'inactive'}" aria-hidden="true">${arrow}</span>
    </button>`
  }

  private _onClick() {
    const order: SortOrder =
      this.sort === this.key ? (this.order === 'asc' ? 'desc' : 'asc') : this.initial
    this.dispatchEvent(new SortChangeEvent(this.key, order))
  }
}

/** `aria-sort` value for a column header. */
export function ariaSort(key: string, sort: string, order: SortOrder): 'ascending' | 'descending' | 'none' {
  if (key !== sort) return 'none'
  return order === 'asc' ? 'ascending' : 'descending'
}

declare global {
  interface HTMLElementTagNameMap {
    'sort-header': SortHeader
  }
}
