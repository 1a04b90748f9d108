/** A reason not to start that the user can act on: printed as one line, without a stack. */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}
