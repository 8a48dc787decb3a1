import { noChange } from 'lit'
import { Directive, PartType, directive } from 'lit/directive.js'
import type { ElementPart, PartInfo } from 'lit/directive.js'

/**
 * Sets CSS properties through the CSSOM (`element.style.setProperty`). Lit's
 * own styleMap writes a `style` attribute on first render, which a CSP without
 * 'unsafe-inline' in style-src blocks (the hub's CSP is self-only, docs/hub.md
 * "Serving"); CSSOM writes are not inline styles and are allowed.
 *
 *   html`<span ${cssProps({ width: '40%' })}></span>`
 */
class CssPropsDirective extends Directive {
  #previous = new Set<string>()

  constructor(info: PartInfo) {
    super(info)
    if (info.type !== PartType.ELEMENT) throw new Error('cssProps() is an element directive')
  }

  render(_props: Readonly<Record<string, string>>): unknown {
    return noChange
  }

  override update(part: ElementPart, [props]: [Readonly<Record<string, string>>]): unknown {
    const style = (part.element as HTMLElement).style
    for (const name of this.#previous) if (!(name in props)) style.removeProperty(name)
    for (const [name, value] of Object.entries(props)) style.setProperty(name, value)
    this.#previous = new Set(Object.keys(props))
    return noChange
  }
}

export const cssProps = directive(CssPropsDirective)
