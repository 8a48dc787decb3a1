import { LitElement, css, html, nothing } from 'lit'
import { customElement, property, state } from 'lit/decorators.js'
import type { LocatedOp } from '../lib/diff-highlight.ts'
import { DiffSelectEvent } from '../lib/events.ts'
import { formatCount, visibleJson } from '../lib/format.ts'
import { getAt } from '../lib/json-pointer.ts'
import type { PatchOpKind } from '../lib/types.ts'
import { sharedStyles } from '../styles/shared.ts'

/** Operations listed before "show all". */
const SHOWN = 200
/** Characters of a value shown in the list. */
const VALUE_CUT = 160

const KIND: Readonly<Record<PatchOpKind, { label: string; cls: string; help: string }>> = {
  replace: { label: 'changed', cls: 'mark-changed', help: 'the values differ' },
  add: { label: 'only shadow', cls: 'mark-added', help: 'the field exists only in shadow' },
  remove: { label: 'only live', cls: 'mark-removed', help: 'the field exists only in live' },
}

/**
 * The diff as a list of operations (docs/diff.md "Patch format"): what changed,
 * where (JSON Pointer), the live value and the shadow value. "Show" reveals the
 * place in both responses.
 */
@customElement('diff-list')
export class DiffList extends LitElement {
  static override styles = [
    sharedStyles,
    css`
      :host {
        display: block;
      }
      table {
        table-layout: fixed;
      }
      col.kind {
        width: 8.5rem;
      }
      col.path {
        width: 30%;
      }
      col.action {
        width: 5rem;
      }
      td {
        vertical-align: top;
      }
      .path {
        overflow-wrap: anywhere;
        font-weight: 600;
      }
      .value {
        display: block;
        max-height: 6.5em;
        overflow: hidden;
        font-family: var(--mono);
        font-size: 12.5px;
        overflow-wrap: anywhere;
        white-space: pre-wrap;
      }
      .none {
        color: var(--muted);
      }
      .badge {
        font-family: var(--font);
        text-transform: none;
      }
      .warn {
        color: var(--warn);
        font-size: 12px;
      }
      .more {
        padding: 10px 12px;
      }
      /* Narrow screens: each operation becomes a small card, values under the path. */
      @media (max-width: 720px) {
        table,
        tbody,
        tr,
        td {
          display: block;
        }
        thead,
        colgroup {
          display: none;
        }
        tr {
          display: grid;
          grid-template-columns: auto minmax(0, 1fr) auto;
          gap: 4px 10px;
          padding: 10px 12px;
          border-bottom: 1px solid var(--border);
        }
        td {
          padding: 0;
          border: 0;
        }
        td.live,
        td.shadow {
          grid-column: 1 / -1;
          display: flex;
          gap: 8px;
        }
        td.live::before,
        td.shadow::before {
          flex: none;
          width: 4rem;
          color: var(--muted);
          font-size: 12px;
          font-weight: 600;
        }
        td.live::before {
          content: 'Live';
        }
        td.shadow::before {
          content: 'Shadow';
        }
        td.action {
          grid-row: 1;
          grid-column: 3;
        }
      }
    `,
  ]

  @property({ attribute: false }) ops: readonly LocatedOp[] = []
  /** Whole documents `{status, headers, body}`, to show the live value. */
  @property({ attribute: false }) liveDoc: unknown
  /** The Content-Encoding of a live body the page could not decode: why its paths cannot be placed. */
  @property() liveEncoding: string | undefined

  @state() private _all = false

  override render() {
    const shown = this._all ? this.ops : this.ops.slice(0, SHOWN)
    return html`<div class="table-wrap">
        <table>
          <caption class="visually-hidden">Differences between the live and shadow responses</caption>
          <colgroup>
            <col class="kind" />
            <col class="path" />
            <col />
            <col />
            <col class="action" />
          </colgroup>
          <thead>
            <tr>
              <th scope="col">Change</th>
              <th scope="col">Path</th>
              <th scope="col">Live</th>
              <th scope="col">Shadow</th>
              <th scope="col"><span class="visually-hidden">Show</span></th>
            </tr>
          </thead>
          <tbody>
            ${shown.map((l, i) => this._row(l, i))}
          </tbody>
        </table>
      </div>
      ${shown.length < this.ops.length
        ? html`<div class="more">
            <button @click=${() => (this._all = true)}>Show all ${formatCount(this.ops.length)} operations</button>
          </div>`
        : nothing}`
  }

  private _row(l: LocatedOp, i: number) {
    const k = KIND[l.op.op]
    const liveValue = l.op.op === 'add' && l.livePointer === undefined ? undefined : getAt(this.liveDoc, l.livePointer ?? l.op.path)
    const shadowHas = l.op.op !== 'remove'
    return html`<tr data-index=${i}>
      <td><span class="badge ${k.cls}" title=${k.help}>${k.label}</span></td>
      <td>
        <code class="path">${l.op.path}</code>
        ${l.unresolved
          ? html`<div class="warn">${this.liveEncoding !== undefined && l.op.path.startsWith('/body')
              ? `not shown: the live body is ${this.liveEncoding}-compressed, which this browser cannot decode`
              : 'not found in the live response'}</div>`
          : nothing}
      </td>
      <td class="live">${liveValue?.found ? html`<code class="value">${preview(liveValue.value)}</code>` : html`<span class="none">—</span>`}</td>
      <td class="shadow">${shadowHas ? html`<code class="value">${preview(l.op.value)}</code>` : html`<span class="none">—</span>`}</td>
      <td class="action">
        <button class="small" @click=${() => this._onSelect(l)} aria-label="Show ${l.op.path} in both responses">Show</button>
      </td>
    </tr>`
  }

  private _onSelect(l: LocatedOp) {
    this.dispatchEvent(new DiffSelectEvent(l))
  }
}

function preview(value: unknown): string {
  const text = value === undefined ? 'undefined' : visibleJson(value)
  return text.length > VALUE_CUT ? `${text.slice(0, VALUE_CUT)}…` : text
}

declare global {
  interface HTMLElementTagNameMap {
    'diff-list': DiffList
  }
}
