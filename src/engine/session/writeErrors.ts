/** The file changed in a way that makes the planned append wrong. Nothing was written. */
export class StaleSessionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StaleSessionError';
  }
}
