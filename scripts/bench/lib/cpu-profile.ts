import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

/** A V8 CPU profile as `node --cpu-prof` writes it (the parts read here). */
interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileShare {
  name: string;
  /** Share of all non-idle samples, 0..1. */
  share: number;
}

export interface ProfileSummary {
  /** Non-idle samples' time, ms. */
  busyMs: number;
  /**
   * Self time by where the code lives: a package, a src/ folder, a node: module, GC. Native code
   * (a socket write, a hash) counts for the JavaScript that called it.
   */
  byArea: ProfileShare[];
  /** Self time by function. */
  topSelf: ProfileShare[];
  /** Time with the function anywhere on the stack, for the project's own (src/) functions. */
  topInclusive: ProfileShare[];
  /** Self time by layer (`layers` given): each sample to the innermost layer on its stack, fallbacks last. */
  byLayer: ProfileShare[];
}

/** A named part of the work (a middleware, a library) and the frames (`function@url`) that are its code. */
export interface ProfileLayer {
  name: string;
  frames: RegExp;
  /** Counted only when no other layer is on the stack (Node's own stream and socket code, say, under everything). */
  fallback?: boolean;
}

/** Where a function's code lives, coarse enough to name a middleware or a library. */
export function areaOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  const src = /\/(src\/[^/]+(?:\/[^/.]+)?)\//.exec(url) ?? /\/(src\/[^/]+)/.exec(url);
  if (src) return src[1];
  if (url.startsWith('node:')) return url.replace(/^node:(internal\/)?/, 'node:').split('/').slice(0, 2).join('/');
  return url;
}

const label = (f: { functionName: string; url: string; lineNumber: number }) =>
  `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(node_modules|src)\//, '$1/')}:${f.lineNumber + 1}`;

/** Self and inclusive time of one profile, largest first, `top` rows each. */
export function summarizeCpuProfile(file: string, top = 25, layers: ProfileLayer[] = []): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));

  const callerWithCode = (id: number) => {
    let at: number | undefined = id;
    while (at !== undefined && !(byId.get(at) as CpuProfile['nodes'][number]).callFrame.url && parent.has(at)) at = parent.get(at);
    return byId.get(at ?? id) as CpuProfile['nodes'][number];
  };
  const area = new Map<string, number>();
  const fnSelf = new Map<string, number>();
  const fnInclusive = new Map<string, number>();
  const layer = new Map<string, number>();
  let busy = 0;
  for (const [id, us] of self) {
    const node = byId.get(id);
    if (!node || node.callFrame.functionName === '(idle)') continue;
    busy += us;
    const a = areaOf(callerWithCode(id).callFrame.url, node.callFrame.functionName);
    area.set(a, (area.get(a) ?? 0) + us);
    fnSelf.set(label(node.callFrame), (fnSelf.get(label(node.callFrame)) ?? 0) + us);
    // each function once per stack, however deep it recurses
    const seen = new Set<string>();
    let inLayer: string | undefined;
    let inFallback: string | undefined;
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const f = (byId.get(at) as CpuProfile['nodes'][number]).callFrame;
      const frame = `${f.functionName}@${f.url}`;
      inLayer ??= layers.find((l) => !l.fallback && l.frames.test(frame))?.name;
      inFallback ??= layers.find((l) => l.fallback && l.frames.test(frame))?.name;
      if (!/\/src\//.test(f.url)) continue;
      const name = label(f);
      if (seen.has(name)) continue;
      seen.add(name);
      fnInclusive.set(name, (fnInclusive.get(name) ?? 0) + us);
    }
    const l = inLayer ?? inFallback ?? 'other';
    layer.set(l, (layer.get(l) ?? 0) + us);
  }
  const rank = (m: Map<string, number>) =>
    [...m].sort((a, b) => b[1] - a[1]).slice(0, top).map(([name, us]) => ({ name, share: us / busy }));
  return { busyMs: busy / 1000, byArea: rank(area), topSelf: rank(fnSelf), topInclusive: rank(fnInclusive), byLayer: rank(layer) };
}

/**
 * Profiles this process from now on (V8's sampler, as --cpu-prof, but without the start-up: the
 * loading of every module is not what a request costs). The returned function writes
 * `<dir>/<name>-<pid>.cpuprofile` and returns its path.
 */
export async function startCpuProfile(dir: string, name: string): Promise<() => Promise<string>> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    const file = join(dir, `${name}-${process.pid}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
    return file;
  };
}
