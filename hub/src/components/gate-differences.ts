import { LitElement, css, html, nothing } from 'lit'
import type { TemplateResult } from 'lit'
import { customElement, property, state } from 'lit/decorators.js'
import { IgnoreFieldsEvent } from '../lib/events.ts'
import type { PageChangeEvent, SortChangeEvent } from '../lib/events.ts'
import { formatCount, formatRelative, formatTime } from '../lib/format.ts'
import type { HubContext } from '../lib/hub-context.ts'
import {
  DEFAULT_WINDOW,
  ENDPOINT_SORTS,
  FIELD_SORTS,
  SIGNATURE_SORTS,
  WINDOW_LABELS,
  sortKeyOf,
  countedWindow,
} from '../lib/insights-query.ts'
import type { EndpointSort, FieldSort, InsightWindow, SignatureSort, TableState } from '../lib/insights-query.ts'
import { LoadController } from '../lib/load-controller.ts'
import { DEFAULT_REQUEST_QUERY, requestQueryToString } from '../lib/query-string.ts'
import { gateRequestsPath } from '../lib/router.ts'
import { SIGNATURE_KINDS } from '../lib/types.ts'
import { DEFAULT_THRESHOLDS } from '../../../src/verdict/verdict-thresholds.ts'
import type { Page, SignatureKind, Suggestion } from '../lib/types.ts'
import { chipStyles, sharedStyles } from '../styles/shared.ts'
import './empty-state.ts'
import './endpoint-table.ts'
import './error-state.ts'
import './field-table.ts'
import './loading-state.ts'
import './page-nav.ts'
import './signature-table.ts'
import './suggestion-list.ts'
import './window-select.ts'

type KindChoice = 'any' | SignatureKind

/** What a table's states read from its LoadController. */
type Loaded<T> = Pick<LoadController<T, readonly unknown[]>, 'value' | 'error' | 'pending' | 'reload'>
const KIND_LABELS: Readonly<Record<KindChoice, string>> = { any: 'All', diff: 'Diffs', error: 'Errors' }

const FIRST_ENDPOINTS: TableState<EndpointSort> = { sort: 'diff_rate', order: 'desc', offset: 0, limit: 25 }
const FIRST_SIGNATURES: TableState<SignatureSort> = { sort: 'count', order: 'desc', offset: 0, limit: 10 }
const FIRST_FIELDS: TableState<FieldSort> = { sort: 'count', order: 'desc', offset: 0, limit: 25 }

/**
 * What differs on a gate, where and how often, in a time window
 * (docs/insights.md): the ignore rules the API suggests, its endpoints,
 * its kinds of difference (signatures) and the fields that differ. The window comes from the URL; each table
 * keeps its own sort and page. All three read from one `from`, fixed when
 * the window is chosen or refreshed, which the links to requests carry.
 */
@customElement('gate-differences')
export class GateDifferences extends LitElement {
  static override styles = [
    sharedStyles,
    chipStyles,
    css`
      :host {
        display: grid;
        grid-template-columns: minmax(0, 1fr);
        gap: 20px;
      }
      .toolbar {
        display: flex;
        align-items: center;
        flex-wrap: wrap;
        gap: 8px 16px;
      }
      .toolbar .since {
        color: var(--muted);
      }
      .toolbar button {
        margin-left: auto;
      }
      .card-header .count {
        color: var(--muted);
        font-weight: 400;
      }
      .kinds {
        display: flex;
        align-items: center;
        gap: 8px;
      }
      .suggestions .card-body {
        padding: 12px 16px;
      }
      .suggestions p {
        margin: 0;
      }
      .kinds legend {
        float: left;
        margin: 0 4px 0 0;
        color: var(--muted);
      }
    `,
  ]

  @property({ attribute: false }) hub!: HubContext
  @property() gateId = ''
  @property() window: InsightWindow = DEFAULT_WINDOW
  /** The gate's last capture (its stats); null for a gate that never had one. */
  @property({ attribute: false }) lastActive: string | null = null
  /** The gate's max_latency_ratio for getVerdict, which marks a shadow "slower" too. */
  @property({ attribute: false }) latencyLimit = DEFAULT_THRESHOLDS.max_latency_ratio

