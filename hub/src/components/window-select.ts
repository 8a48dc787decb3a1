import { LitElement, css, html } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { WindowChangeEvent } from '../lib/events.ts'
import { DEFAULT_WINDOW, WINDOWS, WINDOW_LABELS } from '../lib/insights-query.ts'
import type { InsightWindow } from '../lib/insights-query.ts'
import { chipStyles, sharedStyles } from '../styles/shared.ts'

/**
 * The Differences view's time window: the last hour, 24 hours or 7 days,
 * as a radio group (one Tab stop; arrow keys choose).
 */
@customElement('window-select')
export class WindowSelect extends LitElement {
  static override styles = [
    sharedStyles,
    chipStyles,
    css`
      :host {
        display: block;
      }
      fieldset {
        display: flex;
        align-items: center;
        gap: 8px;
      }
      legend {
        float: left;
        margin: 0 4px 0 0;
      }
    `,
  ]

  @property() value: InsightWindow = DEFAULT_WINDOW

  override render() {
    return html`<fieldset>
      <legend>Window</legend>
      <div class="chips">
        ${WINDOWS.map(
          (w) => html`<label class="chip">
            <input type="radio" name="window" value=${w} .checked=${w === this.value} @change=${this._onChange} />
            <span>${WINDOW_LABELS[w]}</span>
          </label>`,
        )}
      </div>
    </fieldset>`
  }

  private _onChange(event: Event) {
    this.dispatchEvent(new WindowChangeEvent((event.target as HTMLInputElement).value as InsightWindow))
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'window-select': WindowSelect
  }
}
