import { LitElement, css, html } from 'lit'
import { customElement, query, state } from 'lit/decorators.js'
import { sharedStyles } from '../styles/shared.ts'

export interface ConfirmOptions {
  readonly title: string
  readonly message: string
  /** @default 'Confirm' */
  readonly confirmLabel?: string
  /** Style the confirm button as destructive. @default false */
  readonly danger?: boolean
}

/**
 * A modal question on the native <dialog>: focus is trapped, Escape
 * cancels, focus returns to the opener. `ask()` resolves to the answer.
 * For a destructive question, focus starts on Cancel.
 */
@customElement('confirm-dialog')
export class ConfirmDialog extends LitElement {
  static override styles = [
    sharedStyles,
    css`
      dialog {
        width: min(28rem, calc(100vw - 32px));
        padding: 0;
        border: 1px solid var(--border);
        border-radius: 8px;
        box-shadow: 0 12px 32px rgb(16 24 40 / 25%);
        color: var(--text);
      }
      dialog::backdrop {
        background: rgb(16 24 40 / 45%);
      }
      .body {
        padding: 20px 20px 8px;
      }
      p {
        margin: 8px 0 0;
        overflow-wrap: anywhere;
      }
      .actions {
        display: flex;
        justify-content: flex-end;
        gap: 8px;
        padding: 16px 20px 20px;
      }
    `,
  ]

  @state() private _options: ConfirmOptions = { title: '', message: '' }
  @query('dialog') private _dialog!: HTMLDialogElement
  @query('button[value=cancel]') private _cancel!: HTMLButtonElement
  @query('button[value=confirm]') private _confirm!: HTMLButtonElement

  #resolve: ((answer: boolean) => void) | undefined

  /** Opens the dialog; resolves true on confirm, false on cancel or Escape. */
  async ask(options: ConfirmOptions): Promise<boolean> {
    this.#resolve?.(false)
    this._options = options
    await this.updateComplete
    this._dialog.returnValue = ''
    this._dialog.showModal()
    ;(options.danger ? this._cancel : this._confirm).focus()
    return new Promise((resolve) => {
      this.#resolve = resolve
    })
  }

  override render() {
    const o = this._options
    return html`<dialog aria-labelledby="t" aria-describedby="m" @close=${this._onClose}>
      <form method="dialog">
        <div class="body">
          <h2 id="t">${o.title}</h2>
          <p id="m">${o.message}</p>
        </div>
        <div class="actions">
          <button value="cancel">Cancel</button>
          <button value="confirm" class=${o.danger ? 'danger solid' : 'primary'}>
            ${o.confirmLabel ?? 'Confirm'}
          </button>
        </div>
      </form>
    </dialog>`
  }

  private _onClose() {
    const answer = this._dialog.returnValue === 'confirm'
    this.#resolve?.(answer)
    this.#resolve = undefined
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'confirm-dialog': ConfirmDialog
  }
}
