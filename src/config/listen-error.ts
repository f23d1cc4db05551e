import { ConfigError } from './config-error.js';

/**
 * A bind that fails is a configuration problem with a one-line answer, not a
 * stack: the server and `npm run demo` both say it this way.
 */
export function listenError(error: unknown, http: { readonly host: string; readonly port: number }): ConfigError | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const { host, port } = http;
  // Both were validated (a port number, an IP address or host name), so they are shown as they are.
  const where = `GSC_HTTP_PORT ${port} on ${host}`;
  switch (code) {
    case 'EADDRINUSE':
      return new ConfigError(`${where} is already in use; stop the other server or choose another port (GSC_HTTP_PORT=0 picks a free one)`);
    case 'EACCES':
      return new ConfigError(`${where} cannot be bound without privileges (EACCES); choose a port above 1023`);
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new ConfigError(
        `GSC_HTTP_HOST ${host} is not an address of this machine (${code}); bind 127.0.0.1, 0.0.0.0 or one of its own addresses`,
      );
    default:
      return undefined;
  }
}
