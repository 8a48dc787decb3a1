import { LitElement, css, html, nothing } from 'lit'
import { customElement, property, state } from 'lit/decorators.js'
import type { ApiClient } from '../lib/api-client.ts'
import { ApiError } from '../lib/api-error.ts'
import { RediffDoneEvent } from '../lib/events.ts'
import { formatCount, formatRate } from '../lib/format.ts'
import { windowStart } from '../lib/insights-query.ts'
import { JobPoller, isFinal, jobProgress } from '../lib/job-poller.ts'
import { forgetJob, rememberJob, rememberedJob } from '../lib/job-store.ts'
import { gatePath } from '../lib/router.ts'
import type { RediffJob } from '../lib/types.ts'
import { sharedStyles } from '../styles/shared.ts'

/**
 * After diff settings are saved, stored captures keep the diff they were
 * compared with. This offers to re-diff the last 24 hours under the saved
 * settings (POST rediff), then follows the job (JobPoller) with a progress
 * bar until it is done, failed or cancelled, with Cancel meanwhile. The job
 * id is kept for the tab (job-store.ts), so leaving the settings and coming
 * back shows the job still running.
 */
@customElement('rediff-panel')
export class RediffPanel extends LitElement {
  static override styles = [
    sharedStyles,
    css`
      :host {
        display: block;
      }
      .box {
        padding: 12px 14px;
        border: 1px solid var(--border);
        border-radius: var(--radius);
        background: var(--surface);
      }
      p {
        margin: 0;
      }
      .actions {
        display: flex;
        gap: 8px;
        flex-wrap: wrap;
        margin-top: 10px;
      }
      progress {
        display: block;
        width: 100%;
        height: 10px;
        margin-top: 10px;
        accent-color: var(--accent);
      }
      .done {
        color: var(--ok);
      }
      .error {
        color: var(--danger);
      }
    `,
  ]

  @property({ attribute: false }) api: ApiClient | undefined
  @property() gateId = ''
  /** Counts the saves that changed the diff settings: each new one offers the re-diff (0: none yet). */
  @property({ type: Number }) offer = 0

  @state() private _starting = false
  @state() private _cancelling = false
  /** Starting or cancelling failed. */
  @state() private _actionError: unknown = undefined
  @state() private _dismissed = false

  /** The job whose end was announced (RediffDoneEvent). */
  private _announced: string | undefined
  private _poller = new JobPoller(this, (jobId, signal) => this.api!.getJob(this.gateId, jobId, signal))

  override connectedCallback(): void {
    super.connectedCallback()
    void this._resume()
  }

  override updated() {
    // Said once per job, when it is first seen done: the page reads the gate's stats again.
    const job = this._poller.job
    if (job?.state === 'done' && this._announced !== job.id) {
      this._announced = job.id
      this.dispatchEvent(new RediffDoneEvent(job.id))
    }
  }

  override willUpdate(changed: Map<PropertyKey, unknown>) {
    if (changed.has('offer') && this.offer > 0) {
      this._dismissed = false
      // Settings saved again: a finished job of earlier settings gives way to the new offer.
      const job = this._poller.job
      if (job && isFinal(job)) {
        forgetJob(this.gateId)
        this._poller.clear()
      }
    }
  }

  override render() {
    const job = this._poller.job
    if (job) return html`<div class="box" role="region" aria-label="Re-diff">${this._job(job)}</div>`
    if (this.offer === 0 || this._dismissed) return nothing
    return html`<div class="box" role="region" aria-label="Re-diff">
      <p>Stored captures keep the diff they were compared with. Re-diff the last 24 hours with the saved settings?</p>
      ${this._actionErrorLine()}
      <div class="actions">
        <button class="primary start" ?disabled=${this._starting} @click=${this._onStart}>${this._starting ? 'Starting…' : 'Re-diff the last 24 h'}</button>
        <button class="dismiss" ?disabled=${this._starting} @click=${() => (this._dismissed = true)}>Not now</button>
      </div>
    </div>`
  }

