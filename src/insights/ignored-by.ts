import type { CompiledDiffConfig } from '../diff/compiled-diff-config.ts'
import { parsePointer } from '../diff/pointer.ts'
import { SKIPPED, type FilterStep } from '../diff/path-filter.ts'
import { INDEX_PLACEHOLDER } from './signature-path.ts'

/**
 * Whether a diff config leaves a generalised signature path out of the
 * comparison (ignored, or outside included_fields): its tokens walked
 * through the config's path filter as a comparison walks a document, an
 * index (`*`) as index 0 and an identifier-like key (`{key}`) as that
 * text, which a wildcard segment matches as it matches any key.
 */
export function ignoredBy(config: CompiledDiffConfig, signaturePath: string): boolean {
  const filter = config.filter
  if (filter === undefined) return false
  let tokens: string[]
  try {
    tokens = parsePointer(signaturePath)
  } catch {
    return false
  }
  let step: FilterStep = filter.root
  for (const token of tokens) {
    if (step === undefined) return false
    if (step === SKIPPED) return true
    step = token === INDEX_PLACEHOLDER ? filter.childIndex(step, 0) : filter.child(step, token)
  }
  return step === SKIPPED
}
