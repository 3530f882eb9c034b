import {
  AccountMethod,
  EVM_INVOKE_CONTRACT_METHOD,
  frc42MethodNumber,
  MinerMethod,
  MultisigMethod,
} from '../../src/vm/index.js';

describe('FRC-42 method numbers', () => {
  // Values as filecoin-project/builtin-actors' method_hash! (FRC-0042) computes them.
  test.each([
    ['AuthenticateMessage', 2643134072n],
    ['InvokeEVM', 3844450837n],
    ['Receive', 3726118371n],
    ['Constructor', 3316146672n],
    ['WithdrawBalance', 2280458852n],
    ['ChangeWorkerAddress', 3302309124n],
    ['GetBeneficiary', 4158972569n],
  ])('%s = %s', (name, number) => {
    expect(frc42MethodNumber(name)).toBe(number);
  });

  test('the actors use them', () => {
    expect(AccountMethod.AuthenticateMessage).toBe(2643134072n);
    expect(EVM_INVOKE_CONTRACT_METHOD).toBe(3844450837n);
    expect(MultisigMethod.UniversalReceiverHook).toBe(3726118371n);
    expect(MinerMethod.WithdrawBalanceExported).toBe(2280458852n);
  });
});
