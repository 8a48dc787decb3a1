import { LitElement, css, html, nothing } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { IgnoreFieldsEvent } from '../lib/events.ts'
import { formatCount, formatRate } from '../lib/format.ts'
import { ignorePathOf } from '../lib/ignore-path.ts'
import type { SortOrder } from '../lib/query-string.ts'
import { opMark } from '../lib/signature-line.ts'
import type { Classification, FieldStats } from '../lib/types.ts'
import { sharedStyles } from '../styles/shared.ts'
import './diff-rate.ts'
import { ariaSort } from './sort-header.ts'
import './sort-header.ts'

/** How each classification reads: a word on the badge, a sentence in its title. */
const CLASSIFICATION_MARKS: Readonly<Record<Classification, { readonly label: string; readonly cls: string; readonly title: string }>> = {
  noise: { label: 'noise', cls: 'noise', title: 'Differs between two answers of live as often as between live and shadow' },
  real: { label: 'real', cls: 'real', title: 'Differs between live and shadow far more often than between two answers of live' },
  unknown: { label: 'unknown', cls: 'unknown', title: 'Too few noise checks to tell' },
}

/**
 * Which fields differ, per endpoint, in a window: each generalised
 * `(op, path)` with how many captures showed it and what share of the
 * endpoint's captures that is, what the noise checks make of it
 * (docs/insights.md "Noise"), and an "Ignore" action that opens the diff
 * settings with the field's `ignored_fields` entry (ignorePathOf).
 */
@customElement('field-table')
export class FieldTable extends LitElement {
  static override styles = [
    sharedStyles,
    css`
      :host {
        display: block;
      }
      .busy {
        opacity: 0.6;
      }
      td.endpoint {
        white-space: nowrap;
      }
      td.path {
        min-width: 14rem;
      }
      td.path code {
        overflow-wrap: anywhere;
      }
      .badge {
        font-family: var(--font);
        white-space: nowrap;
      }
      .noise-rate {
        display: block;
        margin-top: 2px;
        color: var(--muted);
        font-size: 12px;
        white-space: nowrap;
      }
      .badge.noise {
        background: var(--warn-soft);
        color: var(--warn);
        border-color: #e9c96b;
      }
      .badge.real {
        background: var(--danger-soft);
        color: var(--danger);
      }
      .badge.unknown {
        background: var(--surface-muted);
        color: var(--muted);
        border-color: var(--border);
      }
      td.action {
        text-align: right;
      }
    `,
  ]

  @property({ attribute: false }) fields: readonly FieldStats[] = []
  @property() sort = 'count'
  @property() order: SortOrder = 'desc'
  @property({ type: Boolean }) pending = false

  override render() {
    const th = (key: string, label: string, initial: SortOrder, cls = '') =>
      html`<th scope="col" class=${cls} aria-sort=${ariaSort(key, this.sort, this.order)}>
        <sort-header key=${key} label=${label} sort=${this.sort} order=${this.order} initial=${initial}></sort-header>
      </th>`
    return html`<div class="table-wrap">
      <table class=${this.pending ? 'busy' : ''} aria-busy=${this.pending ? 'true' : 'false'}>
        <caption class="visually-hidden">Fields that differ</caption>
        <thead>
          <tr>
            <th scope="col">Endpoint</th>
            <th scope="col">Change</th>
            ${th('path', 'Field', 'asc')} ${th('count', 'Count', 'desc', 'num')}
            ${th('rate', 'Of the endpoint’s requests', 'desc')}
            <th scope="col">Noise check</th>
            <th scope="col"><span class="visually-hidden">Actions</span></th>
          </tr>
        </thead>
        <tbody>
          ${this.fields.map((f) => this._row(f))}
        </tbody>
      </table>
    </div>`
  }

  private _row(f: FieldStats) {
    const mark = opMark(f.op)
    return html`<tr data-path=${f.path} data-op=${f.op}>
      <td class="endpoint"><span class="method">${f.method}</span><span class="mono">${f.template}</span></td>
      <td class="change"><span class="badge ${mark.cls}">${mark.label}</span></td>
      <td class="path"><code>${f.path === '' ? '(whole document)' : f.path}</code></td>
      <td class="num count">${formatCount(f.count)}</td>
      <td><diff-rate .rate=${f.rate}></diff-rate></td>
      <td class="noise">${noiseCell(f)}</td>
      <td class="action">${this._ignore(f)}</td>
    </tr>`
  }

  private _ignore(f: FieldStats) {
    const entry = ignorePathOf(f.path)
    if (entry === undefined) return nothing
    return html`<button class="small ignore" aria-label="Ignore ${entry}" title="Add ${entry} to the ignored fields and preview it" @click=${() => this.dispatchEvent(new IgnoreFieldsEvent([entry]))}>
      Ignore
    </button>`
  }
}

/** The classification badge and the noise rate behind it; a dash from an API without noise checks. */
function noiseCell(f: FieldStats) {
  if (f.classification === undefined) return html`<span class="muted" title="No noise data">–</span>`
  const mark = CLASSIFICATION_MARKS[f.classification] ?? CLASSIFICATION_MARKS.unknown
  const checks = f.noise_checks ?? 0
  const rate =
    checks > 0 && f.noise_rate !== null && f.noise_rate !== undefined
      ? `${formatRate(f.noise_rate)} of ${formatCount(checks)} repeats`
      : checks > 0
        ? `${formatCount(checks)} repeats`
        : 'no repeat yet'
  return html`<span class="badge ${mark.cls}" title=${mark.title}>${mark.label}</span><span class="noise-rate">${rate}</span>`
}

declare global {
  interface HTMLElementTagNameMap {
    'field-table': FieldTable
  }
}
