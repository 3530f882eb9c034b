import { Address } from '../../src/types/index.js';
import { VmError, verifySecpMessageSignatures } from '../../src/vm/index.js';
import { keys } from '../helpers/keys.js';
import { message, signSecp } from '../helpers/messages.js';

const { alice, bob } = keys;

describe('verifySecpMessageSignatures (batch recovery off the main thread)', () => {
  const messages = Array.from({ length: 50 }, (_, i) =>
    signSecp(
      i % 2 === 0 ? alice : bob,
      message({ from: (i % 2 === 0 ? alice : bob).address, to: Address.newId(100n), nonce: BigInt(i) }),
    ),
  );

  test('accepts signatures by each sender’s key', async () => {
    await expect(verifySecpMessageSignatures(messages, (sender) => sender)).resolves.toBeUndefined();
  });

  test('names the message whose signature is not its sender’s', async () => {
    const forged = { ...messages[7]!, message: { ...messages[7]!.message, from: alice.address } };
    const tampered = [...messages.slice(0, 7), forged, ...messages.slice(8)];
    await expect(verifySecpMessageSignatures(tampered, (sender) => sender)).rejects.toThrow(VmError);
    const changedValue = { ...messages[3]!, message: { ...messages[3]!.message, value: 1n } };
    await expect(verifySecpMessageSignatures([changedValue], (sender) => sender)).rejects.toMatchObject({
      code: 'ERR_VM_INVALID_SIGNATURE',
    });
  });

  test('resolves ID senders through the given key lookup', async () => {
    const byId = signSecp(alice, message({ from: Address.newId(100n), to: bob.address }));
    await expect(verifySecpMessageSignatures([byId], () => alice.address)).resolves.toBeUndefined();
    await expect(verifySecpMessageSignatures([byId], () => bob.address)).rejects.toThrow(VmError);
  });
});
