/**
 * The entry of the sealing process `SealProcess` forks (seal-process.ts): it runs the sealing calls
 * its parent sends over IPC, one at a time, and answers each, at the lowest CPU priority. It dies
 * with its parent, even in the middle of a C2.
 */
import { existsSync, readdirSync } from 'node:fs';
import { setPriority } from 'node:os';
import { configureProofs } from './environment.js';
import { ProofsError } from './errors.js';
import { commitSector, precommitSector } from './seal.js';
import type { SealRequest, SealResponse } from './seal-process.js';

/** The lowest priority (nice 19): the node's window and winning PoSt take the cores first. */
const SEALING_NICE = 19;

/**
 * Lowers the priority of every thread of the process. On Linux a priority belongs to a thread, and
 * a new thread inherits its creator's: the libuv pool already runs (module loading started it), and
 * the proofs library's rayon and bellperson pools are started from it, so each existing thread is
 * reniced and later ones follow. Elsewhere (macOS) the priority is the process's.
 */
function lowerPriority(): void {
  const tasks = '/proc/self/task';
  if (!existsSync(tasks)) {
    setPriority(SEALING_NICE);
    return;
  }
  for (const tid of readdirSync(tasks)) {
    try {
      setPriority(Number(tid), SEALING_NICE);
    } catch {
      // The thread ended between the listing and the call.
    }
  }
}

async function serve(request: SealRequest): Promise<SealResponse> {
  try {
    lowerPriority();
    configureProofs({ parameterCache: request.parameterCache });
    const value =
      request.op === 'precommit'
        ? await precommitSector(request.sector, request.inputs)
        : await commitSector(request.sector, request.inputs);
    return { id: request.id, value };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { id: request.id, error: { message, code: error instanceof ProofsError ? error.code : undefined } };
  }
}

process.on('message', (request: SealRequest) => {
  void serve(request).then((response) => process.send?.(response));
});
// A normal exit would wait for the native call in flight (minutes for a C2): with nobody left to
// answer to, the process ends at once.
process.on('disconnect', () => process.kill(process.pid, 'SIGKILL'));
