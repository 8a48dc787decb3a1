import { LitElement, css, html, nothing } from 'lit'
import { customElement, property, query, state } from 'lit/decorators.js'
import { curlCommand } from '../lib/curl.ts'
import type { DiffSelectEvent } from '../lib/events.ts'
import { formatTime } from '../lib/format.ts'
import type { HubContext } from '../lib/hub-context.ts'
import { HeadingFocus } from '../lib/heading-focus.ts'
import { LoadController } from '../lib/load-controller.ts'
import { comparisonOutcome, failureText } from '../lib/outcome.ts'
import type { Outcome } from '../lib/outcome.ts'
import { loadRequestView } from '../lib/request-view.ts'
import type { RequestView } from '../lib/request-view.ts'
import { gatePath } from '../lib/router.ts'
import { pageStyles, sharedStyles } from '../styles/shared.ts'
import './body-view.ts'
import './copy-button.ts'
import './diff-list.ts'
import './empty-state.ts'
import './error-state.ts'
import './headers-table.ts'
import './loading-state.ts'
import './request-signature.ts'
import './response-panel.ts'
import type { ResponsePanel } from './response-panel.ts'

type ReplayTarget = 'live' | 'shadow'

/** One captured request: exactly how live and shadow differed. */
@customElement('request-page')
export class RequestPage extends LitElement {
  static override styles = [
    sharedStyles,
    pageStyles,
    css`
      .crumbs {
        flex-wrap: wrap;
      }
      h1 {
        display: flex;
        align-items: baseline;
        gap: 10px;
        overflow-wrap: anywhere;
        font-family: var(--mono);
        font-size: 19px;
      }
      h1 .method {
        min-width: 0;
        font-size: 19px;
      }
      /* The actions keep the top right; a long query or id wraps the facts on the left instead. */
      .head {
        display: grid;
        grid-template-columns: minmax(0, 1fr) auto;
        align-items: start;
        gap: 12px 24px;
      }
      .meta {
        display: flex;
        flex-wrap: wrap;
        gap: 4px 20px;
        margin: 8px 0 0;
      }
      .meta div {
        display: flex;
        gap: 6px;
      }
      .meta dt {
        color: var(--muted);
      }
      .meta dd {
        margin: 0;
        overflow-wrap: anywhere;
      }
      .actions {
        display: flex;
        align-items: center;
        gap: 8px;
        flex-wrap: wrap;
      }
      .replay {
        display: inline-flex;
        align-items: center;
        gap: 6px;
      }
      .replay label {
        font-weight: 400;
        color: var(--muted);
      }
      .legend {
        display: flex;
        gap: 12px;
        align-items: center;
        font-size: 12.5px;
      }
      .legend .badge {
        font-family: var(--font);
      }
      .note {
        margin: 0;
        padding: 8px 16px;
        border-bottom: 1px solid var(--border);
        background: var(--warn-soft);
        color: var(--warn);
        font-size: 12.5px;
      }
      .failed {
        margin: 16px;
        padding: 12px 16px;
        border: 1px solid #efc2bd;
        border-left: 4px solid var(--danger);
        border-radius: var(--radius);
        background: var(--danger-soft);
      }
      .failed p {
        margin: 4px 0 0;
      }
      .failed ul {
        margin: 6px 0 0;
        padding: 0;
        list-style: none;
      }
      .failed li {
        display: flex;
        gap: 8px;
        align-items: baseline;
      }
      .failed code {
        overflow-wrap: anywhere;
      }
      .side-name {
        min-width: 3.5rem;
        font-weight: 650;
        text-transform: capitalize;
      }
      .responses {
        display: grid;
        grid-template-columns: repeat(2, minmax(0, 1fr));
        gap: 16px;
        align-items: stretch;
      }
      .request-grid {
        display: grid;
        grid-template-columns: minmax(0, 2fr) minmax(0, 3fr);
        gap: 16px;
      }
      .request-grid h3 {
        margin: 0 0 6px;
        color: var(--muted);
        font-size: 12px;
        text-transform: uppercase;
        letter-spacing: 0.04em;
      }
      @media (max-width: 960px) {
        .head,
        .responses,
        .request-grid {
          grid-template-columns: 1fr;
        }
      }
    `,
  ]

  @property({ attribute: false }) hub!: HubContext
  @property() gateId = ''
  @property() requestId = ''

  @state() private _target: ReplayTarget = 'live'
  @query('response-panel[side=live]') private _livePanel: ResponsePanel | undefined
  @query('response-panel[side=shadow]') private _shadowPanel: ResponsePanel | undefined

  private _heading = new HeadingFocus(this)

  private _view = new LoadController(
    this,
    ([hub, gateId, requestId], signal) => loadRequestView(hub.api, gateId, requestId, signal),
    () => (this.hub ? ([this.hub, this.gateId, this.requestId] as const) : undefined),
  )

  focusHeading() {
    this._heading.request()
  }

  override render() {
    const v = this._view.value?.detail.id === this.requestId ? this._view.value : undefined
    if (this._view.error && !v) {
      return html`<error-state .error=${this._view.error} .config=${this.hub.config} thing="Request" @retry=${() => this._view.reload()}></error-state>`
    }
    if (!v) return html`<loading-state label="Loading request…"></loading-state>`
    return html`${this._header(v)} ${this._diff(v)}
      <section aria-label="Responses" class="responses">
        <response-panel side="live" .response=${v.detail.live_response} .body=${v.liveBody} .marks=${v.highlights.live}></response-panel>
        <response-panel side="shadow" .response=${v.detail.shadow_response} .body=${v.shadowBody} .marks=${v.highlights.shadow}></response-panel>
      </section>
      ${this._request(v)}`
  }

