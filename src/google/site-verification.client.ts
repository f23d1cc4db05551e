import type { APIRequestContext, createAPIRequest as CreateAPIRequest, GlobalOptions } from 'googleapis-common';

// Site Verification v1 has no per-API npm package; the only published client
// lives in the 242 MB `googleapis` monolith. This is the same thin shape the
// generator emits (googleapis-common's createAPIRequest, same URL templates, same
// percent-encoding of {id}), for the seven methods we call.

export interface WebResource {
  id?: string | null;
  site?: { type?: string | null; identifier?: string | null } | null;
  owners?: string[] | null;
}
export interface VerificationToken {
  method?: string | null;
  token?: string | null;
}
type Site = { type: string; identifier: string };

export class SiteVerificationClient {
  private readonly context: APIRequestContext;
  private readonly rootUrl: string;

  // createAPIRequest is passed in so that googleapis-common loads with the other clients, on first use.
  constructor(
    options: GlobalOptions,
    private readonly createAPIRequest: typeof CreateAPIRequest,
  ) {
    this.context = { _options: options };
    this.rootUrl = options.rootUrl ?? 'https://www.googleapis.com/';
  }

  getToken(body: { site: Site; verificationMethod: string }) {
    return this.request<VerificationToken>('POST', 'siteVerification/v1/token', {}, body);
  }
  insert(verificationMethod: string, body: { site: Site; owners?: string[] }) {
    return this.request<WebResource>('POST', 'siteVerification/v1/webResource', { verificationMethod }, body);
  }
  list() {
    return this.request<{ items?: WebResource[] }>('GET', 'siteVerification/v1/webResource', {});
  }
  get(id: string) {
    return this.request<WebResource>('GET', 'siteVerification/v1/webResource/{id}', { id }, undefined, ['id']);
  }
  update(id: string, body: WebResource) {
    return this.request<WebResource>('PUT', 'siteVerification/v1/webResource/{id}', { id }, body, ['id']);
  }
  patch(id: string, body: WebResource) {
    return this.request<WebResource>('PATCH', 'siteVerification/v1/webResource/{id}', { id }, body, ['id']);
  }
  delete(id: string) {
    return this.request<void>('DELETE', 'siteVerification/v1/webResource/{id}', { id }, undefined, ['id']);
  }

  private request<T>(method: string, path: string, params: Record<string, string>, requestBody?: unknown, pathParams: string[] = []) {
    return this.createAPIRequest<T>({
      options: { url: `${this.rootUrl}/${path}`.replace(/([^:]\/)\/+/g, '$1'), method: method },
      params: requestBody === undefined ? params : { ...params, requestBody },
      requiredParams: pathParams,
      pathParams,
      context: this.context,
    });
  }
}
