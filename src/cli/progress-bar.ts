/** `[#####.....]  50%`: the share of the work done. */
function bar(share: number, width: number): string {
  const filled = Math.round(share * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.round(share * 100)).padStart(3)}%`;
}

/** `draw` at most every 100 ms, unless forced (the last state is always drawn). */
function throttled(now: () => number, draw: () => void): (force: boolean) => void {
  let drawnAt = Number.NEGATIVE_INFINITY;
  return (force) => {
    const t = now();
    if (!force && t - drawnAt < 100) return;
    drawnAt = t;
    draw();
  };
}

/** A one-line progress bar on a terminal (stderr), by bytes, redrawn at most every 100 ms. */
export function createProgressBar(out: { write(chunk: string): unknown }, options: { total: number; totalBytes: number; now(): number; width?: number }) {
  const width = options.width ?? 30;
  let files = 0;
  let finishedBytes = 0;
  let currentBytes = 0;
  let readBytes = 0;
  const draw = throttled(options.now, () => {
    const done = finishedBytes + currentBytes;
    const share = options.totalBytes > 0 ? Math.min(1, done / options.totalBytes) : options.total > 0 ? files / options.total : 1;
    out.write(`\r${bar(share, width)}  ${files}/${options.total} files  ${(readBytes / 1e6).toFixed(1)} MB read `);
  });
  return {
    /** A file is done; an unchanged or resumed file counts whole (it needed no more reading). */
    file(size: number) {
      files += 1;
      finishedBytes += size;
      currentBytes = 0;
      draw(files === options.total);
    },
    bytes(n: number) {
      currentBytes += n;
      readBytes += n;
      draw(false);
    },
    done() {
      out.write('\n');
    },
  };
}

/** Whether the command's stderr is a terminal (a bar there is read; in a log or a pipe it is noise). */
export function stderrIsTerminal(io: { stderr: unknown }): boolean {
  return (io.stderr as { isTTY?: boolean }).isTTY === true;
}

/** A one-line progress bar on a terminal by items done of a known total, redrawn at most every 100 ms. */
export function createCountBar(out: { write(chunk: string): unknown }, options: { total: number; unit: string; now(): number; width?: number }) {
  const width = options.width ?? 30;
  let done = 0;
  const draw = throttled(options.now, () => {
    const share = options.total > 0 ? Math.min(1, done / options.total) : 1;
    out.write(`\r${bar(share, width)}  ${done}/${options.total} ${options.unit} `);
  });
  return {
    tick() {
      done += 1;
      draw(done === options.total);
    },
    done() {
      draw(true);
      out.write('\n');
    },
  };
}
