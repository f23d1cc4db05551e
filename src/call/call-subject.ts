import { isPropertyAllowed } from '../property/site-allowlist.js';
import { hostKey, propertyKey } from './account-memory.js';

import type { Subject } from '../tools/call-scope.js';

// The words and memory keys that follow from a call's subject (target.ts parses it).

/** Where the account a call used is remembered: its property; for a page, also its host (PRODUCT.md §8d: what "used before" means). */
export function memoryKeys(subject: Exclude<Subject, { kind: 'refused' }>, property: string | undefined): string[] {
  if (subject.kind === 'page') {
    return [hostKey(subject.page.hostname), ...(property ? [propertyKey(property)] : [])];
  }
  return subject.kind === 'new' || !property ? [] : [propertyKey(property)];
}

/**
 * What a question names: a page with the property it belongs to — or only the
 * page, when a narrower allowlist entry let it through and that property is
 * one the person may not see.
 */
export function whatOf(subject: Subject, property: string, allowed: readonly string[] | undefined): string {
  if (subject.kind !== 'page') {
    return property;
  }
  return !allowed || isPropertyAllowed(property, allowed) ? `${subject.page.href} (property ${property})` : subject.page.href;
}
