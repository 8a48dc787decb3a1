import { LitElement, css, html } from 'lit'
import { customElement, property, state } from 'lit/decorators.js'
import { FiltersChangeEvent } from '../lib/events.ts'
import {
  COMMON_METHODS,
  DEFAULT_REQUEST_QUERY,
  HAS_DIFF_CHOICES,
  endOfDateTimeLocal,
  fromDateTimeLocal,
  hasRequestFilters,
  normaliseMethods,
  toDateTimeLocal,
} from '../lib/query-string.ts'
import type { HasDiffChoice, RequestListQuery } from '../lib/query-string.ts'
import { sharedStyles } from '../styles/shared.ts'

const HAS_DIFF_LABELS: Readonly<Record<HasDiffChoice, string>> = {
  any: 'Any',
  true: 'With diff',
  false: 'Without diff',
}

const PATH_DEBOUNCE_MS = 300

/**
 * Every filter of listRequests (SPEC.md): methods, path (substring, `*`
 * for any sequence), time range and has_diff. Each change resets paging.
 */
@customElement('request-filters')
export class RequestFilters extends LitElement {
  static override styles = [
    sharedStyles,
    css`
      :host {
        display: block;
      }
      form {
        display: grid;
        gap: 12px;
      }
      .line {
        display: flex;
        flex-wrap: wrap;
        align-items: flex-end;
        gap: 12px 20px;
      }
      fieldset {
        margin: 0;
        padding: 0;
        border: 0;
        min-width: 0;
      }
      legend {
        padding: 0;
        margin-bottom: 4px;
        font-weight: 550;
      }
      .chips {
        display: flex;
        flex-wrap: wrap;
        gap: 4px;
      }
      .chip {
        position: relative;
      }
      .chip input {
        position: absolute;
        opacity: 0;
        inset: 0;
        margin: 0;
        cursor: pointer;
      }
      .chip span {
        display: inline-block;
        padding: 4px 9px;
        border: 1px solid var(--border-strong);
        border-radius: var(--radius);
        background: var(--surface);
        font-size: 12.5px;
        font-weight: 600;
        color: var(--muted);
      }
      .methods .chip span {
        font-family: var(--mono);
        font-size: 12px;
      }
      .chip input:checked + span {
        background: var(--accent);
        border-color: var(--accent);
        color: #fff;
      }
      .chip input:focus-visible + span {
        outline: 2px solid var(--focus);
        outline-offset: 2px;
      }
      .path input {
        width: 15rem;
        font-family: var(--mono);
      }
      @media (max-width: 720px) {
        .path input {
          width: 100%;
        }
        .path {
          flex: 1 1 100%;
        }
      }
    `,
  ]

  @property({ attribute: false }) query: RequestListQuery = DEFAULT_REQUEST_QUERY

  /** The path as typed, ahead of the debounced update. */
  @state() private _path: string | undefined
  #timer: ReturnType<typeof setTimeout> | undefined

  override willUpdate(changed: Map<PropertyKey, unknown>) {
    if (changed.has('query') && this._path === this.query.path) this._path = undefined
  }

  override disconnectedCallback() {
    super.disconnectedCallback()
    clearTimeout(this.#timer)
  }

  override render() {
    const q = this.query
    const methods = [...COMMON_METHODS, ...q.method.filter((m) => !(COMMON_METHODS as readonly string[]).includes(m))]
    return html`<form @submit=${(e: Event) => e.preventDefault()} aria-label="Request filters">
      <div class="line">
      <fieldset>
        <legend>Method</legend>
        <div class="chips methods">
          ${methods.map(
            (m) => html`<label class="chip">
              <input type="checkbox" value=${m} .checked=${q.method.includes(m)} @change=${this._onMethod} />
              <span>${m}</span>
            </label>`,
          )}
        </div>
      </fieldset>
      <fieldset>
        <legend>Diff</legend>
        <div class="chips">
          ${HAS_DIFF_CHOICES.map(
            (c) => html`<label class="chip">
              <input type="radio" name="has_diff" value=${c} .checked=${c === q.has_diff} @change=${this._onHasDiff} />
              <span>${HAS_DIFF_LABELS[c]}</span>
            </label>`,
          )}
        </div>
      </fieldset>
      </div>
      <div class="line">
      <div class="field path">
        <label for="path">Path</label>
        <input
          id="path"
          type="search"
          placeholder="/api/orders/*"
          spellcheck="false"
          .value=${this._path ?? q.path}
          @input=${this._onPath}
          aria-describedby="path-hint"
        />
        <span id="path-hint" class="visually-hidden">Substring, case-sensitive; * stands for any sequence.</span>
      </div>
      <div class="field">
        <label for="from">Captured from</label>
        <input id="from" type="datetime-local" .value=${toDateTimeLocal(q.from)} @change=${this._onFrom} />
      </div>
      <div class="field">
        <label for="to">Captured to</label>
        <input id="to" type="datetime-local" .value=${toDateTimeLocal(q.to)} @change=${this._onTo} />
      </div>
      <button type="button" ?disabled=${!hasRequestFilters(q)} @click=${this._onClear}>Clear filters</button>
      </div>
    </form>`
  }

  private _emit(patch: Partial<RequestListQuery>, replace = false) {
    this.dispatchEvent(new FiltersChangeEvent({ ...this.query, ...patch, offset: 0 }, replace))
  }

  private _onMethod(event: Event) {
    const box = event.target as HTMLInputElement
    const current = this.query.method.filter((m) => m !== box.value)
    this._emit({ method: normaliseMethods(box.checked ? [...current, box.value] : current) })
  }

  private _onPath(event: Event) {
    this._path = (event.target as HTMLInputElement).value
    clearTimeout(this.#timer)
    this.#timer = setTimeout(() => this._emit({ path: this._path ?? '' }, true), PATH_DEBOUNCE_MS)
  }

  private _onFrom(event: Event) {
    this._emit({ from: fromDateTimeLocal((event.target as HTMLInputElement).value) })
  }

  private _onTo(event: Event) {
    this._emit({ to: endOfDateTimeLocal((event.target as HTMLInputElement).value) })
  }

  private _onHasDiff(event: Event) {
    this._emit({ has_diff: (event.target as HTMLInputElement).value as HasDiffChoice })
  }

  private _onClear() {
    clearTimeout(this.#timer)
    this._path = undefined
    this._emit({ method: [], path: '', from: '', to: '', has_diff: 'any' })
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'request-filters': RequestFilters
  }
}
