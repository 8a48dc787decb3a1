import type { Locator, Page } from 'playwright-core'

/** Bounded waits: every wait in the real-API tests ends, with what it last saw. */
export const WAIT_MS = 15_000

/**
 * Polls `probe` until `ok` holds, at most `timeoutMs`; throws with the last
 * value otherwise. For conditions playwright-core has no waiter for (a
 * count, a set of texts).
 */
export async function until<T>(probe: () => Promise<T>, ok: (value: T) => boolean, what: string, timeoutMs = WAIT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs
  let last: T = await probe()
  while (!ok(last)) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last: ${JSON.stringify(last)}`)
    await Bun.sleep(50)
    last = await probe()
  }
  return last
}

/** Waits until `locator` matches exactly `n` elements. */
export function untilCount(locator: Locator, n: number, what = `${n} elements`): Promise<number> {
  return until(() => locator.count(), (c) => c === n, what)
}

/** The element that has focus, looked up through the shadow roots. */
export interface Focused {
  /** `host > tag#id`, e.g. `gate-form > input#name`. */
  readonly where: string
  /** Accessible-name-ish text: aria-label, else the text, else the value of a control. */
  readonly name: string
  /** Whether a focus indicator is drawn: an outline, or one on the visible sibling of a hidden input (chips). */
  readonly visible: boolean
}

export function focused(page: Page): Promise<Focused | null> {
  return page.evaluate(() => {
    let el: Element | null = document.activeElement
    let host = ''
    while (el?.shadowRoot?.activeElement) {
      host = el.tagName.toLowerCase()
      el = el.shadowRoot.activeElement
    }
    if (!el || el === document.body) return null
    const ring = (e: Element | null) => {
      if (!e) return false
      const s = getComputedStyle(e)
      return (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0) || s.boxShadow !== 'none'
    }
    // Text as a screen reader gets it: no aria-hidden parts, no text-transform.
    const textOf = (node: Node): string =>
      node.nodeType === Node.TEXT_NODE
        ? (node.textContent ?? '')
        : node instanceof Element && node.getAttribute('aria-hidden') === 'true'
          ? ''
          : [...node.childNodes].map(textOf).join(' ')
    const hidden = getComputedStyle(el).opacity === '0'
    const text = textOf(el).replace(/\s+/g, ' ').trim()
    const name = el.getAttribute('aria-label') ?? (text || el.getAttribute('value') || '')
    return {
      where: `${host ? `${host} > ` : ''}${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}`,
      name,
      visible: hidden ? ring(el.nextElementSibling) : ring(el),
    }
  })
}

/** Presses Tab `n` times and returns each focus stop. */
export async function tabStops(page: Page, n: number): Promise<(Focused | null)[]> {
  const stops: (Focused | null)[] = []
  for (let i = 0; i < n; i++) {
    await page.keyboard.press('Tab')
    stops.push(await focused(page))
  }
  return stops
}

/**
 * Form controls (in every shadow root) without an accessible name: no
 * <label>, no aria-label, no aria-labelledby that resolves, and buttons
 * without text or aria-label. Returns a description of each.
 */
export function unlabelledControls(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = []
    const visit = (root: Document | ShadowRoot, host: string) => {
      for (const el of root.querySelectorAll('*')) {
        if (el.shadowRoot) visit(el.shadowRoot, el.tagName.toLowerCase())
        const tag = el.tagName.toLowerCase()
        if (!['input', 'select', 'textarea', 'button'].includes(tag)) continue
        if ((el as HTMLInputElement).type === 'hidden') continue
        const labelled =
          (el.getAttribute('aria-label') ?? '').trim() !== '' ||
          (el.getAttribute('aria-labelledby') ?? '').split(/\s+/).some((id) => id && root.getElementById?.(id)?.textContent?.trim()) ||
          ((el as HTMLInputElement).labels?.length ?? 0) > 0 ||
          (tag === 'button' && (el.textContent ?? '').trim() !== '')
        if (!labelled) out.push(`${host} > ${tag}${el.id ? `#${el.id}` : ''}${el.getAttribute('name') ? `[name=${el.getAttribute('name')}]` : ''}`)
      }
    }
    visit(document, '')
    return out
  })
}
