import { LitElement, css, html, nothing } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { formatCount } from '../lib/format.ts'
import type { HubContext } from '../lib/hub-context.ts'
import { LoadController } from '../lib/load-controller.ts'
import { DEFAULT_REQUEST_QUERY, requestQueryToString } from '../lib/query-string.ts'
import { gateRequestsPath } from '../lib/router.ts'
import { signatureLine } from '../lib/signature-line.ts'
import { loadSignatureFacts } from '../lib/signature-lookup.ts'
import type { RequestDetail } from '../lib/types.ts'
import { sharedStyles } from '../styles/shared.ts'

/**
 * Where a capture belongs (docs/insights.md): its endpoint, its kind of
 * difference, and how many other captures share that difference, linked
 * to the request list filtered by each.
 */
@customElement('request-signature')
export class RequestSignature extends LitElement {
  static override styles = [
    sharedStyles,
    css`
      :host {
        display: block;
      }
      dl {
        display: grid;
        grid-template-columns: auto minmax(0, 1fr);
        gap: 4px 12px;
        margin: 10px 0 0;
      }
      dt {
        color: var(--muted);
      }
      dd {
        margin: 0;
        overflow-wrap: anywhere;
      }
      .endpoint {
        text-decoration: none;
      }
      .endpoint .template {
        text-decoration: underline;
        text-underline-offset: 2px;
      }
      .id {
        margin-left: 8px;
        color: var(--muted);
        font-size: 11.5px;
      }
      .error {
        color: var(--danger);
      }
    `,
  ]

  @property({ attribute: false }) hub!: HubContext
  @property() gateId = ''
  @property({ attribute: false }) detail: RequestDetail | undefined

  private _facts = new LoadController(
    this,
    ([hub, gateId, detail], signal) => loadSignatureFacts(hub.api, gateId, detail, signal),
    () => (this.hub && this.detail ? ([this.hub, this.gateId, this.detail] as const) : undefined),
  )

  override render() {
    const d = this.detail
    if (!d) return nothing
    return html`<dl aria-label="Endpoint and kind of difference">
      <dt>Endpoint</dt>
      <dd>${this._endpoint(d)}</dd>
      ${d.signature_id ? this._signature(d.signature_id) : nothing}
    </dl>`
  }

  private _endpoint(d: RequestDetail) {
    // Stored before endpoints existed and not yet backfilled by the migrator.
    if (d.template === null) return html`<span class="method">${d.method}</span><span class="muted">not grouped yet</span>`
    const search = requestQueryToString({ ...DEFAULT_REQUEST_QUERY, method: [d.method], template: d.template })
    return html`<a class="endpoint" href=${gateRequestsPath(this.gateId, search)} title="Captured requests of this endpoint"
      ><span class="method">${d.method}</span><span class="template mono">${d.template}</span></a
    >`
  }

  private _signature(id: string) {
    const c = this._facts
    const facts = c.value
    const summary = facts?.signature ? withoutEndpoint(signatureLine(facts.signature), this.detail!) : undefined
    const sharing = gateRequestsPath(this.gateId, requestQueryToString({ ...DEFAULT_REQUEST_QUERY, signature: id }))
    return html`<dt>Signature</dt>
      <dd class="signature">
        ${summary ? html`<code class="summary">${summary}</code>` : nothing}<code class="id" title="Signature id">${id}</code>
      </dd>
      <dt><span class="visually-hidden">Shared by</span></dt>
      <dd class="others">${this._others(c, sharing)}</dd>`
  }

  private _others(c: RequestSignature['_facts'], sharing: string) {
    if (c.error) {
      return html`<span class="error">Could not count the requests with this difference.</span>
        <button class="link" @click=${() => c.reload()}>Try again</button>`
    }
    if (!c.value) return html`<span class="muted" role="status">Counting the requests with this difference…</span>`
    const n = c.value.others
    if (n === 0) return html`<span class="muted">No other request shares this difference.</span>`
    return html`<a href=${sharing}>${formatCount(n)} other ${n === 1 ? 'request shares' : 'requests share'} this difference</a>`
  }
}

/** The summary less its endpoint, which the line above already shows. */
function withoutEndpoint(summary: string, d: Pick<RequestDetail, 'method' | 'template'>): string {
  const prefix = `${d.method} ${d.template}: `
  return summary.startsWith(prefix) ? summary.slice(prefix.length) : summary
}

declare global {
  interface HTMLElementTagNameMap {
    'request-signature': RequestSignature
  }
}