  /** The window's start for every read of the view (RFC 3339). */
  @state() private _from = ''
  /**
   * Its end: the last whole minute when the view was read. Every read and
   * every link to a list carries it, so that a list opened from a count
   * holds that count while captures keep arriving.
   */
  @state() private _to = ''
  @state() private _endpoints = FIRST_ENDPOINTS
  @state() private _signatures = FIRST_SIGNATURES
  @state() private _kind: KindChoice = 'any'
  @state() private _fields = FIRST_FIELDS

  private _endpointPage = new LoadController(
    this,
    ([hub, id, from, to, t], signal) => hub.api.listEndpoints(id, { from, to, ...t }, signal),
    () => (this.hub && this._from ? ([this.hub, this.gateId, this._from, this._to, this._endpoints] as const) : undefined),
  )

  private _signaturePage = new LoadController(
    this,
    ([hub, id, from, to, t, kind], signal) =>
      hub.api.listSignatures(id, { from, to, ...t, ...(kind === 'any' ? {} : { kind }) }, signal),
    () => (this.hub && this._from ? ([this.hub, this.gateId, this._from, this._to, this._signatures, this._kind] as const) : undefined),
  )

  private _fieldPage = new LoadController(
    this,
    ([hub, id, from, to, t], signal) => hub.api.listFields(id, { from, to, ...t }, signal),
    () => (this.hub && this._from ? ([this.hub, this.gateId, this._from, this._to, this._fields] as const) : undefined),
  )

  private _suggestionPage = new LoadController(
    this,
    ([hub, id, from, to], signal) => hub.api.listSuggestions(id, { from, to }, signal),
    () => (this.hub && this._from ? ([this.hub, this.gateId, this._from, this._to] as const) : undefined),
  )

  override willUpdate(changed: Map<PropertyKey, unknown>) {
    if (changed.has('window') || changed.has('gateId') || this._from === '') {
      this._readWindow()
      this._endpoints = { ...this._endpoints, offset: 0 }
      this._signatures = { ...this._signatures, offset: 0 }
      this._fields = { ...this._fields, offset: 0 }
    }
  }

  /** Whether the gate's captures came after the window's end: in the minute still filling (countedWindow). */
  private _fillingMinuteOnly(): boolean {
    return this.lastActive !== null && Date.parse(this.lastActive) > Date.parse(this._to)
  }

  override updated(): void {
    // Nothing counted yet but captures in the minute under way: read again once it has ended.
    const endpoints = this._endpointPage.value
    if (endpoints?.pagination.total === 0 && this._fillingMinuteOnly() && this._minuteTimer === undefined) {
      this._minuteTimer = setTimeout(() => {
        this._minuteTimer = undefined
        this.refresh()
      }, 61_000 - (Date.now() % 60_000))
    }
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback()
    clearTimeout(this._minuteTimer)
    this._minuteTimer = undefined
  }

  private _minuteTimer: ReturnType<typeof setTimeout> | undefined

  /** Reads the three tables again, for a window that ends now. */
  refresh(): void {
    this._readWindow()
  }

  private _readWindow(): void {
    ;({ from: this._from, to: this._to } = countedWindow(this.window))
  }

