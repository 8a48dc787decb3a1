import { LitElement, css, html, nothing } from 'lit'
import { customElement, property, state } from 'lit/decorators.js'
import type { GateSavedEvent } from '../lib/events.ts'
import type { HubContext } from '../lib/hub-context.ts'
import { gateViewPath, navigate } from '../lib/router.ts'
import { parseIgnoreParam } from '../lib/settings-query.ts'
import type { Gate } from '../lib/types.ts'
import { sharedStyles } from '../styles/shared.ts'
import './diff-config-form.ts'
import './rediff-panel.ts'

/**
 * A gate's Settings view: the diff settings form, pre-filled from the URL
 * (`?ignore=<field path>`, the Differences view's "Ignore" actions) with
 * its preview, and once saved settings changed the diff_config, the offer
 * to re-diff the stored captures and the job's progress.
 */
@customElement('gate-settings')
export class GateSettings extends LitElement {
  static override styles = [
    sharedStyles,
    css`
      :host {
        display: grid;
        grid-template-columns: minmax(0, 1fr);
        gap: 20px;
      }
      .card-body {
        padding-top: 12px;
      }
    `,
  ]

  @property({ attribute: false }) hub!: HubContext
  @property({ attribute: false }) gate!: Gate
  /** The global retention floor from GET /config, when known. */
  @property() floor: string | undefined
  /** The view's query string (without `?`). */
  @property() search = ''

  @state() private _prefill: readonly string[] = []
  @state() private _offer = 0

  override willUpdate(changed: Map<PropertyKey, unknown>) {
    // Parsed only when the URL changes: a new array on every render would read as a new prefill.
    if (changed.has('search')) {
      const next = parseIgnoreParam(this.search)
      if (next.join('\n') !== this._prefill.join('\n')) this._prefill = next
    }
  }

  override render() {
    if (!this.gate) return nothing
    return html`<section class="card settings" aria-labelledby="settings-title">
        <div class="card-header"><h2 id="settings-title">Diff settings</h2></div>
        <div class="card-body">
          <diff-config-form
            .api=${this.hub.api}
            .gate=${this.gate}
            .floor=${this.floor}
            .prefill=${this._prefill}
            @gate-saved=${this._onSaved}
          ></diff-config-form>
        </div>
      </section>
      <rediff-panel .api=${this.hub.api} gateId=${this.gate.id} offer=${this._offer}></rediff-panel>`
  }

  private _onSaved(event: GateSavedEvent) {
    if (event.diffConfigChanged) this._offer++
    // Saved: the prefill is part of the gate now, and a reload must not add it again.
    if (this._prefill.length > 0) navigate(gateViewPath(this.gate.id, 'settings'), { replace: true })
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'gate-settings': GateSettings
  }
}
