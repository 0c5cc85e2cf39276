/** A task as the dependency order sees it: its key and the keys it waits for. */
export interface Orderable {
  key: string;
  dependencies: readonly string[];
}

/** The tasks in dependency order, or one cycle among them (its keys, the first repeated last). */
export type Ordered<T> = { ok: true; order: T[] } | { ok: false; cycle: string[] };

/**
 * Order tasks so that each comes after the tasks it depends on; among the tasks ready at once,
 * `before` decides (the ordinal, then the id). Keys not among the tasks are met already (the
 * callers check that they are done). Pure; O(n log n + edges) but for the ready list's inserts.
 */
export function dependencyOrder<T extends Orderable>(tasks: readonly T[], before: (a: T, b: T) => number): Ordered<T> {
  const byKey = new Map(tasks.map((task) => [task.key, task]));
  const waiting = new Map<string, number>();
  const dependents = new Map<string, T[]>();
  for (const task of tasks) {
    const own = [...new Set(task.dependencies)].filter((key) => byKey.has(key) && key !== task.key);
    waiting.set(task.key, own.length);
    for (const key of own) dependents.set(key, [...(dependents.get(key) ?? []), task]);
    if (task.dependencies.includes(task.key)) return { ok: false, cycle: [task.key, task.key] };
  }
  const ready = tasks.filter((task) => waiting.get(task.key) === 0).sort(before);
  const order: T[] = [];
  while (ready.length > 0) {
    const next = ready.shift() as T;
    order.push(next);
    for (const dependent of dependents.get(next.key) ?? []) {
      const left = (waiting.get(dependent.key) ?? 0) - 1;
      waiting.set(dependent.key, left);
      if (left === 0) ready.splice(insertAt(ready, dependent, before), 0, dependent);
    }
  }
  if (order.length === tasks.length) return { ok: true, order };
  return {
    ok: false,
    cycle: findCycle(
      tasks.filter((task) => (waiting.get(task.key) ?? 0) > 0),
      byKey,
    ),
  };
}

// Where `item` goes in the sorted `list` (after its equals, so the order stays stable).
function insertAt<T>(list: readonly T[], item: T, before: (a: T, b: T) => number): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (before(list[middle] as T, item) <= 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

// Every task left waits for another one left: following them from any one comes back round.
function findCycle<T extends Orderable>(left: readonly T[], byKey: ReadonlyMap<string, T>): string[] {
  const stuck = new Set(left.map((task) => task.key));
  const path: string[] = [];
  let key = left[0]?.key;
  while (key !== undefined && !path.includes(key)) {
    path.push(key);
    key = byKey.get(key)?.dependencies.find((next) => stuck.has(next));
  }
  return key === undefined ? path : [...path.slice(path.indexOf(key)), key];
}
