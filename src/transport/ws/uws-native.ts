import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Why the websocket gateway cannot run on this Node, or undefined when it can. The uWebSockets.js
 * package ships native builds for some Node ABIs only (Node 20 is ABI 115); on any other it falls
 * back silently to a slow JavaScript server that lacks calls the gateway makes.
 */
export function uwsNativeProblem(
  versions: { node: string; modules: string } = process.versions,
  platform: string = process.platform,
  arch: string = process.arch,
): string | undefined {
  const file = `uws_${platform}_${arch}_${versions.modules}.node`;
  const binaries = join(dirname(require.resolve('uWebSockets.js/package.json')), 'binaries');
  if (existsSync(join(binaries, file))) return undefined;
  return (
    `the websocket server (uWebSockets.js) has no native build for Node ${versions.node} ` +
    `(ABI ${versions.modules}, ${platform}-${arch}): run this project on Node 20 (\`nvm use\` reads .nvmrc; package.json engines "20.x")`
  );
}
