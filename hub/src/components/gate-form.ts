import { LitElement, css, html, nothing } from 'lit'
import { customElement, property, query, state } from 'lit/decorators.js'
import type { ApiClient } from '../lib/api-client.ts'
import { ApiError } from '../lib/api-error.ts'
import { GateSavedEvent } from '../lib/events.ts'
import { fieldOfDetail, urlError } from '../lib/validation.ts'
import { sharedStyles } from '../styles/shared.ts'

const FIELDS = ['name', 'live_url', 'shadow_url'] as const
type Field = (typeof FIELDS)[number]

const LABELS: Readonly<Record<Field, string>> = {
  name: 'Name',
  live_url: 'Live URL',
  shadow_url: 'Shadow URL',
}

/**
 * Creates a gate (docs/reference/api.md "createGate"). Checks what it can
 * before sending; a 400 or 409 from the API is shown next to the field its
 * `detail` names, or above the form when it names none.
 */
@customElement('gate-form')
export class GateForm extends LitElement {
  static override styles = [
    sharedStyles,
    css`
      :host {
        display: block;
      }
      form {
        display: grid;
        grid-template-columns: minmax(160px, 1fr) minmax(200px, 1.5fr) minmax(200px, 1.5fr) auto;
        align-items: start;
        gap: 12px;
      }
      .actions {
        display: flex;
        gap: 8px;
        padding-top: 25px;
      }
      .form-error {
        grid-column: 1 / -1;
        padding: 8px 12px;
        border-radius: var(--radius);
        background: var(--danger-soft);
        color: var(--danger);
      }
      input {
        width: 100%;
      }
      @media (max-width: 900px) {
        form {
          grid-template-columns: 1fr;
        }
        .actions {
          padding-top: 0;
        }
      }
    `,
  ]

  @property({ attribute: false }) api: ApiClient | undefined

  @state() private _errors: Partial<Record<Field, string>> = {}
  @state() private _formError = ''
  @state() private _busy = false
  @query('form') private _form!: HTMLFormElement

  /** Puts focus in the first field (the page calls it when the form opens). */
  override focus() {
    this.renderRoot.querySelector<HTMLInputElement>('input')?.focus()
  }

  override render() {
    return html`<form @submit=${this._onSubmit} novalidate aria-label="New gate">
      ${this._formError ? html`<div class="form-error" role="alert">${this._formError}</div>` : nothing}
      ${FIELDS.map((f) => this._field(f))}
      <div class="actions">
        <button class="primary" type="submit" ?disabled=${this._busy}>${this._busy ? 'Creating…' : 'Create gate'}</button>
        <button type="button" @click=${this._onCancel}>Cancel</button>
      </div>
    </form>`
  }

  private _field(f: Field) {
    const error = this._errors[f]
    const isUrl = f !== 'name'
    return html`<div class="field">
      <label for=${f}>${LABELS[f]}</label>
      <input
        id=${f}
        name=${f}
        type=${isUrl ? 'url' : 'text'}
        placeholder=${isUrl ? (f === 'live_url' ? 'http://live.internal:8080' : 'http://shadow.internal:8080') : 'checkout-api'}
        autocomplete="off"
        spellcheck="false"
        required
        aria-invalid=${error ? 'true' : 'false'}
        aria-describedby="${f}-error"
      />
      <span id="${f}-error" class="field-error">${error ?? nothing}</span>
    </div>`
  }

  private _onCancel() {
    this._form.reset()
    this._errors = {}
    this._formError = ''
    this.dispatchEvent(new Event('cancel', { bubbles: true, composed: true }))
  }

  private async _onSubmit(event: SubmitEvent) {
    event.preventDefault()
    if (!this.api || this._busy) return
    const data = new FormData(this._form)
    const body = {
      name: String(data.get('name') ?? '').trim(),
      live_url: String(data.get('live_url') ?? '').trim(),
      shadow_url: String(data.get('shadow_url') ?? '').trim(),
    }
    const errors: Partial<Record<Field, string>> = {}
    if (!body.name) errors.name = 'Enter a name.'
    for (const f of ['live_url', 'shadow_url'] as const) {
      const e = urlError(body[f])
      if (e) errors[f] = e
    }
    if (!errors.live_url && !errors.shadow_url && body.live_url === body.shadow_url) {
      errors.shadow_url = 'The shadow URL must differ from the live URL.'
    }
    this._errors = errors
    this._formError = ''
    if (Object.keys(errors).length) return this._focusFirstError()

    this._busy = true
    try {
      const gate = await this.api.createGate(body)
      this._form.reset()
      this.dispatchEvent(new GateSavedEvent(gate, true))
    } catch (error) {
      this._showApiError(error)
    } finally {
      this._busy = false
    }
  }

  private _showApiError(error: unknown) {
    if (error instanceof ApiError && error.detail) {
      const field = fieldOfDetail(error.detail, FIELDS)
      if (field) {
        this._errors = { [field]: error.detail }
        return this._focusFirstError()
      }
    }
    this._formError = error instanceof Error ? error.message : String(error)
  }

  private async _focusFirstError() {
    await this.updateComplete
    this.renderRoot.querySelector<HTMLInputElement>('[aria-invalid=true]')?.focus()
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'gate-form': GateForm
  }
}
