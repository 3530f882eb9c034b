import { readdirSync, readFileSync } from 'node:fs';
import { computeWinCount, expneg, lambda, poissonInverseCdf } from '../../src/consensus/win-count.js';
import { vectorPath } from './vectors-dir.js';

const golden = (...parts: string[]) => readFileSync(vectorPath('election', ...parts), 'utf8').trim();

describe('Lotus election golden files', () => {
  it('expneg matches TestExpFunction.golden on all 256 points', () => {
    const rows = golden('TestExpFunction.golden').split('\n').slice(1);
    expect(rows).toHaveLength(256);
    for (const row of rows) {
      const [x, y] = row.split(',').map((v) => BigInt(v.trim()));
      expect(expneg(x!)).toBe(y);
    }
  });

  const lambdaFiles = readdirSync(vectorPath('election', 'TestLambdaFunction'));
  it.each(lambdaFiles)('lambda %s', (file) => {
    const [power, total] = file.replace('.golden', '').split('-').map(BigInt);
    expect(lambda(power!, total!, 5n)).toBe(BigInt(golden('TestLambdaFunction', file)));
  });

  const poissonFiles = readdirSync(vectorPath('election', 'TestPoissonFunction'));
  it.each(poissonFiles)('Poisson inverse CDF %s', (file) => {
    const [, base, shift] = file.replace('.golden', '').split('-');
    const lam = BigInt(base!) << (256n - BigInt(shift!));
    const lines = golden('TestPoissonFunction', file).split('\n');
    expect(lines[0]).toBe('icdf');
    const expected = lines.slice(1).map(BigInt);
    expect(expected).toHaveLength(16);
    const tail = poissonInverseCdf(lam);
    for (const value of expected) expect(tail.next().value).toBe(value);
  });

  it('covers every golden file', () => {
    expect(lambdaFiles).toHaveLength(3);
    expect(poissonFiles).toHaveLength(7);
  });
});

describe('computeWinCount', () => {
  const proof = (i: number) => new Uint8Array(96).fill(i);

  it('never wins without power and usually wins with all of it (λ = 5)', () => {
    expect(computeWinCount(proof(1), 0n, 100n, 5n)).toBe(0);
    const wins = Array.from({ length: 200 }, (_, i) => computeWinCount(proof(i), 100n, 100n, 5n));
    expect(wins.filter((w) => w === 0).length).toBeLessThan(10);
    expect(Math.max(...wins)).toBeLessThanOrEqual(15);
    const mean = wins.reduce((a, b) => a + b, 0) / wins.length;
    expect(mean).toBeGreaterThan(4);
    expect(mean).toBeLessThan(6);
  });
});
