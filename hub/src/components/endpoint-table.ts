import { LitElement, css, html } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { formatCount, formatLatency } from '../lib/format.ts'
import { DEFAULT_REQUEST_QUERY, requestQueryToString } from '../lib/query-string.ts'
import type { SortOrder } from '../lib/query-string.ts'
import { gateRequestsPath } from '../lib/router.ts'
import type { EndpointStats, LatencyPercentiles } from '../lib/types.ts'
import { failsLatencyCheck } from '../../../src/verdict/evaluate-verdict.ts'
import { DEFAULT_THRESHOLDS } from '../../../src/verdict/verdict-thresholds.ts'
import { sharedStyles } from '../styles/shared.ts'
import './diff-rate.ts'
import { ariaSort } from './sort-header.ts'
import './sort-header.ts'

/**
 * A gate's endpoints in a window (docs/insights.md "Endpoints"): how many
 * captures, how many differ or failed, and live against shadow latency.
 * Each endpoint links to its captured requests in the same window.
 */
@customElement('endpoint-table')
export class EndpointTable extends LitElement {
  static override styles = [
    sharedStyles,
    css`
      :host {
        display: block;
      }
      .busy {
        opacity: 0.6;
      }
      .endpoint {
        display: inline-flex;
        align-items: baseline;
        gap: 4px;
        max-width: 30rem;
        text-decoration: none;
      }
      .endpoint .template {
        overflow: hidden;
        text-overflow: ellipsis;
        white-space: nowrap;
        text-decoration: underline;
        text-underline-offset: 2px;
      }
      td.latency {
        white-space: nowrap;
        font-variant-numeric: tabular-nums;
      }
      th.side,
      td.side {
        border-left: 1px solid var(--border);
      }
      .slower {
        color: var(--warn);
        font-weight: 600;
      }
      .has-errors {
        color: var(--danger);
        font-weight: 600;
      }
      .none {
        color: var(--muted);
      }
    `,
  ]

  @property({ attribute: false }) endpoints: readonly EndpointStats[] = []
  @property() gateId = ''
  /** The window's start, carried into each endpoint's request list. */
  @property() from = ''
  /** The window's end, carried with `from`: the list holds the count. */
  @property() to = ''
  /** getVerdict's max_latency_ratio for the gate: a shadow over it is "slower". */
  @property({ attribute: false }) latencyLimit = DEFAULT_THRESHOLDS.max_latency_ratio
  @property() sort = 'diff_rate'
  @property() order: SortOrder = 'desc'
  @property({ type: Boolean }) pending = false

  override render() {
    const th = (key: string, label: string, initial: SortOrder, cls = '') =>
      html`<th scope="col" class=${cls} aria-sort=${ariaSort(key, this.sort, this.order)}>
        <sort-header key=${key} label=${label} sort=${this.sort} order=${this.order} initial=${initial}></sort-header>
      </th>`
    // Focusable, so that a keyboard can scroll to the latency columns a narrow window hides (nothing there takes focus).
    return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Endpoints table">
      <table class=${this.pending ? 'busy' : ''} aria-busy=${this.pending ? 'true' : 'false'}>
        <caption class="visually-hidden">Endpoints</caption>
        <thead>
          <tr>
            ${th('template', 'Endpoint', 'asc')} ${th('requests', 'Requests', 'desc', 'num')}
            ${th('diff_rate', 'Diff rate', 'desc')} ${th('diffs', 'Diffs', 'desc', 'num')}
            ${th('errors', 'Errors', 'desc', 'num')}
            <th scope="col" class="side num" title="Median / 95th percentile">Live p50 / p95</th>
            <th scope="col" class="num" title="Median / 95th percentile">Shadow p50 / p95</th>
          </tr>
        </thead>
        <tbody>
          ${this.endpoints.map((e) => this._row(e))}
        </tbody>
      </table>
    </div>`
  }

  private _row(e: EndpointStats) {
    const search = requestQueryToString({ ...DEFAULT_REQUEST_QUERY, method: [e.method], template: e.template, from: this.from, to: this.to })
    return html`<tr data-template=${e.template} data-method=${e.method}>
      <td>
        <a class="endpoint" href=${gateRequestsPath(this.gateId, search)} title="Captured requests of ${e.method} ${e.template}">
          <span class="method">${e.method}</span><span class="template mono">${e.template}</span>
        </a>
      </td>
      <td class="num requests">${formatCount(e.requests)}</td>
      <td><diff-rate .rate=${e.diff_rate}></diff-rate></td>
      <td class="num diffs">${formatCount(e.diffs)}</td>
      <td class="num errors ${e.errors > 0 ? 'has-errors' : 'none'}">${formatCount(e.errors)}</td>
      <td class="latency side num">${percentiles(e.live_latency_ms, false)}</td>
      <td class="latency num">${percentiles(e.shadow_latency_ms, failsLatencyCheck(e.live_latency_ms.p95, e.shadow_latency_ms.p95, this.latencyLimit))}</td>
    </tr>`
  }
}

function percentiles(p: LatencyPercentiles, isSlower: boolean) {
  const ms = (v: number | null) => (v === null ? '–' : formatLatency(v))
  return html`<span class=${isSlower ? 'slower' : ''} title=${isSlower ? 'Shadow is slower than live' : ''}
    >${ms(p.p50)} / ${ms(p.p95)}</span
  >`
}

declare global {
  interface HTMLElementTagNameMap {
    'endpoint-table': EndpointTable
  }
}
