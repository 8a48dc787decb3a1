import { REQUEST_QUERY_KEYS } from './query-string.ts'

/**
 * Client-side routes over the History API. The paths are the deep links
 * the hub hands out; the hub server answers each of them with index.html.
 *
 *   /                                   overview
 *   /gates/:gateId                      gate, Differences (query: window)
 *   /gates/:gateId/requests             gate, captured requests (query: request filters)
 *   /gates/:gateId/settings             gate, diff settings
 *   /gates/:gateId/requests/:requestId  request
 */

/** The views of a gate page, in the order its tabs show them. */
export const GATE_VIEWS = ['differences', 'requests', 'settings'] as const
export type GateView = (typeof GATE_VIEWS)[number]

export type Route =
  | { readonly name: 'overview' }
  | { readonly name: 'gate'; readonly gateId: string; readonly view: GateView }
  | { readonly name: 'request'; readonly gateId: string; readonly requestId: string }
  | { readonly name: 'not-found'; readonly path: string }

export function matchRoute(pathname: string): Route {
  const path = pathname.replace(/\/+$/, '') || '/'
  if (path === '/' || path === '/gates') return { name: 'overview' }
  const parts = path.slice(1).split('/').map(safeDecode)
  if (parts.some((p) => p === undefined || p === '')) return { name: 'not-found', path: pathname }
  const [a, gateId, c, requestId, ...rest] = parts as string[]
  if (a === 'gates' && gateId !== undefined && c === undefined) return { name: 'gate', gateId, view: 'differences' }
  if (a === 'gates' && gateId && (c === 'requests' || c === 'settings') && requestId === undefined) {
    return { name: 'gate', gateId, view: c }
  }
  if (a === 'gates' && gateId && c === 'requests' && requestId && rest.length === 0) {
    return { name: 'request', gateId, requestId }
  }
  return { name: 'not-found', path: pathname }
}

export function overviewPath(search = ''): string {
  return search ? `/?${search}` : '/'
}

/** A gate's Differences view (the page a gate opens on). */
export function gatePath(gateId: string, search = ''): string {
  return gateViewPath(gateId, 'differences', search)
}

/** A gate's captured requests, `search` holding the request filters. */
export function gateRequestsPath(gateId: string, search = ''): string {
  return gateViewPath(gateId, 'requests', search)
}

export function gateViewPath(gateId: string, view: GateView, search = ''): string {
  const tail = view === 'differences' ? '' : `/${view}`
  return `/gates/${encodeURIComponent(gateId)}${tail}${search ? `?${search}` : ''}`
}

/**
 * Where an older gate link now points: `/gates/<id>?has_diff=true` listed
 * requests before the gate page opened on Differences, so a gate URL that
 * carries request filters moves to the request list with them. Undefined
 * when the URL is current.
 */
export function movedGateLink(pathname: string, search: string): string | undefined {
  const route = matchRoute(pathname)
  if (route.name !== 'gate' || route.view !== 'differences' || search === '') return undefined
  const keys = new URLSearchParams(search).keys()
  const listsRequests = [...keys].some((key) => (REQUEST_QUERY_KEYS as readonly string[]).includes(key))
  return listsRequests ? gateRequestsPath(route.gateId, search) : undefined
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
