import { LitElement, css, html, nothing } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { canonicalHeaderName } from '../lib/body.ts'
import type { Mark } from '../lib/diff-highlight.ts'
import type { HeaderMap } from '../lib/types.ts'
import { sharedStyles } from '../styles/shared.ts'

/** Header name and values, sorted by name, with diff marks per header. */
@customElement('headers-table')
export class HeadersTable extends LitElement {
  static override styles = [
    sharedStyles,
    css`
      :host {
        display: block;
      }
      table {
        font-size: 12.5px;
      }
      th,
      td {
        padding: 4px 8px;
        vertical-align: top;
      }
      th[scope='row'] {
        width: 38%;
        background: none;
        color: var(--text);
        font-family: var(--mono);
        font-size: 12.5px;
        font-weight: 600;
        text-transform: none;
        letter-spacing: 0;
        white-space: normal;
        overflow-wrap: anywhere;
      }
      td {
        font-family: var(--mono);
        overflow-wrap: anywhere;
      }
      tr.m-added {
        background: var(--added-bg);
        box-shadow: inset 3px 0 0 var(--added);
      }
      tr.m-removed {
        background: var(--removed-bg);
        box-shadow: inset 3px 0 0 var(--removed);
      }
      tr.m-changed {
        background: var(--changed-bg);
        box-shadow: inset 3px 0 0 var(--changed);
      }
      tr.m-removed td {
        text-decoration: line-through;
        text-decoration-color: rgb(179 38 30 / 50%);
      }
      .value + .value {
        border-top: 1px dashed var(--border);
      }
      .empty {
        color: var(--muted);
        font-style: italic;
        padding: 4px 8px;
      }
      tr.flash {
        outline: 3px solid var(--focus);
        outline-offset: -3px;
      }
    `,
  ]

  @property({ attribute: false }) headers: HeaderMap = {}
  /** Canonical header name → mark. */
  @property({ attribute: false }) marks: ReadonlyMap<string, Mark> = new Map()
  @property() label = 'Headers'

  /** Scrolls to a header's row and outlines it for a moment. */
  reveal(name: string): boolean {
    const row = this.renderRoot.querySelector<HTMLElement>(`tr[data-name="${CSS.escape(canonicalHeaderName(name))}"]`)
    if (!row) return false
    row.scrollIntoView({ block: 'center' })
    row.classList.add('flash')
    setTimeout(() => row.classList.remove('flash'), 1200)
    return true
  }

  override render() {
    const names = Object.keys(this.headers).sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()))
    if (names.length === 0) return html`<div class="empty">No headers</div>`
    return html`<table>
      <caption class="visually-hidden">${this.label}</caption>
      <tbody>
        ${names.map((name) => {
          const canonical = canonicalHeaderName(name)
          const mark = this.marks.get(canonical)
          return html`<tr class=${mark ? `m-${mark}` : ''} data-name=${canonical}>
            <th scope="row">${canonical}${mark ? html`<span class="visually-hidden"> (${mark})</span>` : nothing}</th>
            <td>${(this.headers[name] ?? []).map((v) => html`<div class="value">${v}</div>`)}</td>
          </tr>`
        })}
      </tbody>
    </table>`
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'headers-table': HeadersTable
  }
}
