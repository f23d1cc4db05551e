import { isDomainProperty, pageInProperty, propertyHost } from './property.js';

// GSC_ALLOWED_SITES semantics. An entry allows itself and everything Search
// Console scopes inside it: sc-domain:example.com allows https://shop.example.com/
// and sc-domain:shop.example.com; https://example.com/shop/ allows
// https://example.com/shop/eu/. A wider property is never allowed by a narrower one.

export function isPropertyAllowed(property: string, allowed: readonly string[]): boolean {
  return allowed.some((entry) => propertyCovers(entry, property));
}

export function isPageAllowed(page: URL, allowed: readonly string[]): boolean {
  return allowed.some((entry) => pageInProperty(page, entry));
}

function propertyCovers(entry: string, property: string): boolean {
  if (entry === property) {
    return true;
  }
  if (isDomainProperty(property)) {
    if (!isDomainProperty(entry)) {
      return false;
    }
    const host = propertyHost(property);
    const domain = propertyHost(entry);
    return host === domain || host.endsWith(`.${domain}`);
  }
  return pageInProperty(new URL(property), entry);
}

/** Splits a listing into what GSC_ALLOWED_SITES lets through and how many entries it withheld. */
export function partitionAllowed<T>(
  items: readonly T[],
  propertyOf: (item: T) => string | undefined,
  allowed: readonly string[] | undefined,
) {
  if (!allowed) {
    return { kept: [...items], withheld: 0 };
  }
  const kept = items.filter((item) => {
    const property = propertyOf(item);
    return property !== undefined && isPropertyAllowed(property, allowed);
  });
  return { kept, withheld: items.length - kept.length };
}

/** How a listing says it left entries out, the same in every listing. */
export function withheldNote(withheld: number): string {
  return `${withheld} more withheld: outside the properties this caller may use (GSC_ALLOWED_SITES, narrowed by a policy rule where one applies).`;
}