  override render() {
    const busy = this._endpointPage.pending || this._signaturePage.pending || this._fieldPage.pending || this._suggestionPage.pending
    const toolbar = html`<div class="toolbar">
      <window-select .value=${this.window}></window-select>
      <span class="since">since <time datetime=${this._from}>${formatTime(this._from)}</time></span>
      <button class="small" @click=${() => this.refresh()} ?disabled=${busy}>Refresh</button>
    </div>`
    const endpoints = this._endpointPage.value
    // No capture in the window: one empty state says so, rather than three.
    if (endpoints && !this._endpointPage.error && endpoints.pagination.total === 0) {
      return html`${toolbar}
        <section class="card" aria-labelledby="endpoints-title">
          <div class="card-header"><h2 id="endpoints-title">Endpoints</h2></div>
          ${this.lastActive === null
            ? html`<empty-state heading="No captures yet">
                Start a proxy in API mode with <code>SVC_APP_GATE_ID=${this.gateId}</code> and send traffic through it.
              </empty-state>`
            : this._fillingMinuteOnly()
              ? html`<empty-state heading="Counting this minute">
                  The captures so far came in the minute still under way, which the counts take in once it has
                  ended; the view reads them again then.
                </empty-state>`
              : html`<empty-state heading="No captures in the ${WINDOW_LABELS[this.window].toLowerCase()}">
                  The last capture came ${formatRelative(this.lastActive)}; pick a longer window.
                </empty-state>`}
        </section>`
    }
    return html`${toolbar} ${this._suggestions()}
      <section class="card" aria-labelledby="endpoints-title">
        <div class="card-header">
          <h2 id="endpoints-title">Endpoints ${this._count(endpoints)}</h2>
        </div>
        ${this._table(this._endpointPage, 'endpoints', this._endpoints, (page) =>
          html`<endpoint-table
            .endpoints=${page.items}
            gateId=${this.gateId}
            from=${this._from}
            to=${this._to}
            .latencyLimit=${this.latencyLimit}
            sort=${this._endpoints.sort}
            order=${this._endpoints.order}
            ?pending=${this._endpointPage.pending}
            @sort-change=${this._onEndpointSort}
          ></endpoint-table>`,
        )}
      </section>
      <section class="card" aria-labelledby="signatures-title">
        <div class="card-header">
          <h2 id="signatures-title">Kinds of difference ${this._count(this._signaturePage.value)}</h2>
          ${this._kindChoice()}
        </div>
        ${this._table(this._signaturePage, 'signatures', this._signatures, (page) =>
          html`<signature-table
            .signatures=${page.items}
            gateId=${this.gateId}
            from=${this._from}
            to=${this._to}
            sort=${this._signatures.sort}
            order=${this._signatures.order}
            ?pending=${this._signaturePage.pending}
            @sort-change=${this._onSignatureSort}
          ></signature-table>`,
        )}
      </section>
      <section class="card" aria-labelledby="fields-title">
        <div class="card-header">
          <h2 id="fields-title">Fields that differ ${this._count(this._fieldPage.value)}</h2>
        </div>
        ${this._table(this._fieldPage, 'fields', this._fields, (page) =>
          html`<field-table
            .fields=${page.items}
            sort=${this._fields.sort}
            order=${this._fields.order}
            ?pending=${this._fieldPage.pending}
            @sort-change=${this._onFieldSort}
          ></field-table>`,
        )}
      </section>`
  }

  /**
   * The API's suggested ignored_fields entries, first: what a newcomer fixes
   * before reading the rest. Each "Ignore", and "Ignore all", opens the
   * settings with the entries added and previewed (gate-page).
   */
  private _suggestions() {
    const c = this._suggestionPage
    const page = c.value
    const items: readonly Suggestion[] = page?.items ?? []
    let body
    if (c.error) {
      body = html`<error-state .error=${c.error} .config=${this.hub.config} thing="Gate" @retry=${() => c.reload()}></error-state>`
    } else if (!page) {
      body = html`<loading-state label="Loading suggestions…"></loading-state>`
    } else if (items.length === 0) {
      body = html`<div class="card-body">
        <p class="muted empty">
          No field looks like noise in this window. Noise checks (the proxy's <code>SVC_APP_NOISE_SAMPLE_RATE</code>) tell a field
          that differs between two answers of live from a real difference; without them, only fields that look like timestamps, ids or
          tokens and differ almost every time are suggested.
        </p>
      </div>`
    } else {
      body = html`<suggestion-list .suggestions=${items}></suggestion-list>`
    }
    return html`<section class="card suggestions" aria-labelledby="suggestions-title" aria-busy=${c.pending ? 'true' : 'false'}>
      <div class="card-header">
        <h2 id="suggestions-title">Suggested ignore rules ${this._count(page)}</h2>
        ${items.length > 1
          ? html`<button class="small ignore-all" @click=${() => this.dispatchEvent(new IgnoreFieldsEvent(items.map((s) => s.field)))}>
              Ignore all ${items.length}
            </button>`
          : nothing}
      </div>
      ${body}
    </section>`
  }

