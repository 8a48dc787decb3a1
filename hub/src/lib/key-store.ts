/**
 * The API key typed into the key prompt. sessionStorage only: it lives as
 * long as the tab and is never written to disk-backed localStorage or a
 * cookie. Storage can be disabled by the browser, so every call is guarded.
 */

const STORAGE_KEY = 'svc-hub.api-key'

export function readSessionKey(storage: Storage | undefined = globalThis.sessionStorage): string | null {
  try {
    return storage?.getItem(STORAGE_KEY) ?? null
  } catch {
    return null
  }
}

export function writeSessionKey(key: string, storage: Storage | undefined = globalThis.sessionStorage): boolean {
  try {
    storage?.setItem(STORAGE_KEY, key)
    return storage !== undefined
  } catch {
    return false
  }
}

export function clearSessionKey(storage: Storage | undefined = globalThis.sessionStorage): void {
  try {
    storage?.removeItem(STORAGE_KEY)
  } catch {
    // Storage disabled: there is nothing to clear.
  }
}
