import type { HookEvents, HookHandler, HookName } from './events';

export interface Disposable {
  dispose(): void;
}

export interface HookFailure {
  hook: HookName;
  error: unknown;
}

/**
 * The engine's event bus (spec 8). Handlers run one after another in
 * registration order. A handler that throws is reported through `onError` and
 * the default behaviour proceeds, as if that handler had returned nothing.
 */
export class HookBus {
  private readonly handlers = new Map<HookName, HookHandler<HookName>[]>();
  onError: (failure: HookFailure) => void;

  constructor(options: { onError?: (failure: HookFailure) => void } = {}) {
    this.onError = options.onError ?? (() => undefined);
  }

  on<K extends HookName>(hook: K, handler: HookHandler<K>): Disposable {
    const list = this.handlers.get(hook) ?? [];
    list.push(handler as unknown as HookHandler<HookName>);
    this.handlers.set(hook, list);
    return {
      dispose: () => {
        const l = this.handlers.get(hook);
        const i = l ? l.indexOf(handler as unknown as HookHandler<HookName>) : -1;
        if (l && i >= 0) l.splice(i, 1);
      },
    };
  }

  has(hook: HookName): boolean {
    return (this.handlers.get(hook)?.length ?? 0) > 0;
  }

  /**
   * Runs every handler in order and returns their results (a failed handler's
   * result is undefined). `stop` ends the chain early (e.g. on a cancel).
   */
  async emit<K extends HookName>(
    hook: K,
    event: HookEvents[K]['event'],
    stop: (result: HookEvents[K]['result']) => boolean = () => false,
  ): Promise<HookEvents[K]['result'][]> {
    const results: HookEvents[K]['result'][] = [];
    for (const handler of [...(this.handlers.get(hook) ?? [])]) {
      let result: HookEvents[K]['result'];
      try {
        result = (await (handler as unknown as HookHandler<K>)(event)) as HookEvents[K]['result'];
      } catch (error) {
        this.onError({ hook, error });
        result = undefined as HookEvents[K]['result'];
      }
      results.push(result);
      if (stop(result)) break;
    }
    return results;
  }
}
