/** Seconds per suite path (relative to the repository) for suites jest has no timing of yet. */
export declare const KNOWN: Readonly<Record<string, number>>;

interface SequencedTest {
  readonly path: string;
  readonly context: unknown;
}

export default class SlowFirstSequencer {
  constructor(options: { contexts: unknown[]; globalConfig: unknown });
  sort<T extends SequencedTest>(tests: T[]): T[];
}
