import { css } from 'lit'

/**
 * Styles shared by the components: controls, cards, tables, badges. Each
 * element adds this sheet to its own `static styles`; Lit adopts the same
 * CSSStyleSheet object everywhere, so it is parsed once.
 */
export const sharedStyles = css`
  /* The document's box-sizing rule does not reach into shadow roots. */
  *,
  *::before,
  *::after {
    box-sizing: border-box;
  }
  :host {
    font: 14px/1.5 var(--font);
    color: var(--text);
  }
  [hidden] {
    display: none !important;
  }
  a {
    color: var(--accent);
    text-underline-offset: 2px;
  }
  a:hover {
    color: var(--accent-strong);
  }
  :focus-visible {
    outline: 2px solid var(--focus);
    outline-offset: 2px;
  }
  h1,
  h2,
  h3 {
    margin: 0;
    line-height: 1.25;
  }
  h1 {
    font-size: 22px;
    font-weight: 650;
  }
  h2 {
    font-size: 16px;
    font-weight: 650;
  }
  h3 {
    font-size: 14px;
    font-weight: 650;
  }
  h1[tabindex='-1']:focus {
    outline: none;
  }
  code,
  .mono {
    font-family: var(--mono);
    font-size: 12.5px;
  }
  .muted {
    color: var(--muted);
  }
  .visually-hidden {
    position: absolute !important;
    width: 1px;
    height: 1px;
    overflow: hidden;
    clip-path: inset(50%);
    white-space: nowrap;
  }

  .card {
    background: var(--surface);
    border: 1px solid var(--border);
    border-radius: var(--radius);
    box-shadow: var(--shadow);
  }
  .card-header {
    display: flex;
    align-items: center;
    justify-content: space-between;
    gap: 12px;
    flex-wrap: wrap;
    padding: 12px 16px;
    border-bottom: 1px solid var(--border);
  }
  .card-body {
    padding: 16px;
  }

  button,
  .button {
    display: inline-flex;
    align-items: center;
    justify-content: center;
    gap: 6px;
    min-height: 32px;
    padding: 5px 12px;
    border: 1px solid var(--border-strong);
    border-radius: var(--radius);
    background: var(--surface);
    color: var(--text);
    font: inherit;
    font-weight: 550;
    cursor: pointer;
    text-decoration: none;
    white-space: nowrap;
  }
  button:hover:not(:disabled),
  .button:hover {
    background: var(--surface-muted);
  }
  button:disabled {
    opacity: 0.55;
    cursor: not-allowed;
  }
  button.primary {
    background: var(--accent);
    border-color: var(--accent);
    color: #fff;
  }
  button.primary:hover:not(:disabled) {
    background: var(--accent-strong);
  }
  button.danger {
    color: var(--danger);
    border-color: #e0a29d;
  }
  button.danger:hover:not(:disabled) {
    background: var(--danger-soft);
  }
  button.danger.solid {
    background: var(--danger);
    border-color: var(--danger);
    color: #fff;
  }
  button.link {
    min-height: 0;
    padding: 0;
    border: 0;
    background: none;
    color: var(--accent);
    font-weight: inherit;
  }
  button.small {
    min-height: 26px;
    padding: 2px 8px;
    font-size: 13px;
  }

  label {
    font-weight: 550;
  }
  input[type='text'],
  input[type='url'],
  input[type='search'],
  input[type='password'],
  input[type='number'],
  input[type='datetime-local'],
  select,
  textarea {
    min-height: 32px;
    padding: 5px 8px;
    border: 1px solid var(--border-strong);
    border-radius: var(--radius);
    background: var(--surface);
    color: var(--text);
    font: inherit;
  }
  textarea {
    font-family: var(--mono);
    font-size: 12.5px;
    resize: vertical;
  }
  input[aria-invalid='true'],
  textarea[aria-invalid='true'] {
    border-color: var(--danger);
  }
  .field {
    display: flex;
    flex-direction: column;
    gap: 4px;
  }
  .hint {
    color: var(--muted);
    font-size: 12.5px;
  }
  .field-error {
    color: var(--danger);
    font-size: 12.5px;
  }

  .table-wrap {
    /* Positioned, so visually hidden captions stay inside the scroll box. */
    position: relative;
    overflow-x: auto;
  }
  table {
    width: 100%;
    border-collapse: collapse;
  }
  th,
  td {
    padding: 8px 12px;
    border-bottom: 1px solid var(--border);
    text-align: left;
    vertical-align: middle;
  }
  th {
    background: var(--surface-muted);
    color: var(--muted);
    font-size: 12px;
    font-weight: 650;
    letter-spacing: 0.02em;
    text-transform: uppercase;
    white-space: nowrap;
  }
  tbody tr:hover {
    background: #f8fafc;
  }
  tbody tr:last-child td,
  tbody tr:last-child th {
    border-bottom: 0;
  }
  td.num,
  th.num {
    text-align: right;
    font-variant-numeric: tabular-nums;
  }

  .badge {
    display: inline-block;
    min-width: 2.6em;
    padding: 1px 7px;
    border-radius: 999px;
    font-family: var(--mono);
    font-size: 12px;
    font-weight: 600;
    text-align: center;
    border: 1px solid transparent;
  }
  .status-2xx {
    background: var(--ok-soft);
    color: var(--ok);
  }
  .status-3xx {
    background: var(--accent-soft);
    color: var(--accent-strong);
  }
  .status-4xx {
    background: var(--warn-soft);
    color: var(--warn);
  }
  .status-5xx,
  .status-err {
    background: var(--danger-soft);
    color: var(--danger);
  }
  .method {
    display: inline-block;
    min-width: 4.2em;
    font-family: var(--mono);
    font-size: 12px;
    font-weight: 700;
    color: var(--accent-strong);
  }
  .diff-yes {
    background: var(--changed-bg);
    color: var(--changed);
    border-color: #e9c96b;
  }
  .diff-no {
    background: var(--surface-muted);
    color: var(--muted);
  }
  .mark-added {
    background: var(--added-bg);
    color: var(--added);
  }
  .mark-removed {
    background: var(--removed-bg);
    color: var(--removed);
  }
  .mark-changed {
    background: var(--changed-bg);
    color: var(--changed);
  }
`

