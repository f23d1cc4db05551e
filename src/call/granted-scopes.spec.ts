import { describe, expect, it } from '@jest/globals';
import type { ToolDeclaration } from '../policy/tool-declaration.js';
import { grantCovers, missingScopes, permissionName } from './granted-scopes.js';

const S = 'https://www.googleapis.com/auth/';
const read: ToolDeclaration = { name: 'list_sites', access: 'read', apis: ['searchconsole'] };
const write: ToolDeclaration = { name: 'submit_sitemap', access: 'write', apis: ['searchconsole'] };
const addSite: ToolDeclaration = { name: 'add_site', access: 'write', apis: ['searchconsole', 'siteverification'] };
const local: ToolDeclaration = { name: 'no_google', access: 'read', apis: [] };

describe('granted scopes', () => {
  it('a full scope covers its read-only form, never the other way round', () => {
    expect(missingScopes(read, [`${S}webmasters`])).toEqual([]);
    expect(missingScopes(read, [`${S}webmasters.readonly`])).toEqual([]);
    expect(missingScopes(write, [`${S}webmasters.readonly`])).toEqual([`${S}webmasters`]);
  });

  it('names every scope a tool lacks, and a tool without Google needs none', () => {
    expect(missingScopes(addSite, ['openid', 'email'])).toEqual([`${S}webmasters`, `${S}siteverification`]);
    expect(grantCovers(addSite, [`${S}webmasters`])).toBe(false);
    expect(grantCovers(addSite, [`${S}webmasters`, `${S}siteverification`])).toBe(true);
    expect(grantCovers(local, [])).toBe(true);
  });

  it('names a permission as the consent screen does, with its scope', () => {
    expect(permissionName(`${S}webmasters`)).toBe(`“View and manage Search Console data for your verified sites” (${S}webmasters)`);
    expect(permissionName(`${S}unknown`)).toBe(`${S}unknown`);
  });
});
