import type { LedgerNode } from './node.js';

const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * Stops the node cleanly on SIGINT or SIGTERM, then ends the process: a winning PoSt the miner
 * abandoned may still be running on a native thread, and nothing is left to wait for it. A second
 * signal during the stop exits at once, for an operator who does not want to wait. A stop asked
 * over the API (the Shutdown method) ends the process the same way.
 */
export function stopOnSignal(node: LedgerNode): Promise<void> {
  return new Promise((resolve, reject) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) {
        node.logger.warn({ signal }, 'second signal: exiting without waiting for the stop');
        process.exit(1);
      }
      stopping = true;
      node.logger.info({ signal }, 'stopping');
      node.stop().catch(reject);
    };
    for (const s of STOP_SIGNALS) process.on(s, onSignal);
    node.stopped.then(() => {
      stopping = true;
      for (const s of STOP_SIGNALS) process.off(s, onSignal);
      resolve();
      // After the caller's continuation (it may still print), not before.
      setImmediate(() => process.exit(process.exitCode ?? 0));
    });
  });
}
