import { LitElement, css, html, nothing } from 'lit'
import { customElement, property, query, state } from 'lit/decorators.js'
import { hexDump } from '../lib/base64.ts'
import type { DecodedBody } from '../lib/body.ts'
import type { Mark } from '../lib/diff-highlight.ts'
import { formatBytes, formatCount } from '../lib/format.ts'
import { sharedStyles } from '../styles/shared.ts'
import './json-view.ts'
import type { JsonView } from './json-view.ts'

/** Characters of text shown before "show all". */
const TEXT_CUT = 100_000
/** Bytes of hex dump shown before "show more". */
const HEX_CHUNK = 16 * 1024

type Mode = 'tree' | 'text' | 'hex'

/**
 * A body: a JSON tree (with diff marks) or raw JSON, plain text, or a hex
 * dump for binary. Large text and dumps are cut and shown on demand, so a
 * 1 MB body never blocks the tab.
 */
@customElement('body-view')
export class BodyView extends LitElement {
  static override styles = [
    sharedStyles,
    css`
      :host {
        display: block;
      }
      .bar {
        display: flex;
        align-items: center;
        justify-content: space-between;
        gap: 8px;
        margin-bottom: 8px;
      }
      .modes {
        display: inline-flex;
        border: 1px solid var(--border-strong);
        border-radius: var(--radius);
        overflow: hidden;
      }
      .modes button {
        min-height: 26px;
        border: 0;
        border-radius: 0;
        padding: 2px 10px;
        font-size: 12.5px;
      }
      .modes button + button {
        border-left: 1px solid var(--border-strong);
      }
      .modes button[aria-pressed='true'] {
        background: var(--accent-soft);
        color: var(--accent-strong);
      }
      .box {
        max-height: 560px;
        overflow: auto;
        padding: 8px;
        border: 1px solid var(--border);
        border-radius: var(--radius);
        background: #fbfcfd;
      }
      pre {
        margin: 0;
        font-family: var(--mono);
        font-size: 12.5px;
        line-height: 1.55;
        white-space: pre-wrap;
        overflow-wrap: anywhere;
      }
      pre.hex {
        white-space: pre;
      }
      .box.m-changed {
        background: var(--changed-bg);
        box-shadow: inset 3px 0 0 var(--changed);
      }
      .box.m-added {
        background: var(--added-bg);
        box-shadow: inset 3px 0 0 var(--added);
      }
      .box.m-removed {
        background: var(--removed-bg);
        box-shadow: inset 3px 0 0 var(--removed);
      }
      .cut {
        margin-top: 8px;
      }
      .empty {
        color: var(--muted);
        font-style: italic;
      }
    `,
  ]

  @property({ attribute: false }) body: DecodedBody | undefined
  /** Marks relative to the body; `''` marks the body as a whole. */
  @property({ attribute: false }) marks: ReadonlyMap<string, Mark> = new Map()
  @property() label = 'Body'

  @state() private _mode: Mode | undefined
  @state() private _textAll = false
  @state() private _hexBytes = HEX_CHUNK
  @query('json-view') private _tree: JsonView | undefined

  override willUpdate(changed: Map<PropertyKey, unknown>) {
    if (changed.has('body')) {
      this._mode = undefined
      this._textAll = false
      this._hexBytes = HEX_CHUNK
    }
  }

  /** Shows the location of `pointer` (relative to the body). */
  async reveal(pointer: string): Promise<boolean> {
    if (this.body?.kind === 'json' && this._currentMode() !== 'tree') {
      this._mode = 'tree'
      await this.updateComplete
    }
    if (this._tree) return this._tree.reveal(pointer)
    const box = this.renderRoot.querySelector<HTMLElement>('.box')
    box?.scrollIntoView({ block: 'center' })
    return box !== null
  }

  override render() {
    const b = this.body
    if (!b) return html`<span class="empty">Decoding…</span>`
    const whole = this.marks.get('')
    switch (b.kind) {
      case 'empty':
        return html`<div class="box ${whole ? `m-${whole}` : ''}"><span class="empty">Empty body</span></div>`
      case 'invalid':
        return html`<div class="box"><span class="empty">${b.message}</span></div>`
      case 'json':
        return this._withBar(['tree', 'text'], `JSON · ${formatBytes(b.size)}`, whole)
      case 'text':
        return this._withBar(['text', 'hex'], `Text · ${formatBytes(b.size)}`, whole)
      case 'binary':
        return b.encoding === undefined
          ? this._withBar(['hex'], `Binary · ${formatBytes(b.bytes.length)}`, whole)
          : this._withBar(['hex'], `${b.encoding}-compressed, which this browser cannot decode · ${formatBytes(b.bytes.length)}`, whole)
    }
  }

  private _currentMode(): Mode {
    const b = this.body
    if (this._mode) return this._mode
    return b?.kind === 'json' ? 'tree' : b?.kind === 'binary' ? 'hex' : 'text'
  }

  private _withBar(modes: Mode[], info: string, whole: Mark | undefined) {
    const mode = this._currentMode()
    return html`<div class="bar">
        <span class="muted">${info}</span>
        ${modes.length > 1
          ? html`<span class="modes" role="group" aria-label="${this.label} view">
              ${modes.map(
                (m) => html`<button aria-pressed=${m === mode ? 'true' : 'false'} @click=${() => (this._mode = m)}>
                  ${m === 'text' && this.body?.kind !== 'json' ? 'Text' : MODE_LABELS[m]}
                </button>`,
              )}
            </span>`
          : nothing}
      </div>
      <div class="box ${whole && mode !== 'tree' ? `m-${whole}` : ''}" tabindex="0" role="region" aria-label=${this.label}>
        ${this._content(mode)}
      </div>`
  }

  private _content(mode: Mode) {
    const b = this.body
    if (!b) return nothing
    if (mode === 'tree' && b.kind === 'json') {
      return html`<json-view .value=${b.value} .marks=${this.marks} label=${this.label}></json-view>`
    }
    if (mode === 'hex') {
      const bytes = b.kind === 'binary' ? b.bytes : new TextEncoder().encode(b.kind === 'text' || b.kind === 'json' ? b.text : '')
      const more = bytes.length - this._hexBytes
      return html`<pre class="hex">${hexDump(bytes, this._hexBytes)}</pre>
        ${more > 0
          ? html`<button class="cut small" @click=${() => (this._hexBytes += HEX_CHUNK * 4)}>
              Show more (${formatBytes(more)} not shown)
            </button>`
          : nothing}`
    }
    const text = b.kind === 'json' ? prettyJson(b) : b.kind === 'text' ? b.text : ''
    const cut = !this._textAll && text.length > TEXT_CUT
    return html`<pre>${cut ? text.slice(0, TEXT_CUT) : text}</pre>
      ${cut
        ? html`<button class="cut small" @click=${() => (this._textAll = true)}>
            Show all ${formatCount(text.length)} characters
          </button>`
        : nothing}`
  }
}

const MODE_LABELS: Readonly<Record<Mode, string>> = { tree: 'Tree', text: 'Raw', hex: 'Hex' }

const pretty = new WeakMap<object, string>()

/** Pretty-printed JSON, computed once per body. */
function prettyJson(b: { value: unknown; text: string }): string {
  let out = pretty.get(b)
  if (out === undefined) {
    out = JSON.stringify(b.value, null, 2)
    pretty.set(b, out)
  }
  return out
}

declare global {
  interface HTMLElementTagNameMap {
    'body-view': BodyView
  }
}
