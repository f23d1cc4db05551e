import type { ConnectedGrant } from '../google/connected-accounts.js';
import type { Access } from '../policy/policy-resolution.js';
import type { Caller } from '../identity/caller.js';
import type { AnnotationRef } from '../property/annotation-id.js';
import type { PropertySubject } from '../property/property-match.js';

/**
 * The argument each kind of target is read from. These names are reserved: a
 * tool whose input has one of them must declare that target (start-up fails
 * otherwise), so no argument is checked, fetched or refused by its name alone.
 * `id` is read by two kinds; a tool declares the one its ids are.
 */
export const TARGET_ARGS = { site: 'site_url', page: 'url', pages: 'urls', resource: 'id', annotation: 'id' } as const;
export type TargetKind = keyof typeof TARGET_ARGS;

/** A check of one argument: the value it names, or the sentence that refuses it (nothing was sent). */
export type Checked<T> = { readonly value: T; readonly refusal?: undefined } | { readonly refusal: string };

/**
 * What a call's arguments name at Google, for the account step: a property or
 * a page, matched over the accounts' sites.list by the one rule
 * (property-match.ts); a property add_site creates; a Site Verification
 * resource (and the property its site maps to, when it maps to one); or
 * arguments the site-access step refuses.
 */
export type Subject =
  | PropertySubject
  | { readonly kind: 'new'; readonly property: string }
  | { readonly kind: 'resource'; readonly id: string; readonly property?: string }
  | { readonly kind: 'refused' };

/**
 * A call's target, parsed once from its arguments by call/target.ts (pure:
 * no request, no store) before any step runs; every step reads this one.
 * Which fields exist follows from the target the tool declares (ToolSpec.target).
 */
export interface Target {
  readonly kinds: ReadonlySet<TargetKind>;
  /** site_url (or GSC_SITE_URL), normalised and checked against the caller's properties. */
  readonly site?: Checked<string>;
  /** url, inside the site when there is one, else inside an allowed property. */
  readonly page?: Checked<URL>;
  /** urls, each checked as `page`. */
  readonly pages?: readonly Checked<URL>[];
  /** The decoded id of a Site Verification resource (the site-access step fetches it). */
  readonly resourceId?: string;
  /** An annotation id and the property it names, checked like site_url. */
  readonly annotation?: Checked<AnnotationRef>;
  /** What the account step matches over the accounts' properties; undefined: the tool takes no property. */
  readonly subject?: Subject;
}

/** The connected Google account a call acts as, set once by the account step. */
export type ActingAccount =
  | {
      readonly kind: 'resolved';
      readonly googleSub: string;
      readonly googleEmail: string;
      /** The property the call's target resolved to (for a page, the property it belongs to). */
      readonly property?: string;
    }
  /** Admitted with the principal's grant; the tool runs over every account that covers it (list_sites). */
  | { readonly kind: 'admitted'; readonly googleSub: string; readonly googleEmail: string }
  /** The site-access step refuses the arguments: no account is chosen, and none may be used. */
  | { readonly kind: 'none' };

/**
 * Who a call is for and what it acts on, set by the steps of call/pipeline.ts
 * in their order and frozen at each: the caller and their access (the
 * transport), the target (the target step), the grant it was admitted with
 * (the admission step) and the acting Google account (the account step). Nothing writes a part twice.
 */
export interface CallScope {
  readonly caller: Caller;
  readonly access: Access;
  readonly target?: Target;
  /** Connected mode: the principal's grant the call was admitted with (the admission step; never a token). */
  readonly admitted?: ConnectedGrant;
  readonly account?: ActingAccount;
}
