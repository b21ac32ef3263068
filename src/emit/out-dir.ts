// Can the output folder be written? Checked before anything is read or made, so that a wrong
// --out is one clear message at once: a file where the folder should be (or above it), a kernel
// file system (/proc, /sys: Node's recursive mkdir loops forever under /proc), a folder the user
// may not write to or a read-only file system. Only the nearest existing folder is looked at;
// nothing is created.

import { accessSync, constants, lstatSync, statfsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** statfs magic numbers of the kernel's virtual file systems, where no output can go. */
const KERNEL_FS: ReadonlyMap<number, string> = new Map([
  [0x9fa0, 'proc'],
  [0x62656572, 'sysfs'],
  [0x64626720, 'debugfs'],
  [0x73636673, 'securityfs'],
  [0x27e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'],
  [0x74726163, 'tracefs'],
  [0x6e736673, 'nsfs'],
  [0x50494446, 'pidfs'],
  [0xcafe4a11, 'bpf'],
]);

/** Why `out` cannot be the output folder, with a hint; undefined when it can (or might: nothing is guessed). */
export interface OutDirProblem {
  message: string;
  hint: string;
}

function errno(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException).code;
}

/**
 * Checks that `out` is, or can be made, a folder crdgen may write to. Messages say `--out` for
 * `out` itself, and name other paths through `show`.
 */
export function outDirProblem(out: string, show: (abs: string) => string = (p) => p): OutDirProblem | undefined {
  const abs = resolve(out);
  // the nearest path that exists: `out` itself, or the folder it would be made in
  let existing = abs;
  for (;;) {
    try {
      lstatSync(existing);
      break;
    } catch (e) {
      if (errno(e) === 'ENOTDIR') {
        // a parent is a file: walk up to it
      } else if (errno(e) !== 'ENOENT') {
        return {
          message: `--out: cannot look at ${show(existing)}: ${errno(e) ?? (e as Error).message}`,
          hint: 'choose another --out',
        };
      }
      const parent = dirname(existing);
      if (parent === existing) return undefined;
      existing = parent;
    }
  }
  const it = existing === abs ? '--out' : `--out: ${show(existing)}`;
  let st;
  try {
    st = statSync(existing); // follows a symbolic link to a folder
  } catch (e) {
    return {
      message: `${it} is a broken symbolic link (${errno(e) ?? 'unreadable'})`,
      hint: 'choose another --out, or fix the link',
    };
  }
  if (!st.isDirectory()) {
    return {
      message:
        existing === abs ? '--out is a file, not a folder' : `${it} is a file, so no folder can be made under it`,
      hint: 'give --out a folder (it is created when missing)',
    };
  }
  let fsType: string | undefined;
  try {
    fsType = KERNEL_FS.get(statfsSync(existing).type);
  } catch {
    fsType = undefined;
  }
  if (fsType !== undefined || /^\/(proc|sys)(\/|$)/.test(abs)) {
    return {
      message: `--out is on ${fsType ?? abs.split('/')[1]}, a kernel file system: no output can go there`,
      hint: 'give --out a folder of your project, e.g. src/generated',
    };
  }
  try {
    accessSync(existing, constants.W_OK | constants.X_OK);
  } catch (e) {
    const code = errno(e);
    return {
      message: code === 'EROFS' ? '--out is on a read-only file system' : `${it} is not writable (${code ?? 'denied'})`,
      hint: 'give --out a folder you may write to',
    };
  }
  return undefined;
}
