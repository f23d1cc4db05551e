import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '../config/config-error.js';
import { parseToolPatterns } from '../config/tool-patterns.js';
import type { GoogleApi, ToolAccess, ToolDeclaration } from './tool-declaration.js';
import { scopesFor, selectTools } from './tool-selection.js';

const tool = (name: string, access: ToolAccess, apis: GoogleApi[] = ['searchconsole'], essential = false): ToolDeclaration => ({
  name,
  access,
  apis,
  essential,
});

const declared = [
  tool('list_sites', 'read', ['searchconsole'], true),
  tool('get_site', 'read', ['searchconsole'], true),
  tool('add_site', 'write'),
  tool('delete_site', 'destructive'),
  tool('list_sitemaps', 'read', ['searchconsole'], true),
  tool('request_indexing', 'write', ['indexing']),
  tool('get_indexing_status', 'read', ['indexing']),
  tool('list_verified_sites', 'read', ['siteverification']),
];
const allow = (v: string) => parseToolPatterns('GSC_ALLOW_TOOLS', v);
const deny = (v: string) => parseToolPatterns('GSC_DENY_TOOLS', v) ?? [];
const names = (s: { registered: readonly ToolDeclaration[] }) => s.registered.map((t) => t.name);
const WM = 'https://www.googleapis.com/auth/webmasters';

describe('selectTools', () => {
  it('registers everything by default and asks for every scope family', () => {
    const s = selectTools(declared, { readOnly: false, denyTools: [] });
    expect(names(s)).toHaveLength(declared.length);
    expect(s.scopes).toEqual([WM, 'https://www.googleapis.com/auth/indexing', 'https://www.googleapis.com/auth/siteverification']);
  });

  it('read-only drops every write and destructive tool and narrows the Search Console scope', () => {
    const s = selectTools(declared, { readOnly: true, denyTools: [] });
    expect(names(s)).not.toEqual(expect.arrayContaining(['add_site']));
    expect(names(s)).not.toContain('delete_site');
    expect(names(s)).not.toContain('request_indexing');
    expect(s.scopes).toContain(`${WM}.readonly`);
    expect(s.scopes).not.toContain(WM);
    expect(s.excluded).toContainEqual({ name: 'add_site', reason: 'write tool, and GSC_READ_ONLY=true' });
  });

  it('essential selects the curated read tools', () => {
    const s = selectTools(declared, { readOnly: false, allowTools: allow('essential'), denyTools: [] });
    expect(names(s)).toEqual(['get_site', 'list_sitemaps', 'list_sites']);
    expect(s.scopes).toEqual([`${WM}.readonly`]);
  });

  it('allow prefixes and exact names, deny subtracted afterwards', () => {
    const s = selectTools(declared, { readOnly: false, allowTools: allow('list_*,get_site'), denyTools: deny('list_verified_sites') });
    expect(names(s)).toEqual(['get_site', 'list_sitemaps', 'list_sites']);
  });

  it('denying the indexing tools removes the indexing scope', () => {
    const s = selectTools(declared, { readOnly: false, denyTools: deny('request_indexing,get_indexing_status') });
    expect(s.scopes).not.toContain('https://www.googleapis.com/auth/indexing');
  });

  it('denying every Search Console write asks for webmasters.readonly', () => {
    const s = selectTools(declared, { readOnly: false, denyTools: deny('add_site,delete_site') });
    expect(s.scopes[0]).toBe(`${WM}.readonly`);
  });

  it('refuses an entry that matches nothing, naming it and the real tools', () => {
    expect(() => selectTools(declared, { readOnly: false, allowTools: allow('list_sitez'), denyTools: [] })).toThrow(
      /GSC_ALLOW_TOOLS entry "list_sitez" matches no tool; the tools are: add_site, delete_site/,
    );
  });

  it('refuses a write tool named under read-only, saying read-only is why', () => {
    expect(() => selectTools(declared, { readOnly: true, allowTools: allow('add_site'), denyTools: [] })).toThrow(
      /add_site, a write tool.*GSC_READ_ONLY=true/,
    );
    expect(() => selectTools(declared, { readOnly: true, allowTools: allow('request_*'), denyTools: [] })).toThrow(
      /matches only write tools \(request_indexing\)/,
    );
  });

  it('a prefix that matches reads and writes is fine under read-only', () => {
    const s = selectTools(declared, { readOnly: true, allowTools: allow('*'), denyTools: [] });
    expect(names(s)).toContain('list_sites');
    expect(names(s)).not.toContain('add_site');
  });

  it('refuses filters that leave nothing', () => {
    expect(() => selectTools(declared, { readOnly: false, denyTools: deny('*') })).toThrow(ConfigError);
  });
});

describe('scopesFor', () => {
  it('is empty for no tools', () => expect(scopesFor([])).toEqual([]));
});
