import { LitElement, css, html } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import type { FiltersChangeEvent, PageChangeEvent, SortChangeEvent } from '../lib/events.ts'
import type { HubContext } from '../lib/hub-context.ts'
import { LoadController } from '../lib/load-controller.ts'
import { REQUEST_SORTS, hasRequestFilters, parseRequestQuery, requestQueryToString } from '../lib/query-string.ts'
import type { RequestListQuery, RequestSort } from '../lib/query-string.ts'
import { gateRequestsPath, navigate } from '../lib/router.ts'
import { sharedStyles } from '../styles/shared.ts'
import './empty-state.ts'
import './error-state.ts'
import './loading-state.ts'
import './page-nav.ts'
import './request-filters.ts'
import './request-table.ts'
import { DEFAULT_THRESHOLDS } from '../../../src/verdict/verdict-thresholds.ts'

/**
 * A gate's captured requests with every listRequests filter, sort and
 * page in the URL (`/gates/<id>/requests?has_diff=true&signature=…`).
 */
@customElement('gate-requests')
export class GateRequests extends LitElement {
  static override styles = [
    sharedStyles,
    css`
      :host {
        display: block;
      }
      .filters {
        padding: 14px 16px;
        border-bottom: 1px solid var(--border);
        background: #fbfcfd;
      }
    `,
  ]

  @property({ attribute: false }) hub!: HubContext
  @property() gateId = ''
  @property() search = ''
  /** getVerdict's max_latency_ratio for the gate, which marks a shadow "slower". */
  @property({ attribute: false }) latencyLimit = DEFAULT_THRESHOLDS.max_latency_ratio

  private _requests = new LoadController(
    this,
    ([hub, id, search], signal) => hub.api.listRequests(id, parseRequestQuery(search), signal),
    () => (this.hub ? ([this.hub, this.gateId, this.search] as const) : undefined),
  )

  override render() {
    const q = parseRequestQuery(this.search)
    return html`<section class="card" aria-labelledby="requests-title">
      <div class="card-header">
        <h2 id="requests-title">Captured requests</h2>
        <button class="small" @click=${() => this._requests.reload()} ?disabled=${this._requests.pending}>Refresh</button>
      </div>
      <div class="filters">
        <request-filters .query=${q} @filters-change=${this._onFilters}></request-filters>
      </div>
      ${this._renderRequests(q)}
    </section>`
  }

  private _renderRequests(q: RequestListQuery) {
    const c = this._requests
    if (c.error) {
      return html`<error-state .error=${c.error} .config=${this.hub.config} thing="Gate" @retry=${() => c.reload()}></error-state>`
    }
    if (!c.value) return html`<loading-state label="Loading requests…"></loading-state>`
    const page = c.value
    if (page.items.length === 0) {
      if (hasRequestFilters(q)) {
        return html`<empty-state heading="No request matches these filters">
          Widen the time range or clear a filter.
        </empty-state>`
      }
      if (page.pagination.total > 0) {
        return html`<empty-state heading="Past the last page">
          <button class="link" @click=${() => this._go({ ...q, offset: 0 })}>Back to the first page</button>
        </empty-state>`
      }
      return html`<empty-state heading="No captures yet">
        Start a proxy in API mode with <code>SVC_APP_GATE_ID=${this.gateId}</code> and send traffic through it.
      </empty-state>`
    }
    return html`<request-table
        .requests=${page.items}
        gateId=${this.gateId}
        .latencyLimit=${this.latencyLimit}
        sort=${q.sort}
        order=${q.order}
        ?pending=${c.pending}
        @sort-change=${this._onSort}
      ></request-table>
      <page-nav .pagination=${page.pagination} noun="requests" @page-change=${this._onPage}></page-nav>`
  }

  private _go(q: RequestListQuery, replace = false) {
    navigate(gateRequestsPath(this.gateId, requestQueryToString(q)), { replace })
  }

  private _onFilters(event: FiltersChangeEvent) {
    this._go(event.query, event.replace)
  }

  private _onSort(event: SortChangeEvent) {
    const q = parseRequestQuery(this.search)
    const sort = (REQUEST_SORTS as readonly string[]).includes(event.sort) ? (event.sort as RequestSort) : q.sort
    this._go({ ...q, sort, order: event.order, offset: 0 })
  }

  private _onPage(event: PageChangeEvent) {
    this._go({ ...parseRequestQuery(this.search), offset: event.offset, limit: event.limit })
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'gate-requests': GateRequests
  }
}
