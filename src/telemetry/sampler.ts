import { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, type Sampler, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace';
import type { TelemetryConfig } from '../config/config-types.js';

/** OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG as the SDK specification defines them (the trace SDK itself reads no variable). */
export function samplerFor(config: Pick<TelemetryConfig, 'sampler' | 'samplerRatio'>): Sampler {
  switch (config.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(config.samplerRatio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.samplerRatio) });
  }
}