  private _count(page: Page<unknown> | undefined) {
    return page ? html`<span class="count">(${formatCount(page.pagination.total)})</span>` : nothing
  }

  private _kindChoice() {
    return html`<fieldset class="kinds">
      <legend>Show</legend>
      <div class="chips">
        ${(['any', ...SIGNATURE_KINDS] as const).map(
          (k) => html`<label class="chip">
            <input type="radio" name="kind" value=${k} .checked=${k === this._kind} @change=${this._onKind} />
            <span>${KIND_LABELS[k]}</span>
          </label>`,
        )}
      </div>
    </fieldset>`
  }

  /** A table with its loading, error, empty and past-the-end states, and its pager. */
  private _table<T, S extends string>(
    c: Loaded<Page<T>>,
    noun: 'endpoints' | 'signatures' | 'fields',
    state: TableState<S>,
    table: (page: Page<T>) => TemplateResult,
  ) {
    if (c.error) {
      return html`<error-state .error=${c.error} .config=${this.hub.config} thing="Gate" @retry=${() => c.reload()}></error-state>`
    }
    const page = c.value
    if (!page) return html`<loading-state label="Loading ${noun}…"></loading-state>`
    if (page.items.length === 0) {
      // Until the endpoints say whether the window has captures at all, an
      // empty table may yet give way to the one "No captures" state: wait.
      if (noun !== 'endpoints' && !this._endpointPage.value && !this._endpointPage.error) {
        return html`<loading-state label="Loading ${noun}…"></loading-state>`
      }
      if (page.pagination.total > 0) {
        return html`<empty-state heading="Past the last page">
          <button class="link" @click=${() => this._page(noun, 0, state.limit)}>Back to the first page</button>
        </empty-state>`
      }
      return this._empty(noun)
    }
    return html`${table(page)}
      <page-nav .pagination=${page.pagination} noun=${noun} @page-change=${(e: PageChangeEvent) => this._page(noun, e.offset, e.limit)}></page-nav>`
  }

  private _empty(noun: 'endpoints' | 'signatures' | 'fields') {
    const all = gateRequestsPath(this.gateId, requestQueryToString({ ...DEFAULT_REQUEST_QUERY, from: this._from, to: this._to }))
    if (noun === 'signatures' && this._kind !== 'any') {
      return html`<empty-state heading=${this._kind === 'diff' ? 'No differences in this window' : 'No failures in this window'}>
        ${this._kind === 'diff' ? 'Every capture that was compared matched.' : 'Live and shadow answered every capture.'}
      </empty-state>`
    }
    if (noun === 'signatures') {
      return html`<empty-state heading="No differences in this window">
        Live and shadow answered alike for every capture. <a href=${all}>See the captured requests</a>.
      </empty-state>`
    }
    return html`<empty-state heading="No field differs in this window">
      Differences in status or failures only, or none at all.
    </empty-state>`
  }

  private _page(noun: 'endpoints' | 'signatures' | 'fields', offset: number, limit: number) {
    if (noun === 'endpoints') this._endpoints = { ...this._endpoints, offset, limit }
    else if (noun === 'signatures') this._signatures = { ...this._signatures, offset, limit }
    else this._fields = { ...this._fields, offset, limit }
  }

  private _onEndpointSort(event: SortChangeEvent) {
    const sort = sortKeyOf(ENDPOINT_SORTS, event.sort, this._endpoints.sort)
    this._endpoints = { ...this._endpoints, sort, order: event.order, offset: 0 }
  }

  private _onSignatureSort(event: SortChangeEvent) {
    const sort = sortKeyOf(SIGNATURE_SORTS, event.sort, this._signatures.sort)
    this._signatures = { ...this._signatures, sort, order: event.order, offset: 0 }
  }

  private _onFieldSort(event: SortChangeEvent) {
    const sort = sortKeyOf(FIELD_SORTS, event.sort, this._fields.sort)
    this._fields = { ...this._fields, sort, order: event.order, offset: 0 }
  }

  private _onKind(event: Event) {
    this._kind = (event.target as HTMLInputElement).value as KindChoice
    this._signatures = { ...this._signatures, offset: 0 }
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'gate-differences': GateDifferences
  }
}
