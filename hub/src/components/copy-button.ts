import { LitElement, css, html } from 'lit'
import { customElement, property, state } from 'lit/decorators.js'
import { copyText } from '../lib/clipboard.ts'
import { sharedStyles } from '../styles/shared.ts'

/** Copies what `text()` returns and says so for a moment. */
@customElement('copy-button')
export class CopyButton extends LitElement {
  static override styles = [
    sharedStyles,
    css`
      :host {
        display: inline-block;
      }
      .done {
        color: var(--ok);
        border-color: #9ccfaa;
      }
    `,
  ]

  @property() label = 'Copy'
  /** Computed on click, so a large patch is serialised only when wanted. */
  @property({ attribute: false }) text: () => string = () => ''

  @state() private _status: 'idle' | 'copied' | 'failed' = 'idle'
  #timer: ReturnType<typeof setTimeout> | undefined

  override disconnectedCallback() {
    super.disconnectedCallback()
    clearTimeout(this.#timer)
  }

  override render() {
    const shown = this._status === 'copied' ? 'Copied' : this._status === 'failed' ? 'Copy failed' : this.label
    return html`<button class=${this._status === 'copied' ? 'done' : ''} @click=${this._onClick}>
        <svg width="14" height="14" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" aria-hidden="true">
          <rect x="9" y="9" width="12" height="12" rx="2" />
          <path d="M5 15V5a2 2 0 0 1 2-2h10" />
        </svg>
        ${shown}
      </button>
      <span class="visually-hidden" role="status">${this._status === 'copied' ? `${this.label}: copied` : ''}</span>`
  }

  private async _onClick() {
    const ok = await copyText(this.text())
    this._status = ok ? 'copied' : 'failed'
    clearTimeout(this.#timer)
    this.#timer = setTimeout(() => (this._status = 'idle'), 2000)
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'copy-button': CopyButton
  }
}
