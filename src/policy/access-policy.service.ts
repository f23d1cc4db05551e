import { Inject, Injectable } from '@nestjs/common';
import { CONFIG, type Config } from '../config/config.js';
import { type Access, resolvePolicy } from './policy-resolution.js';
import type { Caller } from '../identity/caller.js';
import { RegisteredTools } from './registered-tools.js';
import { withAppOnly } from './tool-declaration.js';

const REMEMBERED_CALLERS = 1_000;

/**
 * What one caller may use: the server-wide tools and GSC_ALLOWED_SITES,
 * narrowed by the first matching rule of the policy (PRODUCT §8b). The
 * server factory registers only these tools for the caller, so any other is
 * answered exactly as an unknown tool; the guard and the listings use these
 * sites wherever GSC_ALLOWED_SITES applies.
 */
@Injectable()
export class AccessPolicy {
  private readonly remembered = new Map<string, Access>();

  constructor(
    @Inject(CONFIG) private readonly config: Config,
    private readonly registry: RegisteredTools,
  ) {}

  accessFor(caller: Caller): Access {
    const key = `${caller.principal}\0${[...caller.groups].sort().join('\0')}`;
    let access = this.remembered.get(key);
    if (!access) {
      const declared = this.registry.tools.map((t) => t.spec);
      // Rules name the model's tools; a view's app-only tool is allowed with the tool whose view calls it.
      const resolved = resolvePolicy(this.config.policy, caller, {
        registered: declared.filter((t) => !t.appOnlyFor),
        allowedSites: this.config.allowedSites,
      });
      access = { ...resolved, tools: withAppOnly(resolved.tools, declared) };
      if (this.remembered.size >= REMEMBERED_CALLERS) {
        this.remembered.delete(this.remembered.keys().next().value!);
      }
      this.remembered.set(key, access);
    }
    return access;
  }
}
