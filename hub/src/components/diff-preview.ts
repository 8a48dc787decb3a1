import { LitElement, css, html, nothing } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { ApiError } from '../lib/api-error.ts'
import { RetryEvent } from '../lib/events.ts'
import { formatCount } from '../lib/format.ts'
import { DEFAULT_REQUEST_QUERY, requestQueryToString } from '../lib/query-string.ts'
import { gateRequestsPath, requestPath } from '../lib/router.ts'
import type { DiffPreview as PreviewResult } from '../lib/types.ts'
import { sharedStyles } from '../styles/shared.ts'

/** What the editor hands the preview: where the edit stands, and the controller's state. */
export type PreviewStage = 'unchanged' | 'invalid' | 'ready'

/** How many kinds of difference the preview lists; the rest are counted. */
const SIGNATURE_ROWS = 8

/**
 * What a diff_config being edited would do to the stored captures, before
 * it is saved: "This change would silence 812 of 903 diffs and surface 0",
 * among how many captures, links to a few that change each way, and the
 * kinds of difference whose counts change. Loading, a preview already
 * running on the API (409, retried), and errors have their own lines.
 */
@customElement('diff-preview')
export class DiffPreview extends LitElement {
  static override styles = [
    sharedStyles,
    css`
      :host {
        display: block;
        padding: 12px 14px;
        border: 1px solid var(--border);
        border-left: 4px solid var(--accent);
        border-radius: var(--radius);
        background: var(--surface-muted);
      }
      :host([stage='unchanged']),
      :host([stage='invalid']) {
        border-left-color: var(--border-strong);
      }
      p {
        margin: 0;
      }
      p + p,
      .examples,
      table {
        margin-top: 8px;
      }
      .headline {
        font-weight: 600;
      }
      .stale {
        opacity: 0.6;
      }
      .examples {
        display: flex;
        flex-wrap: wrap;
        gap: 4px 8px;
        align-items: baseline;
      }
      .examples a {
        font-family: var(--mono);
        font-size: 12.5px;
      }
      .error {
        color: var(--danger);
      }
      table {
        width: auto;
        background: var(--surface);
      }
      th,
      td {
        padding: 4px 10px;
      }
      .spinner {
        display: inline-block;
        width: 12px;
        height: 12px;
        margin-right: 6px;
        border: 2px solid var(--border);
        border-top-color: var(--accent);
        border-radius: 50%;
        vertical-align: -1px;
        animation: spin 0.8s linear infinite;
      }
      @keyframes spin {
        to {
          transform: rotate(360deg);
        }
      }
      @media (prefers-reduced-motion: reduce) {
        .spinner {
          animation-duration: 3s;
        }
      }
    `,
  ]

  @property() gateId = ''
  @property({ reflect: true }) stage: PreviewStage = 'unchanged'
  /** The window the preview re-compares (RFC 3339), for its links. */
  @property() from = ''
  @property({ attribute: false }) preview: PreviewResult | undefined
  /** The preview shown answers an earlier edit; a new one is on its way. */
  @property({ type: Boolean }) stale = false
  @property({ type: Boolean }) pending = false
  /** The API runs another preview of this gate (409): asked again shortly. */
  @property({ type: Boolean }) busy = false
  @property({ attribute: false }) error: unknown

  override render() {
    // Only a sentence is announced, not the table and links around it.
    return html`<span class="visually-hidden" role="status">${this._announcement()}</span>
      <div aria-busy=${this.pending ? 'true' : 'false'}>${this._body()}</div>`
  }

  private _announcement(): string {
    if (this.stage !== 'ready') return ''
    if (this.error !== undefined) return 'The preview failed.'
    if (this.busy) return 'Another preview of this gate is running; trying again shortly.'
    const p = this.preview
    if (!p || this.stale) return 'Previewing…'
    if (p.examined === 0) return 'No stored capture in the last 24 hours to try this on.'
    return `This change would silence ${formatCount(p.silenced)} of ${formatCount(p.diffs_before)} diffs and surface ${formatCount(p.surfaced)}.`
  }

