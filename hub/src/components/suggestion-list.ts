import { LitElement, css, html, nothing } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { evidenceText } from '../lib/evidence.ts'
import { IgnoreFieldsEvent } from '../lib/events.ts'
import type { Suggestion, SuggestionReason } from '../lib/types.ts'
import { sharedStyles } from '../styles/shared.ts'

const REASONS: Readonly<Record<SuggestionReason, { readonly label: string; readonly title: string }>> = {
  noise: { label: 'noise', title: 'Differs between two answers of live: the noise checks saw it' },
  volatile: { label: 'volatile', title: 'Looks like a timestamp, an id or a token and differs in nearly every capture' },
}

/** Endpoints named per suggestion; the rest are counted. */
const ENDPOINTS_SHOWN = 3

/**
 * The API's proposed `ignored_fields` entries (docs/insights.md
 * "Suggestions"): each field as it would be pasted, why, the evidence and
 * the endpoints it was seen on, with an "Ignore" action; "Ignore all" takes
 * every one. Both open the diff settings with the entries added and their
 * preview shown (IgnoreFieldsEvent); nothing is saved before Save.
 */
@customElement('suggestion-list')
export class SuggestionList extends LitElement {
  static override styles = [
    sharedStyles,
    css`
      :host {
        display: block;
      }
      ul {
        list-style: none;
        margin: 0;
        padding: 0;
      }
      li {
        display: grid;
        grid-template-columns: minmax(0, 1fr) auto;
        gap: 4px 16px;
        align-items: center;
        padding: 10px 16px;
        border-top: 1px solid var(--border);
      }
      li:first-child {
        border-top: 0;
      }
      .name {
        display: flex;
        align-items: center;
        gap: 8px;
        flex-wrap: wrap;
      }
      .name code {
        font-weight: 600;
        overflow-wrap: anywhere;
      }
      .badge {
        font-family: var(--font);
      }
      .badge.noise {
        background: var(--warn-soft);
        color: var(--warn);
        border-color: #e9c96b;
      }
      .badge.volatile {
        background: var(--accent-soft);
        color: var(--accent-strong);
      }
      .why {
        grid-column: 1;
        color: var(--muted);
        font-size: 13px;
      }
      .endpoints {
        display: inline;
        margin: 0;
        padding: 0;
      }
      .endpoints span + span::before {
        content: ', ';
      }
      .actions {
        grid-column: 2;
        grid-row: 1 / span 2;
      }
    `,
  ]

  @property({ attribute: false }) suggestions: readonly Suggestion[] = []

  override render() {
    return html`<ul aria-label="Suggested ignored fields">
      ${this.suggestions.map((s, i) => this._item(s, i))}
    </ul>`
  }

  private _item(s: Suggestion, i: number) {
    const reason = REASONS[s.reason] ?? { label: s.reason, title: '' }
    const id = `suggestion-${i}`
    return html`<li data-field=${s.field} data-reason=${s.reason}>
      <div class="name">
        <code id=${id}>${s.field}</code>
        <span class="badge ${s.reason}" title=${reason.title}>${reason.label}</span>
      </div>
      <div class="why">
        ${evidenceText(s.reason, s.evidence)}
        ${s.endpoints.length
          ? html`· on
              <span class="endpoints">${s.endpoints.slice(0, ENDPOINTS_SHOWN).map((e) => html`<span class="mono">${e.method} ${e.template}</span>`)}</span>
              ${s.endpoints.length > ENDPOINTS_SHOWN ? html`and ${s.endpoints.length - ENDPOINTS_SHOWN} more` : nothing}`
          : nothing}
      </div>
      <div class="actions">
        <button class="small ignore" aria-describedby=${id} @click=${() => this.dispatchEvent(new IgnoreFieldsEvent([s.field]))}>Ignore</button>
      </div>
    </li>`
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'suggestion-list': SuggestionList
  }
}