  private _job(job: RediffJob) {
    const of = `${formatCount(job.done)} of ${formatCount(job.total)} ${job.total === 1 ? 'capture' : 'captures'}`
    switch (job.state) {
      case 'queued':
      case 'running':
        return html`<p role="status">
            ${job.state === 'queued' ? 'Re-diff queued…' : `Re-diffing: ${of} (${formatRate(jobProgress(job))})`}
          </p>
          <progress max=${Math.max(1, job.total)} .value=${job.done} aria-label="Re-diff progress"></progress>
          ${this._pollError()} ${this._actionErrorLine()}
          <div class="actions">
            <button class="cancel" ?disabled=${this._cancelling} @click=${this._onCancel}>${this._cancelling ? 'Cancelling…' : 'Cancel'}</button>
          </div>`
      case 'done':
        return html`<p role="status" class="done">
            Re-diffed ${formatCount(job.total)} ${job.total === 1 ? 'capture' : 'captures'}: their diffs follow the saved settings.
          </p>
          <progress max=${Math.max(1, job.total)} .value=${Math.max(1, job.total)} aria-label="Re-diff progress"></progress>
          <div class="actions">
            <a class="button" href=${gatePath(this.gateId)}>See the differences</a>
            <button class="dismiss" @click=${this._onDismissJob}>Close</button>
          </div>`
      case 'failed':
        return html`<p role="status" class="error">The re-diff failed after ${of}${job.error ? `: ${job.error}` : ''}.</p>
          ${this._actionErrorLine()}
          <div class="actions">
            <button class="primary start" ?disabled=${this._starting} @click=${this._onStart}>Try again</button>
            <button class="dismiss" @click=${this._onDismissJob}>Close</button>
          </div>`
      case 'cancelled':
        return html`<p role="status">Cancelled after ${of}; the others keep the diff they had.</p>
          ${this._actionErrorLine()}
          <div class="actions">
            <button class="start" ?disabled=${this._starting} @click=${this._onStart}>Re-diff the last 24 h again</button>
            <button class="dismiss" @click=${this._onDismissJob}>Close</button>
          </div>`
    }
  }

  private _pollError() {
    const error = this._poller.error
    if (error === undefined) return nothing
    return html`<p class="error" role="alert">
      Could not read the job's progress: ${error instanceof Error ? error.message : String(error)}.
      <button class="small" @click=${() => this._poller.resume()}>Try again</button>
    </p>`
  }

  private _actionErrorLine() {
    const error = this._actionError
    if (error === undefined) return nothing
    const text =
      error instanceof ApiError && error.status === 409
        ? 'A re-diff of this gate is already running; wait for it to finish, or cancel it.'
        : `${error instanceof Error ? error.message : String(error)}.`
    return html`<p class="error" role="alert">${text}</p>`
  }

  private async _resume() {
    const id = rememberedJob(this.gateId)
    if (!id || !this.api || this._poller.job) return
    try {
      const job = await this.api.getJob(this.gateId, id)
      this._poller.watch(job)
    } catch {
      // Gone (deleted with its gate, expired): nothing to show.
      forgetJob(this.gateId)
    }
  }

  private async _onStart() {
    if (!this.api || this._starting) return
    this._starting = true
    this._actionError = undefined
    try {
      const job = await this.api.startRediff(this.gateId, { from: windowStart('24h') })
      rememberJob(this.gateId, job.id)
      this._poller.watch(job)
    } catch (error) {
      this._actionError = error
    } finally {
      this._starting = false
    }
  }

  private async _onCancel() {
    const job = this._poller.job
    if (!this.api || !job || this._cancelling) return
    this._cancelling = true
    this._actionError = undefined
    try {
      const after = await this.api.cancelJob(this.gateId, job.id)
      // The API may answer before the job has stopped: read it until it says so.
      if (after && isFinal(after)) this._poller.watch(after)
      else this._poller.resume()
    } catch (error) {
      this._actionError = error
    } finally {
      this._cancelling = false
    }
  }

  private _onDismissJob() {
    forgetJob(this.gateId)
    this._poller.clear()
    this._dismissed = true
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'rediff-panel': RediffPanel
  }
}
