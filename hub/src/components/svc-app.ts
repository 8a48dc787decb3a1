import { LitElement, css, html, nothing } from 'lit'
import { customElement, property, state } from 'lit/decorators.js'
import { ApiClient } from '../lib/api-client.ts'
import { buildTimeConfig, resolveConfig } from '../lib/config.ts'
import type { HubConfig } from '../lib/config.ts'
import type { KeySubmitEvent } from '../lib/events.ts'
import type { HubContext } from '../lib/hub-context.ts'
import { clearSessionKey, readSessionKey, writeSessionKey } from '../lib/key-store.ts'
import { NAVIGATE_EVENT, interceptLinks, matchRoute, movedGateLink } from '../lib/router.ts'
import type { Route } from '../lib/router.ts'
import { sharedStyles } from '../styles/shared.ts'
import './empty-state.ts'
import './gate-page.ts'
import './key-prompt.ts'
import './overview-page.ts'
import './request-page.ts'

const TITLES: Readonly<Record<Route['name'], string>> = {
  overview: 'Overview',
  gate: 'Gate',
  request: 'Request',
  'not-found': 'Not found',
}

interface FocusablePage extends HTMLElement {
  focusHeading?: () => void
}

/**
 * The shell: reads the configuration, asks for a key when there is none,
 * maps the URL to a page, and keeps focus and the document title in step
 * with navigation (a screen reader hears each new page).
 */
@customElement('svc-app')
export class SvcApp extends LitElement {
  static override styles = [
    sharedStyles,
    css`
      :host {
        display: flex;
        flex-direction: column;
        min-height: 100vh;
      }
      .skip-link {
        position: absolute;
        left: 8px;
        top: -48px;
        z-index: 10;
        padding: 8px 12px;
        background: var(--surface);
        border: 2px solid var(--focus);
        border-radius: var(--radius);
      }
      .skip-link:focus {
        top: 8px;
      }
      main:focus {
        outline: none;
      }
      header.bar {
        position: sticky;
        top: 0;
        z-index: 5;
        background: #14233a;
        color: #e8eef7;
      }
      .bar-inner {
        display: flex;
        align-items: center;
        gap: 20px;
        max-width: 1440px;
        margin: 0 auto;
        padding: 0 24px;
        min-height: 52px;
      }
      .brand {
        display: flex;
        align-items: center;
        gap: 10px;
        color: #fff;
        font-weight: 700;
        font-size: 15px;
        text-decoration: none;
        letter-spacing: 0.01em;
      }
      .brand:hover {
        color: #fff;
      }
      nav a {
        color: #c9d6e8;
        text-decoration: none;
        padding: 6px 8px;
        border-radius: 4px;
      }
      nav a:hover,
      nav a[aria-current='page'] {
        color: #fff;
        background: rgb(255 255 255 / 10%);
      }
      .spacer {
        flex: 1;
      }
      .api {
        display: flex;
        align-items: center;
        gap: 10px;
        color: #b7c6da;
        font-size: 12.5px;
        min-width: 0;
      }
      .api code {
        color: #e8eef7;
        overflow: hidden;
        text-overflow: ellipsis;
        white-space: nowrap;
        max-width: 22rem;
      }
      .api button {
        min-height: 26px;
        padding: 2px 8px;
        font-size: 12px;
        background: transparent;
        color: #e8eef7;
        border-color: rgb(255 255 255 / 35%);
      }
      .api button:hover:not(:disabled) {
        background: rgb(255 255 255 / 10%);
      }
      :focus-visible {
        outline-color: #8ab4ff;
      }
      main {
        flex: 1;
        width: 100%;
        max-width: 1440px;
        margin: 0 auto;
        padding: 24px;
      }
      main :focus-visible {
        outline-color: var(--focus);
      }
      @media (max-width: 720px) {
        .bar-inner,
        main {
          padding-left: 12px;
          padding-right: 12px;
        }
        .api code,
        .api .label {
          display: none;
        }
      }
    `,
  ]

  /** Replaceable in tests; defaults to the page's real configuration. */
  @property({ attribute: false }) configLoader: () => HubConfig = () =>
    resolveConfig(globalThis.__SVC_HUB_CONFIG__, buildTimeConfig(), readSessionKey())

  @state() private _hub: HubContext | undefined
  @state() private _route: Route = matchRoute(followMovedLink())
  @state() private _search = location.search.slice(1)
  @state() private _askKey = false
  @state() private _announce = ''

  #unlisten: (() => void) | undefined
  #lastPath = location.pathname
  #lastPage = pageOf(matchRoute(location.pathname), location.pathname)

