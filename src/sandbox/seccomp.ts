/**
 * The seccomp filter every fenced agent runs under (classic BPF, as bubblewrap's `--seccomp FD`
 * loads it): nothing the agent makes may carry a setuid or setgid bit, file capabilities or any
 * other extended attribute, and it has no keyring. Default allow: the fence's namespaces and
 * mounts do the rest. Built here, as bytes, so no libseccomp is needed on the machine.
 *
 * Why these calls, for an agent that tries every way and not only `chmod 4755`:
 * - every call that sets a mode: chmod, fchmod, fchmodat, fchmodat2, and those that create a
 *   file with one (open, openat, creat with O_CREAT or O_TMPFILE; mkdir, mkdirat; mknod, mknodat,
 *   which make regular files too): refused when the mode has S_ISUID or S_ISGID;
 * - openat2 takes its mode in a struct the filter cannot read: ENOSYS, and libc and the programs
 *   that try it first fall back to openat, which is checked;
 * - io_uring opens, chmods and sets attributes in the kernel, out of the filter's sight: ENOSYS
 *   (libuv and liburing fall back to plain calls);
 * - the setxattr family: `security.capability` is a file capability, which a nested user
 *   namespace's root may write; the filter cannot read the attribute's name, so none is set
 *   (EOPNOTSUPP, what a file system without attributes says: cp -a and tar go on);
 * - keyctl, add_key, request_key: the keyring the agent inherits links the user's own (Kerberos
 *   caches, aws-vault): refused.
 * A filter cannot be removed nor loosened by the agent or anything it starts (no_new_privs is set
 * by bubblewrap; filters only stack). 32-bit and x32 calls, which would take other numbers, get ENOSYS.
 */

const EPERM = 1;
const ENOSYS = 38;
const EOPNOTSUPP = 95;
const SET_ID = 0o6000; // S_ISUID | S_ISGID
const CREATES = 0o100 | 0o20000000; // O_CREAT | __O_TMPFILE (the same on x86_64 and aarch64)

/** What the filter does with a system call: refuse it, or refuse it when its mode argument sets an id bit. */
type Rule =
  | { refuse: number }
  | { modeArg: number } // a mode in this argument: refused with the bits
  | { flagsArg: number; modeArg: number }; // a mode that counts only when the flags create a file

// The system calls by name: each architecture's numbers below.
const RULES: Record<string, Rule> = {
  chmod: { modeArg: 1 },
  fchmod: { modeArg: 1 },
  fchmodat: { modeArg: 2 },
  fchmodat2: { modeArg: 2 },
  creat: { modeArg: 1 },
  open: { flagsArg: 1, modeArg: 2 },
  openat: { flagsArg: 2, modeArg: 3 },
  mkdir: { modeArg: 1 },
  mkdirat: { modeArg: 2 },
  mknod: { modeArg: 1 },
  mknodat: { modeArg: 2 },
  openat2: { refuse: ENOSYS },
  io_uring_setup: { refuse: ENOSYS },
  io_uring_enter: { refuse: ENOSYS },
  io_uring_register: { refuse: ENOSYS },
  setxattr: { refuse: EOPNOTSUPP },
  lsetxattr: { refuse: EOPNOTSUPP },
  fsetxattr: { refuse: EOPNOTSUPP },
  setxattrat: { refuse: EOPNOTSUPP },
  add_key: { refuse: EPERM },
  request_key: { refuse: EPERM },
  keyctl: { refuse: EPERM },
};

/** An architecture the filter is built for: its audit number, its system calls' numbers, its own foreign ABI. */
interface Arch {
  audit: number;
  numbers: Record<string, number>;
  /** Numbers from here up are another ABI of the same audit architecture (x86_64's x32). */
  foreignFrom?: number;
}

// Both from the kernel's tables (arch/x86/entry/syscalls/syscall_64.tbl, include/uapi/asm-generic/unistd.h).
const SHARED = { openat2: 437, io_uring_setup: 425, io_uring_enter: 426, io_uring_register: 427, fchmodat2: 452 };
const ARCHES: Partial<Record<NodeJS.Architecture, Arch>> = {
  x64: {
    audit: 0xc000003e,
    foreignFrom: 0x40000000,
    numbers: {
      ...SHARED,
      open: 2,
      creat: 85,
      mkdir: 83,
      chmod: 90,
      fchmod: 91,
      mknod: 133,
      openat: 257,
      mkdirat: 258,
      mknodat: 259,
      fchmodat: 268,
      setxattr: 188,
      lsetxattr: 189,
      fsetxattr: 190,
      setxattrat: 463,
      add_key: 248,
      request_key: 249,
      keyctl: 250,
    },
  },
  arm64: {
    audit: 0xc00000b7,
    numbers: {
      ...SHARED,
      mknodat: 33,
      mkdirat: 34,
      fchmod: 52,
      fchmodat: 53,
      openat: 56,
      setxattr: 5,
      lsetxattr: 6,
      fsetxattr: 7,
      setxattrat: 463,
      add_key: 217,
      request_key: 218,
      keyctl: 219,
    },
  },
};

