import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { TargetSystem } from './target-system.js';

function onPath(binary: string): boolean {
  // Debian puts nats-server in /usr/sbin, which a non-root PATH may lack.
  const dirs = [...(process.env['PATH'] ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin'];
  return dirs.some((dir) => {
    try {
      accessSync(join(dir, binary), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** null when the system's server can start here; else the one-line refusal naming its package. */
export function installed(system: TargetSystem): string | null {
  if (onPath(system.server.binary)) return null;
  return `${system.name} is not installed: apt-get install -y ${system.package}`;
}
