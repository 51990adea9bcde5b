/**
 * Names that come from files (tensor names, op types, header keys): made unique, and kept in dictionaries
 * that no name can break. Imports nothing of ours, so any layer may use it.
 *
 * - {@link uniqueNames}: the one place a format turns repeated names into distinct ones (`W`, `W` → `W`, `W#2`),
 *   never producing a name that is already taken (`W`, `W`, `W#2` → `W`, `W#3`, `W#2`).
 * - {@link dictionary}: a null-prototype object, for plain-object results keyed by names from a file: on `{}`,
 *   `obj["__proto__"] = x` sets the prototype instead of an entry (the entry vanishes) and `obj["constructor"]`
 *   is Object's constructor before anything is stored.
 */

/**
 * Distinct names for `names`, in order: a name given once is kept; the first of a repeated name is kept and each
 * later one gets `<name>#<k>` with the smallest k ≥ 2 that is neither a name of `names` nor already given. So
 * the result has no repeats, an input without repeats comes back unchanged, and the result is a function of the
 * list alone (a format and its patch name the same weights the same way).
 */
export function uniqueNames(names: readonly string[]): string[] {
  const taken = new Set(names);
  if (taken.size === names.length) return names.slice();
  const used = new Set<string>();
  /** the next k to try per base name (so a name repeated n times costs O(n), not O(n²)) */
  const nextK = new Map<string, number>();
  return names.map((name) => {
    if (!used.has(name)) {
      used.add(name);
      return name;
    }
    let k = nextK.get(name) ?? 2;
    while (taken.has(`${name}#${k}`) || used.has(`${name}#${k}`)) k++;
    nextK.set(name, k + 1);
    const unique = `${name}#${k}`;
    used.add(unique);
    return unique;
  });
}

/** The first name that appears twice in `names`, or undefined. */
export function firstRepeat(names: Iterable<string>): string | undefined {
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) return name;
    seen.add(name);
  }
  return undefined;
}

/**
 * An empty object without a prototype, to key by names from a file: every name (`__proto__`, `constructor`,
 * `toString`, `hasOwnProperty`, …) is an ordinary own entry, `name in obj` and `obj[name] ?? x` see only what was
 * stored, and JSON.stringify and Object.entries see every entry.
 */
export function dictionary<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/**
 * `table[key]` when `key` is the table's own entry, else undefined: a lookup by a name from a file in an object
 * literal (`TRANSLATIONS[op]`) must not find `constructor`, `toString` or `__proto__` on Object.prototype.
 */
export function ownValue<T>(table: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return table !== undefined && Object.prototype.hasOwnProperty.call(table, key) ? table[key] : undefined;
}

/** The Levenshtein distance of `a` and `b` (one insertion, deletion or substitution a step). */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

/** Up to `limit` of `names` closest to `name` (edit distance, then a shared prefix), for "did you mean" messages. */
export function closestNames(name: string, names: readonly string[], limit = 5): string[] {
  const distance = (a: string, b: string): number =>
    Math.abs(a.length - b.length) > 64 ? Math.abs(a.length - b.length) : editDistance(a, b);
  return names
    .map((n) => ({ n, d: distance(name, n) }))
    .sort((x, y) => x.d - y.d)
    .slice(0, limit)
    .map((x) => x.n);
}
