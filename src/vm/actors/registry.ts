/**
 * The actors this VM runs: each type name (and so its code CID, `state/actor-code.ts`) bound to its
 * TypeScript implementation.
 */
import type { ActorName } from '../../state/index.js';
import { accountActor } from './account.js';
import type { ActorImplementation } from './actor.js';
import { cronActor } from './cron.js';
import { eamActor } from './eam.js';
import { ethAccountActor } from './eth-account.js';
import { evmActor } from './evm/actor.js';
import { initActor } from './init.js';
import { minerActor } from './miner/actor.js';
import { multisigActor } from './multisig.js';
import { placeholderActor } from './placeholder.js';
import { powerActor } from './power.js';
import { rewardActor } from './reward.js';
import { systemActor } from './system.js';

const IMPLEMENTATIONS: Readonly<Record<ActorName, ActorImplementation>> = {
  system: systemActor,
  init: initActor,
  cron: cronActor,
  account: accountActor,
  storagepower: powerActor,
  storageminer: minerActor,
  multisig: multisigActor,
  reward: rewardActor,
  placeholder: placeholderActor,
  ethaccount: ethAccountActor,
  evm: evmActor,
  eam: eamActor,
};

export function actorImplementation(type: ActorName): ActorImplementation {
  return IMPLEMENTATIONS[type];
}
