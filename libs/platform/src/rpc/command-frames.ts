/**
 * The command transport's framing: each message is an 8-byte header (payload length, exchange id; unsigned
 * 32-bit big-endian) and a UTF-8 JSON payload. The exchange id pairs an answer with its command, so one
 * connection carries many commands at once and answers come back in whatever order they finish.
 */
export const FRAME_HEADER_BYTES = 8;

/** Exchange ids wrap at 2^32; a connection never has that many commands in flight. */
export const MAX_EXCHANGE_ID = 0xffff_ffff;

export function encodeFrame(id: number, payload: string): Buffer {
  const length = Buffer.byteLength(payload);
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + length);
  frame.writeUInt32BE(length, 0);
  frame.writeUInt32BE(id, 4);
  frame.write(payload, FRAME_HEADER_BYTES, length, 'utf8');
  return frame;
}

/**
 * Cuts a byte stream into frames. A frame longer than `maxPayloadBytes` is skipped without being buffered and
 * reported with no payload, so the receiver can refuse that one exchange and keep the connection.
 */
export class FrameDecoder {
  // Bytes received but not yet cut into frames, joined only once a whole frame is there (a large answer arrives
  // in many chunks).
  private chunks: Buffer[] = [];
  private buffered = 0;
  private needed = FRAME_HEADER_BYTES;
  private skipping = 0;

  constructor(
    private readonly maxPayloadBytes: number,
    /** `length` is the payload's declared length, so a receiver can tell an oversized command from a stream that is not frames. */
    private readonly onFrame: (id: number, payload: Buffer | undefined, length: number) => void,
  ) {}

  push(chunk: Buffer): void {
    if (this.skipping > 0) {
      const skipped = Math.min(this.skipping, chunk.length);
      this.skipping -= skipped;
      if (skipped === chunk.length) return;
      chunk = chunk.subarray(skipped);
    }
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    if (this.buffered < this.needed) return;
    const buffer = this.chunks.length === 1 ? chunk : Buffer.concat(this.chunks, this.buffered);
    this.chunks = [];
    this.buffered = 0;
    this.needed = FRAME_HEADER_BYTES;
    let offset = 0;
    while (buffer.length - offset >= FRAME_HEADER_BYTES) {
      const length = buffer.readUInt32BE(offset);
      const id = buffer.readUInt32BE(offset + 4);
      const available = buffer.length - offset - FRAME_HEADER_BYTES;
      if (length > this.maxPayloadBytes) {
        this.onFrame(id, undefined, length);
        if (available >= length) {
          offset += FRAME_HEADER_BYTES + length;
          continue;
        }
        this.skipping = length - available;
        return;
      }
      if (available < length) {
        this.needed = FRAME_HEADER_BYTES + length;
        break;
      }
      const start = offset + FRAME_HEADER_BYTES;
      offset = start + length;
      this.onFrame(id, buffer.subarray(start, offset), length);
    }
    if (offset < buffer.length) {
      this.chunks.push(buffer.subarray(offset));
      this.buffered = buffer.length - offset;
    }
  }
}

/** A command as it travels: the pattern it is for, its envelope (RpcRequest without the absolute deadline) and body. */
export interface CommandFrame {
  pattern: string;
  command_id: string;
  /** Milliseconds the caller still waits: relative, so the two hosts' clocks need not agree. */
  timeout_ms: number;
  correlation_id: string;
  body: unknown;
  /**
   * The caller's W3C trace context, when it traces: the owner's span joins the caller's trace. Optional both ways:
   * an owner ignores fields it does not know, and a frame without them starts no trace of its own upstream.
   */
  traceparent?: string;
  tracestate?: string;
}

/**
 * An answer as it travels. `status` 200 carries the handler's RpcReply (success or a shaped failure); 503 means
 * the instance is shutting down and did not run the command (send it elsewhere); 400, 404 and 500 are the
 * transport's own refusals (unreadable frame, unknown command, handler bug).
 */
export interface AnswerFrame {
  status: 200 | 400 | 404 | 500 | 503;
  reply: unknown;
}
