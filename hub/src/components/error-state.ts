import { LitElement, css, html, nothing } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { ApiError } from '../lib/api-error.ts'
import type { HubConfig } from '../lib/config.ts'
import { ChangeKeyEvent, RetryEvent } from '../lib/events.ts'
import { sharedStyles } from '../styles/shared.ts'

interface Explained {
  readonly heading: string
  readonly body: unknown
  readonly retry: boolean
  readonly changeKey: boolean
}

/**
 * Says what went wrong and what to do: the API is down or refuses the
 * hub's origin (CORS), the key is refused (and which setting holds it), the
 * thing does not exist, or the API failed.
 */
@customElement('error-state')
export class ErrorState extends LitElement {
  static override styles = [
    sharedStyles,
    css`
      :host {
        display: block;
      }
      .box {
        max-width: 46rem;
        margin: 24px auto;
        padding: 20px 24px;
        border: 1px solid #efc2bd;
        border-left: 4px solid var(--danger);
        border-radius: var(--radius);
        background: var(--surface);
      }
      .box.not-found {
        border-color: var(--border);
        border-left-color: var(--border-strong);
      }
      p {
        margin: 8px 0 0;
      }
      .actions {
        display: flex;
        gap: 8px;
        margin-top: 16px;
        flex-wrap: wrap;
      }
      code {
        background: var(--surface-muted);
        padding: 1px 4px;
        border-radius: 4px;
      }
    `,
  ]

  @property({ attribute: false }) error: unknown
  @property({ attribute: false }) config: HubConfig | undefined
  /** What was being loaded, for the heading of a 404: "Gate", "Request". */
  @property() thing = 'Page'

  override render() {
    const e = this._explain()
    const notFound = this.error instanceof ApiError && isNotFound(this.error)
    return html`<div class="box ${notFound ? 'not-found' : ''}" role="alert">
      <h2>${e.heading}</h2>
      ${e.body}
      <div class="actions">
        ${e.changeKey ? html`<button class="primary" @click=${this._onChangeKey}>Enter another key</button>` : nothing}
        ${e.retry ? html`<button @click=${this._onRetry}>Try again</button>` : nothing}
        ${notFound ? html`<a class="button" href="/">Back to overview</a>` : nothing}
      </div>
    </div>`
  }

  private _notFound(detail: string | undefined): Explained {
    return {
      heading: `${this.thing} not found`,
      body: html`<p>${detail ?? `There is no such ${this.thing.toLowerCase()}.`}</p>
        <p class="muted">It may have been deleted, or removed by the retention cleanup.</p>`,
      retry: false,
      changeKey: false,
    }
  }

  private _explain(): Explained {
    const error = this.error
    const base = this.config?.apiBaseUrl || location.origin
    if (!(error instanceof ApiError)) {
      return {
        heading: 'Something went wrong',
        body: html`<p>${error instanceof Error ? error.message : String(error)}</p>`,
        retry: true,
        changeKey: false,
      }
    }
    const f = error.failure
    if (f.kind === 'network') {
      return {
        heading: 'The API cannot be reached',
        body: html`<p>The hub could not get an answer from <code>${base}</code>.</p>
          <p class="muted">
            Check that the API is running and reachable from this browser, and that its
            <code>SVC_APP_CORS_ORIGINS</code> lists this hub's origin <code>${location.origin}</code>.
          </p>`,
        retry: true,
        changeKey: false,
      }
    }
    if (f.kind === 'invalid-response') {
      return {
        heading: 'Unexpected answer from the API',
        body: html`<p>${error.message}. Is <code>${base}</code> the API's base address?</p>`,
        retry: true,
        changeKey: false,
      }
    }
    switch (f.status) {
      case 401:
        return {
          heading: 'The API refused the key',
          body: html`<p>${keyHint(this.config)}</p>
            ${f.problem?.detail ? html`<p class="muted">API: ${f.problem.detail}</p>` : nothing}`,
          retry: false,
          changeKey: true,
        }
      case 400:
        // A malformed id in the path is a thing that does not exist; any other 400 (a filter, from after to) is the request's.
        if (!isNotFound(error)) {
          return {
            heading: f.problem?.title ?? 'The API refused the request',
            body: html`<p>${f.problem?.detail ?? 'The request was refused.'}</p>
              <p class="muted">HTTP 400 from <code>${error.url}</code></p>`,
            retry: false,
            changeKey: false,
          }
        }
        return this._notFound(f.problem?.detail)
      case 404:
        return this._notFound(f.problem?.detail)
      case 429:
        return {
          heading: 'Too many requests',
          body: html`<p>The API's rate limit was reached. Wait a moment and try again.</p>`,
          retry: true,
          changeKey: false,
        }
      default:
        return {
          heading: f.problem?.title ?? `The API answered HTTP ${f.status}`,
          body: html`<p>${f.problem?.detail ?? 'The request failed on the server.'}</p>
            <p class="muted">HTTP ${f.status} from <code>${error.url}</code></p>`,
          retry: true,
          changeKey: false,
        }
    }
  }

  private _onRetry() {
    this.dispatchEvent(new RetryEvent())
  }

  private _onChangeKey() {
    this.dispatchEvent(new ChangeKeyEvent())
  }
}

function keyHint(config: HubConfig | undefined) {
  switch (config?.keySource) {
    case 'session':
      return html`The key entered for this tab is not the API's key. Enter the value of the API's
        <code>SVC_APP_API_KEY</code>.`
    case 'runtime':
      return html`The hub server's <code>SVC_APP_API_KEY</code> does not match the API's
        <code>SVC_APP_API_KEY</code>. Fix the hub's setting, or enter a key for this tab.`
    case 'build':
      return html`The key compiled into this build (<code>VITE_API_KEY</code>) does not match the
        API's <code>SVC_APP_API_KEY</code>. Rebuild the hub, or enter a key for this tab.`
    case 'none':
    case undefined:
      return html`No key is configured. Enter the API's <code>SVC_APP_API_KEY</code>.`
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'error-state': ErrorState
  }
}

/** A 404, or a 400 about an id in the path (a malformed one names no resource either). */
function isNotFound(error: ApiError): boolean {
  if (error.status === 404) return true
  const failure = error.failure
  return error.status === 400 && failure.kind === 'http' && /\b(gate_id|request_id|job_id)\b/.test(failure.problem?.detail ?? '')
}
