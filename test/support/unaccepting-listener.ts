/**
 * A TCP port on 127.0.0.1 whose connects hang: a socket listening with a
 * backlog of 0 that never accepts, its one place in the accept queue
 * taken by a first connection. Linux drops the SYNs of later connects
 * while the queue is full, so they neither succeed nor fail (as a
 * connect to a host behind a firewall that drops them). Bun's listeners
 * accept by themselves, so the socket is made with the C library's
 * calls through bun:ffi: Linux with glibc (`libc.so.6`), as on CI.
 *
 * A connect given up while it hangs is still retried by the kernel until
 * a SYN meets the closed port and is refused: the port is not reused
 * meanwhile by the tests of one file, which take their ports from the
 * kernel (port 0).
 */
import { dlopen, FFIType, ptr } from 'bun:ffi'

const AF_INET = 2
const SOCK_STREAM = 1
/** Not inherited by a process a test starts. */
const SOCK_CLOEXEC = 0o2000000

const LIBC_CALLS = {
  socket: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
  bind: { args: [FFIType.i32, FFIType.ptr, FFIType.u32], returns: FFIType.i32 },
  listen: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
  getsockname: { args: [FFIType.i32, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
  close: { args: [FFIType.i32], returns: FFIType.i32 },
} as const

/** Loaded when first used: a file that imports this helper loads elsewhere too. */
let libc: ReturnType<typeof dlopen<typeof LIBC_CALLS>>['symbols'] | undefined

export interface UnacceptingListener {
  readonly port: number
  close(): void
}

export async function unacceptingListener(): Promise<UnacceptingListener> {
  const calls = (libc ??= dlopen('libc.so.6', LIBC_CALLS).symbols)
  const fd = calls.socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)
  if (fd < 0) throw new Error('socket() failed')
  let filler: Bun.Socket<undefined> | undefined
  try {
    // struct sockaddr_in: family (host order, little-endian on x86-64 and
    // arm64), port 0 and 127.0.0.1 (network order), 8 bytes of zero.
    const address = new Uint8Array(16)
    address[0] = AF_INET
    address.set([127, 0, 0, 1], 4)
    const length = new Uint32Array([address.byteLength])
    if (calls.bind(fd, ptr(address), address.byteLength) !== 0 || calls.listen(fd, 0) !== 0 || calls.getsockname(fd, ptr(address), ptr(length)) !== 0) {
      throw new Error('bind, listen or getsockname failed')
    }
    const port = (address[2]! << 8) | address[3]!
    // The queue's one place, taken: the kernel completes this connect without an accept.
    filler = await Bun.connect({ hostname: '127.0.0.1', port, socket: { data() {} } })
    const taken = filler
    return {
      port,
      close() {
        taken.terminate()
        calls.close(fd)
      },
    }
  } catch (error) {
    filler?.terminate()
    calls.close(fd)
    throw error
  }
}