  private _header(v: RequestView) {
    const d = v.detail
    const outcome = comparisonOutcome(d)
    return html`<header>
      <nav aria-label="Breadcrumb">
        <ol class="crumbs">
          <li><a href="/">Overview</a></li>
          <li><a href=${gatePath(this.gateId)}>${v.gate?.name ?? 'Gate'}</a></li>
          <li aria-current="page">Request</li>
        </ol>
      </nav>
      <div class="head">
        <div>
          <h1 tabindex="-1"><span class="method">${d.method}</span><span>${d.path}</span></h1>
          <dl class="meta">
            ${d.raw_query ? html`<div><dt>Query</dt><dd class="mono">?${d.raw_query}</dd></div>` : nothing}
            <div><dt>Captured</dt><dd><time datetime=${d.created_at}>${formatTime(d.created_at)}</time></dd></div>
            <div><dt>Id</dt><dd class="mono">${d.id}</dd></div>
            <div>
              <dt>Diff</dt>
              <dd>${outcomeBadge(outcome)}</dd>
            </div>
          </dl>
          <request-signature .hub=${this.hub} gateId=${this.gateId} .detail=${d}></request-signature>
        </div>
        <div class="actions">
          <copy-button label="Copy JSON Patch" .text=${() => JSON.stringify(d.diff.content, null, 2)}></copy-button>
          <span class="replay">
            <label for="target">Replay against</label>
            <select id="target" @change=${this._onTarget} ?disabled=${!v.gate}>
              <option value="live" ?selected=${this._target === 'live'}>live</option>
              <option value="shadow" ?selected=${this._target === 'shadow'}>shadow</option>
            </select>
            <copy-button label="Copy curl" .text=${() => this._curl(v)}></copy-button>
          </span>
        </div>
      </div>
    </header>`
  }

  private _diff(v: RequestView) {
    const ops = v.highlights.ops
    const sorted = v.gate?.diff_config.sort_arrays === true
    return html`<section class="card" aria-labelledby="diff-title">
      <div class="card-header">
        <h2 id="diff-title">Differences${ops.length ? ` (${ops.length})` : ''}</h2>
        ${ops.length
          ? html`<div class="legend" aria-hidden="true">
              <span class="badge mark-changed">changed</span>
              <span class="badge mark-removed">only live</span>
              <span class="badge mark-added">only shadow</span>
            </div>`
          : nothing}
      </div>
      ${sorted && ops.length
        ? html`<p class="note">
            This gate sorts arrays before comparing: array positions in the paths refer to the sorted arrays,
            so a highlight inside an array may sit on another element than shown.
          </p>`
        : nothing}
      ${ops.length
        ? html`<diff-list
            .ops=${ops}
            .liveDoc=${v.liveDoc}
            .liveEncoding=${v.liveBody.kind === 'binary' ? v.liveBody.encoding : undefined}
            @diff-select=${this._onSelect}
          ></diff-list>`
        : this._noOps(v)}
    </section>`
  }

  /** An empty patch: a match, or no comparison because a side failed. */
  private _noOps(v: RequestView) {
    const outcome = comparisonOutcome(v.detail)
    if (outcome.kind !== 'error') {
      return html`<empty-state heading="No difference">The live and shadow responses matched for this request.</empty-state>`
    }
    const both = outcome.failed.length === 2
    const heading = both ? 'Neither service answered' : `The ${outcome.failed[0]} service did not answer`
    return html`<div class="failed" role="note" aria-labelledby="failed-title">
      <h3 id="failed-title">${heading}</h3>
      <p>Nothing was compared. The proxy recorded:</p>
      <ul>
        ${outcome.failed.map(
          (side) => html`<li>
            <span class="side-name">${side}</span>
            <code>${failureText(side === 'live' ? v.liveBody : v.shadowBody)}</code>
          </li>`,
        )}
      </ul>
    </div>`
  }

  private _request(v: RequestView) {
    const d = v.detail
    return html`<section class="card" aria-labelledby="request-title">
      <div class="card-header"><h2 id="request-title">Request</h2></div>
      <div class="card-body request-grid">
        <div>
          <h3>Headers</h3>
          <headers-table .headers=${d.headers} label="Request headers"></headers-table>
        </div>
        <div>
          <h3>Body</h3>
          <body-view .body=${v.requestBody} label="Request body"></body-view>
        </div>
      </div>
    </section>`
  }

  private _curl(v: RequestView): string {
    const base = this._target === 'live' ? v.gate?.live_url : v.gate?.shadow_url
    return curlCommand(v.detail, base ?? '')
  }

  private _onTarget(event: Event) {
    this._target = (event.target as HTMLSelectElement).value as ReplayTarget
  }

  private async _onSelect(event: DiffSelectEvent) {
    const l = event.located
    // Live first, so the shadow side is the one left in view when both scroll.
    if (l.livePointer !== undefined) await this._livePanel?.reveal(l.livePointer)
    if (l.shadowPointer !== undefined) await this._shadowPanel?.reveal(l.shadowPointer)
  }
}

function outcomeBadge(outcome: Outcome) {
  switch (outcome.kind) {
    case 'diff':
      return html`<span class="badge diff-yes">${outcome.ops} ${outcome.ops === 1 ? 'operation' : 'operations'}</span>`
    case 'match':
      return html`<span class="badge diff-no">identical</span>`
    case 'error':
      return html`<span class="badge status-err">not compared</span>`
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'request-page': RequestPage
  }
}
