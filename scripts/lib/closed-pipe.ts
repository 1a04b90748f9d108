/**
 * A reader that stops early (`npm run -s routes | head`) closes the pipe: the next write fails with
 * EPIPE, which is the reader's "enough", not an error of ours. Exit quietly instead of a stack trace.
 */
export function exitQuietlyOnClosedPipe(): void {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}
