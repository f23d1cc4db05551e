import * as z from 'zod';

// What the official conformance suite's server scenarios expect the fixtures to
// carry (@modelcontextprotocol/conformance, its everything-server): a 1×1 red
// PNG, a minimal WAV file, and the suite's own wording where a check reads it.

export const RED_PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

export const SILENT_WAV = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';

/** The fixtures return content blocks, not data: their structured half is empty. */
export const NoOutput = z.object({});

/** The logger name the fixtures' notifications/message carry. */
export const LOGGER = 'conformance-fixtures';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
