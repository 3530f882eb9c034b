/**
 * Replacing a small file so that after a crash or power loss it holds the old content or the new,
 * never a truncated one: written to a temporary file and flushed, renamed over the old one, and the
 * directory flushed so that the rename itself is on disk.
 */
import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export function replaceFileDurably(file: string, content: string, mode = 0o644): void {
  const temp = `${file}.tmp`;
  const fd = openSync(temp, 'w', mode);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, file);
  const directory = openSync(dirname(file), 'r');
  try {
    fsyncSync(directory);
  } finally {
    closeSync(directory);
  }
}
