import { LitElement, css, html } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import type { FiltersChangeEvent, GateSavedEvent, PageChangeEvent, SortChangeEvent } from '../lib/events.ts'
import { formatCount, formatRate, formatRelative, formatTime, rateBand } from '../lib/format.ts'
import type { HubContext } from '../lib/hub-context.ts'
import { HeadingFocus } from '../lib/heading-focus.ts'
import { LoadController } from '../lib/load-controller.ts'
import { REQUEST_SORTS, hasRequestFilters, parseRequestQuery, requestQueryToString } from '../lib/query-string.ts'
import type { RequestListQuery, RequestSort } from '../lib/query-string.ts'
import { gatePath, navigate } from '../lib/router.ts'
import type { Gate } from '../lib/types.ts'
import { pageStyles, sharedStyles } from '../styles/shared.ts'
import './copy-button.ts'
import './diff-config-form.ts'
import './empty-state.ts'
import './error-state.ts'
import './loading-state.ts'
import './page-nav.ts'
import './request-filters.ts'
import './request-table.ts'
import './stats-cards.ts'
import type { StatItem } from './stats-cards.ts'
// The API hands the proxy its upstreams' credentials; a screen needs only the address.
import { withoutPassword } from '../../../src/net/base-url.ts'

/** One gate: its stats, its captured requests, and its diff settings. */
@customElement('gate-page')
export class GatePage extends LitElement {
  static override styles = [
    sharedStyles,
    pageStyles,
    css`
      .head {
        display: flex;
        justify-content: space-between;
        align-items: flex-start;
        gap: 12px;
        flex-wrap: wrap;
      }
      .urls {
        display: grid;
        grid-template-columns: auto 1fr;
        gap: 2px 10px;
        margin: 8px 0 0;
      }
      .urls dt {
        color: var(--muted);
        font-weight: 600;
      }
      .urls dd {
        margin: 0;
        overflow-wrap: anywhere;
      }
      .id {
        display: flex;
        align-items: center;
        gap: 8px;
      }
      .filters {
        padding: 14px 16px;
        border-bottom: 1px solid var(--border);
        background: #fbfcfd;
      }
      .settings .card-body {
        padding-top: 12px;
      }
    `,
  ]

  @property({ attribute: false }) hub!: HubContext
  @property() gateId = ''
  @property() search = ''

  private _heading = new HeadingFocus(this)

  private _gate = new LoadController(
    this,
    ([hub, id], signal) => hub.api.getGate(id, signal),
    () => (this.hub ? ([this.hub, this.gateId] as const) : undefined),
  )

  private _config = new LoadController(
    this,
    ([hub], signal) => hub.api.getConfig(signal),
    () => (this.hub ? ([this.hub] as const) : undefined),
  )

  private _requests = new LoadController(
    this,
    ([hub, id, search], signal) => hub.api.listRequests(id, parseRequestQuery(search), signal),
    () => (this.hub ? ([this.hub, this.gateId, this.search] as const) : undefined),
  )

  focusHeading() {
    this._heading.request()
  }

  override render() {
    const gate = this._gate.value?.id === this.gateId ? this._gate.value : undefined
    if (this._gate.error && !gate) {
      return html`<error-state .error=${this._gate.error} .config=${this.hub.config} thing="Gate" @retry=${() => this._gate.reload()}></error-state>`
    }
    if (!gate) return html`<loading-state label="Loading gate…"></loading-state>`
    const q = parseRequestQuery(this.search)
    return html`
      <header>
        <nav aria-label="Breadcrumb">
          <ol class="crumbs">
            <li><a href="/">Overview</a></li>
            <li aria-current="page">${gate.name}</li>
          </ol>
        </nav>
        <div class="head">
          <div>
            <h1 tabindex="-1">${gate.name}</h1>
            <dl class="urls">
              <dt>Live</dt>
              <dd class="mono">${withoutPassword(gate.live_url)}</dd>
              <dt>Shadow</dt>
              <dd class="mono">${withoutPassword(gate.shadow_url)}</dd>
            </dl>
          </div>
          <div class="id">
            <span class="muted">Gate id <code>${gate.id}</code></span>
            <copy-button label="Copy id" .text=${() => gate.id}></copy-button>
          </div>
        </div>
      </header>
      <stats-cards .items=${gateStats(gate)} label="Gate statistics"></stats-cards>
      <section class="card" aria-labelledby="requests-title">
        <div class="card-header">
          <h2 id="requests-title">Captured requests</h2>
          <button class="small" @click=${() => this._requests.reload()} ?disabled=${this._requests.pending}>Refresh</button>
        </div>
        <div class="filters">
          <request-filters .query=${q} @filters-change=${this._onFilters}></request-filters>
        </div>
        ${this._renderRequests(q)}
      </section>
      <section class="card settings" aria-labelledby="settings-title">
        <div class="card-header"><h2 id="settings-title">Diff settings</h2></div>
        <div class="card-body">
          <diff-config-form
            .api=${this.hub.api}
            .gate=${gate}
            .floor=${this._config.value?.retention}
            @gate-saved=${this._onSaved}
          ></diff-config-form>
        </div>
      </section>
    `
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
        sort=${q.sort}
        order=${q.order}
        ?pending=${c.pending}
        @sort-change=${this._onSort}
      ></request-table>
      <page-nav .pagination=${page.pagination} noun="requests" @page-change=${this._onPage}></page-nav>`
  }

  private _go(q: RequestListQuery, replace = false) {
    navigate(gatePath(this.gateId, requestQueryToString(q)), { replace })
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

  private _onSaved(event: GateSavedEvent) {
    this._gate.value = event.gate
    this.requestUpdate()
  }
}

function gateStats(g: Gate): StatItem[] {
  const s = g.stats
  return [
    { label: 'Requests, last 24 h', value: formatCount(s.request_count_24h) },
    { label: 'With a diff, last 24 h', value: formatCount(s.diff_count_24h) },
    { label: 'Diff rate, last 24 h', value: formatRate(s.diff_rate), tone: rateBand(s.diff_rate) },
    {
      label: 'Last active',
      value: formatRelative(s.last_active),
      hint: s.last_active ? formatTime(s.last_active) : 'No capture yet',
    },
  ]
}

declare global {
  interface HTMLElementTagNameMap {
    'gate-page': GatePage
  }
}
