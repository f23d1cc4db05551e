// Fails when the folders of src/ import each other in a cycle (README, "## Development":
// the layers). ESLint's no-restricted-imports blocks state which arrows each layer may
// draw; this check is the backstop that holds even where a block is too loose: it reads
// every .ts file (specs and type-only imports included, since `import type` ties the
// folders together for a reader just the same) with the TypeScript compiler's own import
// scanner, builds the graph of folders, and reports each strongly connected group with
// one import per arrow, so the line to change is plain to see.
//
// It also checks the files: a group of files that import one another (type-only imports
// included) is a circle a reader has to hold in their head at once. Today's groups are
// pinned in scripts/file-cycles.json; a new group, or a file joining a pinned one, fails.
// A group that shrank or went fails too until the pin says so (`--update` rewrites the pin,
// and refuses to when anything grew), so the list only ever gets shorter.
//
//   node scripts/check-folder-cycles.mjs [root] [--update] [--pin=<file>]   (default src; run by `npm run pretest`)
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
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

/** file → file → the import that draws the arrow, for the relative imports between .ts files of root (paths relative to it). */
export function fileGraph(root) {
  const base = resolve(root);
  const graph = new Map();
  for (const file of tsFiles(base)) {
    const from = relative(base, file);
    const arrows = new Map();
    for (const { fileName } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (!fileName.startsWith('.')) {
        continue;
      }
      const target = resolve(dirname(file), fileName).replace(/\.(m|c)?js$/, '.$1ts');
      if (target.startsWith(base + sep) && existsSync(target) && !arrows.has(relative(base, target))) {
        arrows.set(relative(base, target), fileName);
      }
    }
    graph.set(from, arrows);
  }
  return graph;
}

/** The file circles of root: each group of files reaching one another, its files sorted, the groups sorted. */
export function fileCycles(root) {
  return folderCycles(fileGraph(root))
    .map(({ folders, cycle }) => ({ files: folders, cycle }))
    .sort((a, b) => (a.files[0] < b.files[0] ? -1 : 1));
}

/**
 * Compares the circles found with the pinned ones: `grown` are groups not
 * inside a pinned group (new, or with a file added), `shrunk` pinned groups
 * that no longer stand as they are pinned.
 */
export function compareWithPin(found, pinned) {
  const inside = (group, pin) => group.every((f) => pin.includes(f));
  const grown = found.filter((c) => !pinned.some((pin) => inside(c.files, pin)));
  const shrunk = pinned.filter((pin) => !found.some((c) => c.files.length === pin.length && inside(c.files, pin)));
  return { grown, shrunk };
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
  const args = process.argv.slice(2);
  const update = args.includes('--update');
  const root = args.find((a) => !a.startsWith('--')) ?? 'src';
  let failed = false;
  const cycles = folderCycles(folderGraph(root));
  for (const { folders, cycle } of cycles) {
    failed = true;
    process.stderr.write(
      `Folder cycle in ${root}/ among ${folders.join(', ')}; the shortest round trip is below, break one of its imports (README "## Development" draws the allowed arrows):\n`,
    );
    for (const line of cycle) {
      process.stderr.write(`  ${line}\n`);
    }
  }

  // The pin is src/'s; another tree (a spec's) names its own with --pin=<file>, or has none: then every circle fails.
  const pinArg = args.find((a) => a.startsWith('--pin='));
  const srcPin =
    resolve(root) === fileURLToPath(new URL('../src', import.meta.url))
      ? fileURLToPath(new URL('./file-cycles.json', import.meta.url))
      : undefined;
  const pinFile = pinArg ? resolve(pinArg.slice('--pin='.length)) : srcPin;
  const found = fileCycles(root);
  const hasPin = pinFile !== undefined && existsSync(pinFile);
  const pinned = hasPin ? JSON.parse(readFileSync(pinFile, 'utf8')).groups : [];
  // With no pin yet, --update pins what there is (once); after that, only less.
  const { grown, shrunk } = update && !hasPin && pinFile !== undefined ? { grown: [], shrunk: [] } : compareWithPin(found, pinned);
  for (const { files, cycle } of grown) {
    failed = true;
    process.stderr.write(
      `File circle in ${root}/ among ${files.length} files that is not pinned in scripts/file-cycles.json (a new one, or a file joined a pinned one); its shortest round trip, break one of its imports (a type to a *-types.ts file of its own often does it):\n`,
    );
    for (const line of cycle) {
      process.stderr.write(`  ${line}\n`);
    }
  }
  if (update && grown.length === 0 && pinFile !== undefined) {
    const groups = found.map((c) => c.files);
    writeFileSync(
      pinFile,
      `${JSON.stringify({ note: 'File circles of src/ (check-folder-cycles.mjs): this list may only shrink.', groups }, null, 2)}\n`,
    );
    process.stdout.write(`${relative(process.cwd(), pinFile)}: ${groups.length} file circles, ${groups.flat().length} files\n`);
  } else if (shrunk.length > 0) {
    failed = true;
    for (const pin of shrunk) {
      process.stderr.write(
        `A pinned file circle no longer stands as pinned (good): ${pin.join(', ')}; run node scripts/check-folder-cycles.mjs ${root} --update to pin the shorter list.\n`,
      );
    }
  }
  if (!update || grown.length > 0) {
    process.exit(failed ? 1 : 0);
  }
}
