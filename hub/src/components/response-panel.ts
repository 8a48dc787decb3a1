import { LitElement, css, html, nothing } from 'lit'
import { customElement, property, query } from 'lit/decorators.js'
import { canonicalHeaderName } from '../lib/body.ts'
import type { DecodedBody } from '../lib/body.ts'
import { marksUnder } from '../lib/diff-highlight.ts'
import type { Mark } from '../lib/diff-highlight.ts'
import { formatLatency, formatTime, statusClass } from '../lib/format.ts'
import { parsePointer } from '../lib/json-pointer.ts'
import type { ResponsePayload } from '../lib/types.ts'
import { sharedStyles } from '../styles/shared.ts'
import './body-view.ts'
import type { BodyView } from './body-view.ts'
import './headers-table.ts'
import type { HeadersTable } from './headers-table.ts'

export type Side = 'live' | 'shadow'

/**
 * One response, live or shadow: status, latency, headers and body, with the
 * diff's marks for this side (pointers over `{status, headers, body}`,
 * docs/diff.md "What is compared").
 */
@customElement('response-panel')
export class ResponsePanel extends LitElement {
  static override styles = [
    sharedStyles,
    css`
      :host {
        display: block;
        min-width: 0;
      }
      .card {
        height: 100%;
      }
      .card-header {
        gap: 8px;
      }
      .title {
        display: flex;
        align-items: center;
        gap: 10px;
      }
      .side {
        display: inline-block;
        padding: 1px 8px;
        border-radius: 4px;
        font-size: 12px;
        font-weight: 700;
        letter-spacing: 0.04em;
        text-transform: uppercase;
      }
      .side.live {
        background: #e7eefc;
        color: #1d4ed8;
      }
      .side.shadow {
        background: #efe7fb;
        color: #6d28d9;
      }
      .meta {
        display: flex;
        align-items: center;
        gap: 10px;
        color: var(--muted);
        font-variant-numeric: tabular-nums;
      }
      .status.m-changed {
        outline: 2px solid var(--changed);
        outline-offset: 1px;
      }
      h3 {
        margin: 0 0 6px;
        color: var(--muted);
        font-size: 12px;
        text-transform: uppercase;
        letter-spacing: 0.04em;
      }
      section + section {
        margin-top: 16px;
      }
      details summary {
        cursor: pointer;
        color: var(--muted);
        font-size: 12px;
        font-weight: 650;
        text-transform: uppercase;
        letter-spacing: 0.04em;
        margin-bottom: 6px;
      }
      .count {
        font-weight: 400;
        text-transform: none;
      }
    `,
  ]

  @property() side: Side = 'live'
  @property({ attribute: false }) response: ResponsePayload | undefined
  @property({ attribute: false }) body: DecodedBody | undefined
  /** Document-level marks of this side. */
  @property({ attribute: false }) marks: ReadonlyMap<string, Mark> = new Map()

  #bodyMarks: ReadonlyMap<string, Mark> = new Map()
  #headerMarks: ReadonlyMap<string, Mark> = new Map()

  @query('body-view') private _body: BodyView | undefined
  @query('headers-table') private _headers: HeadersTable | undefined

  override willUpdate(changed: Map<PropertyKey, unknown>) {
    // Computed once per diff, so the body tree keeps its open branches.
    if (changed.has('marks')) {
      this.#bodyMarks = marksUnder(this.marks, '/body')
      this.#headerMarks = headerMarksOf(this.marks)
    }
  }

  /** Shows where `pointer` (over the whole document) is in this panel. */
  async reveal(pointer: string): Promise<boolean> {
    const tokens = parsePointer(pointer)
    if (!tokens) return false
    const [root, name] = tokens
    if (root === 'status' || root === undefined) {
      this.renderRoot.querySelector<HTMLElement>('.status')?.scrollIntoView({ block: 'center' })
      return true
    }
    if (root === 'headers') {
      const details = this.renderRoot.querySelector('details')
      if (details) details.open = true
      return name === undefined ? true : (this._headers?.reveal(name) ?? false)
    }
    return this._body?.reveal(pointer.slice('/body'.length)) ?? false
  }

  override render() {
    const r = this.response
    if (!r) return nothing
    const label = this.side === 'live' ? 'Live' : 'Shadow'
    const statusMark = this.marks.get('/status')
    const headerMarks = this.#headerMarks
    const headerCount = Object.keys(r.headers).length
    return html`<article class="card" aria-label="${label} response">
      <div class="card-header">
        <div class="title">
          <span class="side ${this.side}">${label}</span>
          <span class="badge status status-${statusClass(r.status_code)} ${statusMark ? 'm-changed' : ''}"
            >${r.status_code === 0 ? 'ERROR' : r.status_code}${statusMark
              ? html`<span class="visually-hidden"> (status differs)</span>`
              : nothing}</span
          >
        </div>
        <div class="meta">
          <span title="Latency">${formatLatency(r.latency_ms)}</span>
          <time datetime=${r.created_at}>${formatTime(r.created_at)}</time>
        </div>
      </div>
      <div class="card-body">
        <section>
          <details ?open=${headerMarks.size > 0 || headerCount <= 8}>
            <summary>Headers <span class="count">(${headerCount})</span></summary>
            <headers-table .headers=${r.headers} .marks=${headerMarks} label="${label} response headers"></headers-table>
          </details>
        </section>
        <section>
          <h3>Body</h3>
          <body-view .body=${this.body} .marks=${this.#bodyMarks} label="${label} response body"></body-view>
        </section>
      </div>
    </article>`
  }
}

/** `/headers/Content-Type` or `/headers/Vary/1` → `Content-Type` → mark. */
function headerMarksOf(marks: ReadonlyMap<string, Mark>): Map<string, Mark> {
  const out = new Map<string, Mark>()
  for (const [p, m] of marks) {
    const tokens = parsePointer(p)
    if (!tokens || tokens[0] !== 'headers' || tokens[1] === undefined) continue
    const name = canonicalHeaderName(tokens[1])
    // A whole header added or removed outranks a changed value inside it.
    out.set(name, tokens.length === 2 ? m : (out.get(name) ?? 'changed'))
  }
  return out
}

declare global {
  interface HTMLElementTagNameMap {
    'response-panel': ResponsePanel
  }
}
