import { LitElement, css, html, nothing } from 'lit'
import { customElement, property, query, state } from 'lit/decorators.js'
import { GateSavedEvent, GateDeleteEvent, PageChangeEvent, SortChangeEvent } from '../lib/events.ts'
import { formatCount, formatRate, rateBand } from '../lib/format.ts'
import { ApiError } from '../lib/api-error.ts'
import type { HubContext } from '../lib/hub-context.ts'
import { HeadingFocus } from '../lib/heading-focus.ts'
import { LoadController } from '../lib/load-controller.ts'
import {
  GATE_SEARCH_FIELDS,
  GATE_SORTS,
  gateQueryToString,
  hasGateFilters,
  parseGateQuery,
} from '../lib/query-string.ts'
import type { GateListQuery, GateSearchField, GateSort } from '../lib/query-string.ts'
import { gatePath, navigate, overviewPath } from '../lib/router.ts'
import { sharedStyles } from '../styles/shared.ts'
import type { ConfirmDialog } from './confirm-dialog.ts'
import './confirm-dialog.ts'
import './empty-state.ts'
import './error-state.ts'
import './gate-form.ts'
import type { GateForm } from './gate-form.ts'
import './gate-table.ts'
import './loading-state.ts'
import './page-nav.ts'
import './stats-cards.ts'
import type { StatItem } from './stats-cards.ts'

const SEARCH_LABELS: Readonly<Record<GateSearchField, string>> = {
  name: 'Name',
  live_url: 'Live URL',
  shadow_url: 'Shadow URL',
}

/** Typing pauses this long before the list reloads. */
const SEARCH_DEBOUNCE_MS = 250

/** Global stats and the gates: which gates are differing? */
@customElement('overview-page')
export class OverviewPage extends LitElement {
  static override styles = [
    sharedStyles,
    css`
      :host {
        display: grid;
        /* minmax(0, …): wide tables scroll inside their card instead of widening the page. */
        grid-template-columns: minmax(0, 1fr);
        gap: 20px;
      }
      .head {
        display: flex;
        align-items: center;
        justify-content: space-between;
        gap: 12px;
        flex-wrap: wrap;
      }
      .toolbar {
        display: flex;
        align-items: end;
        gap: 8px;
        flex-wrap: wrap;
      }
      .toolbar .field input {
        width: 18rem;
        max-width: 100%;
      }
      .notice {
        padding: 8px 12px;
        border-radius: var(--radius);
        background: var(--ok-soft);
        color: var(--ok);
      }
      .new-gate {
        padding: 16px;
      }
      .new-gate h2 {
        margin-bottom: 12px;
      }
    `,
  ]

  @property({ attribute: false }) hub!: HubContext
  /** `location.search` without the `?`. */
  @property() search = ''

  @state() private _creating = false
  /** The field picked in the search select, before any text is typed. */
  @state() private _field: GateSearchField | undefined
  /** What the user typed, ahead of the debounced URL update. */
  @state() private _typed: string | undefined
  @state() private _notice = ''
  @query('confirm-dialog') private _confirm!: ConfirmDialog
  @query('gate-form') private _form: GateForm | undefined
  #searchTimer: ReturnType<typeof setTimeout> | undefined
  /** The last query this page navigated to itself. */
  #ownSearch: string | undefined

  private _heading = new HeadingFocus(this)

  private _stats = new LoadController(
    this,
    ([hub], signal) => hub.api.getStats(signal),
    () => (this.hub ? ([this.hub] as const) : undefined),
  )

  private _gates = new LoadController(
    this,
    ([hub, search], signal) => hub.api.listGates(parseGateQuery(search), signal),
    () => (this.hub ? ([this.hub, this.search] as const) : undefined),
  )

