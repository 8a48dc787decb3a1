import { LitElement, css, html } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { sharedStyles } from '../styles/shared.ts'

/** "Nothing here yet", with what to do about it in the default slot. */
@customElement('empty-state')
export class EmptyState extends LitElement {
  static override styles = [
    sharedStyles,
    css`
      :host {
        display: block;
        padding: 40px 16px;
        text-align: center;
      }
      .icon {
        width: 40px;
        height: 40px;
        margin: 0 auto 8px;
        color: var(--border-strong);
      }
      p {
        margin: 6px auto 0;
        max-width: 36rem;
        color: var(--muted);
      }
      ::slotted(*) {
        margin-top: 12px;
      }
    `,
  ]

  @property() heading = 'Nothing here yet'

  override render() {
    return html`<svg class="icon" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="1.5" aria-hidden="true">
        <path d="M3 7l9-4 9 4-9 4-9-4z" />
        <path d="M3 12l9 4 9-4M3 17l9 4 9-4" />
      </svg>
      <h2>${this.heading}</h2>
      <p><slot></slot></p>`
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'empty-state': EmptyState
  }
}
