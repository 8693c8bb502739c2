import { readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Every package that runs as a process from its bundle: the CLI's own and each child's. */
export const BUNDLED_PACKAGES = [
  'orchestrator',
  'broker',
  'publisher',
  'consumer',
  'guardian',
  'rogue',
  'relay',
] as const;
export type BundledPackage = (typeof BUNDLED_PACKAGES)[number];

/** What scripts/bundle.mjs writes beside each bundle: the project's own files it was built from. */
interface BundleInputs {
  /** Where `inputs` are relative to, from the bundle's directory. */
  root: string;
  inputs: string[];
}

const modified = (path: string): number | undefined => statSync(path, { throwIfNoEntry: false })?.mtimeMs;

/** The package's bundle, `packages/<pkg>/dist/bundle/main.js` (its `./bundle` export). */
export const bundlePath = (pkg: BundledPackage): string =>
  fileURLToPath(import.meta.resolve(`@state-divergence/${pkg}/bundle`));

function readInputs(listPath: string): BundleInputs | undefined {
  let list: unknown;
  try {
    list = JSON.parse(readFileSync(listPath, 'utf8'));
  } catch {
    return undefined;
  }
  if (typeof list !== 'object' || list === null || !('root' in list) || !('inputs' in list)) return undefined;
  const { root, inputs } = list;
  if (
    typeof root !== 'string' ||
    !Array.isArray(inputs) ||
    !inputs.every((input): input is string => typeof input === 'string')
  )
    return undefined;
  return { root, inputs };
}

/**
 * Why the bundle at `bundle` would run old code, as one sentence ending in what to do, or
 * undefined when it is current: missing, or one of the project's own files it was built from
 * (its inputs.json: the src/ file of each dist/ file esbuild read) is newer than it or gone.
 * So an edit in any package, compiled by `tsc -b` or not, is caught. One stat per input.
 */
export function staleBundle(bundle: string, name: string): string | undefined {
  const bundled = modified(bundle);
  if (bundled === undefined) return `the ${name}'s bundle (${bundle}) is missing: run npm run build`;
  const list = readInputs(join(dirname(bundle), 'inputs.json'));
  if (list === undefined) return `the ${name}'s bundle has no readable inputs.json beside it: run npm run build`;
  const root = resolve(dirname(bundle), list.root);
  for (const input of list.inputs) {
    const changed = modified(join(root, input));
    if (changed === undefined) return `${input} is gone since the ${name}'s bundle was built: run npm run build`;
    if (changed > bundled) return `${input} changed after the ${name}'s bundle was built: run npm run build`;
  }
  return undefined;
}

/** The first of our bundles that is stale, as staleBundle says it, or undefined: checked before anything starts. */
export function staleBundles(): string | undefined {
  for (const pkg of BUNDLED_PACKAGES) {
    const stale = staleBundle(bundlePath(pkg), pkg);
    if (stale !== undefined) return stale;
  }
  return undefined;
}
