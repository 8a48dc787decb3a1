import { LitElement, css, html, nothing } from 'lit'
import type { TemplateResult } from 'lit'
import { customElement, property, state } from 'lit/decorators.js'
import type { Mark } from '../lib/diff-highlight.ts'
import { ancestorsOf, childPointer, parsePointer } from '../lib/json-pointer.ts'
import { CHUNK, FORCED_MAX, STRING_CUT, initialOpen, isContainer, shortLimits } from '../lib/json-tree.ts'
import type { Container } from '../lib/json-tree.ts'
import { formatCount, visibleJson } from '../lib/format.ts'
import { sharedStyles } from '../styles/shared.ts'
import { isLargeInteger } from '../../../src/diff/large-integer.ts'

/**
 * A collapsible JSON tree that stays fast on 1 MB bodies: only open
 * containers render their children, a container shows `CHUNK` children at a
 * time, long strings are cut, and large nodes start collapsed. Diff marks
 * (JSON Pointers relative to the value) colour their rows, and the branches
 * leading to them start open. Keyboard: the tree is one Tab stop (a roving
 * tabindex on its toggles, so a body with hundreds of branches does not
 * hold Tab up); ↑ ↓ move between toggles, ← → close or open, Home and End
 * go to the first and last toggle.
 */
@customElement('json-view')
export class JsonView extends LitElement {
  static override styles = [
    sharedStyles,
    css`
      :host {
        display: block;
        font-family: var(--mono);
        font-size: 12.5px;
        line-height: 1.6;
      }
      ul {
        margin: 0;
        padding: 0 0 0 18px;
        list-style: none;
      }
      ul.root {
        padding-left: 0;
      }
      .row {
        display: block;
        padding: 0 6px 0 2px;
        border-radius: 3px;
        min-height: 20px;
        overflow-wrap: anywhere;
      }
      .str {
        white-space: pre-wrap;
      }
      .punct {
        color: var(--muted);
        white-space: pre;
      }
      .count {
        margin-left: 8px;
        font-family: var(--font);
        font-size: 12px;
      }
      .row:focus {
        outline: 2px solid var(--focus);
        outline-offset: -1px;
      }
      .toggle {
        display: inline-block;
        vertical-align: baseline;
        width: 16px;
        min-height: 0;
        height: 16px;
        padding: 0;
        border: 0;
        background: none;
        color: var(--muted);
        font-size: 10px;
        line-height: 16px;
      }
      .toggle:hover:not(:disabled) {
        background: var(--surface-muted);
        color: var(--text);
      }
      .spacer {
        display: inline-block;
        width: 16px;
      }
      .key {
        color: #6f2da8;
      }
      .idx {
        color: var(--muted);
      }
      .str {
        color: #0a6b3d;
      }
      .num {
        color: #0a58b8;
      }
      .bool,
      .null {
        color: #b3261e;
      }
      .preview {
        color: var(--muted);
      }
      .more {
        padding: 2px 0 2px 20px;
      }
      .more button,
      .cut {
        min-height: 0;
        padding: 0 6px;
        font-family: var(--font);
        font-size: 12px;
      }
      .dot {
        display: inline-block;
        width: 7px;
        height: 7px;
        margin-left: 8px;
        border-radius: 50%;
        background: var(--changed);
        vertical-align: middle;
      }
      li.m-added > .row,
      li.m-added > ul {
        background: var(--added-bg);
      }
      li.m-removed > .row,
      li.m-removed > ul {
        background: var(--removed-bg);
      }
      li.m-changed > .row,
      li.m-changed > ul {
        background: var(--changed-bg);
      }
      li.m-added > .row {
        box-shadow: inset 3px 0 0 var(--added);
      }
      li.m-removed > .row {
        box-shadow: inset 3px 0 0 var(--removed);
      }
      li.m-changed > .row {
        box-shadow: inset 3px 0 0 var(--changed);
      }
      li.m-removed > .row .str,
      li.m-removed > .row .num,
      li.m-removed > .row .bool,
      li.m-removed > .row .null {
        text-decoration: line-through;
        text-decoration-color: rgb(179 38 30 / 50%);
      }
      .tag {
        margin-left: 8px;
        font-family: var(--font);
        font-size: 11px;
        font-weight: 600;
        text-transform: uppercase;
        letter-spacing: 0.03em;
      }
      .tag.added {
        color: var(--added);
      }
      .tag.removed {
        color: var(--removed);
      }
      .tag.changed {
        color: var(--changed);
      }
      .flash {
        animation: flash 1.2s ease-out;
      }
      @keyframes flash {
        0%,
        40% {
          outline: 3px solid var(--focus);
        }
        100% {
          outline: 3px solid transparent;
        }
      }
    `,
  ]

