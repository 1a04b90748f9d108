// Runs dependency-cruiser's API on a tree and prints what it found as JSON.
// An .mjs run in a child process because dependency-cruiser is ESM-only, and jest's CommonJS runtime
// cannot import() it without --experimental-vm-modules.
// Usage (cwd = the root that the config's paths are relative to):
//   node test/support/cruise-imports.mjs <config file> <file or dir>...
// Prints {"modules": [source...], "violations": [{rule, from, to, cycle}...]}.
import { resolve } from 'node:path';
import process from 'node:process';
import { cruise } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';

const [configFile, ...targets] = process.argv.slice(2);
const options = await extractDepcruiseOptions(resolve(configFile)); // a bare name would be looked up as a package
const { output } = await cruise(targets, options);
const violations = output.summary.violations.map((violation) => ({
  rule: violation.rule.name,
  from: violation.from,
  to: violation.to,
  cycle: (violation.cycle ?? []).map((step) => step.name),
}));
process.stdout.write(JSON.stringify({ modules: output.modules.map((module) => module.source), violations }));
