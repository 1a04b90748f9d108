import type { Role } from '../platform/config/env';
import type { AppContext } from './context';
import { startApiRole } from './http/server';
import { startCopyWorkers } from '../copy';
import { startFuturesWorkers } from '../futures';
import { startWalletWorkers } from '../wallet';
import { startWorkerRole } from './workers/worker-role';
import { startWsRole } from './ws/ws-role';

export interface StartedRole {
  role: Role;
  address: string;
  close(): Promise<void>;
}

/** Starts one role in this process against the shared context; each role is stateless. */
export async function startRole(role: Role, ctx: AppContext): Promise<StartedRole> {
  switch (role) {
    case 'api': {
      const api = await startApiRole(ctx);
      return { role, address: `http://0.0.0.0:${api.port}`, close: api.close };
    }
    case 'ws': {
      const ws = await startWsRole(ctx);
      return { role, address: `ws://0.0.0.0:${ws.port}/ws`, close: ws.close };
    }
    case 'worker': {
      // the dispatcher with the market-data processors, the futures risk and the copy-trading processors
      const parts = [
        await startWorkerRole(ctx),
        await startFuturesWorkers(ctx),
        await startCopyWorkers(ctx),
        startWalletWorkers(ctx),
      ];
      return {
        role,
        address: `redis ${ctx.config.redisUrl}`,
        close: async () => {
          for (const p of parts.reverse()) await p.close();
        },
      };
    }
  }
}
