import { LitElement, css, html } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { formatCount } from '../lib/format.ts'
import type { SortOrder } from '../lib/query-string.ts'
import { opMark } from '../lib/signature-line.ts'
import type { FieldStats } from '../lib/types.ts'
import { sharedStyles } from '../styles/shared.ts'
import './diff-rate.ts'
import { ariaSort } from './sort-header.ts'
import './sort-header.ts'

/**
 * Which fields differ, per endpoint, in a window: each generalised
 * `(op, path)` with how many captures showed it and what share of the
 * endpoint's captures that is.
 */
@customElement('field-table')
export class FieldTable extends LitElement {
  static override styles = [
    sharedStyles,
    css`
      :host {
        display: block;
      }
      .busy {
        opacity: 0.6;
      }
      td.endpoint {
        white-space: nowrap;
      }
      td.path {
        min-width: 14rem;
      }
      td.path code {
        overflow-wrap: anywhere;
      }
      .badge {
        font-family: var(--font);
        white-space: nowrap;
      }
    `,
  ]

  @property({ attribute: false }) fields: readonly FieldStats[] = []
  @property() sort = 'count'
  @property() order: SortOrder = 'desc'
  @property({ type: Boolean }) pending = false

  override render() {
    const th = (key: string, label: string, initial: SortOrder, cls = '') =>
      html`<th scope="col" class=${cls} aria-sort=${ariaSort(key, this.sort, this.order)}>
        <sort-header key=${key} label=${label} sort=${this.sort} order=${this.order} initial=${initial}></sort-header>
      </th>`
    return html`<div class="table-wrap">
      <table class=${this.pending ? 'busy' : ''} aria-busy=${this.pending ? 'true' : 'false'}>
        <caption class="visually-hidden">Fields that differ</caption>
        <thead>
          <tr>
            <th scope="col">Endpoint</th>
            <th scope="col">Change</th>
            ${th('path', 'Field', 'asc')} ${th('count', 'Count', 'desc', 'num')}
            ${th('rate', 'Of the endpoint’s requests', 'desc')}
          </tr>
        </thead>
        <tbody>
          ${this.fields.map((f) => this._row(f))}
        </tbody>
      </table>
    </div>`
  }

  private _row(f: FieldStats) {
    const mark = opMark(f.op)
    return html`<tr data-path=${f.path} data-op=${f.op}>
      <td class="endpoint"><span class="method">${f.method}</span><span class="mono">${f.template}</span></td>
      <td><span class="badge ${mark.cls}">${mark.label}</span></td>
      <td class="path"><code>${f.path === '' ? '(whole document)' : f.path}</code></td>
      <td class="num count">${formatCount(f.count)}</td>
      <td><diff-rate .rate=${f.rate}></diff-rate></td>
    </tr>`
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'field-table': FieldTable
  }
}
