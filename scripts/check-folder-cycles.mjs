// Fails when the folders of src/ import each other in a cycle (README, "## Development":
// the layers). ESLint's no-restricted-imports blocks state which arrows each layer may
// draw; this check is the backstop that holds even where a block is too loose: it reads
// every .ts file (specs and type-only imports included, since `import type` ties the
// folders together for a reader just the same) with the TypeScript compiler's own import
// scanner, builds the graph of folders, and reports each strongly connected group with
// one import per arrow, so the line to change is plain to see.
//
//   node scripts/check-folder-cycles.mjs [root]     (default src; run by `npm run pretest`)
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The files directly in the root count as one folder, named so. */
export const ROOT_FOLDER = '(root)';

/** folder → folder → the first import that draws the arrow ("file: specifier"). */
export function folderGraph(root) {
  const base = resolve(root);
  const graph = new Map();
  for (const file of tsFiles(base)) {
    const from = folderOf(base, file);
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) {
        continue;
      }
      const target = resolve(dirname(file), fileName);
      if (!target.startsWith(base + sep)) {
        continue;
      }
      const to = folderOf(base, target);
      if (to === from) {
        continue;
      }
      if (!graph.has(from)) {
        graph.set(from, new Map());
      }
      const arrows = graph.get(from);
      if (!arrows.has(to)) {
        arrows.set(to, `${relative(base, file)}: ${fileName}`);
      }
    }
  }
  return graph;
}

/** Each group of two or more folders that reach one another (Tarjan), with its shortest round trip. */
export function folderCycles(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const groups = [];
  let next = 0;
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v), index.get(w)));
      }
    }
    if (low.get(v) === index.get(v)) {
      const group = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) {
        groups.push(group.sort());
      }
    }
  };
  for (const v of [...graph.keys()].sort()) {
    if (!index.has(v)) {
      visit(v);
    }
  }
  return groups.map((folders) => ({ folders, cycle: shortestCycle(graph, folders) }));
}

/** The shortest round trip inside a group, as "from -> to (file: specifier)" lines: the imports to look at first. */
function shortestCycle(graph, folders) {
  let best;
  for (const start of folders) {
    // Breadth first from start, inside the group, until an arrow leads back to start.
    const cameFrom = new Map([[start, undefined]]);
    const queue = [start];
    while (queue.length > 0) {
      const v = queue.shift();
      const back = graph.get(v)?.has(start);
      if (back) {
        const path = [start];
        for (let w = v; w !== start; w = cameFrom.get(w)) {
          path.splice(1, 0, w);
        }
        if (!best || path.length < best.length) {
          best = path;
        }
        break;
      }
      for (const w of graph.get(v)?.keys() ?? []) {
        if (folders.includes(w) && !cameFrom.has(w)) {
          cameFrom.set(w, v);
          queue.push(w);
        }
      }
    }
  }
  return best.map((from, i) => {
    const to = best[(i + 1) % best.length];
    return `${from} -> ${to} (${graph.get(from).get(to)})`;
  });
}

function folderOf(base, file) {
  const parts = relative(base, file).split(sep);
  return parts.length > 1 ? parts[0] : ROOT_FOLDER;
}

function tsFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      return tsFiles(path);
    }
    return /\.(ts|mts|cts)$/.test(entry.name) ? [path] : [];
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = process.argv[2] ?? 'src';
  const cycles = folderCycles(folderGraph(root));
  if (cycles.length > 0) {
    for (const { folders, cycle } of cycles) {
      process.stderr.write(
        `Folder cycle in ${root}/ among ${folders.join(', ')}; the shortest round trip is below, break one of its imports (README "## Development" draws the allowed arrows):\n`,
      );
      for (const line of cycle) {
        process.stderr.write(`  ${line}\n`);
      }
    }
    process.exit(1);
  }
}
