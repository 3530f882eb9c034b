/**
 * EthAccount: an f410 key's account, made from its placeholder when it first sends a message (the
 * FVM converts it; no constructor runs). Like accounts, it accepts exported methods as transfers.
 */
import { acceptExportedMethods, defineActor } from './actor.js';

export const ethAccountActor = defineActor('ethaccount', {}, {}, acceptExportedMethods);
