import { LitElement, css, html } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import type { GateSavedEvent, IgnoreFieldsEvent, WindowChangeEvent } from '../lib/events.ts'
import { formatCount, formatRate, formatRelative, formatTime, rateBand } from '../lib/format.ts'
import type { HubContext } from '../lib/hub-context.ts'
import { HeadingFocus } from '../lib/heading-focus.ts'
import { parseWindow, windowToString } from '../lib/insights-query.ts'
import { LoadController } from '../lib/load-controller.ts'
import { GATE_VIEWS, gatePath, gateViewPath, navigate } from '../lib/router.ts'
import type { GateView } from '../lib/router.ts'
import { ignoreSettingsPath } from '../lib/settings-query.ts'
import type { Gate } from '../lib/types.ts'
import { pageStyles, sharedStyles } from '../styles/shared.ts'
import './copy-button.ts'
import './error-state.ts'
import './gate-differences.ts'
import './gate-requests.ts'
import './gate-settings.ts'
import './loading-state.ts'
import './stats-cards.ts'
import type { StatItem } from './stats-cards.ts'
// The API hands the proxy its upstreams' credentials; a screen needs only the address.
import { withoutPassword } from '../../../src/net/base-url.ts'
import { DEFAULT_THRESHOLDS } from '../../../src/verdict/verdict-thresholds.ts'

const VIEW_LABELS: Readonly<Record<GateView, string>> = {
  differences: 'Differences',
  requests: 'Requests',
  settings: 'Settings',
}

/**
 * One gate: its URLs and stats, then one of three views, each a link of
 * its own: Differences (what differs, where, how often; the page opens
 * on it), the captured requests, and the diff settings.
 */
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
      .tabs {
        display: flex;
        gap: 4px;
        border-bottom: 1px solid var(--border-strong);
        overflow-x: auto;
      }
      .tabs a {
        padding: 8px 14px;
        margin-bottom: -1px;
        border: 1px solid transparent;
        border-radius: var(--radius) var(--radius) 0 0;
        color: var(--muted);
        font-weight: 600;
        text-decoration: none;
        white-space: nowrap;
      }
      .tabs a:hover {
        color: var(--text);
        background: var(--surface-muted);
      }
      .tabs a[aria-current='page'] {
        color: var(--text);
        background: var(--surface);
        border-color: var(--border-strong);
        border-bottom-color: var(--surface);
      }
    `,
  ]

  @property({ attribute: false }) hub!: HubContext
  @property() gateId = ''
  @property() view: GateView = 'differences'
  @property() search = ''

  private _heading = new HeadingFocus(this)

  private _gate = new LoadController(
    this,
    ([hub, id], signal) => hub.api.getGate(id, signal),
    () => (this.hub ? ([this.hub, this.gateId] as const) : undefined),
  )

  // Only the settings need the global retention floor.
  private _config = new LoadController(
    this,
    ([hub], signal) => hub.api.getConfig(signal),
    () => (this.hub && this.view === 'settings' ? ([this.hub] as const) : undefined),
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
      <nav class="tabs" aria-label="Gate views">
        ${GATE_VIEWS.map(
          (v) => html`<a href=${gateViewPath(this.gateId, v)} aria-current=${v === this.view ? 'page' : 'false'}
            >${VIEW_LABELS[v]}</a
          >`,
        )}
      </nav>
      ${this._view(gate)}
    `
  }

  private _view(gate: Gate) {
    switch (this.view) {
      case 'differences':
        return html`<gate-differences
          .hub=${this.hub}
          gateId=${this.gateId}
          window=${parseWindow(this.search)}
          .lastActive=${gate.stats.last_active}
          .latencyLimit=${latencyLimitOf(gate)}
          @window-change=${this._onWindow}
          @ignore-fields=${this._onIgnore}
        ></gate-differences>`
      case 'requests':
        return html`<gate-requests
          .hub=${this.hub}
          gateId=${this.gateId}
          search=${this.search}
          .latencyLimit=${latencyLimitOf(gate)}
        ></gate-requests>`
      case 'settings':
        return html`<gate-settings
          .hub=${this.hub}
          .gate=${gate}
          .floor=${this._config.value?.retention}
          search=${this.search}
          @gate-saved=${this._onSaved}
          @rediff-done=${() => this._gate.reload()}
        ></gate-settings>`
    }
  }

  private _onWindow(event: WindowChangeEvent) {
    navigate(gatePath(this.gateId, windowToString(event.window)))
  }

  /** "Ignore" on a field or a suggestion: the settings, with the entries added and previewed. */
  private _onIgnore(event: IgnoreFieldsEvent) {
    navigate(ignoreSettingsPath(this.gateId, event.fields))
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

/** The gate's max_latency_ratio for getVerdict, which marks a shadow "slower" in its tables. */
function latencyLimitOf(gate: Gate): number {
  return gate.verdict?.max_latency_ratio ?? DEFAULT_THRESHOLDS.max_latency_ratio
}
