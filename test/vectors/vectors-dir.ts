/**
 * Locates the public Filecoin vectors (../shared/vectors beside the checkout, or LEDGER_VECTORS_DIR).
 * A missing directory fails loudly: conformance suites must never pass by testing nothing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export const vectorsDir = process.env.LEDGER_VECTORS_DIR ?? join(repoRoot, '..', 'shared', 'vectors');

export function vectorPath(...parts: string[]): string {
  const path = join(vectorsDir, ...parts);
  if (!existsSync(path)) {
    throw new Error(`conformance vector not found: ${path} (set LEDGER_VECTORS_DIR to the shared/vectors directory)`);
  }
  return path;
}

export function readVectorJson<T = unknown>(...parts: string[]): T {
  return JSON.parse(readFileSync(vectorPath(...parts), 'utf8')) as T;
}

export function readVectorBytes(...parts: string[]): Uint8Array {
  return new Uint8Array(readFileSync(vectorPath(...parts)));
}
