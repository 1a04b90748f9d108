import type { Role } from '../config/env';
import type { AppContext } from '../context';
import { startApiRole } from '../http/server';

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
    default:
      throw new Error(`role ${role} is not available in this build`);
  }
}
