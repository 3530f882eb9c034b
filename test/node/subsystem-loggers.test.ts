/** LogList and LogSetLevel's registry over real pino loggers: the subsystems and their levels at run time. */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { LogLevelError, SubsystemLoggers } from '../../src/node/subsystem-loggers.js';

function logger() {
  const lines: Array<{ module?: string; msg: string }> = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { root: pino({ level: 'info' }, sink), lines };
}

test('every child with a module binding is a subsystem, the root is `node`; children of children count too', () => {
  const { root } = logger();
  const logs = new SubsystemLoggers(root);
  const rpc = root.child({ module: 'rpc' });
  root.child({ miner: 't01000' }).child({ module: 'sealing' });
  root.child({ peer: 'x' });
  expect(logs.list()).toEqual(['node', 'rpc', 'sealing']);
  expect(rpc.level).toBe('info');
});

test('setting a level changes what a subsystem writes, and only that subsystem', async () => {
  const { root, lines } = logger();
  const logs = new SubsystemLoggers(root);
  const rpc = root.child({ module: 'rpc' });
  const net = root.child({ module: 'net' });
  rpc.debug('hidden');
  logs.setLevel('rpc', 'debug');
  rpc.debug('shown');
  net.debug('still hidden');
  logs.setLevel('*', 'silent');
  rpc.error('silenced');
  net.error('silenced');
  root.error('silenced');
  await new Promise((resolve) => setImmediate(resolve));
  expect(lines.map((line) => [line.module, line.msg])).toEqual([['rpc', 'shown']]);
});

test('an unknown subsystem or level is refused with the name in the message', () => {
  const logs = new SubsystemLoggers(logger().root);
  expect(() => logs.setLevel('nope', 'info')).toThrow(
    new LogLevelError('no such logger: "nope" (LogList names the subsystems; * sets them all)'),
  );
  expect(() => logs.setLevel('node', 'verbose')).toThrow(
    /unrecognized level: "verbose" \(expected one of trace, debug, info, warn, error, fatal, silent\)/,
  );
});
