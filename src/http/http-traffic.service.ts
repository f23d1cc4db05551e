import type { ServerResponse } from 'node:http';
import { Injectable } from '@nestjs/common';

/**
 * The MCP endpoint's traffic as shutdown sees it: whether new work is refused,
 * and how many POSTs are still being answered. A tool result is written after
 * the call itself returns, and must not be cut off by the shutdown.
 */
@Injectable()
export class HttpTraffic {
  private open = 0;
  private stopping = false;
  private settled?: () => void;

  get draining(): boolean {
    return this.stopping;
  }

  /** Responses of the MCP endpoint still open. */
  get openResponses(): number {
    return this.open;
  }

  /** Counts a response until it is closed. */
  track(res: ServerResponse): void {
    this.open++;
    res.once('close', () => {
      if (--this.open === 0) {
        this.settled?.();
      }
    });
  }

  /** Refuses new work; resolves once every tracked response is closed, or after timeoutMs. */
  drain(timeoutMs: number): Promise<void> {
    this.stopping = true;
    if (this.open === 0) {
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.settled = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
