/**
 * The frame ink draws on a terminal of a given size (ink-testing-library's is always 100 columns):
 * the live view lays itself out for the terminal, so its tests say which one.
 */
import { EventEmitter } from 'node:events';
import { render } from 'ink';
import type { ReactElement } from 'react';

export function frameAt(element: ReactElement, columns = 120, rows = 40): string {
  const stdout = Object.assign(new EventEmitter(), {
    columns,
    rows,
    frame: '',
    write(frame: string) {
      stdout.frame = frame;
    },
  });
  const instance = render(element, {
    stdout: stdout as unknown as NodeJS.WriteStream,
    debug: true,
    patchConsole: false,
    exitOnCtrlC: false,
  });
  // Read the frame before unmounting: under CI=true ink's unmount writes its CI-mode last frame,
  // which debug mode never fills, and that blank write would replace the one we want.
  const frame = stdout.frame;
  instance.unmount();
  return frame.replace(/\n$/, '');
}
