/**
 * A TCP port on 127.0.0.1 whose connects hang: a socket listening with a
 * backlog of 0 that never accepts, its one place in the accept queue
 * taken by a first connection. Linux drops the SYNs of later connects
 * while the queue is full, so they neither succeed nor fail (as a
 * connect to a host behind a firewall that drops them). Bun's listeners
 * accept by themselves, so the socket is made with the C library's
 * calls through bun:ffi.
 */
import { dlopen, FFIType, ptr } from 'bun:ffi'

const AF_INET = 2
const SOCK_STREAM = 1

const libc = dlopen('libc.so.6', {
  socket: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
  bind: { args: [FFIType.i32, FFIType.ptr, FFIType.u32], returns: FFIType.i32 },
  listen: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
  getsockname: { args: [FFIType.i32, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
  close: { args: [FFIType.i32], returns: FFIType.i32 },
}).symbols

export interface UnacceptingListener {
  readonly port: number
  close(): void
}

export async function unacceptingListener(): Promise<UnacceptingListener> {
  const fd = libc.socket(AF_INET, SOCK_STREAM, 0)
  if (fd < 0) throw new Error('socket() failed')
  // struct sockaddr_in: family (host order), port 0 and 127.0.0.1 (network order), 8 bytes of zero.
  const address = new Uint8Array(16)
  address[0] = AF_INET
  address.set([127, 0, 0, 1], 4)
  const length = new Uint32Array([address.byteLength])
  if (libc.bind(fd, ptr(address), address.byteLength) !== 0 || libc.listen(fd, 0) !== 0 || libc.getsockname(fd, ptr(address), ptr(length)) !== 0) {
    libc.close(fd)
    throw new Error('bind, listen or getsockname failed')
  }
  const port = (address[2]! << 8) | address[3]!
  // The queue's one place, taken: the kernel completes this connect without an accept.
  const filler = await Bun.connect({ hostname: '127.0.0.1', port, socket: { data() {} } })
  return {
    port,
    close() {
      filler.terminate()
      libc.close(fd)
    },
  }
}
