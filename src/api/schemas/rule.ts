import type { Traversal } from 'arktype'

/**
 * A `narrow` predicate from a check that returns what a failing value must
 * be (undefined when it holds), for the schemas of createRequest, which
 * checks every capture. arktype checks a value with the traversal context
 * (which collects errors) whenever a predicate of its type takes that
 * context as a second parameter; a predicate declared with one parameter
 * lets it first run its boolean pass, and build errors only for a value
 * that fails it. That second pass hands the context over all the same,
 * and the rule is reported with `mustBe` as a two-parameter predicate
 * would: the same problem, without the error bookkeeping on every valid
 * capture.
 */
export function rule<T>(failure: (value: T) => string | undefined): (value: T, ...context: [ctx?: Traversal]) => boolean {
  return (value, ...context) => {
    const expected = failure(value)
    if (expected === undefined) return true
    return context[0] === undefined ? false : context[0].mustBe(expected)
  }
}
