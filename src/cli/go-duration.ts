/** Go's `time.Duration.String()` (`243.770396ms`, `1.00020144s`, `2m3.5s`), which Lotus's CLI prints. */
function trimFraction(whole: bigint, fraction: bigint, digits: number): string {
  if (fraction === 0n) return whole.toString();
  const text = fraction.toString().padStart(digits, '0').replace(/0+$/, '');
  return `${whole}.${text}`;
}

export function formatGoDuration(nanoseconds: bigint): string {
  if (nanoseconds === 0n) return '0s';
  const sign = nanoseconds < 0n ? '-' : '';
  const ns = nanoseconds < 0n ? -nanoseconds : nanoseconds;
  if (ns < 1_000n) return `${sign}${ns}ns`;
  if (ns < 1_000_000n) return `${sign}${trimFraction(ns / 1_000n, ns % 1_000n, 3)}µs`;
  if (ns < 1_000_000_000n) return `${sign}${trimFraction(ns / 1_000_000n, ns % 1_000_000n, 6)}ms`;
  const hours = ns / 3_600_000_000_000n;
  const minutes = (ns / 60_000_000_000n) % 60n;
  const seconds = trimFraction((ns / 1_000_000_000n) % 60n, ns % 1_000_000_000n, 9);
  if (hours > 0n) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0n) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}
