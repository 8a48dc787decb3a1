/**
 * Longest common subsequence of two integer sequences by Myers' O((N+M)D)
 * greedy algorithm ("An O(ND) Difference Algorithm and Its Variations",
 * 1986), on element hashes. Only the V arrays of the explored diagonals
 * are kept (O(D²) memory), and the work is capped: when the sequences differ
 * in more than `maxEdits` places the search gives up and returns undefined,
 * so a huge, thoroughly different array cannot hang the caller.
 */
export function longestCommonSubsequence(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  maxEdits: number,
): Array<[number, number]> | undefined {
  const n = a.length
  const m = b.length
  const limit = Math.min(n + m, maxEdits)
  const offset = limit + 1
  const v = new Int32Array(2 * limit + 3)
  const trace: Int32Array[] = []
  let found = -1
  search: for (let d = 0; d <= limit; d++) {
    // The diagonals read in round d span k = -d-1 .. d+1.
    trace.push(v.slice(offset - d - 1, offset + d + 2))
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!)
          ? v[offset + k + 1]!
          : v[offset + k - 1]! + 1
      let y = x - k
      while (x < n && y < m && a[x] === b[y]) {
        x++
        y++
      }
      v[offset + k] = x
      if (x >= n && y >= m) {
        found = d
        break search
      }
    }
  }
  if (found < 0) return undefined

  const pairs: Array<[number, number]> = []
  let x = n
  let y = m
  for (let d = found; d > 0; d--) {
    const saved = trace[d]!
    // saved[j] holds v[offset + (j - d - 1)]
    const at = (k: number): number => saved[k + d + 1]!
    const k = x - y
    const previousK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1
    const previousX = at(previousK)
    const previousY = previousX - previousK
    while (x > previousX && y > previousY) pairs.push([--x, --y])
    x = previousX
    y = previousY
  }
  while (x > 0 && y > 0) pairs.push([--x, --y])
  return pairs.reverse()
}
