import { readdirSync, readFileSync } from 'node:fs'

/**
 * The few process facts that only Linux's /proc gives cheaply (a read of a
 * small virtual file, ~15 µs). Each reader returns `undefined` where /proc
 * is missing (macOS, a locked-down container), so callers skip the series.
 */

/** `vsize` (field 23 of /proc/<pid>/stat, proc(5)), in bytes. */
export function readVirtualMemoryBytes(procDir: string): number | undefined {
  const stat = readText(`${procDir}/stat`)
  if (stat === undefined) return undefined
  // Field 2, the command name, is in parentheses and may hold spaces;
  // fields are counted from after its closing parenthesis (field 3 = index 0).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const vsize = Number(fields[23 - 3])
  return Number.isFinite(vsize) ? vsize : undefined
}

/** Open file descriptors: the entries of /proc/<pid>/fd, less the one this read opens. */
export function countOpenFds(procDir: string): number | undefined {
  try {
    return readdirSync(`${procDir}/fd`).length - 1
  } catch {
    return undefined
  }
}

/** The soft limit on open files ("Max open files" in /proc/<pid>/limits). */
export function readMaxFds(procDir: string): number | undefined {
  const limits = readText(`${procDir}/limits`)
  const match = limits?.match(/^Max open files\s+(\d+|unlimited)/m)
  if (!match) return undefined
  return match[1] === 'unlimited' ? Infinity : Number(match[1])
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}
