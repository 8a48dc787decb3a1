import { LitElement, css, html } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { GateDeleteEvent } from '../lib/events.ts'
import { formatCount, formatRelative, formatTime } from '../lib/format.ts'
import type { SortOrder } from '../lib/query-string.ts'
import { gatePath } from '../lib/router.ts'
import type { Gate } from '../lib/types.ts'
import { sharedStyles } from '../styles/shared.ts'
import './diff-rate.ts'
import { ariaSort } from './sort-header.ts'
import './sort-header.ts'
// The API hands the proxy its upstreams' credentials; a screen needs only the address.
import { withoutPassword } from '../../../src/net/base-url.ts'

/** The gates of one page: which are differing, and how much traffic they see. */
@customElement('gate-table')
export class GateTable extends LitElement {
  static override styles = [
    sharedStyles,
    css`
      :host {
        display: block;
      }
      table {
        table-layout: auto;
      }
      .name a {
        font-weight: 600;
        white-space: nowrap;
      }
      /* URL columns share what the other columns leave, cut with an ellipsis. */
      td.url-cell {
        max-width: 0;
        width: 24%;
      }
      .url {
        display: block;
        overflow: hidden;
        text-overflow: ellipsis;
        white-space: nowrap;
      }
      .busy {
        opacity: 0.6;
        transition: opacity 0.2s;
      }
      td.actions {
        text-align: right;
        width: 1%;
      }
      .when {
        white-space: nowrap;
      }
      @media (max-width: 1100px) {
        .hide-medium {
          display: none;
        }
      }
      @media (max-width: 720px) {
        .hide-narrow {
          display: none;
        }
        th {
          white-space: normal;
        }
      }
      @media (max-width: 520px) {
        .hide-small {
          display: none;
        }
      }
    `,
  ]

  @property({ attribute: false }) gates: readonly Gate[] = []
  @property() sort = 'created_at'
  @property() order: SortOrder = 'desc'
  /** Dim the rows while the next page loads. */
  @property({ type: Boolean }) pending = false

  override render() {
    const th = (key: string, label: string, initial: SortOrder = 'asc', cls = '') =>
      html`<th scope="col" class=${cls} aria-sort=${ariaSort(key, this.sort, this.order)}>
        <sort-header key=${key} label=${label} sort=${this.sort} order=${this.order} initial=${initial}></sort-header>
      </th>`
    return html`<div class="table-wrap">
      <table class=${this.pending ? 'busy' : ''} aria-busy=${this.pending ? 'true' : 'false'}>
        <caption class="visually-hidden">Gates</caption>
        <thead>
          <tr>
            ${th('name', 'Name')} ${th('live_url', 'Live URL', 'asc', 'hide-small')}
            ${th('shadow_url', 'Shadow URL', 'asc', 'hide-narrow')}
            <th scope="col" class="num">Requests 24 h</th>
            <th scope="col">Diff rate</th>
            <th scope="col" class="hide-narrow">Last active</th>
            ${th('created_at', 'Created', 'desc', 'hide-medium')}
            <th scope="col"><span class="visually-hidden">Actions</span></th>
          </tr>
        </thead>
        <tbody>
          ${this.gates.map((g) => this._row(g))}
        </tbody>
      </table>
    </div>`
  }

  private _row(g: Gate) {
    return html`<tr data-gate-id=${g.id}>
      <td class="name"><a href=${gatePath(g.id)}>${g.name}</a></td>
      <td class="url-cell hide-small"><span class="url mono" title=${withoutPassword(g.live_url)}>${withoutPassword(g.live_url)}</span></td>
      <td class="url-cell hide-narrow"><span class="url mono" title=${withoutPassword(g.shadow_url)}>${withoutPassword(g.shadow_url)}</span></td>
      <td class="num">${formatCount(g.stats.request_count_24h)}</td>
      <td><diff-rate .rate=${g.stats.diff_rate}></diff-rate></td>
      <td class="when hide-narrow">
        ${g.stats.last_active
          ? html`<time datetime=${g.stats.last_active} title=${formatTime(g.stats.last_active)}
              >${formatRelative(g.stats.last_active)}</time
            >`
          : html`<span class="muted">never</span>`}
      </td>
      <td class="when hide-medium">
        <time datetime=${g.created_at} title=${formatTime(g.created_at)}>${formatRelative(g.created_at)}</time>
      </td>
      <td class="actions">
        <button class="danger small" @click=${() => this._onDelete(g)} aria-label="Delete gate ${g.name}">
          Delete
        </button>
      </td>
    </tr>`
  }

  private _onDelete(gate: Gate) {
    this.dispatchEvent(new GateDeleteEvent(gate))
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'gate-table': GateTable
  }
}
