import { LitElement, css, html, nothing } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { formatLatency, formatTime, statusClass } from '../lib/format.ts'
import type { SortOrder } from '../lib/query-string.ts'
import { requestPath } from '../lib/router.ts'
import type { RequestSummary, ResponseSummary } from '../lib/types.ts'
import { sharedStyles } from '../styles/shared.ts'
import { ariaSort } from './sort-header.ts'
import './sort-header.ts'
import { failsLatencyCheck } from '../../../src/verdict/evaluate-verdict.ts'
import { DEFAULT_THRESHOLDS } from '../../../src/verdict/verdict-thresholds.ts'

/** Captured requests of a gate, live and shadow side by side. */
@customElement('request-table')
export class RequestTable extends LitElement {
  static override styles = [
    sharedStyles,
    css`
      :host {
        display: block;
      }
      .busy {
        opacity: 0.6;
      }
      .path {
        display: inline-block;
        max-width: 34rem;
        overflow: hidden;
        text-overflow: ellipsis;
        white-space: nowrap;
        vertical-align: bottom;
      }
      .query {
        color: var(--muted);
      }
      .resp {
        display: inline-flex;
        align-items: center;
        gap: 8px;
        white-space: nowrap;
      }
      .latency {
        min-width: 4.5em;
        color: var(--muted);
        font-variant-numeric: tabular-nums;
        text-align: right;
      }
      .slower {
        color: var(--warn);
        font-weight: 600;
      }
      td.when {
        white-space: nowrap;
      }
      th.side {
        border-left: 1px solid var(--border);
      }
      td.side {
        border-left: 1px solid var(--border);
      }
      tr.has-diff td:first-child {
        box-shadow: inset 3px 0 0 var(--changed);
      }
    `,
  ]

  @property({ attribute: false }) requests: readonly RequestSummary[] = []
  @property() gateId = ''
  @property() sort = 'created_at'
  @property() order: SortOrder = 'desc'
  @property({ type: Boolean }) pending = false
  /** getVerdict's max_latency_ratio for the gate: a shadow over it is "slower", as on the endpoints. */
  @property({ attribute: false }) latencyLimit = DEFAULT_THRESHOLDS.max_latency_ratio

  override render() {
    const th = (key: string, label: string, initial: SortOrder) =>
      html`<th scope="col" aria-sort=${ariaSort(key, this.sort, this.order)}>
        <sort-header key=${key} label=${label} sort=${this.sort} order=${this.order} initial=${initial}></sort-header>
      </th>`
    return html`<div class="table-wrap">
      <table class=${this.pending ? 'busy' : ''} aria-busy=${this.pending ? 'true' : 'false'}>
        <caption class="visually-hidden">Captured requests</caption>
        <thead>
          <tr>
            ${th('created_at', 'Captured', 'desc')} ${th('method', 'Method', 'asc')} ${th('path', 'Path', 'asc')}
            <th scope="col" class="side">Live</th>
            <th scope="col" class="side">Shadow</th>
            <th scope="col">Diff</th>
          </tr>
        </thead>
        <tbody>
          ${this.requests.map((r) => this._row(r))}
        </tbody>
      </table>
    </div>`
  }

  private _row(r: RequestSummary) {
    const href = requestPath(this.gateId, r.id)
    // Both links open the request; only the path is a Tab stop, so a page of 50 rows is 50 stops, not 100.
    return html`<tr class=${r.has_diff ? 'has-diff' : ''}>
      <td class="when"><a href=${href} tabindex="-1"><time datetime=${r.created_at}>${formatTime(r.created_at)}</time></a></td>
      <td><span class="method">${r.method}</span></td>
      <td>
        <a class="path mono" href=${href} title=${r.path + (r.raw_query ? `?${r.raw_query}` : '')}
          >${r.path}${r.raw_query ? html`<span class="query">?${r.raw_query}</span>` : nothing}</a
        >
      </td>
      <td class="side">${response(r.live_response, false)}</td>
      <td class="side">${response(r.shadow_response, failsLatencyCheck(r.live_response.latency_ms, r.shadow_response.latency_ms, this.latencyLimit))}</td>
      <td>
        ${diffBadge(r)}
      </td>
    </tr>`
  }
}

/**
 * A failed side (status 0) is counted as a diff with an empty patch
 * (docs/hub.md "How the diff is highlighted"): say it was not compared.
 */
function diffBadge(r: RequestSummary) {
  if (!r.has_diff) return html`<span class="badge diff-no">same</span>`
  if (r.live_response.status_code === 0 || r.shadow_response.status_code === 0) {
    return html`<span class="badge status-err" title="Not compared: a service did not answer">error</span>`
  }
  return html`<span class="badge diff-yes">diff</span>`
}

function response(res: ResponseSummary, slower: boolean) {
  return html`<span class="resp">
    <span class="badge status-${statusClass(res.status_code)}" title=${res.status_code === 0 ? 'no response (error)' : ''}
      >${res.status_code === 0 ? 'ERR' : res.status_code}</span
    >
    <span class="latency ${slower ? 'slower' : ''}">${formatLatency(res.latency_ms)}</span>
  </span>`
}

declare global {
  interface HTMLElementTagNameMap {
    'request-table': RequestTable
  }
}
