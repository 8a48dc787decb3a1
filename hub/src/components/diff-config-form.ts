import { LitElement, css, html, nothing } from 'lit'
import { customElement, property, query, state } from 'lit/decorators.js'
import type { ApiClient } from '../lib/api-client.ts'
import { ApiError } from '../lib/api-error.ts'
import { humanizeDuration, retentionError } from '../lib/duration.ts'
import { GateSavedEvent } from '../lib/events.ts'
import type { DiffConfig, Gate, GateUpdate } from '../lib/types.ts'
import { fieldOfDetail, fieldPathError, parseList } from '../lib/validation.ts'
import { sharedStyles } from '../styles/shared.ts'

const FIELDS = [
  'ignored_fields',
  'included_fields',
  'float_tolerance',
  'sort_arrays',
  'redacted_fields',
  'retention',
] as const
type Field = (typeof FIELDS)[number]

/**
 * A gate's comparison settings (SPEC.md updateGate): diff_config (all four
 * fields are sent together, as the API requires), redacted_fields and
 * retention. An empty retention is sent as null: "reset to the global
 * floor". Errors from the API land next to the field their detail names.
 */
@customElement('diff-config-form')
export class DiffConfigForm extends LitElement {
  static override styles = [
    sharedStyles,
    css`
      :host {
        display: block;
      }
      form {
        display: grid;
        grid-template-columns: repeat(2, minmax(0, 1fr));
        gap: 16px 24px;
      }
      .wide {
        grid-column: 1 / -1;
      }
      textarea {
        min-height: 84px;
      }
      .inline {
        display: flex;
        align-items: center;
        gap: 8px;
        min-height: 32px;
      }
      .inline input {
        width: 18px;
        height: 18px;
        margin: 0;
      }
      .actions {
        display: flex;
        align-items: center;
        gap: 12px;
        flex-wrap: wrap;
      }
      .saved {
        color: var(--ok);
      }
      .form-error {
        padding: 8px 12px;
        border-radius: var(--radius);
        background: var(--danger-soft);
        color: var(--danger);
      }
      code {
        background: var(--surface-muted);
        padding: 0 3px;
        border-radius: 3px;
      }
      @media (max-width: 720px) {
        form {
          grid-template-columns: 1fr;
        }
      }
    `,
  ]

  @property({ attribute: false }) api: ApiClient | undefined
  @property({ attribute: false }) gate: Gate | undefined
  /** The global retention floor from GET /config, when known. */
  @property() floor: string | undefined

  @state() private _errors: Partial<Record<Field, string>> = {}
  @state() private _formError = ''
  @state() private _busy = false
  @state() private _saved = false
  @state() private _dirty = false
  @query('form') private _form!: HTMLFormElement

  override willUpdate(changed: Map<PropertyKey, unknown>) {
    if (changed.has('gate')) this._dirty = false
  }

  override render() {
    const g = this.gate
    if (!g) return nothing
    const d = g.diff_config
    const floorText = this.floor ? `${this.floor}${humanizeDuration(this.floor) ? ` (${humanizeDuration(this.floor)})` : ''}` : 'the global floor'
    return html`<form @submit=${this._onSubmit} @input=${this._onInput} @reset=${this._onReset} novalidate aria-label="Diff settings">
      ${this._formError ? html`<div class="form-error wide" role="alert">${this._formError}</div>` : nothing}
      ${this._list('ignored_fields', 'Ignored fields', d.ignored_fields, html`Never compared. One path per line, e.g. <code>body.**.updated_at</code> or <code>headers.X-Trace-Id</code>.`)}
      ${this._list('included_fields', 'Included fields', d.included_fields, html`When set, only these paths are compared, then ignored fields are removed.`)}
      <div class="field">
        <label for="float_tolerance">Float tolerance</label>
        <input
          id="float_tolerance"
          name="float_tolerance"
          type="number"
          min="0"
          step="any"
          inputmode="decimal"
          .value=${String(d.float_tolerance)}
          aria-invalid=${this._errors.float_tolerance ? 'true' : 'false'}
          aria-describedby="float_tolerance-hint float_tolerance-error"
        />
        <span id="float_tolerance-hint" class="hint">Numbers differ only when |live − shadow| exceeds it. 0 is exact.</span>
        <span id="float_tolerance-error" class="field-error">${this._errors.float_tolerance ?? nothing}</span>
      </div>
      <div class="field" role="group" aria-labelledby="sort-label">
        <span class="label" id="sort-label"><strong>Arrays</strong></span>
        <label class="inline" for="sort_arrays">
          <input id="sort_arrays" name="sort_arrays" type="checkbox" .checked=${d.sort_arrays} aria-describedby="sort_arrays-hint" />
          Sort arrays before comparing
        </label>
        <span id="sort_arrays-hint" class="hint">Element order then never counts as a difference.</span>
      </div>
      ${this._list('redacted_fields', 'Redacted fields', g.redacted_fields, html`Stored as <code>[REDACTED]</code>. Authorization, Cookie, Set-Cookie, X-Api-Key and Proxy-Authorization headers are always redacted.`)}
      <div class="field">
        <label for="retention">Retention</label>
        <input
          id="retention"
          name="retention"
          type="text"
          placeholder=${this.floor ?? '720h'}
          spellcheck="false"
          .value=${g.retention}
          aria-invalid=${this._errors.retention ? 'true' : 'false'}
          aria-describedby="retention-hint retention-error"
        />
        <span id="retention-hint" class="hint">Empty uses the global floor, ${floorText}. A custom value such as <code>1440h</code> must not be below it.</span>
        <span id="retention-error" class="field-error">${this._errors.retention ?? nothing}</span>
      </div>
      <div class="actions wide">
        <button class="primary" type="submit" ?disabled=${this._busy}>${this._busy ? 'Saving…' : 'Save settings'}</button>
        <button type="reset" ?disabled=${this._busy || !this._dirty}>Discard changes</button>
        <span role="status" class="saved">${this._saved && !this._dirty ? 'Settings saved.' : ''}</span>
      </div>
    </form>`
  }

