import type { Verdict } from './evaluate-verdict.ts'

/**
 * The exit code of `bun run verdict` and `bun run replay` for a verdict
 * (docs/ci.md "Exit codes"): 0 pass, 1 fail, 2 inconclusive. 2 is also
 * the code of any error, so that a pipeline never reads a failure to
 * answer as a pass or as a plain fail.
 */
export const EXIT_CODES: { readonly [V in Verdict]: number } = { pass: 0, fail: 1, inconclusive: 2 }

/** The exit code of a run that could not reach a verdict. */
export const ERROR_EXIT_CODE = 2
