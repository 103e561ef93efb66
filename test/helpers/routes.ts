// The routes a running server has, for tests that walk all of them.

/**
 * Every route the running server has, read from Fastify's own route tree so that a route added
 * anywhere (in any plugin) is seen. With commonPrefix off, each line of printRoutes is a path
 * suffix indented four columns per level below its parent, followed by its methods.
 */
export function registeredRoutes(tree: string): Array<{ method: string; path: string }> {
  const out: Array<{ method: string; path: string }> = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^([│ ]*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (m === null) continue;
    const depth = m[1]!.length / 4;
    stack.length = depth;
    const path = (stack[depth - 1] ?? '') + m[2]!;
    stack[depth] = path;
    for (const method of (m[3] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean))
      out.push({ method, path });
  }
  return out;
}