/** The layout of a detail page (gate, request): one column of cards under breadcrumbs. */
export const pageStyles = css`
  :host {
    display: grid;
    /* minmax(0, …): wide tables scroll inside their card instead of widening the page. */
    grid-template-columns: minmax(0, 1fr);
    gap: 20px;
  }
  .crumbs {
    margin: 0 0 4px;
    padding: 0;
    list-style: none;
    display: flex;
    gap: 6px;
    color: var(--muted);
  }
  .crumbs li + li::before {
    content: '/';
    margin-right: 6px;
    color: var(--border-strong);
  }
`

/**
 * Chips: native checkboxes or radios drawn as pills, inside a fieldset
 * (`<label class="chip"><input …><span>…</span></label>`). The input keeps
 * its place and focus; the pill beside it shows the state and the focus ring.
 */
export const chipStyles = css`
  fieldset {
    margin: 0;
    padding: 0;
    border: 0;
    min-width: 0;
  }
  legend {
    padding: 0;
    margin-bottom: 4px;
    font-weight: 550;
  }
  .chips {
    display: flex;
    flex-wrap: wrap;
    gap: 4px;
  }
  .chip {
    position: relative;
  }
  .chip input {
    position: absolute;
    opacity: 0;
    inset: 0;
    margin: 0;
    cursor: pointer;
  }
  .chip span {
    display: inline-block;
    padding: 4px 9px;
    border: 1px solid var(--border-strong);
    border-radius: var(--radius);
    background: var(--surface);
    font-size: 12.5px;
    font-weight: 600;
    color: var(--muted);
  }
  .chip input:checked + span {
    background: var(--accent);
    border-color: var(--accent);
    color: #fff;
  }
  .chip input:focus-visible + span {
    outline: 2px solid var(--focus);
    outline-offset: 2px;
  }
`
