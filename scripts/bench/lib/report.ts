import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, platform, release, totalmem } from 'node:os';
import { join, resolve } from 'node:path';

export type Cell = string | number | null | undefined;

/** Formats a number for a table: thousands separators for big ones, a few significant digits else. */
export function fmtNum(v: number, digits = 2): string {
  if (!Number.isFinite(v)) return String(v);
  if (Math.abs(v) >= 1000) return Math.round(v).toLocaleString('en-US');
  return v.toFixed(digits);
}

/** A plain-text table, columns padded to their widest cell; numbers right-aligned. */
export function formatTable(headers: string[], rows: Cell[][]): string {
  const text = rows.map((r) => r.map((c) => (typeof c === 'number' ? fmtNum(c) : (c ?? ''))));
  const widths = headers.map((h, i) => Math.max(h.length, ...text.map((r) => String(r[i] ?? '').length)));
  const line = (cells: string[], nums: boolean[]) =>
    cells.map((c, i) => (nums[i] ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ');
  const numeric = headers.map((_, i) => rows.some((r) => typeof r[i] === 'number'));
  return [
    line(headers, numeric),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...text.map((r) => line(r.map(String), numeric)),
  ].join('\n');
}

export function printTable(title: string, headers: string[], rows: Cell[][]): void {
  console.log(`\n${title}\n${formatTable(headers, rows)}`);
}

export interface MachineInfo {
  cpu: string;
  cores: number;
  memoryGb: number;
  freeMemoryGb: number;
  os: string;
  /** 1/5/15-minute load averages when the bench started: other work on the box skews every figure. */
  loadAverage: number[];
  node: string;
  redis?: string;
}

export function machineInfo(redisVersion?: string): MachineInfo {
  const c = cpus();
  return {
    cpu: c[0]?.model ?? 'unknown',
    cores: c.length,
    memoryGb: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    freeMemoryGb: Math.round((freemem() / 2 ** 30) * 10) / 10,
    os: `${platform()} ${release()}`,
    loadAverage: loadavg().map((x) => Math.round(x * 100) / 100),
    node: process.version,
    redis: redisVersion,
  };
}

/** `redis-server --version` of the binary on PATH, for the record; undefined when absent. */
export function redisServerVersion(): string | undefined {
  try {
    return /v=(\S+)/.exec(execFileSync('redis-server', ['--version'], { encoding: 'utf8' }))?.[1];
  } catch {
    return undefined;
  }
}

/** Timestamp usable in a file name: 2026-01-31T12-00-00Z. */
export function fileStamp(d = new Date()): string {
  return d
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/:/g, '-');
}

/** Writes bench-results/<name>-<timestamp>.json (relative to the working directory) and returns its path. */
export function writeResults(
  name: string,
  data: unknown,
  dir = resolve(process.cwd(), 'bench-results'),
): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}-${fileStamp()}.json`);
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
  return file;
}
