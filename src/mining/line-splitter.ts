/**
 * Splits a byte stream into lines in bounded memory: at most one line plus the chunk being
 * pushed is held. A line longer than `maxLineBytes` is not assembled at all; its bytes are
 * skipped up to the next newline and reported as oversized. Pure: bytes in, callbacks out.
 */
export interface LineHandler {
  /** A complete line without its '\n'; `bytes` may be a view into the pushed chunk (use it before returning). */
  line(bytes: Buffer, startOffset: number, endOffset: number): void;
  /** A line over the cap, skipped; `endOffset` is just after its '\n'. */
  oversized(startOffset: number, endOffset: number): void;
}

export interface LineSplitter {
  /** The chunk may be reused by the caller once push returns. */
  push(chunk: Buffer): void;
  /** Offset just after the last '\n' seen: everything before it was handed out. */
  completedTo(): number;
  /** Bytes of an unterminated last line held back (or skipped, when over the cap). */
  pendingBytes(): number;
}

const NEWLINE = 0x0a;

export function createLineSplitter(startOffset: number, maxLineBytes: number, handler: LineHandler): LineSplitter {
  let offset = startOffset; // file offset of the next byte pushed
  let lineStart = startOffset;
  let pieces: Buffer[] = [];
  let pieceBytes = 0;
  let skipping = false;

  function holdBack(chunk: Buffer, from: number): void {
    const length = chunk.length - from;
    if (length === 0) return;
    if (skipping || pieceBytes + length > maxLineBytes) {
      skipping = true;
      pieces = [];
      pieceBytes += length;
      return;
    }
    const copy = Buffer.allocUnsafe(length);
    chunk.copy(copy, 0, from);
    pieces.push(copy);
    pieceBytes += length;
  }

  return {
    push(chunk) {
      let pos = 0;
      while (pos <= chunk.length) {
        const nl = chunk.indexOf(NEWLINE, pos);
        if (nl < 0) {
          holdBack(chunk, pos);
          break;
        }
        const end = offset + nl + 1;
        const tail = nl - pos;
        if (skipping || pieceBytes + tail > maxLineBytes) {
          handler.oversized(lineStart, end);
        } else if (pieces.length > 0) {
          pieces.push(chunk.subarray(pos, nl));
          handler.line(Buffer.concat(pieces, pieceBytes + tail), lineStart, end);
        } else {
          handler.line(chunk.subarray(pos, nl), lineStart, end);
        }
        pieces = [];
        pieceBytes = 0;
        skipping = false;
        lineStart = end;
        pos = nl + 1;
      }
      offset += chunk.length;
    },
    completedTo: () => lineStart,
    pendingBytes: () => offset - lineStart,
  };
}
