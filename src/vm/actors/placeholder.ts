/**
 * Placeholder: what a transfer to an unknown f410 address creates. It holds the delegated address
 * and funds until an EVM contract is deployed there or its key sends (then it becomes an
 * EthAccount). Any method succeeds and returns nothing, as the builtin placeholder's wasm does.
 */
import { defineActor } from './actor.js';

export const placeholderActor = defineActor('placeholder', {}, {}, () => null);
