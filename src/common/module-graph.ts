import { type DynamicModule, Module, type Type } from '@nestjs/common';

/** Modules, already built (no Promise): exports can name only those. */
type Imports = (DynamicModule | Type)[];

/** Holds what every module of one instance shares; see ModuleGraph. */
@Module({})
class SharedModule {}

/**
 * The modules of one SearchConsoleMcpModule (or stdio) instance, wired without
 * @Global. Nest shares a provider with every module only through @Global, and a
 * global module's exports reach every module of a host app too (CONFIG, the
 * state store, the observer, the clock in the company's own modules). Instead,
 * `shared` re-exports those, and each module says by name what it imports: its
 * static `in(graph)` returns `graph.module(Self, () => [...])`, which always
 * adds `shared`. The same object comes back for the same class, and Nest tells
 * dynamic modules apart by reference, so each module is built once per graph.
 */
export class ModuleGraph {
  readonly shared: DynamicModule;
  private readonly made = new Map<Type, DynamicModule>();

  /** `modules`: the ones whose exports every module of this graph may inject (configuration, state, metrics). */
  constructor(modules: Imports) {
    this.shared = { module: SharedModule, imports: modules, exports: modules };
  }

  /** The one instance of `feature` in this graph, importing `shared` and what `imports` lists. */
  module(feature: Type, imports: () => Imports = () => []): DynamicModule {
    let made = this.made.get(feature);
    if (!made) {
      made = { module: feature, imports: [this.shared, ...imports()] };
      this.made.set(feature, made);
    }
    return made;
  }
}
