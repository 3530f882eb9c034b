import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configureProofs, ProofsError, proofsDirs } from '../../src/proofs/index.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Runs a TypeScript snippet in a fresh process: the proofs library's settings are per process. */
function runIsolated(code: string, env: Record<string, string>) {
  return spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    cwd: root,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
}

describe('proofs errors', () => {
  it('ERR_PROOF_PARAMS_MISSING tells the user which command creates the parameters', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'ledger-no-params-'));
    try {
      const result = runIsolated(
        `import { verifyWinningPost } from './src/proofs/index.ts';
         try {
           await verifyWinningPost({ minerId: 1000n, randomness: new Uint8Array(32), sectors: [{ sectorNumber: 0n, commR: new Uint8Array(32) }] }, new Uint8Array(192));
         } catch (error) {
           console.log(JSON.stringify({ name: error.name, code: error.code, message: error.message }));
         }`,
        { LEDGER_PROOF_PARAMS: empty },
      );
      expect(result.stderr).toBe('');
      const error = JSON.parse(result.stdout);
      expect(error).toMatchObject({ name: 'ProofsError', code: 'ERR_PROOF_PARAMS_MISSING' });
      expect(error.message).toContain('winning-post');
      expect(error.message).toContain(empty);
      expect(error.message).toContain('`ledger proofs params`');
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  }, 60_000);

  it('ERR_PROOF_SETTINGS_CONFLICT when the cache would change after the first proofs call', () => {
    const dirs = proofsDirs();
    expect(configureProofs({ parameterCache: dirs.parameterCache })).toEqual(dirs);
    expect(() => configureProofs({ parameterCache: join(tmpdir(), 'elsewhere') })).toThrow(ProofsError);
    try {
      configureProofs({ parameterCache: join(tmpdir(), 'elsewhere') });
    } catch (error) {
      expect(error).toMatchObject({ code: 'ERR_PROOF_SETTINGS_CONFLICT' });
    }
  });
});
