/**
 * The re-diff job a tab started on a gate, so that the settings show its
 * progress again after the user looked elsewhere. sessionStorage only, as
 * the typed key (key-store.ts); storage can be disabled, so every call is
 * guarded.
 */

const PREFIX = 'svc-hub.rediff-job.'

export function rememberJob(gateId: string, jobId: string, storage: Storage | undefined = globalThis.sessionStorage): void {
  try {
    storage?.setItem(PREFIX + gateId, jobId)
  } catch {
    // Storage disabled: the progress shows until the page is left.
  }
}

export function rememberedJob(gateId: string, storage: Storage | undefined = globalThis.sessionStorage): string | null {
  try {
    return storage?.getItem(PREFIX + gateId) ?? null
  } catch {
    return null
  }
}

export function forgetJob(gateId: string, storage: Storage | undefined = globalThis.sessionStorage): void {
  try {
    storage?.removeItem(PREFIX + gateId)
  } catch {
    // Storage disabled: nothing was kept.
  }
}
