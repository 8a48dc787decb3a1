import { LitElement, css, html } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { cssProps } from '../lib/css-props.ts'
import { formatRate, rateBand, rateBarPercent } from '../lib/format.ts'
import { sharedStyles } from '../styles/shared.ts'

/**
 * A diff rate as a number and a bar coloured by severity, on a square-root
 * scale (rateBarPercent) so that 2% and 10% look different. The width is set
 * through the CSSOM (cssProps), which `style-src 'self'` allows; a style
 * attribute would be blocked.
 */
@customElement('diff-rate')
export class DiffRate extends LitElement {
  static override styles = [
    sharedStyles,
    css`
      :host {
        display: inline-flex;
        align-items: center;
        gap: 8px;
        min-width: 110px;
      }
      .track {
        flex: 1;
        height: 6px;
        min-width: 56px;
        border-radius: 3px;
        background: var(--surface-muted);
        box-shadow: inset 0 0 0 1px var(--border);
        overflow: hidden;
      }
      .wrap {
        display: contents;
      }
      .fill {
        display: block;
        height: 100%;
        border-radius: 3px;
      }
      .band-none .fill {
        background: var(--border-strong);
      }
      .band-low .fill {
        background: #2f8a4c;
      }
      .band-medium .fill {
        background: #d19a00;
      }
      .band-high .fill {
        background: var(--danger);
      }
      .value {
        min-width: 3.6em;
        text-align: right;
        font-variant-numeric: tabular-nums;
      }
      .band-high .value {
        color: var(--danger);
        font-weight: 600;
      }
    `,
  ]

  @property({ type: Number }) rate = 0

  override render() {
    const band = rateBand(this.rate)
    const width = rateBarPercent(this.rate)
    return html`<span class="wrap band-${band}">
      <span class="track" aria-hidden="true"><span class="fill" ${cssProps({ width: `${width}%` })}></span></span>
      <span class="value">${formatRate(this.rate)}</span>
    </span>`
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'diff-rate': DiffRate
  }
}
