import { LitElement, css, html, nothing } from 'lit'
import { customElement, property, query, state } from 'lit/decorators.js'
import { KeySubmitEvent } from '../lib/events.ts'
import { sharedStyles } from '../styles/shared.ts'

/**
 * The API's key is at least 16 characters (docs/reference/configuration.md
 * "API").
 */
const MIN_KEY_LENGTH = 16

/**
 * Asks for the API key when none is configured, or after the configured
 * one was refused. The shell keeps it in sessionStorage only.
 */
@customElement('key-prompt')
export class KeyPrompt extends LitElement {
  static override styles = [
    sharedStyles,
    css`
      :host {
        display: block;
        max-width: 34rem;
        margin: 48px auto;
      }
      form {
        display: grid;
        gap: 14px;
        padding: 24px;
      }
      p {
        margin: 0;
      }
      .row {
        display: flex;
        gap: 8px;
      }
      .row input {
        flex: 1;
        min-width: 0;
        font-family: var(--mono);
      }
      .actions {
        display: flex;
        gap: 8px;
        justify-content: flex-end;
      }
    `,
  ]

  /** Where the key will be sent, shown so the user knows whom they trust. */
  @property() apiBaseUrl = ''
  /** Show a Cancel button (when a working key exists already). */
  @property({ type: Boolean }) cancellable = false

  @state() private _error = ''
  @state() private _visible = false
  @query('input') private _input!: HTMLInputElement

  override firstUpdated() {
    this._input.focus()
  }

  override render() {
    return html`<form class="card" @submit=${this._onSubmit} novalidate>
      <h1>Connect to the API</h1>
      <p class="muted">
        The hub needs the API's bearer key (<code>SVC_APP_API_KEY</code>). It is kept in this tab's
        session storage only, and sent to <code>${this.apiBaseUrl || location.origin}</code>.
      </p>
      <div class="field">
        <label for="key">API key</label>
        <div class="row">
          <input
            id="key"
            name="key"
            type=${this._visible ? 'text' : 'password'}
            autocomplete="off"
            spellcheck="false"
            required
            aria-invalid=${this._error ? 'true' : 'false'}
            aria-describedby="key-hint key-error"
          />
          <button type="button" @click=${this._onToggle} aria-pressed=${this._visible ? 'true' : 'false'}>
            ${this._visible ? 'Hide' : 'Show'}
          </button>
        </div>
        <span id="key-hint" class="hint">At least ${MIN_KEY_LENGTH} characters.</span>
        <span id="key-error" class="field-error" role="alert">${this._error || nothing}</span>
      </div>
      <div class="actions">
        ${this.cancellable ? html`<button type="button" @click=${this._onCancel}>Cancel</button>` : nothing}
        <button class="primary" type="submit">Connect</button>
      </div>
    </form>`
  }

  private _onToggle() {
    this._visible = !this._visible
  }

  private _onCancel() {
    this.dispatchEvent(new Event('cancel', { bubbles: true, composed: true }))
  }

  private _onSubmit(event: SubmitEvent) {
    event.preventDefault()
    const key = this._input.value.trim()
    if (key.length < MIN_KEY_LENGTH) {
      this._error = `The key must be at least ${MIN_KEY_LENGTH} characters long.`
      this._input.focus()
      return
    }
    this._error = ''
    this.dispatchEvent(new KeySubmitEvent(key))
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'key-prompt': KeyPrompt
  }
}