  private _list(name: Field, label: string, values: readonly string[], hint: unknown) {
    const error = this._errors[name]
    return html`<div class="field">
      <label for=${name}>${label}</label>
      <textarea
        id=${name}
        name=${name}
        rows="3"
        spellcheck="false"
        .value=${values.join('\n')}
        aria-invalid=${error ? 'true' : 'false'}
        aria-describedby="${name}-hint ${name}-error"
      ></textarea>
      <span id="${name}-hint" class="hint">${hint}</span>
      <span id="${name}-error" class="field-error">${error ?? nothing}</span>
    </div>`
  }

  private _onInput() {
    this._dirty = true
    this._saved = false
  }

  private async _onReset(event: Event) {
    // The native reset restores attributes, not the bound values: re-render instead.
    event.preventDefault()
    this._errors = {}
    this._formError = ''
    this._dirty = false
    const gate = this.gate
    this.gate = undefined
    await this.updateComplete
    this.gate = gate
  }

  private async _onSubmit(event: SubmitEvent) {
    event.preventDefault()
    if (!this.api || !this.gate || this._busy) return
    const { body, errors } = this._read(new FormData(this._form))
    this._errors = errors
    this._formError = ''
    this._saved = false
    if (!body) return this._focusFirstError()
    this._busy = true
    try {
      const gate = await this.api.updateGate(this.gate.id, body)
      this._saved = true
      this.dispatchEvent(new GateSavedEvent(gate, false))
    } catch (error) {
      if (error instanceof ApiError && error.detail) {
        const field = fieldOfDetail(error.detail, FIELDS)
        if (field) {
          this._errors = { [field]: error.detail }
          return this._focusFirstError()
        }
      }
      this._formError = error instanceof Error ? error.message : String(error)
    } finally {
      this._busy = false
    }
  }

  private _read(data: FormData): { body?: GateUpdate; errors: Partial<Record<Field, string>> } {
    const errors: Partial<Record<Field, string>> = {}
    const text = (k: Field) => String(data.get(k) ?? '')
    const lists = {} as Record<'ignored_fields' | 'included_fields' | 'redacted_fields', string[]>
    for (const k of ['ignored_fields', 'included_fields', 'redacted_fields'] as const) {
      lists[k] = parseList(text(k))
      const bad = lists[k].map(fieldPathError).find((e) => e !== undefined)
      if (bad) errors[k] = bad
    }
    const tolText = text('float_tolerance').trim()
    const tolerance = tolText === '' ? 0 : Number(tolText)
    // A number input holding text it cannot read ("1e") reports an empty
    // value: without this check that would be saved as 0.
    const unreadable = this._form.querySelector<HTMLInputElement>('#float_tolerance')?.validity.badInput === true
    if (unreadable || !Number.isFinite(tolerance) || tolerance < 0) errors.float_tolerance = 'Enter a number of 0 or more.'
    const retention = text('retention').trim()
    const retErr = retentionError(retention, this.floor)
    if (retErr) errors.retention = retErr
    if (Object.keys(errors).length) return { errors }

    const diff_config: DiffConfig = {
      ignored_fields: lists.ignored_fields,
      included_fields: lists.included_fields,
      float_tolerance: tolerance,
      sort_arrays: data.get('sort_arrays') !== null,
    }
    return {
      errors,
      body: { diff_config, redacted_fields: lists.redacted_fields, retention: retention === '' ? null : retention },
    }
  }

  private async _focusFirstError() {
    await this.updateComplete
    this.renderRoot.querySelector<HTMLElement>('[aria-invalid=true]')?.focus()
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'diff-config-form': DiffConfigForm
  }
}
