type Json = Record<string, unknown>;

/** An argument (at any depth) the advertised input schema does not allow, and what is allowed there. */
export interface UnknownArgument {
  /** e.g. `google_acount`, `filters[0].operatr`, `compare.end`. */
  readonly path: string;
  readonly allowed: readonly string[];
}

/**
 * The arguments a call carries that its advertised input schema refuses:
 * every object of an input schema is closed (additionalProperties false,
 * wire-schema.ts), and the server applies the schema it advertises (PRODUCT.md
 * §5c, §8d). zod alone would drop an unknown key without a word — a
 * misspelt `google_acount` or a filter's `operatr` would silently be ignored,
 * and the call act on something the caller did not ask for. Read off the
 * listed JSON Schema itself (properties, items, anyOf/oneOf), so what refuses
 * an argument is exactly what the client was told.
 */
export function unknownArguments(schema: Json, value: unknown, path = ''): UnknownArgument[] {
  const branches = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (Array.isArray(branches)) {
    return fromBranches(branches, value, path);
  }
  if (Array.isArray(value)) {
    const items = schema.items as Json | undefined;
    return items && typeof items === 'object' ? value.flatMap((item, i) => unknownArguments(items, item, `${path}[${i}]`)) : [];
  }
  if (!isPlainObject(value)) {
    return [];
  }
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  const found: UnknownArgument[] = [];
  for (const [key, inner] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    const property = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (property) {
      found.push(...unknownArguments(property, inner, at));
    } else if (schema.additionalProperties === false) {
      found.push({ path: at, allowed: Object.keys(properties) });
    }
  }
  return found;
}

/** A value of a union: fine if any branch of its type takes it whole; otherwise what the closest such branch refuses. */
function fromBranches(branches: Json[], value: unknown, path: string): UnknownArgument[] {
  let closest: UnknownArgument[] | undefined;
  for (const branch of branches.filter((b) => ofType(b, value))) {
    const found = unknownArguments(branch, value, path);
    if (found.length === 0) {
      return [];
    }
    if (closest === undefined || found.length < closest.length) {
      closest = found;
    }
  }
  return closest ?? [];
}

/** Whether a branch may hold a value of this JSON type (a branch that names no type may hold any). */
function ofType(branch: Json, value: unknown): boolean {
  const declared = branch.type ?? (branch.properties ? 'object' : branch.items ? 'array' : undefined);
  if (declared === undefined) {
    return true;
  }
  const actual = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value === 'object' ? 'object' : undefined;
  if (actual === undefined) {
    return true; // a scalar: no keys to check in any branch
  }
  return (Array.isArray(declared) ? (declared as unknown[]) : [declared]).includes(actual);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The sentence after "Invalid arguments for tool X: ": names each unknown argument and the ones allowed there. */
export function describeUnknown(found: readonly UnknownArgument[]): string {
  return found
    .map(
      ({ path, allowed }) =>
        `${path}: unknown argument${allowed.length ? ` (allowed here: ${allowed.join(', ')})` : ' (no arguments are allowed here)'}`,
    )
    .join(', ');
}
