// The benchmark agents in Node, used only when no C compiler is found: the same behaviour
// as worker.c, manager.c and spew.c (argv[2] picks which), at Node's start-up cost.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';

const mode = process.argv[2];
const input = mode === 'spew' ? '' : readFileSync(0, 'utf8');
if (mode === 'worker') {
  process.stdout.write('{"status":"ok","message":"done"}\n');
} else if (mode === 'manager') {
  if (process.env.BENCH_SIZES) appendFileSync('bench-sizes', `${Buffer.byteLength(input)}\n`);
  if (process.env.BENCH_TIMES) appendFileSync('bench-times', `${Math.round((performance.timeOrigin + performance.now()) * 1000)}\n`);
  const done = Number(/^tasks\/t(\d+)\.md$/.exec(process.env.KANBAN_DONE_TASK ?? '')?.[1]);
  const tasks = Number(process.env.BENCH_TASKS);
  let count = 0;
  try {
    count = Number(readFileSync('bench-count', 'utf8')) || 0;
  } catch {
    // first step
  }
  writeFileSync('bench-count', `${++count}\n`);
  const list = /"tasks":(\[[^\]]*\])/.exec(input)?.[1] ?? '[]';
  const next = count >= Number(process.env.BENCH_STEPS) ? 'null' : `"tasks/t${String((done % tasks) + 1).padStart(5, '0')}.md"`;
  process.stdout.write(`{"status":"ok","message":"next","next_task":${next},"tasks":${list}}\n`);
} else if (mode === 'spew') {
  const line = `${'abcdefghijklmnopqrstuvwxyz'.repeat(4).slice(0, 79)}\n`;
  const block = Buffer.from(line.repeat(Math.ceil(65536 / 80))).subarray(0, 65536);
  let left = Number(process.env.BENCH_BYTES);
  const write = () => {
    while (left > 0) {
      const chunk = block.subarray(0, Math.min(left, block.length));
      left -= chunk.length;
      if (!process.stdout.write(chunk)) return void process.stdout.once('drain', write);
    }
    process.stdout.write('\n{"status":"ok","message":"printed a lot"}\n');
  };
  write();
}
