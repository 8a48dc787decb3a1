import { LitElement, css, html, nothing } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { sharedStyles } from '../styles/shared.ts'

export interface StatItem {
  readonly label: string
  readonly value: string
  readonly hint?: string
  /** Colours the value: a diff rate above zero is worth a glance. */
  readonly tone?: 'none' | 'low' | 'medium' | 'high'
}

/** A row of headline numbers (global or per-gate stats). */
@customElement('stats-cards')
export class StatsCards extends LitElement {
  static override styles = [
    sharedStyles,
    css`
      :host {
        display: block;
      }
      dl {
        display: grid;
        grid-template-columns: repeat(auto-fit, minmax(180px, 1fr));
        gap: 12px;
        margin: 0;
      }
      .card {
        padding: 14px 16px;
      }
      dt {
        color: var(--muted);
        font-size: 12.5px;
        font-weight: 600;
      }
      dd {
        margin: 4px 0 0;
        font-size: 24px;
        font-weight: 650;
        font-variant-numeric: tabular-nums;
        line-height: 1.2;
      }
      dd.hint {
        margin-top: 2px;
        font-size: 12.5px;
        font-weight: 400;
        color: var(--muted);
      }
      .tone-medium {
        color: var(--warn);
      }
      .tone-high {
        color: var(--danger);
      }
    `,
  ]

  @property({ attribute: false }) items: readonly StatItem[] = []
  /** Accessible name of the group. */
  @property() label = 'Statistics'

  override render() {
    return html`<dl aria-label=${this.label}>
      ${this.items.map(
        (item) => html`<div class="card">
          <dt>${item.label}</dt>
          <dd class=${item.tone ? `tone-${item.tone}` : ''}>${item.value}</dd>
          ${item.hint ? html`<dd class="hint">${item.hint}</dd>` : nothing}
        </div>`,
      )}
    </dl>`
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'stats-cards': StatsCards
  }
}
