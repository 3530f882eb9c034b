/** Reading secrets for `wallet import`: from a file, a pipe, or a terminal without echo. */
import { readFileSync } from 'node:fs';

/** Reads one line from a terminal without echoing it (raw mode); Ctrl-C aborts. */
function readHiddenLine(prompt: string): Promise<string> {
  const { stdin, stderr } = process;
  stderr.write(prompt);
  return new Promise((resolve, reject) => {
    let line = '';
    const finish = (error?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      stderr.write('\n');
      if (error) reject(error);
      else resolve(line);
    };
    const onData = (chunk: Buffer) => {
      for (const char of chunk.toString('utf8')) {
        if (char === '\r' || char === '\n') return finish();
        if (char === '\u0003') return finish(new Error('interrupted'));
        if (char === '\u007f') line = line.slice(0, -1);
        else line += char;
      }
    };
    stdin.setRawMode(true);
    stdin.on('data', onData);
    stdin.resume();
  });
}

async function readStdinLine(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) {
    text += chunk.toString();
    const newline = text.indexOf('\n');
    if (newline >= 0) return text.slice(0, newline);
  }
  return text;
}

/** The contents of `path`, or of standard input when it is absent or `-` (as Lotus's `wallet import`). */
export async function readSecretInput(path: string | undefined): Promise<string> {
  if (path !== undefined && path !== '-') return readFileSync(path, 'utf8');
  if (process.stdin.isTTY) return readHiddenLine('Enter private key (not displayed): ');
  return readStdinLine();
}
