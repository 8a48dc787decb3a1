/**
 * Client-side routes over the History API. The paths are the deep links
 * the hub hands out; the hub server answers each of them with index.html.
 *
 *   /                                   overview
 *   /gates/:gateId                      gate (query: request filters)
 *   /gates/:gateId/requests/:requestId  request
 */

export type Route =
  | { readonly name: 'overview' }
  | { readonly name: 'gate'; readonly gateId: string }
  | { readonly name: 'request'; readonly gateId: string; readonly requestId: string }
  | { readonly name: 'not-found'; readonly path: string }

export function matchRoute(pathname: string): Route {
  const path = pathname.replace(/\/+$/, '') || '/'
  if (path === '/' || path === '/gates') return { name: 'overview' }
  const parts = path.slice(1).split('/').map(safeDecode)
  if (parts.some((p) => p === undefined || p === '')) return { name: 'not-found', path: pathname }
  const [a, gateId, c, requestId, ...rest] = parts as string[]
  if (a === 'gates' && gateId !== undefined && c === undefined) return { name: 'gate', gateId }
  if (a === 'gates' && gateId && c === 'requests' && requestId && rest.length === 0) {
    return { name: 'request', gateId, requestId }
  }
  return { name: 'not-found', path: pathname }
}

export function overviewPath(search = ''): string {
  return search ? `/?${search}` : '/'
}

export function gatePath(gateId: string, search = ''): string {
  return `/gates/${encodeURIComponent(gateId)}${search ? `?${search}` : ''}`
}

export function requestPath(gateId: string, requestId: string): string {
  return `/gates/${encodeURIComponent(gateId)}/requests/${encodeURIComponent(requestId)}`
}

function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment)
  } catch {
    return undefined
  }
}

/** Fired on window whenever the hub changes the URL itself. */
export const NAVIGATE_EVENT = 'svc-navigate'

export interface NavigateOptions {
  /** Replace the history entry (typing in a search box) instead of adding one. */
  readonly replace?: boolean
}

/** Changes the URL without a reload and tells the shell to render it. */
export function navigate(url: string, options: NavigateOptions = {}): void {
  const current = location.pathname + location.search + location.hash
  if (url === current) return
  if (options.replace) history.replaceState(null, '', url)
  else history.pushState(null, '', url)
  window.dispatchEvent(new Event(NAVIGATE_EVENT))
}

/**
 * Turns clicks on same-origin links, inside shadow roots too, into client
 * navigations. Modified clicks (new tab, download) keep the browser's way.
 * Returns a function that removes the listener.
 */
export function interceptLinks(target: Window = window): () => void {
  const onClick = (event: MouseEvent) => {
    if (event.defaultPrevented || event.button !== 0) return
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
    const anchor = event.composedPath().find((n): n is HTMLAnchorElement => n instanceof HTMLAnchorElement)
    if (!anchor || !anchor.href || anchor.hasAttribute('download')) return
    if (anchor.target && anchor.target !== '_self') return
    const url = new URL(anchor.href)
    if (url.origin !== location.origin) return
    event.preventDefault()
    navigate(url.pathname + url.search + url.hash)
  }
  target.addEventListener('click', onClick)
  return () => target.removeEventListener('click', onClick)
}
