/**
 * Nesting bound of the comparison (docs/diff.md "Guards: size, depth, time":
 * big or deep input never crashes it). Subtrees nested deeper than this many
 * levels below the document root are compared as canonical JSON text and
 * reported, when they differ, as one `replace` whose value is that text. Every
 * recursive walk in src/diff stays within this bound (a few frames per level);
 * past it only iterative code runs, so no input can overflow the stack.
 */
export const MAX_COMPARE_DEPTH = 256
