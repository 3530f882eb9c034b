import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import { ensureParameters, parameterStatus, proofsDirs } from '../../src/proofs/index.js';
import { PARAMETERS_TIMEOUT_MS } from './fixtures.js';

async function runCli(args: string[]): Promise<{ stdout: string; exitCode: number }> {
  const stdout: string[] = [];
  const writeOut = process.stdout.write.bind(process.stdout);
  const writeErr = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((chunk: string) => stdout.push(chunk) > 0) as typeof process.stdout.write;
  process.stderr.write = (() => true) as typeof process.stderr.write;
  const exitCode = process.exitCode;
  try {
    await main(['node', 'ledger', ...args]);
    return { stdout: stdout.join(''), exitCode: Number(process.exitCode ?? 0) };
  } finally {
    process.stdout.write = writeOut;
    process.stderr.write = writeErr;
    process.exitCode = exitCode;
  }
}

describe('the parameter cache', () => {
  beforeAll(() => ensureParameters(), PARAMETERS_TIMEOUT_MS);

  it('holds the files under the names the proofs library looks up, at the published sizes', () => {
    const [winning, window] = parameterStatus();
    expect(winning).toMatchObject({ circuit: 'winning-post', state: 'complete', paramsBytes: 47_299_128 });
    expect(winning!.paramsPath).toBe(
      join(
        proofsDirs().parameterCache,
        'v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e.params',
      ),
    );
    expect(window).toMatchObject({ circuit: 'window-post', state: 'complete', paramsBytes: 11_501_496 });
    expect(window!.vkPath).toMatch(/-0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0\.vk$/);
  });

  it('keeps complete files instead of generating them again, and reports no progress for them', async () => {
    const progress: unknown[] = [];
    const statuses = await ensureParameters({ onProgress: (event) => progress.push(event) });
    expect(statuses.map((s) => [s.circuit, s.generated])).toEqual([
      ['winning-post', false],
      ['window-post', false],
    ]);
    // `ledger devnet` draws its "generating proof parameters" bar from these events.
    expect(progress).toEqual([]);
  });

  it('`ledger proofs params --check` reports present and missing files', async () => {
    const present = await runCli(['proofs', 'params', '--check']);
    expect(present.exitCode).toBe(0);
    expect(present.stdout).toMatch(/winning PoSt 2 KiB\s+present \(params 45\.1 MiB, vk 13\.3 KiB\)/);
    expect(present.stdout).toMatch(/window PoSt 2 KiB\s+present \(params 11\.0 MiB/);

    const empty = await mkdtemp(join(tmpdir(), 'ledger-params-'));
    try {
      const missing = await runCli(['proofs', 'params', '--check', '--porep', '--dir', empty]);
      expect(missing.exitCode).toBe(1);
      expect(missing.stdout).toContain(`parameter cache: ${empty}`);
      expect(missing.stdout).toMatch(/PoRep 2 KiB\s+missing/);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
