/**
 * Progress of long work on stderr: a live bar (cli-progress) on a terminal, plain log lines
 * otherwise (CI logs, pipes), so stdout stays clean for the command's result.
 */
import cliProgress from 'cli-progress';

export interface Progress {
  /** Sets how far the work is and what it is doing now. */
  update(done: number, step: string): void;
  stop(): void;
}

/** Without a terminal, a step that runs this long gets a "still running" line, so logs show life. */
const HEARTBEAT_MS = 60_000;

function formatElapsed(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

export function createProgress(title: string, total: number, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY) {
    let stepStarted = Date.now();
    let line = `${title}: 0/${total}`;
    const heartbeat = setInterval(
      () => stream.write(`${line} (still running after ${formatElapsed(Date.now() - stepStarted)})\n`),
      HEARTBEAT_MS,
    );
    heartbeat.unref();
    return {
      update: (done, step) => {
        stepStarted = Date.now();
        line = `${title}: ${done}/${total} ${step}`;
        stream.write(`${line}\n`);
      },
      stop: () => clearInterval(heartbeat),
    };
  }
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: `${title} [{bar}] {value}/{total} {step} ({duration_formatted})`,
      hideCursor: true,
      // Redraw on a timer so the elapsed time keeps moving during one long step.
      fps: 2,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { step: '' });
  return {
    update: (done, step) => bar.update(done, { step }),
    stop: () => bar.stop(),
  };
}