  override disconnectedCallback() {
    super.disconnectedCallback()
    clearTimeout(this.#searchTimer)
  }

  override willUpdate(changed: Map<PropertyKey, unknown>) {
    // The URL changed under us (back button, a link): the box follows it.
    if (changed.has('search') && this.search !== this.#ownSearch) {
      this._typed = undefined
      this._field = undefined
      clearTimeout(this.#searchTimer)
    }
  }

  /** Focus target after a route change. */
  focusHeading() {
    this._heading.request()
  }

  override render() {
    const q = parseGateQuery(this.search)
    const field = this._activeField(q)
    return html`
      <div class="head">
        <h1 tabindex="-1">Overview</h1>
        <button class="primary" @click=${this._onNew} aria-expanded=${this._creating ? 'true' : 'false'} aria-controls="new-gate">
          New gate
        </button>
      </div>
      ${this._renderStats()}
      <section id="new-gate" class="card new-gate" ?hidden=${!this._creating} aria-labelledby="new-gate-title">
        <h2 id="new-gate-title">New gate</h2>
        <gate-form .api=${this.hub?.api} @gate-saved=${this._onCreated} @cancel=${this._onCancelNew}></gate-form>
      </section>
      ${this._notice ? html`<div class="notice" role="status">${this._notice}</div>` : nothing}
      <section class="card" aria-labelledby="gates-title">
        <div class="card-header">
          <h2 id="gates-title">Gates</h2>
          <form class="toolbar" role="search" @submit=${(e: Event) => e.preventDefault()}>
            <div class="field">
              <label for="search-field" class="visually-hidden">Search in</label>
              <select id="search-field" @change=${this._onSearchField}>
                ${GATE_SEARCH_FIELDS.map(
                  (f) => html`<option value=${f} ?selected=${f === field}>${SEARCH_LABELS[f]}</option>`,
                )}
              </select>
            </div>
            <div class="field">
              <label for="search" class="visually-hidden">Search gates</label>
              <input
                id="search"
                type="search"
                placeholder="Search by ${SEARCH_LABELS[field].toLowerCase()}…"
                .value=${this._typed ?? q[field]}
                @input=${this._onSearchInput}
              />
            </div>
          </form>
        </div>
        ${this._renderGates(q)}
      </section>
      <confirm-dialog></confirm-dialog>
    `
  }

  private _renderStats() {
    const s = this._stats.value
    if (!s) {
      return this._stats.error
        ? nothing // The gates section shows the error; one message is enough.
        : html`<stats-cards .items=${PLACEHOLDER_STATS} label="Global statistics"></stats-cards>`
    }
    const items: StatItem[] = [
      { label: 'Gates', value: formatCount(s.total_gates) },
      { label: 'Requests, last 24 h', value: formatCount(s.total_requests_24h) },
      {
        label: 'Diff rate, last 24 h',
        value: formatRate(s.total_diff_rate),
        tone: rateBand(s.total_diff_rate),
        hint: 'Requests whose shadow response differed',
      },
    ]
    return html`<stats-cards .items=${items} label="Global statistics"></stats-cards>`
  }

  private _renderGates(q: GateListQuery) {
    const c = this._gates
    if (c.error) {
      return html`<error-state .error=${c.error} .config=${this.hub.config} thing="Gates" @retry=${this._onRetry}></error-state>`
    }
    if (!c.value) return html`<loading-state label="Loading gates…"></loading-state>`
    const page = c.value
    if (page.items.length === 0) {
      if (hasGateFilters(q)) {
        return html`<empty-state heading="No gate matches">
          Nothing matches this search. <button class="link" @click=${this._onClearSearch}>Clear the search</button>
        </empty-state>`
      }
      if (page.pagination.total > 0) {
        return html`<empty-state heading="Past the last page">
          <button class="link" @click=${() => this._go({ ...q, offset: 0 })}>Back to the first page</button>
        </empty-state>`
      }
      return html`<empty-state heading="No gates yet">
        A gate pairs a live and a shadow URL. Create one, then point a proxy at it with its id.
      </empty-state>`
    }
    return html`<gate-table
        .gates=${page.items}
        sort=${q.sort}
        order=${q.order}
        ?pending=${c.pending}
        @sort-change=${this._onSort}
        @gate-delete=${this._onDelete}
      ></gate-table>
      <page-nav .pagination=${page.pagination} noun="gates" @page-change=${this._onPage}></page-nav>`
  }

  private _go(q: GateListQuery, replace = false) {
    const search = gateQueryToString(q)
    this.#ownSearch = search
    navigate(overviewPath(search), { replace })
  }

  /** The search box edits one filter: the one picked, else the first set, else the name. */
  private _activeField(q: GateListQuery): GateSearchField {
    return this._field ?? GATE_SEARCH_FIELDS.find((f) => q[f] !== '') ?? 'name'
  }

  private _onNew() {
    this._creating = !this._creating
    this._notice = ''
    if (this._creating) void this.updateComplete.then(() => this._form?.focus())
  }

  private _onCancelNew() {
    this._creating = false
  }

  private _onCreated(event: GateSavedEvent) {
    this._creating = false
    this._notice = `Gate "${event.gate.name}" created.`
    navigate(gatePath(event.gate.id))
  }

  private async _onDelete(event: GateDeleteEvent) {
    const gate = event.gate
    const ok = await this._confirm.ask({
      title: `Delete gate "${gate.name}"?`,
      message: 'This deletes the gate and all its captured requests. It cannot be undone.',
      confirmLabel: 'Delete gate',
      danger: true,
    })
    if (!ok) return
    try {
      await this.hub.api.deleteGate(gate.id)
      this._notice = `Gate "${gate.name}" deleted.`
    } catch (error) {
      // Deleted elsewhere meanwhile (another tab, the retention cleanup): what was asked is done.
      if (error instanceof ApiError && error.status === 404) {
        this._notice = `Gate "${gate.name}" was already deleted.`
        this._gates.reload()
        this._stats.reload()
        return
      }
      this._notice = ''
      this._gates.error = error
      this.requestUpdate()
      return
    }
    this._gates.reload()
    this._stats.reload()
  }

  private _onSort(event: SortChangeEvent) {
    const q = parseGateQuery(this.search)
    const sort = (GATE_SORTS as readonly string[]).includes(event.sort) ? (event.sort as GateSort) : q.sort
    this._go({ ...q, sort, order: event.order, offset: 0 })
  }

  private _onPage(event: PageChangeEvent) {
    this._go({ ...parseGateQuery(this.search), offset: event.offset, limit: event.limit })
  }

  private _onSearchField(event: Event) {
    const q = parseGateQuery(this.search)
    const text = this._typed ?? q[this._activeField(q)]
    const field = (event.target as HTMLSelectElement).value as GateSearchField
    this._field = field
    if (text) this._go({ ...q, name: '', live_url: '', shadow_url: '', [field]: text, offset: 0 })
  }

  private _onSearchInput(event: Event) {
    this._typed = (event.target as HTMLInputElement).value
    clearTimeout(this.#searchTimer)
    this.#searchTimer = setTimeout(() => {
      const q = parseGateQuery(this.search)
      this._go({ ...q, [this._activeField(q)]: this._typed ?? '', offset: 0 }, true)
    }, SEARCH_DEBOUNCE_MS)
  }

  private _onClearSearch() {
    this._typed = undefined
    this._go({ ...parseGateQuery(this.search), name: '', live_url: '', shadow_url: '', offset: 0 })
  }

  private _onRetry() {
    this._gates.reload()
    this._stats.reload()
  }
}

const PLACEHOLDER_STATS: StatItem[] = [
  { label: 'Gates', value: '…' },
  { label: 'Requests, last 24 h', value: '…' },
  { label: 'Diff rate, last 24 h', value: '…' },
]

declare global {
  interface HTMLElementTagNameMap {
    'overview-page': OverviewPage
  }
}
