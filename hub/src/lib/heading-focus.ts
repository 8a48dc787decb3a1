import type { ReactiveController, ReactiveElement } from 'lit'

/**
 * Moves focus to a page's heading after navigation, so a screen reader
 * starts reading the new page there. A page renders its `<h1>` only once
 * its data has loaded, after the router asked, so the request waits for
 * the first update that has one. If the user has put focus somewhere in
 * the meantime, it stays there.
 */
export class HeadingFocus implements ReactiveController {
  #pending = false

  constructor(private readonly host: ReactiveElement) {
    host.addController(this)
  }

  /** Focus the heading now, or as soon as it renders. */
  request(): void {
    this.#pending = true
    this.#attempt()
  }

  hostUpdated(): void {
    if (this.#pending) this.#attempt()
  }

  hostDisconnected(): void {
    this.#pending = false
  }

  #attempt(): void {
    const heading = this.host.renderRoot.querySelector<HTMLElement>('h1')
    if (!heading) return
    this.#pending = false
    if (focusIsFree()) heading.focus()
  }
}

/**
 * Whether nothing the user chose has focus: the body, the skip link's
 * target (`main`), or a shadow host whose focused element was removed
 * (the link or button that led here, gone with the previous page).
 */
function focusIsFree(): boolean {
  let el: Element | null = document.activeElement
  while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement
  if (!el || el === document.body || el.tagName === 'MAIN') return true
  return el.shadowRoot !== null && el.shadowRoot.activeElement === null
}