  private _body() {
    if (this.stage === 'unchanged') {
      return html`<p class="muted">Change a diff setting to see, before saving, which stored diffs it would silence or surface.</p>`
    }
    if (this.stage === 'invalid') return html`<p class="muted">Fix the settings above to preview them.</p>`
    if (this.error !== undefined) return this._error()
    if (this.busy) {
      return html`<p><span class="spinner" aria-hidden="true"></span>Another preview of this gate is running on the API; trying again shortly…</p>`
    }
    const p = this.preview
    if (!p) return html`<p><span class="spinner" aria-hidden="true"></span>Previewing against the stored captures of the last 24 hours…</p>`
    return html`<div class=${this.stale ? 'stale' : ''}>${this._result(p)}</div>`
  }

  private _error() {
    const conflict = this.error instanceof ApiError && this.error.status === 409
    const message = conflict
      ? 'Another preview of this gate is still running on the API. Try again in a moment.'
      : `The preview failed: ${this.error instanceof Error ? this.error.message : String(this.error)}.`
    return html`<p class="error">${message}</p>
      <p><button class="small" @click=${() => this.dispatchEvent(new RetryEvent())}>Try again</button></p>`
  }

  private _result(p: PreviewResult) {
    if (p.examined === 0) {
      return html`<p class="headline">No stored capture in the last 24 hours to try this on.</p>
        <p class="muted">Send traffic through the proxy, or save and re-diff later.</p>`
    }
    return html`<p class="headline">
        This change would silence <span class="silenced">${formatCount(p.silenced)}</span> of
        <span class="before">${formatCount(p.diffs_before)}</span> ${p.diffs_before === 1 ? 'diff' : 'diffs'} and surface
        <span class="surfaced">${formatCount(p.surfaced)}</span>.
      </p>
      <p class="muted">
        Re-compared the ${formatCount(p.examined)} most recent ${p.examined === 1 ? 'capture' : 'captures'} of the last 24 hours:
        ${formatCount(p.diffs_before)} differ with the saved settings, ${formatCount(p.diffs_after)} would with these.
        ${this.pending ? html`<span class="spinner" aria-hidden="true"></span>Updating…` : nothing}
      </p>
      ${this._examples('Silenced, for example', 'silenced', p.examples.silenced)}
      ${this._examples('Surfaced, for example', 'surfaced', p.examples.surfaced)} ${this._signatures(p)}`
  }

  private _examples(label: string, cls: string, ids: readonly string[]) {
    if (ids.length === 0) return nothing
    return html`<div class="examples ${cls}">
      <span class="muted">${label}:</span>
      ${ids.slice(0, 5).map((id) => html`<a href=${requestPath(this.gateId, id)} title="Request ${id}">${id.slice(0, 8)}</a>`)}
    </div>`
  }

  private _signatures(p: PreviewResult) {
    const changed = p.signatures.filter((s) => s.count_before !== s.count_after)
    if (changed.length === 0) return nothing
    const rows = [...changed].sort((a, b) => Math.abs(b.count_after - b.count_before) - Math.abs(a.count_after - a.count_before)).slice(0, SIGNATURE_ROWS)
    return html`<table>
      <caption class="visually-hidden">Kinds of difference whose counts change</caption>
      <thead>
        <tr>
          <th scope="col">Kind of difference</th>
          <th scope="col" class="num">Now</th>
          <th scope="col" class="num">With these settings</th>
        </tr>
      </thead>
      <tbody>
        ${rows.map(
          (s) => html`<tr data-signature=${s.id}>
            <td>
              ${s.count_before > 0
                ? html`<a href=${this._signatureLink(s.id)}><code>${s.summary ?? s.id}</code></a>`
                : html`<code>${s.summary ?? s.id}</code> <span class="muted">(new)</span>`}
            </td>
            <td class="num before">${formatCount(s.count_before)}</td>
            <td class="num after">${formatCount(s.count_after)}</td>
          </tr>`,
        )}
      </tbody>
    </table>
    ${changed.length > rows.length ? html`<p class="muted">and ${formatCount(changed.length - rows.length)} more kinds.</p>` : nothing}`
  }

  private _signatureLink(id: string): string {
    return gateRequestsPath(this.gateId, requestQueryToString({ ...DEFAULT_REQUEST_QUERY, signature: id, ...(this.from ? { from: this.from } : {}) }))
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'diff-preview': DiffPreview
  }
}
