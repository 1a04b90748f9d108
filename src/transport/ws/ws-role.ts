import type { AppContext } from '../context';
import { GATEWAY_DEFAULTS, WsGateway, type GatewayOptions } from './ws-gateway';

/**
 * The websocket role: one gateway on `config.wsPort` (0 picks a free port, reported back). Any
 * number may run; each tails the streams itself and keeps only what it can rebuild from Redis.
 */
export async function startWsRole(
  ctx: AppContext,
  overrides: Partial<GatewayOptions> = {},
): Promise<{ port: number; close(): Promise<void> }> {
  const gateway = new WsGateway(ctx, { ...GATEWAY_DEFAULTS, port: ctx.config.wsPort, ...overrides });
  // a gateway that cannot listen has begun tailing already: stop it, so nothing is left running
  const port = await gateway.start().catch(async (err: unknown) => {
    await gateway.stop().catch(() => undefined);
    throw err;
  });
  return { port, close: () => gateway.stop() };
}
