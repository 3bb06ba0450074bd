/** The API VS Code injects into webviews (typed for the summary panel's state). */
interface VsCodeApi<State> {
  postMessage(message: unknown): void;
  getState(): State | undefined;
  setState(state: State): State;
}
declare function acquireVsCodeApi<State = unknown>(): VsCodeApi<State>;
