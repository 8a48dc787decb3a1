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
  isSignatureId,
  normaliseMethods,
  toDateTimeLocal,
} from '../lib/query-string.ts'
import type { HasDiffChoice, RequestListQuery } from '../lib/query-string.ts'
import { chipStyles, sharedStyles } from '../styles/shared.ts'

const HAS_DIFF_LABELS: Readonly<Record<HasDiffChoice, string>> = {
  any: 'Any',
  true: 'With diff',
  false: 'Without diff',
}

const TYPING_DEBOUNCE_MS = 300

/** The filters typed as text: sent once typing pauses. */
type TextFilter = 'path' | 'template' | 'signature'

/**
 * Every filter of listRequests (docs/reference/api.md): methods, path
 * (substring, `*` for any sequence), time range, has_diff, and the endpoint
 * template and diff signature (docs/insights.md). Each change resets paging.
 */
@customElement('request-filters')
export class RequestFilters extends LitElement {
  static override styles = [
    sharedStyles,
    chipStyles,
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
      .methods .chip span {
        font-family: var(--mono);
        font-size: 12px;
      }
      .text input {
        width: 15rem;
        font-family: var(--mono);
      }
      .text.signature input {
        width: 12rem;
      }
      @media (max-width: 720px) {
        .text input,
        .text.signature input {
          width: 100%;
        }
        .text {
          flex: 1 1 100%;
        }
      }
    `,
  ]

  @property({ attribute: false }) query: RequestListQuery = DEFAULT_REQUEST_QUERY

  /** Text filters as typed, ahead of the debounced update. */
  @state() private _typed: Partial<Record<TextFilter, string>> = {}
  #timer: ReturnType<typeof setTimeout> | undefined

  override willUpdate(changed: Map<PropertyKey, unknown>) {
    if (!changed.has('query')) return
    // What the URL now says replaces what was typed, once it caught up.
    const typed = { ...this._typed }
    for (const key of Object.keys(typed) as TextFilter[]) if (typed[key] === this.query[key]) delete typed[key]
    this._typed = typed
  }

  override disconnectedCallback() {
    super.disconnectedCallback()
    clearTimeout(this.#timer)
  }

  override render() {
    const q = this.query
    const typedSignature = this._typed.signature?.trim().toLowerCase() ?? ''
    // Hex digits short of 16 are still being typed; anything else cannot become an id.
    const signatureInvalid = !/^[0-9a-f]{0,16}$/.test(typedSignature)
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
      <div class="field text">
        <label for="path">Path</label>
        <input
          id="path"
          type="search"
          placeholder="/api/orders/*"
          spellcheck="false"
          .value=${this._typed.path ?? q.path}
          @input=${this._onText}
          aria-describedby="path-hint"
        />
        <span id="path-hint" class="visually-hidden">Substring, case-sensitive; * stands for any sequence.</span>
      </div>
      <div class="field text">
        <label for="template">Endpoint template</label>
        <input
          id="template"
          type="search"
          placeholder="/v2/products/{id}"
          spellcheck="false"
          .value=${this._typed.template ?? q.template}
          @input=${this._onText}
          aria-describedby="template-hint"
        />
        <span id="template-hint" class="visually-hidden">The route template exactly, as the Differences view shows it.</span>
      </div>
      <div class="field text signature">
        <label for="signature">Signature</label>
        <input
          id="signature"
          type="search"
          placeholder="16 hex digits"
          spellcheck="false"
          autocomplete="off"
          .value=${this._typed.signature ?? q.signature}
          @input=${this._onText}
          aria-describedby="signature-hint"
          aria-invalid=${signatureInvalid ? 'true' : 'false'}
        />
        <span id="signature-hint" class=${signatureInvalid ? 'field-error' : 'visually-hidden'}
          >${signatureInvalid ? 'A signature is 16 hex digits.' : 'The id of a kind of difference, from the Differences view.'}</span
        >
      </div>
      </div>
      <div class="line">
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

  private _onText(event: Event) {
    const input = event.target as HTMLInputElement
    const key = input.id as TextFilter
    this._typed = { ...this._typed, [key]: input.value }
    clearTimeout(this.#timer)
    // Every field typed so far goes out together, so a quick switch from one field to the next loses nothing.
    this.#timer = setTimeout(() => this._emit(this._typedFilters(), true), TYPING_DEBOUNCE_MS)
  }

  /** The typed filters to send: a signature only once it is a whole id (or cleared). */
  private _typedFilters(): Partial<RequestListQuery> {
    const { signature, ...rest } = this._typed
    if (signature === undefined) return rest
    const id = signature.trim().toLowerCase()
    return id === '' || isSignatureId(id) ? { ...rest, signature: id } : rest
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
    this._typed = {}
    this._emit({ method: [], path: '', from: '', to: '', has_diff: 'any', signature: '', template: '' })
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'request-filters': RequestFilters
  }
}
