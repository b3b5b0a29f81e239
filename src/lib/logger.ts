/** A tiny logger: request lines and errors on stderr, silenced with --quiet. */
export interface Logger {
  info(message: string): void;
  error(message: string): void;
}

export function createLogger(options: { quiet?: boolean; write?: (line: string) => void } = {}): Logger {
  const write = options.write ?? ((line: string) => process.stderr.write(line + "\n"));
  return {
    info: (message) => {
      if (!options.quiet) write(message);
    },
    error: (message) => write(message),
  };
}

/** A logger that keeps lines in memory: tests read what would have been printed. */
export function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (m) => lines.push(m), error: (m) => lines.push(m) };
}
