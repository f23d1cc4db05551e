import type {
  APIRequestContext,
  createAPIRequest as CreateAPIRequest,
  GaxiosResponseWithHTTP2,
  GlobalOptions,
  MethodOptions,
} from 'googleapis-common';

// The Indexing API v3 client for the two methods we call, in the shape the
// generator emits (googleapis-common's createAPIRequest, the same URL templates,
// the same query encoding). @googleapis/indexing 6 is the latest published
// package and is built on googleapis-common 8, which brought a second
// google-auth-library (10) and gaxios (7) into every install.

export interface UrlNotification {
  url?: string | null;
  type?: string | null;
  notifyTime?: string | null;
}

export interface UrlNotificationMetadata {
  url?: string | null;
  latestUpdate?: UrlNotification;
  latestRemove?: UrlNotification;
}

export interface PublishUrlNotificationResponse {
  urlNotificationMetadata?: UrlNotificationMetadata;
}

const DEFAULT_ROOT_URL = 'https://indexing.googleapis.com/';

export class IndexingClient {
  private readonly context: APIRequestContext;

  readonly urlNotifications = {
    /** POST /v3/urlNotifications:publish */
    publish: (params: { requestBody: UrlNotification }, options: MethodOptions = {}) =>
      this.request<PublishUrlNotificationResponse>('POST', 'v3/urlNotifications:publish', params, options),
    /** GET /v3/urlNotifications/metadata?url=… */
    getMetadata: (params: { url: string }, options: MethodOptions = {}) =>
      this.request<UrlNotificationMetadata>('GET', 'v3/urlNotifications/metadata', params, options),
  };

  // createAPIRequest is passed in so that googleapis-common loads with the other clients, on first use.
  constructor(
    options: GlobalOptions,
    private readonly createAPIRequest: typeof CreateAPIRequest,
  ) {
    this.context = { _options: options };
  }

  private request<T>(method: 'GET' | 'POST', path: string, params: object, options: MethodOptions): Promise<GaxiosResponseWithHTTP2<T>> {
    const rootUrl = options.rootUrl ?? DEFAULT_ROOT_URL;
    return this.createAPIRequest<T>({
      options: { url: `${rootUrl}/${path}`.replace(/([^:]\/)\/+/g, '$1'), method, apiVersion: '', ...options },
      params,
      requiredParams: [],
      pathParams: [],
      context: this.context,
    });
  }
}