// Classic BPF: the opcodes used, and seccomp's answers.
const LD_ABS = 0x20; // BPF_LD | BPF_W | BPF_ABS
const JEQ = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const JGE = 0x35; // BPF_JMP | BPF_JGE | BPF_K
const JSET = 0x45; // BPF_JMP | BPF_JSET | BPF_K
const RET = 0x06; // BPF_RET | BPF_K
const ALLOW = 0x7fff0000;
const ERRNO = 0x00050000;
// struct seccomp_data: nr, arch, instruction pointer, then six 64-bit arguments (their low half first).
const NR = 0;
const ARCH = 4;
const arg = (i: number) => 16 + 8 * i;

type Label = string;
type Insn = { code: number; k: number; jt?: Label; jf?: Label } | { label: Label };

/**
 * The filter for `arch` (Node's process.arch) as bubblewrap reads it: struct sock_filter
 * entries in the machine's byte order; undefined where no table is kept (then no fence is built).
 */
export function seccompFilter(arch: NodeJS.Architecture = process.arch): Uint8Array | undefined {
  const table = ARCHES[arch];
  if (!table) return undefined;
  const program: Insn[] = [
    { code: LD_ABS, k: ARCH },
    { code: JEQ, k: table.audit, jf: 'foreign' },
    { code: LD_ABS, k: NR },
  ];
  if (table.foreignFrom !== undefined) program.push({ code: JGE, k: table.foreignFrom, jt: 'foreign' });
  const blocks: Insn[] = [];
  for (const [name, rule] of Object.entries(RULES)) {
    const nr = table.numbers[name];
    if (nr === undefined) continue; // not a call of this architecture (aarch64 has no open, chmod…)
    program.push({ code: JEQ, k: nr, jt: name });
    blocks.push({ label: name });
    if ('refuse' in rule) blocks.push({ code: RET, k: ERRNO | rule.refuse });
    else {
      if ('flagsArg' in rule)
        blocks.push({ code: LD_ABS, k: arg(rule.flagsArg) }, { code: JSET, k: CREATES, jf: 'pass' });
      blocks.push({ code: LD_ABS, k: arg(rule.modeArg) }, { code: JSET, k: SET_ID, jt: 'deny', jf: 'pass' });
    }
  }
  // Not a call the filter looks at: allowed. The blocks jump forward only, to `deny` or `pass`.
  program.push(
    { code: RET, k: ALLOW },
    ...blocks,
    { label: 'deny' },
    { code: RET, k: ERRNO | EPERM },
    { label: 'pass' },
    { code: RET, k: ALLOW },
    { label: 'foreign' },
    { code: RET, k: ERRNO | ENOSYS },
  );
  return assemble(program);
}

// Jumps are forward and relative to the next instruction, at most 255 ahead.
function assemble(program: Insn[]): Uint8Array {
  const at = new Map<Label, number>();
  const code: Array<Exclude<Insn, { label: Label }>> = [];
  for (const insn of program)
    if ('label' in insn) at.set(insn.label, code.length);
    else code.push(insn);
  const bytes = new Uint8Array(code.length * 8);
  const view = new DataView(bytes.buffer);
  const little = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
  code.forEach((insn, i) => {
    const jump = (label: Label | undefined) => {
      if (label === undefined) return 0;
      const offset = (at.get(label) ?? Number.NaN) - i - 1;
      if (!(offset >= 0 && offset <= 255)) throw new Error(`seccomp: jump to ${label} out of reach (${offset})`);
      return offset;
    };
    view.setUint16(i * 8, insn.code, little);
    view.setUint8(i * 8 + 2, jump(insn.jt));
    view.setUint8(i * 8 + 3, jump(insn.jf));
    view.setUint32(i * 8 + 4, insn.k >>> 0, little);
  });
  return bytes;
}
