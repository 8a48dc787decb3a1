/**
 * `work`'s value, or `late()`'s when `ms` pass first. The timer is cleared
 * either way, so a bounded wait never keeps the process alive after it.
 */
export async function within<T>(work: Promise<T>, ms: number, late: () => T): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(late()), ms)
  })
  try {
    return await Promise.race([work, timeout])
  } finally {
    clearTimeout(timer)
  }
}
