import { LitElement, css, html, nothing } from 'lit'
import { customElement, property, query, state } from 'lit/decorators.js'
import type { ApiClient } from '../lib/api-client.ts'
import { ApiError } from '../lib/api-error.ts'
import { humanizeDuration, retentionError } from '../lib/duration.ts'
import { GateSavedEvent } from '../lib/events.ts'
import { windowStart } from '../lib/insights-query.ts'
import { PreviewController, sameConfig } from '../lib/preview-controller.ts'
import type { DiffConfig, Gate, GateUpdate } from '../lib/types.ts'
import { endpointTemplatesError, fieldOfDetail, fieldPathError, MAX_ENDPOINTS, parseLines, parseList } from '../lib/validation.ts'
import { sharedStyles } from '../styles/shared.ts'
import './diff-preview.ts'
import type { PreviewStage } from './diff-preview.ts'

const FIELDS = [
  'ignored_fields',
  'included_fields',
  'float_tolerance',
  'sort_arrays',
  'redacted_fields',
  'retention',
  'endpoints',
] as const
type Field = (typeof FIELDS)[number]
type Errors = Partial<Record<Field, string>>

/**
 * A gate's comparison settings (docs/reference/api.md "updateGate"):
 * diff_config (all four fields are sent together, as the API requires),
 * redacted_fields, retention and the explicit endpoint templates. An empty
 * retention is sent as null: "reset to the global floor". Errors from the
 * API land next to the field their detail names.
 *
 * While the diff_config is edited, its preview (what it would silence and
 * surface among the stored captures of the last 24 hours) is shown above
 * Save: asked for once the edits pause, the previous request aborted
 * (PreviewController). `prefill` adds ignored_fields entries (the "Ignore"
 * actions of the Differences view), unsaved, and previews them.
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
  /** ignored_fields entries to add to the saved ones, not yet saved. */
  @property({ attribute: false }) prefill: readonly string[] = []

  @state() private _errors: Partial<Record<Field, string>> = {}
  @state() private _formError = ''
  @state() private _busy = false
  @state() private _saved = false
  @state() private _dirty = false
  /** Discard changes drops the prefill too, until another one comes. */
  @state() private _usePrefill = true
  @state() private _stage: PreviewStage = 'unchanged'
  /** The window start of the last preview asked for, for its links. */
  @state() private _previewFrom = ''
  @query('form') private _form!: HTMLFormElement

  private _preview = new PreviewController(this, (diff_config, signal) => {
    const from = windowStart('24h')
    this._previewFrom = from
    return this.api!.previewDiffConfig(this.gate!.id, { diff_config, from }, signal)
  })

  override willUpdate(changed: Map<PropertyKey, unknown>) {
    if (changed.has('gate')) this._dirty = false
    if (changed.has('prefill')) this._usePrefill = true
  }

  override updated(changed: Map<PropertyKey, unknown>) {
    // The form now shows the gate (and the prefill): preview what differs from the saved settings.
    if (changed.has('gate') || changed.has('prefill') || changed.has('_usePrefill')) {
      if (this.gate && this._extraIgnored().length > 0) {
        this._dirty = true
        // An "Ignore" just led here: bring its preview into view (focus stays on the page's heading).
        if (changed.has('prefill') || changed.get('gate') === undefined) {
          this.renderRoot.querySelector('diff-preview')?.scrollIntoView({ block: 'center' })
        }
      }
      this._updatePreview()
    }
  }

  override render() {
    const g = this.gate
    if (!g) return nothing
    const d = g.diff_config
    const floorText = this.floor ? `${this.floor}${humanizeDuration(this.floor) ? ` (${humanizeDuration(this.floor)})` : ''}` : 'the global floor'
    return html`<form @submit=${this._onSubmit} @input=${this._onInput} @reset=${this._onReset} novalidate aria-label="Diff settings">
      ${this._formError ? html`<div class="form-error wide" role="alert">${this._formError}</div>` : nothing}
      ${this._list('ignored_fields', 'Ignored fields', [...d.ignored_fields, ...this._extraIgnored()], html`Never compared. One path per line, e.g. <code>body.**.updated_at</code> or <code>headers.X-Trace-Id</code>.`)}
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
      ${this._list(
        'endpoints',
        'Endpoint templates',
        g.endpoints,
        html`How paths group into endpoints in the Differences view, tried in order before the automatic grouping. One per line, e.g.
          <code>/v2/products/{sku}/price</code> or <code>/static/*</code>; at most ${MAX_ENDPOINTS}. Captures stored from now on use them.`,
        'wide',
      )}
      <diff-preview
        class="wide"
        gateId=${g.id}
        stage=${this._stage}
        from=${this._previewFrom}
        .preview=${this._preview.value?.preview}
        ?stale=${this._preview.value !== undefined && this._preview.config !== undefined && !sameConfig(this._preview.value.config, this._preview.config)}
        ?pending=${this._preview.pending}
        ?busy=${this._preview.busy}
        .error=${this._preview.error}
        @retry=${() => this._preview.retry()}
      ></diff-preview>
      <div class="actions wide">
        <button class="primary" type="submit" ?disabled=${this._busy}>${this._busy ? 'Saving…' : 'Save settings'}</button>
        <button type="reset" ?disabled=${this._busy || !this._dirty}>Discard changes</button>
        <span role="status" class="saved">${this._saved && !this._dirty ? 'Settings saved.' : ''}</span>
      </div>
    </form>`
  }

  private _list(name: Field, label: string, values: readonly string[], hint: unknown, layout: 'wide' | '' = '') {
    const error = this._errors[name]
    return html`<div class="field ${layout}">
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

  /** The prefill entries the saved ignored_fields lack. */
  private _extraIgnored(): string[] {
    if (!this._usePrefill || !this.gate) return []
    const saved = this.gate.diff_config.ignored_fields
    return this.prefill.filter((path) => !saved.includes(path))
  }

  private _onInput() {
    this._dirty = true
    this._saved = false
    this._updatePreview()
  }

  /** Previews the diff_config the form holds, when it is valid and differs from the saved one. */
  private _updatePreview() {
    if (!this.gate || !this._form) return
    const { config, errors } = this._readDiffConfig(new FormData(this._form))
    if (!config) {
      this._stage = Object.keys(errors).length ? 'invalid' : 'unchanged'
      this._preview.request(undefined)
    } else if (sameConfig(config, this.gate.diff_config)) {
      this._stage = 'unchanged'
      this._preview.request(undefined)
    } else {
      this._stage = 'ready'
      this._preview.request(config)
    }
  }

  private async _onReset(event: Event) {
    // The native reset restores attributes, not the bound values: re-render instead.
    event.preventDefault()
    this._errors = {}
    this._formError = ''
    this._dirty = false
    this._usePrefill = false
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
    const changed = !sameConfig(body.diff_config!, this.gate.diff_config)
    this._busy = true
    try {
      const gate = await this.api.updateGate(this.gate.id, body)
      this._saved = true
      this.dispatchEvent(new GateSavedEvent(gate, false, changed))
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

  private _read(data: FormData): { body?: GateUpdate; errors: Errors } {
    const { config, errors } = this._readDiffConfig(data)
    const text = (k: Field) => String(data.get(k) ?? '')
    const redacted = this._readList(data, 'redacted_fields', errors)
    const retention = text('retention').trim()
    const retErr = retentionError(retention, this.floor)
    if (retErr) errors.retention = retErr
    const endpoints = parseLines(text('endpoints'))
    const endpointsErr = endpointTemplatesError(endpoints)
    if (endpointsErr) errors.endpoints = endpointsErr
    if (!config || Object.keys(errors).length) return { errors }
    return {
      errors,
      body: { diff_config: config, redacted_fields: redacted, retention: retention === '' ? null : retention, endpoints },
    }
  }

  /** The four diff_config fields of the form, or the errors that keep it from being one. */
  private _readDiffConfig(data: FormData): { config?: DiffConfig; errors: Errors } {
    const errors: Errors = {}
    const ignored = this._readList(data, 'ignored_fields', errors)
    const included = this._readList(data, 'included_fields', errors)
    const tolText = String(data.get('float_tolerance') ?? '').trim()
    const tolerance = tolText === '' ? 0 : Number(tolText)
    // A number input holding text it cannot read ("1e") reports an empty
    // value: without this check that would be saved as 0.
    const unreadable = this._form.querySelector<HTMLInputElement>('#float_tolerance')?.validity.badInput === true
    if (unreadable || !Number.isFinite(tolerance) || tolerance < 0) errors.float_tolerance = 'Enter a number of 0 or more.'
    if (Object.keys(errors).length) return { errors }
    return {
      errors,
      config: { ignored_fields: ignored, included_fields: included, float_tolerance: tolerance, sort_arrays: data.get('sort_arrays') !== null },
    }
  }

  private _readList(data: FormData, name: 'ignored_fields' | 'included_fields' | 'redacted_fields', errors: Errors): string[] {
    const list = parseList(String(data.get(name) ?? ''))
    const bad = list.map(fieldPathError).find((e) => e !== undefined)
    if (bad) errors[name] = bad
    return list
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
