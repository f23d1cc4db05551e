import type { Config } from './config.js';
import { type SettingSpec, SETTINGS } from './settings-table.js';

type View = { [key: string]: unknown };

/**
 * The effective configuration as /admin/config shows it, built from each
 * row's `show` of the configuration table: a setting cannot be missing from it
 * without its row saying where it goes. Secrets appear only as set/unset;
 * credential settings are left to the credential summary.
 */
export function configView(config: Config): View {
  const view: View = {};
  for (const spec of SETTINGS as readonly SettingSpec[]) {
    if (spec.show === 'credential') {
      continue;
    }
    const value = spec.show.value(config);
    if (value === undefined) {
      continue;
    }
    const path = spec.show.at.split('.');
    let node = view;
    for (const key of path.slice(0, -1)) {
      node = (node[key] ??= {}) as View;
    }
    node[path[path.length - 1]] = value;
  }
  return view;
}
