import { LitElement, css, html } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { sharedStyles } from '../styles/shared.ts'

/** A polite "loading" placeholder; announced once by screen readers. */
@customElement('loading-state')
export class LoadingState extends LitElement {
  static override styles = [
    sharedStyles,
    css`
      :host {
        display: flex;
        align-items: center;
        justify-content: center;
        gap: 10px;
        padding: 40px 16px;
        color: var(--muted);
      }
      .spinner {
        width: 18px;
        height: 18px;
        border: 2px solid var(--border);
        border-top-color: var(--accent);
        border-radius: 50%;
        animation: spin 0.8s linear infinite;
      }
      @keyframes spin {
        to {
          transform: rotate(360deg);
        }
      }
      @media (prefers-reduced-motion: reduce) {
        .spinner {
          animation-duration: 3s;
        }
      }
    `,
  ]

  @property() label = 'Loading…'

  override render() {
    return html`<span class="spinner" aria-hidden="true"></span>
      <span role="status">${this.label}</span>`
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'loading-state': LoadingState
  }
}