  override connectedCallback() {
    super.connectedCallback()
    this._loadConfig()
    const stopLinks = interceptLinks()
    const onNav = () => this._sync()
    window.addEventListener('popstate', onNav)
    window.addEventListener(NAVIGATE_EVENT, onNav)
    this.#unlisten = () => {
      stopLinks()
      window.removeEventListener('popstate', onNav)
      window.removeEventListener(NAVIGATE_EVENT, onNav)
    }
  }

  override disconnectedCallback() {
    super.disconnectedCallback()
    this.#unlisten?.()
  }

  override render() {
    const hub = this._hub
    const onOverview = this._route.name === 'overview'
    return html`<a class="skip-link" href="#main" @click=${this._onSkip}>Skip to content</a>
      <header class="bar">
        <div class="bar-inner">
          <a class="brand" href="/">
            <svg width="22" height="22" viewBox="0 0 24 24" fill="none" aria-hidden="true">
              <rect x="2" y="5" width="13" height="13" rx="3" fill="#5b9cff" />
              <rect x="9" y="3" width="13" height="13" rx="3" fill="#a78bfa" fill-opacity="0.85" />
            </svg>
            Shadow Hub
          </a>
          <nav aria-label="Main">
            <a href="/" aria-current=${onOverview ? 'page' : 'false'}>Gates</a>
          </nav>
          <span class="spacer"></span>
          ${hub
            ? html`<div class="api">
                <span class="label">API</span><code title=${hub.config.apiBaseUrl || location.origin}>${hub.config.apiBaseUrl || location.origin}</code>
                ${hub.config.keySource === 'session'
                  ? html`<button @click=${this._onForgetKey} title="Remove the key kept for this tab">Forget key</button>`
                  : nothing}
              </div>`
            : nothing}
        </div>
      </header>
      <main id="main" tabindex="-1">${this._page()}</main>
      <div class="visually-hidden" aria-live="polite">${this._announce}</div>`
  }

  override updated() {
    document.title = `${TITLES[this._route.name]} · Shadow Hub`
  }

  private _page() {
    const hub = this._hub
    if (!hub || this._askKey) {
      return html`<key-prompt
        apiBaseUrl=${hub?.config.apiBaseUrl ?? this.configLoader().apiBaseUrl}
        ?cancellable=${hub !== undefined && hub.config.keySource !== 'none'}
        @key-submit=${this._onKeySubmit}
        @cancel=${() => (this._askKey = false)}
      ></key-prompt>`
    }
    const r = this._route
    switch (r.name) {
      case 'overview':
        return html`<overview-page .hub=${hub} search=${this._search} @change-key=${this._onChangeKey}></overview-page>`
      case 'gate':
        return html`<gate-page
          .hub=${hub}
          gateId=${r.gateId}
          view=${r.view}
          search=${this._search}
          @change-key=${this._onChangeKey}
        ></gate-page>`
      case 'request':
        return html`<request-page .hub=${hub} gateId=${r.gateId} requestId=${r.requestId} @change-key=${this._onChangeKey}></request-page>`
      case 'not-found':
        return html`<empty-state heading="Page not found">
          There is no page at <code>${r.path}</code>. <a href="/">Go to the overview</a>.
        </empty-state>`
    }
  }

  private _loadConfig() {
    const config = this.configLoader()
    if (config.keySource === 'none') {
      this._hub = undefined
      this._askKey = true
      return
    }
    this._hub = { config, api: new ApiClient({ baseUrl: config.apiBaseUrl, apiKey: config.apiKey }) }
    this._askKey = false
  }

  private async _sync() {
    const path = followMovedLink()
    this._route = matchRoute(path)
    this._search = location.search.slice(1)
    const page = pageOf(this._route, path)
    const pageChanged = page !== this.#lastPage
    if (path !== this.#lastPath) window.scrollTo(0, 0)
    this.#lastPath = path
    this.#lastPage = page
    if (!pageChanged) return
    this._announce = `${TITLES[this._route.name]} page`
    // Move focus to the new page's heading once it has rendered its data.
    await this.updateComplete
    const shown = this.renderRoot.querySelector<FocusablePage>('main > *')
    await (shown as unknown as LitElement | null)?.updateComplete
    shown?.focusHeading?.()
  }

  private _onSkip(event: Event) {
    // The target is inside this shadow root, out of reach of a fragment link.
    event.preventDefault()
    this.renderRoot.querySelector<HTMLElement>('main')?.focus()
  }

  private _onKeySubmit(event: KeySubmitEvent) {
    if (!writeSessionKey(event.key)) {
      // Storage is disabled: keep the key in memory for this page only.
      const base = this.configLoader()
      this._hub = {
        config: { ...base, apiKey: event.key, keySource: 'session' },
        api: new ApiClient({ baseUrl: base.apiBaseUrl, apiKey: event.key }),
      }
      this._askKey = false
      return
    }
    this._loadConfig()
  }

  private _onChangeKey() {
    this._askKey = true
  }

  private _onForgetKey() {
    clearSessionKey()
    this._loadConfig()
  }
}

/**
 * What counts as another page for focus and the announcement: the views
 * of one gate (Differences, Requests, Settings) are one page, so switching
 * between them leaves focus on the tab or link that switched.
 */
function pageOf(route: Route, path: string): string {
  return route.name === 'gate' ? `gate:${route.gateId}` : path
}

/** Replaces an older link in the address bar with where it now points; returns the path. */
function followMovedLink(): string {
  const moved = movedGateLink(location.pathname, location.search.slice(1))
  if (moved) history.replaceState(null, '', moved + location.hash)
  return location.pathname
}

declare global {
  interface HTMLElementTagNameMap {
    'svc-app': SvcApp
  }
}
