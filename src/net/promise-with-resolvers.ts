/**
 * libp2p 3 calls `Promise.withResolvers`, which Node 20 lacks (it arrived in Node 22): without it
 * the node crashes on its first peer-store write. Imported first by every module of `src/net` that
 * reaches libp2p, so it is in place before libp2p runs.
 */
interface PromiseConstructorWithResolvers {
  withResolvers?: <T>() => { promise: Promise<T>; resolve: (value: T) => void; reject: (reason?: unknown) => void };
}

const promiseConstructor = Promise as unknown as PromiseConstructorWithResolvers;
if (typeof promiseConstructor.withResolvers !== 'function') {
  promiseConstructor.withResolvers = <T>() => {
    let resolve!: (value: T) => void;
    let reject!: (reason?: unknown) => void;
    const promise = new Promise<T>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}

export {};
