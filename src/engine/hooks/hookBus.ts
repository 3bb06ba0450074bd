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
/** Each hook's handlers, typed by hook (a mapped type, so `handlers[hook]` keeps the hook's types). */
type HandlerLists = { [K in HookName]: HookHandler<K>[] };

export class HookBus {
  private readonly handlers: HandlerLists = {
    session_before_compact: [],
    session_compact: [],
    session_compact_failed: [],
    session_before_tree: [],
    session_tree: [],
  };
  onError: (failure: HookFailure) => void;

  constructor(options: { onError?: (failure: HookFailure) => void } = {}) {
    this.onError = options.onError ?? (() => undefined);
  }

  on<K extends HookName>(hook: K, handler: HookHandler<K>): Disposable {
    const list: HookHandler<K>[] = this.handlers[hook];
    list.push(handler);
    return {
      dispose: () => {
        const i = list.indexOf(handler);
        if (i >= 0) list.splice(i, 1);
      },
    };
  }

  has(hook: HookName): boolean {
    return this.handlers[hook].length > 0;
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
    const handlers: HookHandler<K>[] = this.handlers[hook];
    for (const handler of [...handlers]) {
      let result: HookEvents[K]['result'];
      try {
        result = await handler(event);
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
