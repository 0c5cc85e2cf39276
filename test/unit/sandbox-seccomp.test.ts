import { describe, expect, it } from 'vitest';
import { seccompFilter } from '../../src/sandbox/seccomp.js';

/** The filter run as the kernel runs it: a classic BPF interpreter over one system call. */
function verdict(filter: Uint8Array, call: { arch: number; nr: number; args?: number[] }): string {
  const view = new DataView(filter.buffer, filter.byteOffset, filter.byteLength);
  const data = new DataView(new ArrayBuffer(64));
  data.setUint32(0, call.nr, true);
  data.setUint32(4, call.arch, true);
  (call.args ?? []).forEach((value, i) => data.setUint32(16 + 8 * i, value, true));
  let a = 0;
  for (let pc = 0; pc * 8 < filter.length; pc++) {
    const code = view.getUint16(pc * 8, true);
    const [jt, jf, k] = [view.getUint8(pc * 8 + 2), view.getUint8(pc * 8 + 3), view.getUint32(pc * 8 + 4, true)];
    if (code === 0x20) a = data.getUint32(k, true);
    else if (code === 0x06) {
      const errno = k & 0xffff;
      return k === 0x7fff0000 ? 'allow' : ({ 1: 'EPERM', 38: 'ENOSYS', 95: 'EOPNOTSUPP' }[errno] ?? `errno ${errno}`);
    } else {
      const taken = code === 0x15 ? a === k : code === 0x35 ? a >= k : code === 0x45 ? (a & k) !== 0 : undefined;
      if (taken === undefined) throw new Error(`unknown opcode ${code}`);
      pc += taken ? jt : jf;
    }
  }
  throw new Error('the filter ran off its end');
}

const X86_64 = 0xc000003e;
const AARCH64 = 0xc00000b7;

describe('the seccomp filter of every fenced agent', () => {
  const x64 = seccompFilter('x64') as Uint8Array;
  const arm = seccompFilter('arm64') as Uint8Array;

  it('refuses a setuid or setgid bit by every call that sets a mode, and nothing else of them', () => {
    const on = (nr: number, args: number[]) => verdict(x64, { arch: X86_64, nr, args });
    expect([on(90, [0, 0o4755]), on(90, [0, 0o2755]), on(90, [0, 0o755]), on(90, [0, 0o1777])]).toEqual([
      'EPERM',
      'EPERM',
      'allow',
      'allow',
    ]);
    expect([on(91, [3, 0o6755]), on(268, [0, 0, 0o4700]), on(452, [0, 0, 0o4700, 0])]).toEqual([
      'EPERM',
      'EPERM',
      'EPERM',
    ]);
    // open and openat look at the mode only when they create: without O_CREAT it is whatever the register held.
    expect([on(2, [0, 0o101, 0o4755]), on(2, [0, 0o1, 0o4755]), on(257, [0, 0, 0o101, 0o4755])]).toEqual([
      'EPERM',
      'allow',
      'EPERM',
    ]);
    expect(on(257, [0, 0, 0o20200000, 0o2755])).toBe('EPERM'); // O_TMPFILE, then linkat
    expect(on(257, [0, 0, 0o101, 0o644])).toBe('allow');
    expect([on(85, [0, 0o4755]), on(83, [0, 0o2755]), on(258, [0, 0, 0o2755]), on(133, [0, 0o104755, 0])]).toEqual([
      'EPERM',
      'EPERM',
      'EPERM',
      'EPERM',
    ]);
    expect(on(259, [0, 0, 0o100644, 0])).toBe('allow');
    expect(verdict(arm, { arch: AARCH64, nr: 53, args: [0, 0, 0o4755] })).toBe('EPERM'); // fchmodat
    expect(verdict(arm, { arch: AARCH64, nr: 56, args: [0, 0, 0o101, 0o4755] })).toBe('EPERM'); // openat
    expect(verdict(arm, { arch: AARCH64, nr: 56, args: [0, 0, 0o101, 0o644] })).toBe('allow');
  });

  it('refuses what it cannot look into, file attributes (capabilities) and the keyring; allows the rest', () => {
    const on = (nr: number) => verdict(x64, { arch: X86_64, nr });
    expect([on(437), on(425), on(426), on(427)]).toEqual(['ENOSYS', 'ENOSYS', 'ENOSYS', 'ENOSYS']);
    expect([on(188), on(189), on(190), on(463)]).toEqual(['EOPNOTSUPP', 'EOPNOTSUPP', 'EOPNOTSUPP', 'EOPNOTSUPP']);
    expect([on(248), on(249), on(250)]).toEqual(['EPERM', 'EPERM', 'EPERM']);
    expect([on(0), on(1), on(59), on(56), on(92)]).toEqual(['allow', 'allow', 'allow', 'allow', 'allow']);
    const onArm = (nr: number) => verdict(arm, { arch: AARCH64, nr });
    expect([onArm(5), onArm(7), onArm(219), onArm(217), onArm(425), onArm(63)]).toEqual([
      'EOPNOTSUPP',
      'EOPNOTSUPP',
      'EPERM',
      'EPERM',
      'ENOSYS',
      'allow',
    ]);
  });

  it('gives another ABI (32-bit, x32) no system call at all: their numbers mean other calls', () => {
    expect(verdict(x64, { arch: 0x40000003, nr: 15, args: [0, 0o4755] })).toBe('ENOSYS'); // i386 chmod
    expect(verdict(x64, { arch: X86_64, nr: 0x40000000 + 90, args: [0, 0o4755] })).toBe('ENOSYS'); // x32
    expect(verdict(arm, { arch: 0x40000028, nr: 15 })).toBe('ENOSYS'); // arm32
    expect(seccompFilter('ppc64')).toBeUndefined();
  });
});
