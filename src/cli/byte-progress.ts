/**
 * Progress of work measured in bytes (snapshot import and export): on a terminal a bar with the
 * percentage, bytes done of the total, throughput and ETA; otherwise a plain line every few
 * seconds, so logs stay short.
 */
import cliProgress from 'cli-progress';

export interface ByteProgress {
  /** `done` bytes of the total; `step` says what is happening (shown after the numbers). */
  update(done: number, step: string): void;
  stop(): void;
}

const LOG_INTERVAL_MS = 5_000;

export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
}

function formatSeconds(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.round(seconds);
  return s < 60
    ? `${s}s`
    : s < 3600
      ? `${Math.floor(s / 60)}m${s % 60}s`
      : `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60)}m`;
}

/** `total` of 0 means unknown (no percentage or ETA). */
export function createByteProgress(
  title: string,
  total: number,
  stream: NodeJS.WriteStream = process.stderr,
): ByteProgress {
  const started = Date.now();
  const figures = (done: number) => {
    const elapsed = Math.max((Date.now() - started) / 1000, 0.001);
    const rate = done / elapsed;
    return {
      done: formatBytes(done),
      size: total > 0 ? formatBytes(total) : '?',
      speed: `${formatBytes(rate)}/s`,
      eta: total > 0 && rate > 0 ? formatSeconds((total - done) / rate) : '?',
    };
  };
  if (!stream.isTTY) {
    let lastLog = 0;
    let last = { done: 0, step: '' };
    const line = () => {
      const f = figures(last.done);
      stream.write(`${title}: ${f.done} of ${f.size}, ${f.speed}, ETA ${f.eta} ${last.step}\n`);
    };
    return {
      update: (done, step) => {
        last = { done, step };
        if (Date.now() - lastLog >= LOG_INTERVAL_MS) {
          lastLog = Date.now();
          line();
        }
      },
      stop: line,
    };
  }
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: `${title} [{bar}] {percentage}% | {doneBytes} of {sizeBytes} | {speed} | ETA {etaText} | {step}`,
      hideCursor: true,
      fps: 4,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(Math.max(total, 1), 0, { ...renamed(figures(0)), step: '' });
  return {
    update: (done, step) => bar.update(Math.min(done, Math.max(total, 1)), { ...renamed(figures(done)), step }),
    stop: () => bar.stop(),
  };
}

function renamed(f: { done: string; size: string; speed: string; eta: string }) {
  return { doneBytes: f.done, sizeBytes: f.size, speed: f.speed, etaText: f.eta };
}
