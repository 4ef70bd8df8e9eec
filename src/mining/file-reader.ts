import fs from 'node:fs/promises';

/** A transcript file opened for positioned reads (tests pass their own). */
export interface FileReader {
  read(buffer: Buffer, length: number, position: number): Promise<number>;
  close(): Promise<void>;
}

export async function openNodeFile(path: string): Promise<FileReader> {
  const handle = await fs.open(path, 'r');
  return {
    read: async (buffer, length, position) => (await handle.read(buffer, 0, length, position)).bytesRead,
    close: () => handle.close(),
  };
}
