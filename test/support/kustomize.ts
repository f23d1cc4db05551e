import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

// The part of Kustomize that deploy/kubernetes/ uses, so that its manifests are
// rendered in `npm test` on a machine without kubectl (Debian ships none recent
// enough): `resources` (files and folders with a kustomization.yaml), `patches`
// (strategic-merge patches by file or inline, matched on kind and name, with
// `$patch: delete` on a resource or a list item and `null` removing a field) and
// `images`. Anything else in a kustomization.yaml is refused, so a manifest
// cannot quietly use a feature this renderer would get wrong. Where kubectl is
// installed, test/kubernetes.spec.ts checks that both render the same objects.

export type KubeObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; [key: string]: unknown };
  [key: string]: unknown;
};
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const KNOWN_FIELDS = new Set(['apiVersion', 'kind', 'resources', 'patches', 'images']);

/**
 * Merge keys of the lists deploy/kubernetes/ patches, as the Kubernetes API declares them
 * (x-kubernetes-patch-merge-key); every other list is replaced, as Kustomize does for lists without one.
 */
function mergeKeyOf(field: string, items: Json[]): string | undefined {
  switch (field) {
    case 'containers':
    case 'initContainers':
    case 'env':
    case 'volumes':
    case 'imagePullSecrets':
      return 'name';
    case 'volumeMounts':
      return 'mountPath';
    case 'topologySpreadConstraints':
      return 'topologyKey';
    case 'ports':
      // A container's ports merge on containerPort, a Service's on port.
      return items.some((item) => isObject(item) && 'containerPort' in item) ? 'containerPort' : 'port';
    default:
      return undefined;
  }
}

/** Renders the kustomization in `dir` into its objects, in the order Kustomize reads them. */
export function kustomize(dir: string): KubeObject[] {
  const file = join(dir, 'kustomization.yaml');
  const k = readYaml(file)[0] as JsonObject;
  const unknown = Object.keys(k).filter((key) => !KNOWN_FIELDS.has(key));
  if (unknown.length > 0) {
    throw new Error(`${file}: ${unknown.join(', ')} not supported by test/support/kustomize.ts`);
  }
  let objects: KubeObject[] = [];
  for (const entry of (k.resources ?? []) as string[]) {
    const path = resolve(dir, entry);
    objects.push(...(statSync(path).isDirectory() ? kustomize(path) : (readYaml(path) as KubeObject[])));
  }
  for (const patch of (k.patches ?? []) as JsonObject[]) {
    if (Object.keys(patch).some((key) => key !== 'path' && key !== 'patch')) {
      throw new Error(`${file}: a patch with ${Object.keys(patch).join(', ')}; only path or patch (strategic merge) is supported`);
    }
    const docs =
      typeof patch.path === 'string'
        ? readYaml(resolve(dir, patch.path))
        : parseAllDocuments(typeof patch.patch === 'string' ? patch.patch : '').map((d) => d.toJS() as Json);
    for (const doc of docs as KubeObject[]) {
      const index = objects.findIndex((o) => o.kind === doc.kind && o.metadata.name === doc.metadata.name);
      if (index < 0) {
        throw new Error(`${file}: a patch names ${doc.kind} ${doc.metadata.name}, which no resource defines`);
      }
      if ((doc as JsonObject).$patch === 'delete') {
        objects = objects.filter((_, i) => i !== index);
      } else {
        objects[index] = merge(objects[index] as unknown as Json, doc as unknown as Json, '') as unknown as KubeObject;
      }
    }
  }
  for (const image of (k.images ?? []) as JsonObject[]) {
    for (const container of objects.flatMap(containersOf)) {
      const [name, tag] = splitImage(typeof container.image === 'string' ? container.image : '');
      if (name === image.name) {
        const newName = typeof image.newName === 'string' ? image.newName : name;
        container.image =
          typeof image.digest === 'string'
            ? `${newName}@${image.digest}`
            : `${newName}:${typeof image.newTag === 'string' ? image.newTag : String(tag)}`;
      }
    }
  }
  return objects;
}

/** The containers of a workload's pod template. */
export function containersOf(object: KubeObject): JsonObject[] {
  const spec = (object.spec as JsonObject | undefined)?.template as JsonObject | undefined;
  return (((spec?.spec as JsonObject | undefined)?.containers ?? []) as JsonObject[]).filter(isObject);
}

/** `kubectl kustomize dir`'s objects, or undefined when kubectl is not installed. */
export function kubectlKustomize(dir: string): KubeObject[] | undefined {
  const run = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8' });
  if (run.error && (run.error as NodeJS.ErrnoException).code === 'ENOENT') {
    return undefined;
  }
  if (run.status !== 0) {
    throw new Error(`kubectl kustomize ${dir} failed: ${run.stderr}`);
  }
  return parseAllDocuments(run.stdout).map((d) => d.toJS() as KubeObject);
}

function merge(base: Json, patch: Json, field: string): Json {
  if (isObject(base) && isObject(patch)) {
    const out: JsonObject = { ...base };
    for (const [key, value] of Object.entries(patch)) {
      if (key === '$patch') {
        continue;
      }
      if (value === null) {
        delete out[key];
      } else {
        out[key] = key in base ? merge(base[key], value, key) : strip(value);
      }
    }
    return out;
  }
  if (Array.isArray(base) && Array.isArray(patch)) {
    const key = mergeKeyOf(field, [...base, ...patch]);
    if (!key) {
      return strip(patch);
    }
    let out = [...base];
    // Kustomize puts the items a patch adds before the base's (kyaml's merge), in the patch's order.
    const added: Json[] = [];
    for (const item of patch) {
      if (!isObject(item) || !(key in item)) {
        throw new Error(`a patch item of ${field} without its merge key ${key}`);
      }
      const at = out.findIndex((o) => isObject(o) && o[key] === item[key]);
      if (item.$patch === 'delete') {
        out = out.filter((_, i) => i !== at);
      } else if (at < 0) {
        added.push(strip(item));
      } else {
        out[at] = merge(out[at], item, field);
      }
    }
    return [...added, ...out];
  }
  return strip(patch);
}

/** A patch's value without its directives and null fields, as it lands where the base had nothing. */
function strip(value: Json): Json {
  if (Array.isArray(value)) {
    return value.map(strip);
  }
  if (isObject(value)) {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key, v]) => key !== '$patch' && v !== null)
        .map(([key, v]) => [key, strip(v)]),
    );
  }
  return value;
}

function splitImage(image: string): [string, string | undefined] {
  const at = image.lastIndexOf(':');
  return at > image.lastIndexOf('/') ? [image.slice(0, at), image.slice(at + 1)] : [image, undefined];
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readYaml(file: string): Json[] {
  if (!existsSync(file)) {
    throw new Error(`${file} does not exist (named in ${dirname(file)})`);
  }
  return parseAllDocuments(readFileSync(file, 'utf8')).map((doc) => {
    if (doc.errors.length > 0) {
      throw new Error(`${file}: ${doc.errors[0].message}`);
    }
    return doc.toJS() as Json;
  });
}