  @property({ attribute: false }) value: unknown
  /** Pointer (relative to `value`) → mark. */
  @property({ attribute: false }) marks: ReadonlyMap<string, Mark> = new Map()
  /** What "Mark" words say to a screen reader: "added" means "only in this response". */
  @property() label = 'JSON'

  @state() private _open = new Set<string>()
  @state() private _limits = new Map<string, number>()
  @state() private _fullStrings = new Set<string>()
  /** Pointers that must render even past a container's chunk. */
  @state() private _forced = new Set<string>()
  /** The toggle that is the tree's Tab stop (roving tabindex). */
  @state() private _current = ''
  #ancestors = new Set<string>()

  override willUpdate(changed: Map<PropertyKey, unknown>) {
    if (changed.has('marks') || changed.has('value')) {
      this.#ancestors = ancestorsOf(this.marks.keys())
      const first = [...this.marks.keys()].slice(0, FORCED_MAX)
      this._forced = new Set([...first, ...ancestorsOf(first)])
    }
    if (changed.has('value')) {
      this._limits = shortLimits(this.value, this.#ancestors)
      this._fullStrings = new Set()
      this._open = initialOpen(this.value, this.#ancestors)
    } else if (changed.has('marks')) {
      this._open = new Set([...this._open, ...this.#ancestors])
    }
  }

  /** Opens the branches down to `pointer`, scrolls its row into view and focuses it. */
  async reveal(pointer: string): Promise<boolean> {
    const tokens = parsePointer(pointer)
    if (!tokens) return false
    const open = new Set(this._open)
    let p = ''
    open.add(p)
    for (const t of tokens.slice(0, -1)) {
      p = childPointer(p, t)
      open.add(p)
    }
    this._open = open
    this._forced = new Set([...this._forced, ...ancestorsOf([pointer]), pointer])
    await this.updateComplete
    const row = this.renderRoot.querySelector<HTMLElement>(`[data-pointer="${CSS.escape(pointer)}"]`)
    if (!row) return false
    row.scrollIntoView({ block: 'center' })
    row.focus({ preventScroll: true })
    row.classList.remove('flash')
    void row.offsetWidth
    row.classList.add('flash')
    return true
  }

  /** Collapses everything but the root. */
  collapseAll() {
    this._open = new Set([''])
  }

  override updated() {
    // The Tab stop was collapsed away or cut: the first toggle takes over.
    if (this.renderRoot.querySelector('button.toggle[tabindex="0"]')) return
    const first = this.renderRoot.querySelector<HTMLElement>('button.toggle')
    const pointer = first?.closest<HTMLElement>('.row')?.dataset.pointer
    if (pointer !== undefined && pointer !== this._current) this._current = pointer
  }

  override render() {
    return html`<ul class="root" role="group" aria-label=${this.label} @keydown=${this._onKeyDown}>
      ${this._node(undefined, this.value, '', true)}
    </ul>`
  }

  private _node(key: string | number | undefined, value: unknown, pointer: string, last: boolean): TemplateResult {
    const mark = this.marks.get(pointer)
    const cls = mark ? `m-${mark}` : ''
    // Templates are kept on one line where whitespace would show between tokens.
    const keyPart =
      key === undefined
        ? nothing
        : typeof key === 'number'
          ? html`<span class="idx">${key}</span><span class="punct">: </span>`
          : html`<span class="key">${visibleJson(key)}</span><span class="punct">: </span>`
    const tag = mark ? html`<span class="tag ${mark}">${MARK_WORDS[mark]}</span>` : nothing
    const comma = last ? nothing : html`<span class="punct">,</span>`
    if (!isContainer(value)) {
      return html`<li class=${cls}><div class="row" data-pointer=${pointer} tabindex="-1"><span class="spacer"></span>${keyPart}${this._primitive(value, pointer)}${comma}${tag}</div></li>`
    }
    const isArray = Array.isArray(value)
    const size = isArray ? value.length : Object.keys(value).length
    const open = this._open.has(pointer) && size > 0
    const [o, c] = isArray ? ['[', ']'] : ['{', '}']
    const hasMarks = !open && this.#ancestors.has(pointer)
    const summary = `${formatCount(size)} ${isArray ? (size === 1 ? 'item' : 'items') : size === 1 ? 'key' : 'keys'}`
    const toggle =
      size > 0
        ? html`<button class="toggle" tabindex=${pointer === this._current ? '0' : '-1'} aria-expanded=${open ? 'true' : 'false'} aria-label="${open ? 'Collapse' : 'Expand'} ${key === undefined ? 'root' : String(key)}, ${summary}" @click=${() => this._toggle(pointer)} @focus=${() => (this._current = pointer)}>${open ? '▾' : '▸'}</button>`
        : html`<span class="spacer"></span>`
    const closed = html`${size > 0 ? html`<span class="preview">…</span>` : nothing}<span class="punct">${c}</span>${comma}${size > 0 ? html`<span class="preview count">${summary}</span>` : nothing}`
    const dot = hasMarks
      ? html`<span class="dot" title="Contains differences"></span><span class="visually-hidden">contains differences</span>`
      : nothing
    return html`<li class=${cls}><div class="row" data-pointer=${pointer} tabindex="-1">${toggle}${keyPart}<span class="punct">${o}</span>${open ? nothing : closed}${dot}${tag}</div>${open
        ? html`<ul>${this._children(value, pointer, size)}</ul><div class="row"><span class="spacer"></span><span class="punct">${c}</span>${comma}</div>`
        : nothing}</li>`
  }

  private _children(value: Container, pointer: string, size: number): unknown[] {
    const limit = this._limits.get(pointer) ?? CHUNK
    const keys = Array.isArray(value) ? undefined : Object.keys(value)
    const out: unknown[] = []
    let hidden = 0
    const flushGap = (at: number) => {
      if (hidden === 0) return
      const n = hidden
      out.push(html`<li class="more">
        <button @click=${() => this._showMore(pointer, at)}>Show ${formatCount(Math.min(n, CHUNK))} more of ${formatCount(n)} hidden</button>
      </li>`)
      hidden = 0
    }
    for (let i = 0; i < size; i++) {
      const token = keys ? (keys[i] as string) : i
      const child = childPointer(pointer, token)
      if (i >= limit && !this._forced.has(child)) {
        hidden++
        continue
      }
      flushGap(i)
      const v = keys ? (value as Record<string, unknown>)[token as string] : (value as unknown[])[i]
      out.push(this._node(token, v, child, i === size - 1))
    }
    flushGap(size)
    return out
  }

  private _primitive(value: unknown, pointer: string) {
    if (typeof value === 'string') {
      const full = this._fullStrings.has(pointer) || value.length <= STRING_CUT
      const shown = full ? value : value.slice(0, STRING_CUT)
      return html`<span class="str">${visibleJson(shown).slice(0, full ? undefined : -1)}${full ? '' : '…"'}</span>${full
        ? nothing
        : html`<button class="cut" @click=${() => this._showString(pointer)}>
            show all ${formatCount(value.length)} characters
          </button>`}`
    }
    if (typeof value === 'number') return html`<span class="num">${String(value)}</span>`
    if (isLargeInteger(value)) return html`<span class="num">${value.rawJSON}</span>`
    if (typeof value === 'boolean') return html`<span class="bool">${String(value)}</span>`
    return html`<span class="null">null</span>`
  }

  private _toggle(pointer: string) {
    const open = new Set(this._open)
    if (open.has(pointer)) open.delete(pointer)
    else open.add(pointer)
    this._open = open
  }

  /**
   * Raises the chunk limit so the next CHUNK hidden children at `at` and
   * after show up.
   */
  private _showMore(pointer: string, at: number) {
    const limits = new Map(this._limits)
    const current = limits.get(pointer) ?? CHUNK
    limits.set(pointer, Math.max(current, at) + CHUNK)
    this._limits = limits
  }

  private _showString(pointer: string) {
    this._fullStrings = new Set([...this._fullStrings, pointer])
  }

  private _onKeyDown(event: KeyboardEvent) {
    const target = event.composedPath()[0]
    if (!(target instanceof HTMLElement) || !target.classList.contains('toggle')) return
    const toggles = [...this.renderRoot.querySelectorAll<HTMLButtonElement>('button.toggle')]
    const i = toggles.indexOf(target as HTMLButtonElement)
    const pointer = target.closest<HTMLElement>('.row')?.dataset.pointer ?? ''
    switch (event.key) {
      case 'ArrowDown':
        toggles[i + 1]?.focus()
        break
      case 'ArrowUp':
        toggles[i - 1]?.focus()
        break
      case 'Home':
        toggles[0]?.focus()
        break
      case 'End':
        toggles.at(-1)?.focus()
        break
      case 'ArrowRight':
        if (!this._open.has(pointer)) this._toggle(pointer)
        break
      case 'ArrowLeft':
        if (this._open.has(pointer)) this._toggle(pointer)
        break
      default:
        return
    }
    event.preventDefault()
  }
}

const MARK_WORDS: Readonly<Record<Mark, string>> = {
  added: 'added',
  removed: 'removed',
  changed: 'changed',
}

declare global {
  interface HTMLElementTagNameMap {
    'json-view': JsonView
  }
}
