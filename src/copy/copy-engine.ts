import type { Keys } from '../platform/redis/keys';
import type { Scripts } from '../platform/redis/scripts';
import { unwrap, type ScriptReply } from '../platform/redis/reply';
import { newOperation } from '../platform/redis/operation';

/** Typed calls into the copy-trading money scripts (lua/copy/allocateCopyMargin-3, lua/copy/settleCopyCharge-3). */
export class CopyEngine {
  constructor(
    private readonly keys: Keys,
    private readonly scripts: Scripts,
  ) {}

  /**
   * Moves free margin between a slave's account and a subscription's account and books it in the
   * subscription's ledger; `amount` null moves the whole free balance. Returns the minor units moved.
   */
  async allocate(
    userId: string,
    currency: string,
    from: string,
    to: string,
    subId: string,
    dir: 'in' | 'out',
    amount: string | null,
    timestamp: number,
  ): Promise<string> {
    const reply = unwrap(
      await this.scripts.runOnce<ScriptReply>(
        'allocateCopyMargin',
        [this.keys.futuresAccount(from), this.keys.futuresAccount(to), this.keys.copyLedger(subId)],
        [userId, currency, amount ?? '0', dir, amount === null ? '1' : '0', timestamp],
        newOperation(this.keys),
      ),
    );
    return String(reply[1]);
  }

  /** Pays a fee or profit share to the master's owner; null when the mark moved (another settlement won). */
  async charge(
    subAccount: string,
    masterUser: string,
    subId: string,
    currency: string,
    kind: 'fee' | 'share',
    amount: string,
    mark: string,
    next: string,
  ): Promise<string | null> {
    const reply = await this.scripts.run<string[]>(
      'settleCopyCharge',
      [this.keys.futuresAccount(subAccount), this.keys.walletAvailable(masterUser), this.keys.copyLedger(subId)],
      [currency, kind, amount, mark, next],
    );
    return reply[0] === 'OK' ? reply[1] : null;
  }
}
