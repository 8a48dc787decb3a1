import { LitElement, css, html } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { formatCount, formatRate, formatRelative, formatTime } from '../lib/format.ts'
import { DEFAULT_REQUEST_QUERY, requestQueryToString } from '../lib/query-string.ts'
import type { SortOrder } from '../lib/query-string.ts'
import { gateRequestsPath, requestPath } from '../lib/router.ts'
import { signatureLine } from '../lib/signature-line.ts'
import type { SignatureStats } from '../lib/types.ts'
import { sharedStyles } from '../styles/shared.ts'
import { ariaSort } from './sort-header.ts'
import './sort-header.ts'

/**
 * The kinds of difference of a gate in a window (docs/insights.md
 * "Signatures"), each as its one-line summary, with how often and since
 * when, an example capture and the list of every capture that shows it.
 */
@customElement('signature-table')
export class SignatureTable extends LitElement {
  static override styles = [
    sharedStyles,
    css`
      :host {
        display: block;
      }
      .busy {
        opacity: 0.6;
      }
      td.summary {
        min-width: 22rem;
      }
      .line {
        display: flex;
        align-items: baseline;
        gap: 8px;
      }
      .line code {
        overflow-wrap: anywhere;
      }
      /* A summary that wraps must not squeeze the kind's pill. */
      .line .badge {
        flex-shrink: 0;
      }
      .endpoint {
        font-weight: 650;
      }
      .id {
        display: block;
        margin-top: 2px;
        color: var(--muted);
        font-size: 11.5px;
      }
      td.when {
        white-space: nowrap;
      }
      td.links {
        white-space: nowrap;
      }
      td.links a + a {
        margin-left: 12px;
      }
    `,
  ]

  @property({ attribute: false }) signatures: readonly SignatureStats[] = []
  @property() gateId = ''
  /** The window's start, carried into each signature's request list. */
  @property() from = ''
  /** The window's end, carried with `from`: the list holds the count. */
  @property() to = ''
  @property() sort = 'count'
  @property() order: SortOrder = 'desc'
  @property({ type: Boolean }) pending = false

  override render() {
    const th = (key: string, label: string, cls = '') =>
      html`<th scope="col" class=${cls} aria-sort=${ariaSort(key, this.sort, this.order)}>
        <sort-header key=${key} label=${label} sort=${this.sort} order=${this.order} initial="desc"></sort-header>
      </th>`
    return html`<div class="table-wrap">
      <table class=${this.pending ? 'busy' : ''} aria-busy=${this.pending ? 'true' : 'false'}>
        <caption class="visually-hidden">Signatures: kinds of difference</caption>
        <thead>
          <tr>
            <th scope="col">Difference</th>
            ${th('count', 'Count', 'num')}
            <th scope="col" class="num" title="Of the captures with a difference or a failure in the window">Share</th>
            ${th('first_seen', 'First seen')} ${th('last_seen', 'Last seen')}
            <th scope="col"><span class="visually-hidden">Links</span></th>
          </tr>
        </thead>
        <tbody>
          ${this.signatures.map((s) => this._row(s))}
        </tbody>
      </table>
    </div>`
  }

  private _row(s: SignatureStats) {
    const summary = signatureLine(s)
    const endpoint = `${s.method} ${s.template}`
    // The endpoint part in bold when the summary starts with it (control characters are escaped otherwise).
    const split = summary.startsWith(`${endpoint}: `)
    const search = requestQueryToString({ ...DEFAULT_REQUEST_QUERY, signature: s.id, from: this.from, to: this.to })
    const described = `sig-${s.id}`
    return html`<tr data-signature=${s.id} data-kind=${s.kind}>
      <td class="summary">
        <div class="line">
          ${s.kind === 'error'
            ? html`<span class="badge status-err">error</span>`
            : html`<span class="badge diff-yes">diff</span>`}
          <code id=${described} class="text"
            >${split
              ? html`<span class="endpoint">${endpoint}</span>: ${summary.slice(endpoint.length + 2)}`
              : summary}</code
          >
        </div>
        <span class="id mono" title="Signature id">${s.id}</span>
      </td>
      <td class="num count">${formatCount(s.count)}</td>
      <td class="num share">${formatRate(s.share)}</td>
      <td class="when"><time datetime=${s.first_seen} title=${formatTime(s.first_seen)}>${formatRelative(s.first_seen)}</time></td>
      <td class="when"><time datetime=${s.last_seen} title=${formatTime(s.last_seen)}>${formatRelative(s.last_seen)}</time></td>
      <td class="links">
        ${s.example_request_id
          ? html`<a class="example" href=${requestPath(this.gateId, s.example_request_id)} aria-describedby=${described}>Example</a>`
          : html`<span class="muted">No example</span>`}
        <a class="requests" href=${gateRequestsPath(this.gateId, search)} aria-describedby=${described}>Show requests</a>
      </td>
    </tr>`
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'signature-table': SignatureTable
  }
}
