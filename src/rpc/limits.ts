/** Size limits of incoming requests. */

/** 10 MiB: well above any Lotus request; go-jsonrpc's own default is 100 MiB. */
export const DEFAULT_MAX_REQUEST_BYTES = 10 * 1024 * 1024;

/** Far deeper than any Lotus JSON shape, far shallower than what would strain the parser's stack. */
export const MAX_JSON_DEPTH = 512;
